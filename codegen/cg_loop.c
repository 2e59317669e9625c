/* codegen/cg_loop.c: bpftrace 0.27's for loops, each body a BPF callback.
 *
 *   for ($kv : @m) { ... }    bpf_for_each_map_elem(@m, body, &frame, 0)  (Linux 5.13)
 *   for ($i : a..b) { ... }   bpf_loop(b - a, body, &frame, 0)            (Linux 5.17)
 *
 * The verifier checks a callback once, not once per iteration, so a loop
 * over a whole map or a million integers costs what one pass costs. The
 * body is a function of its own (internal, never inlined: the kernel calls
 * it), with its own 512-byte frame. It reaches the probe's state through
 * the frame its caller passes, a stack array of 8-byte slots:
 *
 *   [0] the probe's ctx          (arg0, ustack ... work inside the body)
 *   [1] scratch memory for the body, after all of the caller's
 *   [2] set to 1 by `return` in the body: the caller returns too
 *   [3] the range's start
 *   [4 + i] a pointer to each variable of the probe the body uses
 *
 * The verifier follows pointers spilled to a caller's stack, so the body
 * reads and writes the probe's variables in place. `break` returns 1 from
 * the callback (the helper stops), `continue` and the body's end return 0.
 * A map's value is read as user space prints it: an aggregation is merged
 * across CPUs (sp_percpu_read), a plain value copied.
 */
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

enum { SLOT_CTX, SLOT_SCRATCH, SLOT_RETURN, SLOT_START, SLOT_VARS };

/* The variables of the probe a loop body uses: one VAR node per id, in
 * id order. Loop variables of loops inside the body are the inner loops'
 * own. */
struct for_vars {
	const struct sp_node **by_id; /* g->nvars entries */
	bool *inner;
	int n;
};

static void find_vars(struct for_vars *v, const struct sp_node *n)
{
	if (!n)
		return;
	if (n->kind == SP_N_FOR && n->ival >= 0)
		v->inner[n->ival] = true;
	if (n->kind == SP_N_VAR && n->scope_id >= 0 && !v->by_id[n->scope_id])
		v->by_id[n->scope_id] = n;
	find_vars(v, n->a);
	find_vars(v, n->b);
	find_vars(v, n->c);
	for (int i = 0; i < n->list.len; i++)
		find_vars(v, n->list.items[i]);
}

/* Per-function state of the code generator, kept while a body is made. */
struct fn_state {
	LLVMValueRef fn, ctx, scratch, tmp_base;
	LLVMValueRef *vars, *child_bases;
	const struct sp_type **var_types;
	LLVMMetadataRef sp;
	LLVMBasicBlockRef entry, init_bb, ret_bb, at_b, at_ab, at_ib;
	LLVMBasicBlockRef brk[CG_MAX_LOOPS], cont[CG_MAX_LOOPS];
	int nloops, loop_floor, ntemps, nchild, capchild;
	uint32_t var_bytes, tmp_off, tmp_max, child_need;
};

static void fn_save(struct cg *g, struct fn_state *s)
{
	s->fn = g->fn, s->ctx = g->ctx, s->scratch = g->scratch, s->tmp_base = g->tmp_base;
	s->vars = g->vars, s->var_types = g->var_types, s->sp = g->sp;
	s->child_bases = g->child_bases, s->nchild = g->nchild, s->capchild = g->capchild;
	s->entry = g->entry, s->init_bb = g->init_bb, s->ret_bb = g->ret_bb;
	s->at_b = LLVMGetInsertBlock(g->B);
	s->at_ab = LLVMGetInsertBlock(g->AB);
	s->at_ib = LLVMGetInsertBlock(g->IB);
	memcpy(s->brk, g->brk, sizeof(s->brk));
	memcpy(s->cont, g->cont, sizeof(s->cont));
	s->nloops = g->nloops, s->loop_floor = g->loop_floor, s->ntemps = g->ntemps;
	s->var_bytes = g->var_bytes, s->tmp_off = g->tmp_off, s->tmp_max = g->tmp_max;
	s->child_need = g->child_need;
	g->child_bases = NULL, g->nchild = g->capchild = 0;
	g->var_bytes = g->tmp_off = g->tmp_max = g->child_need = 0;
	g->vars = calloc((size_t)g->nvars + 1, sizeof(*g->vars));
	g->var_types = calloc((size_t)g->nvars + 1, sizeof(*g->var_types));
}

