/* codegen/cg_share.c: one BPF program for the attach points of a block
 * whose code does not depend on the point.
 *
 * `tracepoint:syscalls:sys_enter_read, tracepoint:syscalls:sys_enter_write
 * { ... }` used to be one program per point: LLVM, the verifier and the
 * load paid per point, minutes for thousands of points. Each point's
 * function is still built (IR is cheap), then compared with the functions
 * already kept for its block: when the IR is the same, apart from the
 * function's name and debug metadata numbers, the new function is deleted
 * and its attach point is served by the kept one. Comparing the IR is exact
 * where rules about probe types would not be: tracepoints with different
 * `args` layouts, uprobes whose DWARF types differ, fentry sections naming
 * their function all give different IR and stay separate.
 *
 * What differs per point without changing the code is `probe` and `func`:
 * in a block of several points they are read through the BPF cookie from
 * the names map (as for wildcards; runtime/attach/names.c), for the probe
 * types whose attach ops set cookies. bpf_get_attach_cookie() came with
 * Linux 5.15 for kprobe, uprobe and tracepoint programs; without it (the
 * driver says so in sp_codegen_opts.no_cookies) the names stay constants,
 * so such blocks get a program per point as before, counted in
 * sp_plan.cookie_fallbacks for -v. printf formats a candidate adds are
 * matched with the block's earlier ones (cg_share_printf), so the ids in
 * its IR are the kept function's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

/* Types whose attach ops attach each expanded point with a names cookie. */
static bool names_type(enum sp_probe_type t)
{
	return t == SP_PROBE_TRACEPOINT || t == SP_PROBE_KPROBE || t == SP_PROBE_KRETPROBE ||
	       t == SP_PROBE_UPROBE || t == SP_PROBE_URETPROBE || t == SP_PROBE_USDT;
}

/* Types a program may serve several attach points of (the runtime attaches
 * one program as often as asked): not BEGIN/END (run by hand), watchpoints
 * (a hidden program named after each) or iterators. */
static bool shareable_type(enum sp_probe_type t)
{
	return t != SP_PROBE_BEGIN && t != SP_PROBE_END && t != SP_PROBE_WATCHPOINT &&
	       t != SP_PROBE_ASYNCWATCHPOINT && t != SP_PROBE_ITER;
}

static void drop_kept(struct cg *g)
{
	for (int i = 0; i < g->nkept; i++)
		free(g->kept[i].ir);
	g->nkept = 0;
}

/* Called before a block's first attach point. */
void cg_share_block(struct cg *g, const struct sp_node *probe)
{
	drop_kept(g);
	g->share_multi = probe->list.len > 1;
	g->share_printf_base = g->plan->nprintfs;
	g->share_fallback = false;
}

/* Called after a block's last attach point (and on the way out). */
void cg_share_block_end(struct cg *g)
{
	if (g->share_fallback)
		g->plan->cookie_fallbacks++;
	g->share_fallback = g->share_multi = g->share_try = g->share_names = false;
	drop_kept(g);
	free(g->kept);
	g->kept = NULL;
	g->capkept = 0;
}

/* Called before the point's function is built. */
void cg_share_point(struct cg *g, enum sp_probe_type t, const struct sp_attach *a)
{
	g->share_try = g->share_multi && shareable_type(t);
	g->share_names = g->share_try && names_type(t) && !(a && a->has_offset);
	g->share_printf_end = g->plan->nprintfs;
}

/* probe_name() of cg_expr.c: whether `probe`/`func` come from the cookie. */
bool cg_share_names(struct cg *g)
{
	if (g->share_names && g->opts->no_cookies) {
		g->share_fallback = true;
		return false;
	}
	return g->share_names;
}

static bool field_equal(const struct sp_plan_field *a, const struct sp_plan_field *b)
{
	if (a->kind != b->kind || a->offset != b->offset || a->size != b->size ||
	    a->is_signed != b->is_signed || a->stack_limit != b->stack_limit ||
	    a->stack_mode != b->stack_mode || a->nelems != b->nelems ||
	    a->bit_off != b->bit_off || a->bit_size != b->bit_size)
		return false;
	if ((a->fmt || b->fmt) && (!a->fmt || !b->fmt || strcmp(a->fmt, b->fmt)))
		return false;
	if ((a->name || b->name) && (!a->name || !b->name || strcmp(a->name, b->name)))
		return false;
	if ((a->member || b->member) && (!a->member || !b->member || strcmp(a->member, b->member)))
		return false;
	for (int i = 0; i < a->nelems; i++)
		if (!field_equal(&a->elems[i], &b->elems[i]))
			return false;
	return true;
}

/* The id of an earlier printf of this block equal to the last one added
 * (which is then dropped), or -1. Only while building a candidate. */
