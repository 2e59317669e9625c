/* codegen/cg_stmt.c: statements, scratch variables and function calls.
 *
 * Temporaries (keys, strings, tuples) get lifetime markers that end with
 * their statement, so the 512-byte BPF stack is reused from one statement
 * to the next. Scratch variables live for the whole program and are zeroed
 * once at its start (the verifier rejects reads of uninitialized stack).
 *
 * Functions that need user space (printf, print, clear, zero, exit, time,
 * cat, system) send a record on the sp_events ring buffer, laid out as
 * plan.h describes; a record that does not fit is counted in
 * sp_event_drops.
 */
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"

static const struct sp_type s64_type = { .kind = SP_T_INT, .size = 8, .is_signed = true };

static void stmt(struct cg *g, const struct sp_node *n);

/* ---- scratch variables ----------------------------------------------------- */

LLVMValueRef cg_var_ptr(struct cg *g, const struct sp_node *var, const struct sp_type *t)
{
	int id = var->scope_id;
	LLVMBuilderRef body;
	uint32_t size;

	if (id < 0 || id >= g->nvars) {
		cg_error(g, var->span, "internal error: unresolved variable '%s'", var->name);
		return cg_var_alloca(g, 8, "bad");
	}
	if (g->vars[id])
		return g->vars[id];
	if (!t || t->kind == SP_T_NONE)
		t = &s64_type;
	size = cg_size(t);
	g->var_types[id] = t;
	g->vars[id] = cg_var_alloca(g, size < 8 ? 8 : size, var->name);
	body = g->B; /* zeroed in the init block, in chunks when big */
	g->B = g->IB;
	cg_memset0(g, g->vars[id], size < 8 ? 8 : size);
	g->B = body;
	return g->vars[id];
}

static const struct sp_type *var_type(struct cg *g, const struct sp_node *var)
{
	if (var->scope_id >= 0 && var->scope_id < g->nvars && g->var_types[var->scope_id])
		return g->var_types[var->scope_id];
	return var->type;
}

/* ---- assignment ------------------------------------------------------------------- */

static bool sgn(const struct sp_type *t)
{
	return t && t->kind == SP_T_INT && t->is_signed;
}

static void assign_map(struct cg *g, const struct sp_node *n)
{
	struct cg_map *m = cg_map_find(g, n->a->name);
	LLVMValueRef v;

	if (m && m->agg != SP_AGG_NONE && n->b->kind == SP_N_CALL &&
	    cg_agg_kind(n->b->name) != SP_AGG_NONE) {
		cg_map_agg(g, n);
		return;
	}
	if (m && m->agg != SP_AGG_NONE) {
		cg_error(g, n->span, "cannot assign a value to aggregation map '%s'", m->name);
		return;
	}
	if (!n->op) {
		cg_map_assign(g, n->a, n->b);
		return;
	}
	v = cg_expr(g, n->b);
	v = LLVMBuildMul(g->B, v, cg_u64(g, cg_ptr_step(n->a->type)), "");
	cg_map_rmw(g, n->a, n->op, v, false);
}

static void assign_var(struct cg *g, const struct sp_node *n)
{
	const struct sp_type *t = var_type(g, n->a);
	LLVMValueRef p, v;

	if (!t || t->kind == SP_T_NONE)
		t = n->b->type;
	p = cg_var_ptr(g, n->a, t);
	t = var_type(g, n->a);
	if (!n->op) {
		if (cg_is_scalar(t)) {
			cg_store_conv(g, p, cg_expr(g, n->b), n->b->type, t);
		} else {
			/* `$s = f($s)` reads the old value: build it aside first */
			LLVMValueRef tmp = cg_alloca(g, cg_size(t), "tmp");

			cg_expr_to(g, n->b, tmp, t);
			cg_memcpy(g, p, tmp, cg_size(t));
		}
		return;
	}
	v = cg_expr(g, n->b);
	v = LLVMBuildMul(g->B, v, cg_u64(g, cg_ptr_step(t)), "");
	v = cg_norm(g, cg_arith(g, n->op, cg_load_int(g, p, t), v, sgn(t)), t);
	cg_store_int(g, p, v, cg_size(t));
}

