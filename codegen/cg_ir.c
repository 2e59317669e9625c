/* codegen/cg_ir.c: IR utilities the codegen files share, and where values
 * live (stack or the per-CPU scratch map).
 *
 * Helpers are called the way the BPF backend expects: a call through
 * inttoptr(helper id). Functions of the linked helper bitcode are called by
 * name with their real prototypes. Every builder position carries a debug
 * location (cg_loc), because calls to inlinable functions with debug info
 * must have one.
 */
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "base/vec.h"

/* ---- small IR utilities shared by the other files ------------------------ */

void cg_error(struct cg *g, struct sp_span span, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	g->errors++;
	if (g->diag)
		sp_diag_at(g->diag, SP_DIAG_ERROR, span, "%s", buf);
}

void cg_loc(struct cg *g, struct sp_span span)
{
	uint32_t line = 1, col = 1;
	LLVMMetadataRef loc;

	if (!g->sp)
		return;
	if (g->src)
		sp_source_linecol(g->src, span.begin, &line, &col);
	loc = LLVMDIBuilderCreateDebugLocation(g->C, line, col, g->sp, NULL);
	LLVMSetCurrentDebugLocation2(g->B, loc);
}

LLVMValueRef cg_u64(struct cg *g, uint64_t v)
{
	return LLVMConstInt(g->i64, v, 0);
}

/* ---- memory for values: stack, or the per-CPU scratch map --------------
 *
 * Small values live on the BPF stack (allocas in the entry block, so LLVM
 * can promote them). Anything bigger than CG_STACK_MAX (strings, tuples,
 * stack keys, big map keys) lives in one per-CPU array map, sp_scratch,
 * looked up once at the start of the program: variables first, then
 * temporaries, which are released at the end of their statement like the
 * stack ones. This keeps programs with several 64-byte strings under the
 * verifier's 512-byte stack limit (bpftrace 0.17 fails there). In a probe
 * that walks a user stack only 8-byte values stay on the stack
 * (g->stack_max, set per probe by codegen.c): its own frame and the
 * unwinder's and interpreter walkers' (about 384 bytes) share those 512
 * bytes on kernels before 6.13, and 16-byte user-stack keys and comms on
 * the stack took the offwake script's sched_switch program to 544 on 6.1.
 * Elsewhere 16-byte values stay there (in scratch, a program comparing
 * arrays and buffers spilled past 512 bytes of pointers).
 */
#define CG_STACK_MAX 16

static LLVMValueRef stack_alloca(struct cg *g, uint32_t size, const char *name)
{
	LLVMTypeRef ty = LLVMArrayType(g->i8, size ? size : 1);
	LLVMValueRef a = LLVMBuildAlloca(g->AB, ty, name);

	LLVMSetAlignment(a, 8);
	return a;
}

uint32_t cg_round_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* A map's global: a struct of four pointers in ".maps" (its BTF, the
 * type, sizes and max_entries libbpf reads, is cg_maps.c's). */
LLVMValueRef cg_map_global_ir(struct cg *g, const char *name)
{
	LLVMTypeRef f[4] = { g->ptr, g->ptr, g->ptr, g->ptr };
	LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMStructTypeInContext(g->C, f, 4, 0), name);

	LLVMSetInitializer(gv, LLVMConstNull(LLVMGlobalGetValueType(gv)));
	LLVMSetSection(gv, ".maps");
	LLVMSetAlignment(gv, 8);
	return gv;
}

/* Value slot 0 of sp_scratch, looked up in the entry block (null-checked
 * when the entry block is closed in fn_end). */
static LLVMValueRef scratch_base(struct cg *g)
{
	LLVMValueRef zero, args[2];
	LLVMTypeRef fty;

	if (g->scratch)
		return g->scratch;
	if (!g->scratch_gv)
		g->scratch_gv = cg_map_global_ir(g, SP_MAP_SCRATCH);
	zero = stack_alloca(g, 4, "zero");
	LLVMBuildStore(g->AB, LLVMConstInt(g->i32, 0, 0), zero);
	args[0] = g->scratch_gv;
	args[1] = zero;
	fty = LLVMFunctionType(g->ptr, (LLVMTypeRef[]){ g->ptr, g->ptr }, 2, 0);
	g->scratch = LLVMBuildCall2(g->AB, fty,
				    LLVMConstIntToPtr(cg_u64(g, BPF_FUNC_map_lookup_elem), g->ptr),
				    args, 2, "scratch");
	/* temporaries start after the variables; the offset is set in fn_end */
	g->tmp_base = LLVMBuildGEP2(g->IB, g->i8, g->scratch, (LLVMValueRef[]){ cg_u64(g, 0) }, 1,
				    "tmp");
	return g->scratch;
}

/* The scratch memory a for loop's body (cg_loop.c) may use: after all of
 * this function's, at an offset cg_scratch_close() sets. */
