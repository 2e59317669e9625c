/* codegen/cg_builtins.c: builtin variables and calls, by id.
 *
 * One table, made of stdlib/builtins.def's rows, gives each builtin id
 * (sema stored it on the node: parser/builtins.h) its emitter: the value
 * of a BPF helper call (HELPER), of a function of the helper bitcode
 * (BPFFN), or an emitter function cg_emit_NAME (EMIT) in its family's file:
 * task values, stacks, argN and ntop in cg_expr.c; output calls in
 * cg_stmt.c; strings and bytes in cg_text.c; map calls in cg_maps.c;
 * symbols in cg_sym.c; registers, signals and cgroups in cg_machine.c; the
 * few that only pass an argument through, here.
 */
#include <linux/bpf.h>

#include "codegen/cg.h"
#include "parser/builtins.h"

struct emitter {
	LLVMValueRef (*fn)(struct cg *g, const struct sp_node *n);
	int arg;          /* HELPER: BPF_FUNC_*; OUTPUT, MAPEVENT: SP_EV_* */
	const char *text; /* BPFFN: a function of the helper bitcode; DIAG: the level */
};

static LLVMValueRef emit_helper(struct cg *g, const struct sp_node *n);
static LLVMValueRef emit_bpf_fn(struct cg *g, const struct sp_node *n);
static LLVMValueRef emit_output(struct cg *g, const struct sp_node *n);
static LLVMValueRef emit_map_event(struct cg *g, const struct sp_node *n);
static LLVMValueRef emit_diag(struct cg *g, const struct sp_node *n);

#define EMIT(f) { cg_emit_##f, 0, NULL }
#define HELPER(h) { emit_helper, h, NULL }
#define BPFFN(f) { emit_bpf_fn, 0, #f }
#define OUTPUT(ev) { emit_output, ev, NULL }
#define MAPEVENT(ev) { emit_map_event, ev, NULL }
#define DIAG(level) { emit_diag, 0, #level }
#define NONE { NULL, 0, NULL }
static const struct emitter emitters[SP_BI__COUNT] = {
#define SP_BUILTIN_VAR(name, result, probes, check, emit, doc) [SP_BV_##name] = emit,
#define SP_BUILTIN_FN(name, min, max, args, result, probes, check, emit, doc) \
	[SP_BF_##name] = emit,
#include "stdlib/builtins.def"
};
#undef EMIT
#undef HELPER
#undef BPFFN
#undef OUTPUT
#undef MAPEVENT
#undef DIAG
#undef NONE

static LLVMValueRef emit_helper(struct cg *g, const struct sp_node *n)
{
	return cg_call_helper(g, emitters[n->bi].arg, g->i64, NULL, 0);
}

static LLVMValueRef emit_bpf_fn(struct cg *g, const struct sp_node *n)
{
	return cg_call_fn(g, emitters[n->bi].text, NULL, 0);
}

/* The output calls have no value of their own. */
static LLVMValueRef emit_output(struct cg *g, const struct sp_node *n)
{
	cg_output_call(g, n, emitters[n->bi].arg);
	return cg_u64(g, 0);
}

static LLVMValueRef emit_map_event(struct cg *g, const struct sp_node *n)
{
	cg_map_event(g, n, emitters[n->bi].arg);
	return cg_u64(g, 0);
}

static LLVMValueRef emit_diag(struct cg *g, const struct sp_node *n)
{
	cg_diag_call(g, n, emitters[n->bi].text);
	return cg_u64(g, 0);
}

static LLVMValueRef emit(struct cg *g, const struct sp_node *n, const char *what)
{
	if (n->bi <= SP_BI_NONE || n->bi >= SP_BI__COUNT || !emitters[n->bi].fn) {
		cg_error(g, n->span, "%s '%s' is not supported by codegen yet", what, n->name);
		return cg_u64(g, 0);
	}
	return emitters[n->bi].fn(g, n);
}

LLVMValueRef cg_builtin(struct cg *g, const struct sp_node *n)
{
	return emit(g, n, "builtin");
}

LLVMValueRef cg_call(struct cg *g, const struct sp_node *n)
{
	return emit(g, n, "function");
}

/* --- the emitters of the calls that pass an argument through ----------------- */

/* ksym(addr), uptr(p), kptr(p): only the type changes; strerror(e),
 * cgroup_path(id): user space prints the text */
LLVMValueRef cg_emit_first_arg(struct cg *g, const struct sp_node *n)
{
	return cg_expr(g, n->list.items[0]);
}

/* strftime("fmt", t): the timestamp; the format is the type's */
LLVMValueRef cg_emit_strftime(struct cg *g, const struct sp_node *n)
{
	return cg_expr(g, n->list.items[1]);
}

/* count(), hist(x)...: only as the value of a map assignment (cg_map_agg) */
LLVMValueRef cg_emit_agg(struct cg *g, const struct sp_node *n)
{
	cg_error(g, n->span, "%s() can only be assigned to a map: @m = %s(...)", n->name, n->name);
	return cg_u64(g, 0);
}