/* x++, ++x, x--, --x on a variable or a plain map value; returns the value
 * the expression has (old for postfix, new for prefix). */
LLVMValueRef cg_incdec(struct cg *g, const struct sp_node *n)
{
	int op = n->op == '+' ? '+' : '-';
	LLVMValueRef p, old, nv;
	const struct sp_type *t;

	if (n->a->kind == SP_N_MAP)
		return cg_map_rmw(g, n->a, op, cg_u64(g, cg_ptr_step(n->a->type)), !n->prefix);
	p = cg_var_ptr(g, n->a, n->a->type);
	t = var_type(g, n->a);
	old = cg_load_int(g, p, t);
	nv = cg_norm(g, cg_arith(g, op, old, cg_u64(g, cg_ptr_step(t)), sgn(t)), t);
	cg_store_int(g, p, nv, cg_size(t));
	return n->prefix ? nv : old;
}

/* ---- control flow ------------------------------------------------------------------ */

static void if_stmt(struct cg *g, const struct sp_node *n)
{
	LLVMBasicBlockRef yes = cg_block(g, "if"), done = cg_block(g, "endif");
	LLVMBasicBlockRef no = n->c ? cg_block(g, "else") : done;

	LLVMBuildCondBr(g->B, cg_cond(g, n->a), yes, no);
	LLVMPositionBuilderAtEnd(g->B, yes);
	stmt(g, n->b);
	LLVMBuildBr(g->B, done);
	if (n->c) {
		LLVMPositionBuilderAtEnd(g->B, no);
		stmt(g, n->c);
		LLVMBuildBr(g->B, done);
	}
	LLVMPositionBuilderAtEnd(g->B, done);
}

static void while_stmt(struct cg *g, const struct sp_node *n)
{
	LLVMBasicBlockRef head = cg_block(g, "while"), body = cg_block(g, "loop");
	LLVMBasicBlockRef done = cg_block(g, "endwhile");

	if (g->nloops == CG_MAX_LOOPS) {
		cg_error(g, n->span, "loops nested too deeply");
		return;
	}
	LLVMBuildBr(g->B, head);
	LLVMPositionBuilderAtEnd(g->B, head);
	LLVMBuildCondBr(g->B, cg_cond(g, n->a), body, done);
	LLVMPositionBuilderAtEnd(g->B, body);
	g->brk[g->nloops] = done;
	g->cont[g->nloops++] = head;
	stmt(g, n->b);
	g->nloops--;
	LLVMBuildBr(g->B, head);
	LLVMPositionBuilderAtEnd(g->B, done);
}

static void unroll_stmt(struct cg *g, const struct sp_node *n)
{
	int64_t count = n->a && n->a->kind == SP_N_INT ? n->a->ival : 0;

	if (count < 1 || count > 100) {
		cg_error(g, n->span, "unroll count must be between 1 and 100");
		return;
	}
	for (int64_t i = 0; i < count; i++)
		stmt(g, n->b);
}

static void jump(struct cg *g, const struct sp_node *n, LLVMBasicBlockRef *targets)
{
	if (g->nloops == 0) {
		cg_error(g, n->span, "'%s' outside of a loop", sp_node_kind_name(n->kind));
		return;
	}
	LLVMBuildBr(g->B, targets[g->nloops - 1]);
	cg_dead_block(g);
}

