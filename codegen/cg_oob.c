/* codegen/cg_oob.c: map updates inside while loops, out of line.
 *
 * The verifier walks a bounded loop once per iteration, and every map
 * update inlined in its body costs tens of instructions and a branch or two
 * per walk: a 1,000-iteration loop that updates a map went over the
 * million-instruction limit, a 2,500-iteration one over the 8,192 pending
 * branches. Inside a while loop, `@m[k] = agg(v)` and `@m[k] = v` therefore
 * call a global BPF function per map (sp_upd_agg_NAME(key, v),
 * sp_upd_put_NAME(key, val)), and so do reads of integer values
 * (sp_upd_get_NAME(key), which `@m[k]++` and `@x = @x + 1` use): the verifier checks a global function once,
 * on its own, and each iteration costs the call. The key (and the value)
 * are built by the caller, as inline code does, and passed by pointer; the
 * BTF of the parameters (a struct of the key's size) tells the verifier how
 * many bytes the pointer covers. The hist bucket is computed in the
 * function, so its branches are out of the loop too. Like sp_unwind_global
 * (codegen.c: SP_GLOBAL_HELPERS), these functions stay external and
 * noinline.
 */
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg.h"

/* struct { u8 b[size]; } for BTF: a pointer parameter's size. */
static LLVMMetadataRef di_bytes(struct cg *g, const char *name, uint32_t size)
{
	LLVMMetadataRef u8 = LLVMDIBuilderCreateBasicType(g->D, "u8", 2, 8, 0x08, LLVMDIFlagZero);
	LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(g->D, 0, size);
	LLVMMetadataRef arr = LLVMDIBuilderCreateArrayType(g->D, (uint64_t)size * 8, 8, u8, &sub, 1);
	LLVMMetadataRef mem = LLVMDIBuilderCreateMemberType(g->D, g->file, "b", 1, g->file, 0,
							    (uint64_t)size * 8, 8, 0, LLVMDIFlagZero,
							    arr);
	LLVMMetadataRef st = LLVMDIBuilderCreateStructType(g->D, g->file, name, strlen(name), g->file,
							   0, (uint64_t)size * 8, 64, LLVMDIFlagZero,
							   NULL, &mem, 1, 0, NULL, "", 0);

	return LLVMDIBuilderCreatePointerType(g->D, st, 64, 0, 0, "", 0);
}

struct saved {
	LLVMBuilderRef B;
	LLVMValueRef fn;
	LLVMMetadataRef sp;
};

/* Starts function NAME(ptr key[, SECOND second]) in a builder of its own;
 * the caller's builder state is kept in *s. Returns the function. A
 * parameter the body would not use is left out: LLVM passes poison for a
 * dead one, which the verifier rejects as an uninitialized register. */
static LLVMValueRef oob_begin(struct cg *g, struct saved *s, const char *name, struct cg_map *m,
			      int nparams, bool second_ptr, struct sp_span span)
{
	LLVMTypeRef params[2] = { g->ptr, second_ptr ? g->ptr : g->i64 };
	bool get = nparams == 1 && second_ptr; /* sp_upd_get_NAME(key): returns the value */
	LLVMTypeRef fty = LLVMFunctionType(get ? g->i64 : g->i32, params, (unsigned)nparams, 0);
	unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
	unsigned nu = LLVMGetEnumAttributeKindForName("nounwind", 8);
	char tname[160];
	LLVMMetadataRef di[3], fnty;
	LLVMValueRef f = LLVMAddFunction(g->M, name, fty);
	size_t nlen = strlen(name);

	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->C, ni, 0));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->C, nu, 0));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->C, "no-inline-line-tables", 21, "", 0));
	snprintf(tname, sizeof(tname), "%s_key", name);
	di[0] = get ? LLVMDIBuilderCreateBasicType(g->D, "long", 4, 64, 0x05, LLVMDIFlagZero)
		    : g->di_int;
	di[1] = di_bytes(g, tname, m->bpf_key_size);
	snprintf(tname, sizeof(tname), "%s_val", name);
	di[2] = second_ptr ? di_bytes(g, tname, m->value_size)
			   : LLVMDIBuilderCreateBasicType(g->D, "long", 4, 64, 0x05, LLVMDIFlagZero);
	fnty = LLVMDIBuilderCreateSubroutineType(g->D, g->file, di, (unsigned)nparams + 1,
						 LLVMDIFlagZero);
	*s = (struct saved){ .B = g->B, .fn = g->fn, .sp = g->sp };
	g->fn = f;
	g->sp = LLVMDIBuilderCreateFunction(g->D, g->file, name, nlen, name, nlen, g->file, 1, fnty,
					    0, 1, 1, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(f, g->sp);
	LLVMDIBuilderCreateParameterVariable(g->D, g->sp, "key", 3, 1, g->file, 1, di[1], 1,
					     LLVMDIFlagZero);
	if (nparams > 1)
		LLVMDIBuilderCreateParameterVariable(g->D, g->sp, second_ptr ? "val" : "v",
						     second_ptr ? 3 : 1, 2, g->file, 1, di[2], 1,
						     LLVMDIFlagZero);
	g->B = LLVMCreateBuilderInContext(g->C);
	LLVMPositionBuilderAtEnd(g->B, cg_block(g, "entry"));
	cg_loc(g, span);
	return f;
}

/* Returns 0 from the function being built and goes back to the caller's. */
static void oob_end(struct cg *g, struct saved *s)
{
	LLVMBuildRet(g->B, LLVMConstInt(LLVMGetReturnType(LLVMGlobalGetValueType(g->fn)), 0, 0));
	LLVMDisposeBuilder(g->B);
	g->B = s->B;
	g->fn = s->fn;
	g->sp = s->sp;
}