LLVMValueRef cg_scratch_child(struct cg *g)
{
	LLVMValueRef p = LLVMBuildGEP2(g->IB, g->i8, scratch_base(g),
				       (LLVMValueRef[]){ cg_u64(g, 0) }, 1, "cbscratch");

	if (SP_GROW(g->child_bases, g->capchild, g->nchild + 1, 8))
		return p;
	g->child_bases[g->nchild++] = p;
	return p;
}

/* A loop body's function takes its scratch memory from its caller: base
 * is already non-null, and its own variables and temporaries start there. */
void cg_scratch_adopt(struct cg *g, LLVMValueRef base)
{
	g->scratch = base;
	g->tmp_base = LLVMBuildGEP2(g->IB, g->i8, base, (LLVMValueRef[]){ cg_u64(g, 0) }, 1, "tmp");
}

/* Places this function's temporaries after its variables and its loop
 * bodies' memory after both; the bytes of sp_scratch it needs in all. */
uint32_t cg_scratch_close(struct cg *g)
{
	uint32_t mine = g->var_bytes + g->tmp_max;

	LLVMSetOperand(g->tmp_base, 1, cg_u64(g, g->var_bytes));
	for (int i = 0; i < g->nchild; i++)
		LLVMSetOperand(g->child_bases[i], 1, cg_u64(g, mine));
	g->nchild = 0;
	return mine + g->child_need;
}

/* Memory of a scratch variable: lives for the whole program. */
LLVMValueRef cg_var_alloca(struct cg *g, uint32_t size, const char *name)
{
	LLVMValueRef base;

	if (size <= (g->stack_max ? g->stack_max : CG_STACK_MAX))
		return stack_alloca(g, size, name);
	base = scratch_base(g);
	size = cg_round_up(size, 8);
	g->var_bytes += size;
	return LLVMBuildGEP2(g->IB, g->i8, base, (LLVMValueRef[]){ cg_u64(g, g->var_bytes - size) },
			     1, name);
}

static void lifetime(struct cg *g, const char *which, LLVMValueRef a, uint32_t size)
{
	unsigned id = LLVMLookupIntrinsicID(which, strlen(which));
	LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->M, id, &g->ptr, 1);
	LLVMTypeRef fty = LLVMIntrinsicGetType(g->C, id, &g->ptr, 1);
	LLVMValueRef args[2] = { cg_u64(g, size ? size : 1), a };

	LLVMBuildCall2(g->B, fty, f, args, 2, "");
}

static int push_temp(struct cg *g, LLVMValueRef a, uint32_t size, uint32_t off)
{
	if (SP_GROW(g->temps, g->captemps, g->ntemps + 1, 32))
		return -1;
	g->temps[g->ntemps].v = a;
	g->temps[g->ntemps].size = size;
	g->temps[g->ntemps++].off = off;
	return 0;
}

/* A temporary (key, string, tuple ...): live from here to the end of the
 * current statement, so its memory is reused by the next statement. */
LLVMValueRef cg_alloca(struct cg *g, uint32_t size, const char *name)
{
	LLVMValueRef a;
	uint32_t off;

	if (size > (g->stack_max ? g->stack_max : CG_STACK_MAX)) {
		scratch_base(g);
		off = g->tmp_off;
		g->tmp_off += cg_round_up(size, 8);
		if (g->tmp_off > g->tmp_max)
			g->tmp_max = g->tmp_off;
		a = LLVMBuildGEP2(g->IB, g->i8, g->tmp_base, (LLVMValueRef[]){ cg_u64(g, off) }, 1,
				  name);
		push_temp(g, a, size, off);
		return a;
	}
	a = stack_alloca(g, size, name);
	if (push_temp(g, a, size, UINT32_MAX) == 0)
		lifetime(g, "llvm.lifetime.start", a, size);
	return a;
}

void cg_temps_end(struct cg *g, int mark)
{
	for (int i = g->ntemps - 1; i >= mark; i--) {
		if (g->temps[i].off != UINT32_MAX)
			g->tmp_off = g->temps[i].off;
		else
			lifetime(g, "llvm.lifetime.end", g->temps[i].v, g->temps[i].size);
	}
	if (mark < g->ntemps)
		g->ntemps = mark;
}

LLVMValueRef cg_gep(struct cg *g, LLVMValueRef p, uint32_t off)
{
	LLVMValueRef idx = LLVMConstInt(g->i64, off, 0);

	if (off == 0)
		return p;
	return LLVMBuildGEP2(g->B, g->i8, p, &idx, 1, "");
}

/* Alignment LLVM may assume for p: our buffers (allocas, map values, ring
 * buffer records, the scratch map) are 8-aligned, and GEPs keep what their
 * constant offset allows. Without it a memset into a map value becomes a
 * byte-by-byte store sequence. */