static void stmt(struct cg *g, const struct sp_node *n)
{
	int mark = g->ntemps;

	if (!n)
		return;
	cg_loc(g, n->span);
	switch (n->kind) {
	case SP_N_BLOCK:
		cg_block_stmts(g, n);
		break;
	case SP_N_EXPR_STMT:
		cg_expr(g, n->a);
		break;
	case SP_N_ASSIGN:
		if (n->a->kind == SP_N_MAP)
			assign_map(g, n);
		else
			assign_var(g, n);
		break;
	case SP_N_INCDEC:
		cg_incdec(g, n);
		break;
	case SP_N_IF:
		if_stmt(g, n);
		break;
	case SP_N_WHILE:
		while_stmt(g, n);
		break;
	case SP_N_UNROLL:
		unroll_stmt(g, n);
		break;
	case SP_N_FOR:
		cg_for(g, n);
		break;
	case SP_N_LET: /* let $x = v assigns; let $x; sets 0 (again in a loop) */
		if (n->b) {
			assign_var(g, n);
		} else {
			const struct sp_type *t = var_type(g, n->a);
			uint32_t size = t && t->kind != SP_T_NONE ? cg_size(t) : 8;

			cg_memset0(g, cg_var_ptr(g, n->a, t), size < 8 ? 8 : size);
		}
		break;
	case SP_N_BREAK:
		jump(g, n, g->brk);
		break;
	case SP_N_CONTINUE:
		jump(g, n, g->cont);
		break;
	case SP_N_RETURN:
		if (n->a) /* return expr: its effects, then the probe ends */
			cg_expr(g, n->a);
		LLVMBuildBr(g->B, g->ret_bb);
		cg_dead_block(g);
		break;
	default:
		cg_expr(g, n);
		break;
	}
	cg_temps_end(g, mark);
}

void cg_block_stmts(struct cg *g, const struct sp_node *block)
{
	if (block->kind != SP_N_BLOCK) {
		stmt(g, block);
		return;
	}
	for (int i = 0; i < block->list.len; i++)
		stmt(g, block->list.items[i]);
}

/* ---- events ------------------------------------------------------------------------ */

static void event_simple(struct cg *g, int type, int id, uint64_t arg)
{
	LLVMValueRef args[3] = { LLVMConstInt(g->i32, type, 0), LLVMConstInt(g->i32, id, 0),
				 cg_u64(g, arg) };

	cg_call_fn(g, "sp_emit_event", args, 3);
}

/* The type an argument has in an event record: integers widened to 8 bytes
 * (an enum value into *wide, keeping its names). */
static const struct sp_type *event_type(const struct sp_type *t, struct sp_type *wide)
{
	static const struct sp_type u64 = { .kind = SP_T_INT, .size = 8 };
	static const struct sp_type bool64 = { .kind = SP_T_INT, .size = 8, .fmt = "bool" };

	if (!t)
		return &s64_type;
	if (t->kind == SP_T_AGG) /* count/sum/min/max/avg read as their integer */
		return t->agg == SP_AGG_COUNT ? &u64 : &s64_type;
	if (sp_type_is_bool(t)) /* a 64-bit slot that still prints true/false */
		return &bool64;
	if (sp_type_is_enum(t)) {
		*wide = *t;
		wide->size = 8;
		return wide;
	}
	if (t->kind == SP_T_INT)
		return t->is_signed ? &s64_type : &u64;
	return t;
}

int cg_add_printf(struct cg *g, const char *fmt, const struct sp_node *const *args, int n)
{
	struct sp_plan *p = g->plan;
	const struct sp_type *types[32];
	struct sp_type wide[32];
	struct sp_plan_printf *v = realloc(p->printfs, (p->nprintfs + 1) * sizeof(*v));
	int same;

	if (!v)
		return -1;
	p->printfs = v;
	for (int i = 0; i < n && i < 32; i++) {
		static const struct sp_type addr = { .kind = SP_T_INT, .size = 8 };

		types[i] = event_type(args[i]->type, &wide[i]);
		if (fmt && types[i]->kind == SP_T_PTR) /* printf("%d %p", ptr) */
			types[i] = &addr;
	}
	v[p->nprintfs].fmt = fmt ? strdup(fmt) : NULL;
	cg_tuple_fields(types, n < 32 ? n : 32, &v[p->nprintfs].args);
	for (int i = 0; i < n && i < 32; i++)
		cg_field_fmt(args[i], &v[p->nprintfs].args.elems[i]);
	p->nprintfs++;
	same = cg_share_printf(g); /* the same printf of another point of the block */
	return same >= 0 ? same : p->nprintfs - 1;
}