/* Continues in a new block when key (the first parameter) is not NULL:
 * the verifier hands a global function its pointers as maybe-NULL. */
static void need_key(struct cg *g, LLVMValueRef f)
{
	LLVMBasicBlockRef ok = cg_block(g, "key"), out = cg_block(g, "null");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(g->C);

	LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, LLVMGetParam(f, 0), ""), out, ok);
	LLVMPositionBuilderAtEnd(b, out);
	LLVMSetCurrentDebugLocation2(b, LLVMGetCurrentDebugLocation2(g->B));
	LLVMBuildRet(b, LLVMConstInt(LLVMGetReturnType(LLVMGlobalGetValueType(f)), 0, 0));
	LLVMDisposeBuilder(b);
	LLVMPositionBuilderAtEnd(g->B, ok);
}

/* sp_upd_agg_NAME(key, v), count's sp_upd_agg_NAME(key): the bucket (hist,
 * lhist), upsert, one step. */
static LLVMValueRef agg_fn(struct cg *g, struct cg_map *m, struct sp_span span)
{
	char name[128];
	struct saved s;
	LLVMValueRef f, key, v, init;

	snprintf(name, sizeof(name), "sp_upd_agg_%s", m->bpf_name);
	f = oob_begin(g, &s, name, m, m->agg == SP_AGG_COUNT ? 1 : 2, false, span);
	key = LLVMGetParam(f, 0);
	v = m->agg == SP_AGG_COUNT ? cg_u64(g, 0) : LLVMGetParam(f, 1);
	init = LLVMBuildAlloca(g->B, LLVMArrayType(g->i8, m->value_size), "init");
	LLVMSetAlignment(init, 8);
	need_key(g, f);
	if (m->agg == SP_AGG_HIST || m->agg == SP_AGG_LHIST)
		LLVMSetAlignment(LLVMBuildStore(g->B, cg_agg_bucket(g, m, v),
						cg_gep(g, key, m->bpf_key_size - 8)), 8);
	if (m->agg == SP_AGG_TSERIES)
		cg_tseries_update(g, m, key, init, v);
	else
		cg_agg_upsert(g, m, key, init, v, NULL, NULL);
	oob_end(g, &s);
	return f;
}

/* sp_upd_put_NAME(key, val): a plain value stored (a drop when full). */
static LLVMValueRef put_fn(struct cg *g, struct cg_map *m, struct sp_span span)
{
	char name[128];
	struct saved s;
	LLVMValueRef f, args[4];
	LLVMBasicBlockRef ok, out;

	snprintf(name, sizeof(name), "sp_upd_put_%s", m->bpf_name);
	f = oob_begin(g, &s, name, m, 2, true, span);
	need_key(g, f);
	ok = cg_block(g, "val");
	out = cg_block(g, "nullval");
	LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, LLVMGetParam(f, 1), ""), out, ok);
	LLVMPositionBuilderAtEnd(g->B, ok);
	args[0] = m->gv;
	args[1] = LLVMGetParam(f, 0);
	args[2] = LLVMGetParam(f, 1);
	args[3] = m->drops_gv;
	cg_call_fn(g, "sp_map_put", args, 4);
	LLVMBuildBr(g->B, out);
	LLVMPositionBuilderAtEnd(g->B, out);
	oob_end(g, &s);
	return f;
}

/* sp_upd_get_NAME(key): an integer value, 0 when the key is missing (the
 * lookup's NULL branch is out of the loop too). */
static LLVMValueRef get_fn(struct cg *g, struct cg_map *m, const struct sp_type *t,
			   struct sp_span span)
{
	char name[128];
	struct saved s;
	LLVMValueRef f, args[2], p;
	LLVMBasicBlockRef have, none;

	snprintf(name, sizeof(name), "sp_upd_get_%s", m->bpf_name);
	f = oob_begin(g, &s, name, m, 1, true, span);
	need_key(g, f);
	args[0] = m->gv;
	args[1] = LLVMGetParam(f, 0);
	p = cg_call_helper(g, BPF_FUNC_map_lookup_elem, g->ptr, args, 2);
	have = cg_block(g, "found");
	none = cg_block(g, "missing");
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, p, ""), have, none);
	LLVMPositionBuilderAtEnd(g->B, have);
	LLVMBuildRet(g->B, cg_load_int(g, p, t));
	LLVMPositionBuilderAtEnd(g->B, none);
	oob_end(g, &s);
	return f;
}

LLVMValueRef cg_oob_get(struct cg *g, struct cg_map *m, LLVMValueRef key,
			const struct sp_type *t)
{
	if (!m->oob_get)
		m->oob_get = get_fn(g, m, t, m->span);
	return LLVMBuildCall2(g->B, LLVMGlobalGetValueType(m->oob_get), m->oob_get, &key, 1, "");
}

bool cg_oob_wanted(const struct cg *g)
{
	return g->nloops > g->loop_floor; /* a for loop's body is a function of its own */
}

static void call(struct cg *g, LLVMValueRef f, LLVMValueRef a, LLVMValueRef b)
{
	LLVMValueRef args[2] = { a, b };

	LLVMBuildCall2(g->B, LLVMGlobalGetValueType(f), f, args, LLVMCountParams(f), "");
}

void cg_oob_agg(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef v,
		struct sp_span span)
{
	if (!m->oob_agg)
		m->oob_agg = agg_fn(g, m, span);
	call(g, m->oob_agg, key, v);
}

void cg_oob_put(struct cg *g, struct cg_map *m, LLVMValueRef key, LLVMValueRef val,
		struct sp_span span)
{
	if (!m->oob_put)
		m->oob_put = put_fn(g, m, span);
	call(g, m->oob_put, key, val);
}