static void fn_restore(struct cg *g, const struct fn_state *s)
{
	free(g->vars);
	free(g->var_types);
	free(g->child_bases);
	g->fn = s->fn, g->ctx = s->ctx, g->scratch = s->scratch, g->tmp_base = s->tmp_base;
	g->vars = s->vars, g->var_types = s->var_types, g->sp = s->sp;
	g->child_bases = s->child_bases, g->nchild = s->nchild, g->capchild = s->capchild;
	g->entry = s->entry, g->init_bb = s->init_bb, g->ret_bb = s->ret_bb;
	LLVMPositionBuilderAtEnd(g->B, s->at_b);
	LLVMPositionBuilderAtEnd(g->AB, s->at_ab);
	LLVMPositionBuilderAtEnd(g->IB, s->at_ib);
	memcpy(g->brk, s->brk, sizeof(s->brk));
	memcpy(g->cont, s->cont, sizeof(s->cont));
	g->nloops = s->nloops, g->loop_floor = s->loop_floor, g->ntemps = s->ntemps;
	g->var_bytes = s->var_bytes, g->tmp_off = s->tmp_off, g->tmp_max = s->tmp_max;
	g->child_need = s->child_need;
}

static LLVMValueRef slot(struct cg *g, LLVMBuilderRef b, LLVMValueRef frame, int i)
{
	LLVMValueRef idx = cg_u64(g, (uint64_t)i);

	return LLVMBuildGEP2(b, g->i64, frame, &idx, 1, "");
}

/* A pointer the body reads from its frame: 8-aligned, as every buffer is. */
static LLVMValueRef load_ptr(struct cg *g, LLVMValueRef frame, int i, const char *name)
{
	LLVMValueRef p = LLVMBuildLoad2(g->AB, g->ptr, slot(g, g->AB, frame, i), name);
	unsigned kind = LLVMGetMDKindIDInContext(g->C, "sp.aligned", 10);

	LLVMSetMetadata(p, kind, LLVMMDNodeInContext(g->C, NULL, 0));
	return p;
}

/* The callback's function, its debug info and its four blocks. */
static LLVMValueRef body_fn(struct cg *g, const struct sp_node *n, bool range)
{
	static const char *const pnames[4] = { "map", "key", "value", "frame" };
	LLVMTypeRef ps[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMMetadataRef dp[5];
	unsigned nu = LLVMGetEnumAttributeKindForName("nounwind", 8);
	unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
	uint32_t line = 1, col = 1;
	char name[48];
	int np = range ? 2 : 4;
	LLVMValueRef f;

	if (range)
		ps[0] = g->i64;
	snprintf(name, sizeof(name), "sp_for_%d", g->nforloops++);
	f = LLVMAddFunction(g->M, name, LLVMFunctionType(g->i64, ps, (unsigned)np, 0));
	LLVMSetLinkage(f, LLVMInternalLinkage);
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->C, nu, 0));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->C, ni, 0));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateStringAttribute(g->C, "no-inline-line-tables", 21, "", 0));
	if (g->src)
		sp_source_linecol(g->src, n->span.begin, &line, &col);
	dp[0] = LLVMDIBuilderCreateBasicType(g->D, "long", 4, 64, 0x05, LLVMDIFlagZero);
	dp[1] = range ? dp[0] : g->di_voidp;
	for (int i = 2; i <= np; i++)
		dp[i] = g->di_voidp;
	g->fn = f;
	g->sp = LLVMDIBuilderCreateFunction(g->D, g->file, name, strlen(name), name, strlen(name),
					    g->file, line,
					    LLVMDIBuilderCreateSubroutineType(g->D, g->file, dp,
									      (unsigned)np + 1,
									      LLVMDIFlagZero),
					    1, 1, line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(f, g->sp);
	for (int i = 0; i < np; i++) { /* the kernel wants every argument named in BTF */
		const char *an = range ? (i ? "frame" : "index") : pnames[i];

		LLVMDIBuilderCreateParameterVariable(g->D, g->sp, an, strlen(an), (unsigned)i + 1,
						     g->file, line, dp[i + 1], 1, LLVMDIFlagZero);
	}
	g->entry = cg_block(g, "entry");
	g->init_bb = cg_block(g, "init");
	LLVMPositionBuilderAtEnd(g->AB, g->entry);
	LLVMPositionBuilderAtEnd(g->IB, g->init_bb);
	LLVMPositionBuilderAtEnd(g->B, cg_block(g, "body"));
	cg_loc(g, n->span);
	return f;
}