/* header + args in ring-buffer memory (reserve / fill / submit). */
static void event_record(struct cg *g, int type, int id, const struct sp_node *const *args, int n)
{
	const struct sp_plan_field *f = &g->plan->printfs[id].args;
	uint32_t size = sizeof(struct sp_event_hdr) + f->size;
	LLVMValueRef vals[32], rec, a[3];
	LLVMValueRef events = LLVMGetNamedGlobal(g->M, SP_MAP_EVENTS);
	LLVMBasicBlockRef fill = cg_block(g, "event"), lost = cg_block(g, "event_lost");
	LLVMBasicBlockRef done = cg_block(g, "event_done");

	for (int i = 0; i < n && i < 32; i++)
		vals[i] = args[i]->type && !cg_is_scalar(args[i]->type) ? NULL : cg_expr(g, args[i]);
	a[0] = events;
	a[1] = cg_u64(g, size);
	a[2] = cg_u64(g, 0);
	rec = cg_call_helper(g, BPF_FUNC_ringbuf_reserve, g->ptr, a, 3);
	LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, rec, ""), fill, lost);
	LLVMPositionBuilderAtEnd(g->B, lost);
	cg_call_fn(g, "sp_event_drop", NULL, 0);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, fill);
	cg_memset0(g, rec, size);
	cg_store_int(g, rec, LLVMConstInt(g->i64, type, 0), 4);
	cg_store_int(g, cg_gep(g, rec, 4), LLVMConstInt(g->i64, id, 0), 4);
	/* arg: the tgid that printed, so user addresses (usym) can be symbolized */
	cg_store_int(g, cg_gep(g, rec, 8),
		     LLVMBuildLShr(g->B, cg_call_helper(g, BPF_FUNC_get_current_pid_tgid, g->i64,
							NULL, 0), cg_u64(g, 32), ""), 8);
	for (int i = 0; i < n && i < 32; i++) {
		struct sp_type wide;
		const struct sp_type *t = event_type(args[i]->type, &wide);

		LLVMValueRef dst = cg_gep(g, rec, sizeof(struct sp_event_hdr) + f->elems[i].offset);

		if (vals[i])
			cg_store_conv(g, dst, vals[i], args[i]->type, t);
		else
			cg_expr_to(g, args[i], dst, t);
	}
	a[0] = rec;
	a[1] = cg_u64(g, 0);
	cg_call_helper(g, BPF_FUNC_ringbuf_submit, g->vt, a, 2);
	LLVMBuildBr(g->B, done);
	LLVMPositionBuilderAtEnd(g->B, done);
}

/* printf, time, cat, system: a literal format, then args laid out in the record. */
void cg_output_call(struct cg *g, const struct sp_node *n, int type)
{
	const struct sp_node *fmt = n->list.len ? n->list.items[0] : NULL;
	/* items is NULL for time() (no pointer arithmetic on it: UB) */
	const struct sp_node *const *args = fmt ? (const struct sp_node *const *)n->list.items + 1 : NULL;
	int id;

	if (type == SP_EV_TIME && !fmt) {
		id = cg_add_printf(g, "%H:%M:%S\n", NULL, 0);
		if (id >= 0)
			event_record(g, type, id, NULL, 0);
		return;
	}
	if (!fmt || fmt->kind != SP_N_STR) {
		cg_error(g, n->span, "%s needs a literal format string", n->name);
		return;
	}
	if (n->list.len > 33) {
		cg_error(g, n->span, "%s takes at most 32 arguments", n->name);
		return;
	}
	id = cg_add_printf(g, fmt->str, args, n->list.len - 1);
	if (id >= 0)
		event_record(g, type, id, args, n->list.len - 1);
}

/* errorf(fmt, ...), warnf(fmt, ...): a printf whose format starts with the
 * call's location and level, as bpftrace 0.27 prints them ("stdin:1:9-62:
 * ERROR: ..." for -e text), one line, to stderr (SP_EV_ERRORF). warnf()
 * under --no-warnings prints nothing. */