int cg_share_printf(struct cg *g)
{
	struct sp_plan *p = g->plan;
	struct sp_plan_printf *n = &p->printfs[p->nprintfs - 1];

	if (!g->share_try)
		return -1;
	for (int i = g->share_printf_base; i < g->share_printf_end; i++) {
		struct sp_plan_printf *o = &p->printfs[i];

		if ((o->fmt || n->fmt) && (!o->fmt || !n->fmt || strcmp(o->fmt, n->fmt)))
			continue;
		if (!field_equal(&o->args, &n->args))
			continue;
		free(n->fmt);
		sp_plan_field_free(&n->args);
		p->nprintfs--;
		return i;
	}
	return -1;
}

/* ---- the function's code as a string ---------------------------------------
 *
 * Printing a function with LLVM numbers all the module's metadata each time
 * (its debug locations reach the compile unit and the helpers' types): a
 * millisecond a point, growing with the module. The code is written out
 * here instead, instruction by instruction: opcode, type, what the opcode
 * carries besides its operands, and each operand as a local number (an
 * instruction's or a block's position), a global's name or a constant's
 * text. Debug locations are left out: they differ per point, not the code. */

struct sig {
	char *s;
	size_t n, cap;
	bool oom;
	LLVMValueRef *keys; /* open addressing: instruction or block -> its position */
	int *vals;
	size_t nkeys;       /* a power of two */
};

static void sig_put(struct sig *x, const char *t, size_t len)
{
	if (x->oom)
		return;
	if (x->n + len + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		char *v;

		while (x->n + len + 1 > cap)
			cap *= 2;
		v = realloc(x->s, cap);
		if (!v) {
			x->oom = true;
			return;
		}
		x->s = v;
		x->cap = cap;
	}
	memcpy(x->s + x->n, t, len);
	x->n += len;
	x->s[x->n] = '\0';
}

static void sig_fmt(struct sig *x, const char *fmt, unsigned long long v)
{
	char b[32];

	sig_put(x, b, (size_t)snprintf(b, sizeof(b), fmt, v));
}

static void sig_type(struct sig *x, LLVMTypeRef t)
{
	char *s = LLVMPrintTypeToString(t);

	sig_put(x, s, strlen(s));
	LLVMDisposeMessage(s);
}

static size_t slot(const struct sig *x, LLVMValueRef v)
{
	size_t h = ((uintptr_t)v >> 4) * 0x9e3779b97f4a7c15ull;
	size_t i = h & (x->nkeys - 1);

	while (x->keys[i] && x->keys[i] != v)
		i = (i + 1) & (x->nkeys - 1);
	return i;
}

static void sig_operand(struct sig *x, LLVMValueRef op)
{
	size_t len;
	const char *name;
	char *s;

	if (LLVMIsAInstruction(op) || LLVMValueIsBasicBlock(op)) {
		size_t i = slot(x, op);

		sig_fmt(x, x->keys[i] ? " %%%llu" : " %%?", x->keys[i] ? (unsigned)x->vals[i] : 0);
	} else if (LLVMIsAArgument(op)) {
		sig_put(x, " arg", 4);
	} else if (LLVMIsAGlobalValue(op)) {
		name = LLVMGetValueName2(op, &len);
		sig_put(x, " @", 2);
		sig_put(x, name, len);
	} else if (LLVMIsAMDNode(op) || LLVMIsAMDString(op)) {
		sig_put(x, " !md", 4);
	} else if (LLVMIsAConstantInt(op) && LLVMGetIntTypeWidth(LLVMTypeOf(op)) <= 64) {
		sig_fmt(x, " i%llu:", LLVMGetIntTypeWidth(LLVMTypeOf(op)));
		sig_fmt(x, "%llu", LLVMConstIntGetZExtValue(op));
	} else { /* other constants, inline asm: no module slots needed */
		s = LLVMPrintValueToString(op);
		sig_put(x, " ", 1);
		sig_put(x, s, strlen(s));
		LLVMDisposeMessage(s);
	}
}

/* What an opcode carries besides its operands. */
static void sig_extra(struct sig *x, LLVMValueRef in, LLVMOpcode op)
{
	switch (op) {
	case LLVMICmp:
		sig_fmt(x, " p%llu", LLVMGetICmpPredicate(in));
		break;
	case LLVMFCmp:
		sig_fmt(x, " p%llu", LLVMGetFCmpPredicate(in));
		break;
	case LLVMAlloca:
		sig_type(x, LLVMGetAllocatedType(in));
		sig_fmt(x, " a%llu", LLVMGetAlignment(in));
		break;
	case LLVMLoad:
	case LLVMStore:
		sig_fmt(x, " a%llu", LLVMGetAlignment(in));
		sig_fmt(x, " v%llu", LLVMGetVolatile(in));
		sig_fmt(x, " o%llu", LLVMGetOrdering(in));
		break;
	case LLVMGetElementPtr:
		sig_type(x, LLVMGetGEPSourceElementType(in));
		sig_fmt(x, " b%llu", LLVMIsInBounds(in));
		break;
	case LLVMCall:
		sig_type(x, LLVMGetCalledFunctionType(in));
		sig_fmt(x, " t%llu", LLVMIsTailCall(in));
		break;
	case LLVMPHI:
		for (unsigned i = 0; i < LLVMCountIncoming(in); i++)
			sig_operand(x, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(in, i)));
		break;
	case LLVMExtractValue:
	case LLVMInsertValue:
		for (unsigned i = 0; i < LLVMGetNumIndices(in); i++)
			sig_fmt(x, " .%llu", LLVMGetIndices(in)[i]);
		break;
	case LLVMAtomicRMW:
		sig_fmt(x, " r%llu", LLVMGetAtomicRMWBinOp(in));
		sig_fmt(x, " o%llu", LLVMGetOrdering(in));
		break;
	default:
		break;
	}
}