/* return 1 (stop) or 0 (next) from the body, after setting the caller's
 * return flag for `return`. */
static LLVMBasicBlockRef ret_block(struct cg *g, LLVMValueRef frame, int v, bool flag)
{
	LLVMBasicBlockRef bb = cg_block(g, v ? (flag ? "return" : "break") : "next");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(g->C);

	LLVMPositionBuilderAtEnd(b, bb);
	LLVMSetCurrentDebugLocation2(b, LLVMGetCurrentDebugLocation2(g->B));
	if (flag)
		LLVMBuildStore(b, cg_u64(g, 1), slot(g, b, frame, SLOT_RETURN));
	LLVMBuildRet(b, cg_u64(g, (uint64_t)v));
	LLVMDisposeBuilder(b);
	return bb;
}

/* $kv = (key, value) from the entry the helper visits. */
static void bind_entry(struct cg *g, const struct sp_node *n, struct cg_map *m, LLVMValueRef kv)
{
	const struct sp_type *t = n->a->type;
	uint32_t ksize = cg_size(t->elems[0]), vsize = cg_size(t->elems[1]);
	uint32_t voff = cg_tuple_offset(t, 1);
	LLVMValueRef key = LLVMGetParam(g->fn, 1), val = LLVMGetParam(g->fn, 2), args[3];

	if (ksize > m->key_size)
		ksize = m->key_size;
	cg_memcpy(g, kv, key, ksize);
	if (m->agg == SP_AGG_NONE) {
		cg_memcpy(g, cg_gep(g, kv, voff), val, vsize < m->value_size ? vsize : m->value_size);
		return;
	}
	args[0] = m->gv;
	args[1] = kv; /* the key, copied: a key on the stack or in scratch, as lookups want */
	args[2] = LLVMConstInt(g->i32, (unsigned long long)m->agg, 0);
	cg_store_int(g, cg_gep(g, kv, voff), cg_call_fn(g, "sp_percpu_read", args, 3), 8);
}

/* Builds the body's function; its need of scratch bytes goes to the caller. */
static LLVMValueRef make_body(struct cg *g, const struct sp_node *n, struct cg_map *m,
			      const struct for_vars *fv)
{
	bool range = n->b->kind == SP_N_RANGE;
	struct fn_state saved;
	LLVMValueRef f, frame, lv;
	uint32_t need;
	int k = 0;

	fn_save(g, &saved);
	f = body_fn(g, n, range);
	frame = LLVMGetParam(f, range ? 1 : 3);
	g->ctx = load_ptr(g, frame, SLOT_CTX, "ctx");
	cg_scratch_adopt(g, load_ptr(g, frame, SLOT_SCRATCH, "scratch"));
	for (int id = 0; id < g->nvars; id++) {
		if (!fv->by_id[id])
			continue;
		g->vars[id] = load_ptr(g, frame, SLOT_VARS + k++, fv->by_id[id]->name);
		g->var_types[id] = saved.var_types[id];
	}
	g->ret_bb = ret_block(g, frame, 1, true);
	g->brk[0] = ret_block(g, frame, 1, false);
	g->cont[0] = ret_block(g, frame, 0, false);
	g->nloops = g->loop_floor = 1;
	lv = cg_var_ptr(g, n->a, n->a->type);
	if (range) {
		LLVMValueRef start = LLVMBuildLoad2(g->B, g->i64, slot(g, g->B, frame, SLOT_START), "");

		cg_store_int(g, lv, LLVMBuildAdd(g->B, start, LLVMGetParam(f, 0), "i"), 8);
	} else {
		bind_entry(g, n, m, lv);
	}
	cg_block_stmts(g, n->c);
	LLVMBuildBr(g->B, g->cont[0]);
	need = cg_scratch_close(g);
	LLVMBuildBr(g->AB, g->init_bb);
	LLVMBuildBr(g->IB, LLVMGetNextBasicBlock(g->init_bb));
	fn_restore(g, &saved);
	if (need > g->child_need)
		g->child_need = need;
	cg_loc(g, n->span);
	return f;
}