void cg_diag_call(struct cg *g, const struct sp_node *n, const char *level)
{
	const struct sp_node *fmt = n->list.items[0];
	const char *name = g->src && g->src->name ? g->src->name : "stdin";
	uint32_t line = 0, col = 0, eline = 0, ecol = 0;
	size_t cap, len;
	char *text, *w;
	int id;

	if (fmt->kind != SP_N_STR) {
		cg_error(g, n->span, "%s needs a literal format string", n->name);
		return;
	}
	if (n->list.len > 33) {
		cg_error(g, n->span, "%s takes at most 32 arguments", n->name);
		return;
	}
	if (!strcmp(level, "WARNING") && g->diag && g->diag->no_warnings)
		return;
	if (!strcmp(name, "<cmdline>"))
		name = "stdin";
	if (g->src) {
		sp_source_linecol(g->src, n->span.begin, &line, &col);
		sp_source_linecol(g->src, n->span.end, &eline, &ecol);
	}
	cap = 2 * strlen(name) + strlen(fmt->str) + 64;
	if (!(text = malloc(cap)))
		return;
	w = text;
	for (const char *c = name; *c; c++) { /* the file name is no format */
		if (*c == '%')
			*w++ = '%';
		*w++ = *c;
	}
	w += snprintf(w, cap - (size_t)(w - text), ":%u:%u-%u: %s: %s", line, col, ecol, level,
		      fmt->str);
	len = strlen(text);
	while (len && text[len - 1] == '\n')
		len--;
	text[len] = '\n';
	text[len + 1] = '\0';
	id = cg_add_printf(g, text, (const struct sp_node *const *)n->list.items + 1,
			   n->list.len - 1);
	if (id >= 0)
		event_record(g, SP_EV_ERRORF, id, (const struct sp_node *const *)n->list.items + 1,
			     n->list.len - 1);
	free(text);
}

static int map_index(struct cg *g, const struct sp_node *arg)
{
	struct cg_map *m;

	if (!arg || arg->kind != SP_N_MAP || !(m = cg_map_find(g, arg->name)))
		return -1;
	return (int)(m - g->maps);
}

void cg_map_event(struct cg *g, const struct sp_node *n, int type)
{
	const struct sp_node *m0 = n->list.len ? n->list.items[0] : NULL;
	/* print(@m[k]): the entry's value, not the whole map (sema keeps
	 * aggregations' entries out) */
	bool entry = type == SP_EV_PRINT && n->list.len == 1 && m0->kind == SP_N_MAP &&
		     m0->list.len && m0->type && m0->type->kind != SP_T_AGG;
	int id = entry ? -1 : map_index(g, m0);
	uint64_t arg = 0;

	if (id < 0) {
		if (type == SP_EV_PRINT && n->list.len == 1) { /* print(value) */
			const struct sp_node *v = n->list.items[0];
			int pid = cg_add_printf(g, NULL, &v, 1);

			if (pid >= 0)
				event_record(g, SP_EV_PRINT_VALUE, pid, &v, 1);
			return;
		}
		cg_error(g, n->span, "'%s' needs a map argument", n->name);
		return;
	}
	if (n->list.len > 1 && n->list.items[1]->kind == SP_N_INT)
		arg |= (uint32_t)n->list.items[1]->ival;
	if (n->list.len > 2 && n->list.items[2]->kind == SP_N_INT)
		arg |= (uint64_t)(uint32_t)n->list.items[2]->ival << 32;
	event_simple(g, type, id, arg);
}

/* ---- calls ------------------------------------------------------------------------- */

/* exit([code]): SP_EV_EXIT with the code in arg, then leave the probe. */
static LLVMValueRef exit_call(struct cg *g, const struct sp_node *n)
{
	if (n->list.len > 0) {
		LLVMValueRef args[3] = { LLVMConstInt(g->i32, SP_EV_EXIT, 0),
					 LLVMConstInt(g->i32, 0, 0), cg_expr(g, n->list.items[0]) };

		cg_call_fn(g, "sp_emit_event", args, 3);
	} else {
		cg_call_fn(g, "sp_emit_exit", NULL, 0);
	}
	LLVMBuildBr(g->B, g->ret_bb);
	cg_dead_block(g);
	return cg_u64(g, 0);
}

/* --- exit(), the one output call with an emitter of its own (the others are
 * stdlib/builtins.def's OUTPUT, MAPEVENT and DIAG rows, above) --- */

LLVMValueRef cg_emit_exit(struct cg *g, const struct sp_node *n)
{
	return exit_call(g, n);
}