static unsigned ptr_align(LLVMValueRef p)
{
	if (LLVMIsAAllocaInst(p))
		return LLVMGetAlignment(p);
	if (LLVMIsACallInst(p))
		return 8;
	if (LLVMIsALoadInst(p) && LLVMGetMetadata(p, LLVMGetMDKindID("sp.aligned", 10)))
		return 8; /* a pointer a loop body got from its caller (cg_loop.c) */
	if (LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2 &&
	    LLVMIsAConstantInt(LLVMGetOperand(p, 1))) {
		unsigned a = ptr_align(LLVMGetOperand(p, 0));
		unsigned long long off = LLVMConstIntGetZExtValue(LLVMGetOperand(p, 1));

		while (a > 1 && off % a)
			a /= 2;
		return a;
	}
	return 1;
}

/* The BPF backend expands memset/memcpy inline only up to a limit (a call
 * to them cannot be lowered), so big ones (C struct values) go in chunks,
 * with an empty asm "memory" barrier between them so the optimizer does not
 * merge them back into one. */
/* See cg.h. */
void cg_barrier(struct cg *g)
{
	LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(g->C), NULL, 0, 0);
	LLVMValueRef asm_ = LLVMGetInlineAsm(fty, "", 0, "~{memory}", 9, 1, 0,
					     LLVMInlineAsmDialectATT, 0);

	LLVMBuildCall2(g->B, fty, asm_, NULL, 0, "");
}

static uint32_t chunk(uint32_t size, uint32_t off)
{
	return size - off < CG_MEMCPY_CHUNK ? size - off : CG_MEMCPY_CHUNK;
}

void cg_memset0(struct cg *g, LLVMValueRef p, uint32_t size)
{
	for (uint32_t off = 0; off < size; off += CG_MEMCPY_CHUNK) {
		LLVMValueRef d = off ? cg_gep(g, p, off) : p;

		if (off)
			cg_barrier(g);
		LLVMBuildMemSet(g->B, d, LLVMConstInt(g->i8, 0, 0), cg_u64(g, chunk(size, off)),
				ptr_align(d));
	}
}

void cg_memcpy(struct cg *g, LLVMValueRef dst, LLVMValueRef src, uint32_t size)
{
	if (dst == src)
		return;
	for (uint32_t off = 0; off < size; off += CG_MEMCPY_CHUNK) {
		LLVMValueRef d = off ? cg_gep(g, dst, off) : dst, s = off ? cg_gep(g, src, off) : src;

		if (off)
			cg_barrier(g);
		LLVMBuildMemCpy(g->B, d, ptr_align(d), s, ptr_align(s), cg_u64(g, chunk(size, off)));
	}
}

LLVMBasicBlockRef cg_block(struct cg *g, const char *name)
{
	return LLVMAppendBasicBlockInContext(g->C, g->fn, name);
}

/* After a terminator (return, break, exit): later statements go to an
 * unreachable block the optimizer deletes. */
void cg_dead_block(struct cg *g)
{
	LLVMPositionBuilderAtEnd(g->B, cg_block(g, "dead"));
}

/* Calls BPF helper `id` (inttoptr of the helper number). */
LLVMValueRef cg_call_helper(struct cg *g, int id, LLVMTypeRef ret, LLVMValueRef *args, int nargs)
{
	LLVMTypeRef at[8];
	LLVMTypeRef fty;
	LLVMValueRef fp;

	for (int i = 0; i < nargs && i < 8; i++)
		at[i] = LLVMTypeOf(args[i]);
	fty = LLVMFunctionType(ret, at, nargs, 0);
	fp = LLVMConstIntToPtr(cg_u64(g, id), g->ptr);
	return LLVMBuildCall2(g->B, fty, fp, args, nargs, "");
}

LLVMValueRef cg_helper_fn(struct cg *g, const char *name, LLVMTypeRef *fty)
{
	LLVMValueRef f = LLVMGetNamedFunction(g->M, name);

	if (f && fty)
		*fty = LLVMGlobalGetValueType(f);
	return f;
}

/* Calls a function of the linked helper bitcode (bpf/NAME.bpf.c). */
/* -k/-kk: when the helper's result r is negative, count `cause` in
 * SP_MAP_LOST; nothing below the asked level. Returns r. */
LLVMValueRef cg_helper_check(struct cg *g, LLVMValueRef r, int level, int cause)
{
	LLVMBasicBlockRef bad, ok;
	LLVMValueRef c;

	if (!r || g->opts->helper_checks < level)
		return r;
	bad = cg_block(g, "helper_err");
	ok = cg_block(g, "helper_ok");
	c = LLVMConstInt(g->i32, (unsigned long long)cause, 0);
	LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, r, LLVMConstInt(LLVMTypeOf(r), 0, 0), ""),
			bad, ok);
	LLVMPositionBuilderAtEnd(g->B, bad);
	cg_call_fn(g, "sp_count_lost", &c, 1);
	LLVMBuildBr(g->B, ok);
	LLVMPositionBuilderAtEnd(g->B, ok);
	return r;
}

LLVMValueRef cg_call_fn(struct cg *g, const char *name, LLVMValueRef *args, int nargs)
{
	LLVMTypeRef fty;
	LLVMValueRef f = cg_helper_fn(g, name, &fty);

	if (!f)
		return NULL;
	return LLVMBuildCall2(g->B, fty, f, args, nargs, "");
}