/* b - a iterations when a < b, else none; the helper runs at most 1 << 23. */
static LLVMValueRef range_count(struct cg *g, const struct sp_node *r, LLVMValueRef start)
{
	LLVMValueRef end = cg_expr(g, r->b);
	bool sgn = r->type && r->type->is_signed;
	LLVMValueRef more = LLVMBuildICmp(g->B, sgn ? LLVMIntSLT : LLVMIntULT, start, end, "");
	LLVMValueRef n = LLVMBuildSelect(g->B, more, LLVMBuildSub(g->B, end, start, ""),
					 cg_u64(g, 0), "");
	LLVMValueRef big = LLVMBuildICmp(g->B, LLVMIntUGT, n, cg_u64(g, 1u << 23), "");

	/* more than bpf_loop's limit: the kernel runs none, say so with E2BIG */
	n = LLVMBuildSelect(g->B, big, cg_u64(g, (1u << 23) + 1), n, "");
	return LLVMBuildTrunc(g->B, n, g->i32, "");
}

void cg_for(struct cg *g, const struct sp_node *n)
{
	bool range = n->b->kind == SP_N_RANGE;
	struct cg_map *m = range ? NULL : cg_map_find(g, n->b->name);
	struct for_vars fv = { 0 };
	LLVMValueRef frame, f, args[4], start = NULL;
	LLVMBasicBlockRef go;
	int nslots = SLOT_VARS, k = 0;

	if (range && g->opts->compat) {
		cg_error(g, n->span, "a for loop over a range needs bpf_loop (Linux 5.17), which "
			 "this kernel does not have");
		return;
	}
	if (!range && !m)
		return; /* never assigned: sema said so, or nothing to visit */
	if (!range && (cg_agg_bucketed(m->agg) || !m->key_size)) {
		cg_error(g, n->b->span, "cannot iterate over '%s'", m->name);
		return;
	}
	fv.by_id = calloc((size_t)g->nvars + 1, sizeof(*fv.by_id));
	fv.inner = calloc((size_t)g->nvars + 1, sizeof(*fv.inner));
	find_vars(&fv, n->c);
	for (int id = 0; id < g->nvars; id++) {
		if (id == n->ival || fv.inner[id])
			fv.by_id[id] = NULL;
		if (fv.by_id[id])
			nslots++;
	}
	frame = LLVMBuildAlloca(g->AB, LLVMArrayType(g->i64, (unsigned)nslots), "frame");
	LLVMSetAlignment(frame, 8);
	LLVMBuildStore(g->B, g->ctx, slot(g, g->B, frame, SLOT_CTX));
	LLVMBuildStore(g->B, cg_scratch_child(g), slot(g, g->B, frame, SLOT_SCRATCH));
	LLVMBuildStore(g->B, cg_u64(g, 0), slot(g, g->B, frame, SLOT_RETURN));
	if (range)
		start = cg_expr(g, n->b->a);
	LLVMBuildStore(g->B, start ? start : cg_u64(g, 0), slot(g, g->B, frame, SLOT_START));
	for (int id = 0; id < g->nvars; id++)
		if (fv.by_id[id])
			LLVMBuildStore(g->B, cg_var_ptr(g, fv.by_id[id], fv.by_id[id]->type),
				       slot(g, g->B, frame, SLOT_VARS + k++));
	args[0] = range ? range_count(g, n->b, start) : m->gv;
	f = make_body(g, n, m, &fv);
	free(fv.by_id);
	free(fv.inner);
	args[1] = f;
	args[2] = frame;
	args[3] = cg_u64(g, 0);
	if (m)
		m->bpf_reads = true; /* its entries stay in the kernel for the loop to see */
	cg_call_helper(g, range ? BPF_FUNC_loop : BPF_FUNC_for_each_map_elem, g->i64, args, 4);
	go = cg_block(g, "for_done");
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, LLVMBuildLoad2(g->B, g->i64,
			slot(g, g->B, frame, SLOT_RETURN), ""), ""), g->ret_bb, go);
	LLVMPositionBuilderAtEnd(g->B, go);
}