/* Numbers every block and instruction in order; false without memory. */
static bool sig_number(struct sig *x, LLVMValueRef fn)
{
	size_t n = 0;
	int k = 0;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in))
			n++;
	n += LLVMCountBasicBlocks(fn);
	for (x->nkeys = 64; x->nkeys < 2 * n; x->nkeys *= 2)
		;
	x->keys = calloc(x->nkeys, sizeof(*x->keys));
	x->vals = calloc(x->nkeys, sizeof(*x->vals));
	if (!x->keys || !x->vals)
		return false;
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
		size_t i = slot(x, LLVMBasicBlockAsValue(b));

		x->keys[i] = LLVMBasicBlockAsValue(b);
		x->vals[i] = k++;
		for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
			i = slot(x, in);
			x->keys[i] = in;
			x->vals[i] = k++;
		}
	}
	return true;
}

/* The function's code (its name and debug locations left out), or NULL. */
static char *code_of(LLVMValueRef fn)
{
	struct sig x = { 0 };
	const char *sec = LLVMGetSection(fn);

	if (!sig_number(&x, fn))
		x.oom = true;
	sig_put(&x, sec ? sec : "", sec ? strlen(sec) : 0);
	sig_type(&x, LLVMGlobalGetValueType(fn));
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b && !x.oom; b = LLVMGetNextBasicBlock(b)) {
		sig_put(&x, "\n^", 2);
		for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(in);
			int nops = LLVMGetNumOperands(in);

			sig_fmt(&x, "\n%llu ", op);
			sig_type(&x, LLVMTypeOf(in));
			sig_extra(&x, in, op);
			for (int i = 0; i < nops; i++)
				sig_operand(&x, LLVMGetOperand(in, (unsigned)i));
		}
	}
	free(x.keys);
	free(x.vals);
	if (x.oom) {
		free(x.s);
		return NULL;
	}
	return x.s;
}

/* After the point's function is built: an identical kept function serves
 * the point instead (its plan probe takes that name), else this one is
 * kept. */
void cg_share_done(struct cg *g, struct sp_plan_probe *pp)
{
	char *ir;

	if (!g->share_try || g->errors)
		return;
	ir = code_of(g->fn);
	if (!ir)
		return;
	for (int i = 0; i < g->nkept; i++) {
		if (strcmp(g->kept[i].ir, ir))
			continue;
		free(ir);
		LLVMClearInsertionPosition(g->B);
		LLVMClearInsertionPosition(g->AB);
		LLVMClearInsertionPosition(g->IB);
		LLVMDeleteFunction(g->fn);
		g->fn = NULL;
		free(pp->prog);
		pp->prog = strdup(g->kept[i].prog);
		return;
	}
	if (g->nkept == g->capkept) {
		int cap = g->capkept ? 2 * g->capkept : 8;
		struct cg_kept *v = realloc(g->kept, (size_t)cap * sizeof(*v));

		if (!v) {
			free(ir);
			return;
		}
		g->kept = v;
		g->capkept = cap;
	}
	g->kept[g->nkept].ir = ir;
	g->kept[g->nkept++].prog = pp->prog;
}

/* -d ir / --emit-llvm: which programs serve several attach points. */
void cg_share_dump(const struct sp_plan *p, FILE *f)
{
	for (int i = 0; i < p->nprobes; i++) {
		int n = 0, shown = 0;

		for (int j = 0; j < p->nprobes; j++)
			if (!strcmp(p->probes[j].prog, p->probes[i].prog)) {
				if (j < i)
					break;
				n++;
			}
		if (n < 2)
			continue;
		fprintf(f, "; program %s serves %d attach points:", p->probes[i].prog, n);
		for (int j = i; j < p->nprobes && shown < 8; j++)
			if (!strcmp(p->probes[j].prog, p->probes[i].prog))
				fprintf(f, "%s %s", shown++ ? "," : "", p->probes[j].spec);
		fprintf(f, "%s\n", n > shown ? ", ..." : "");
	}
}
