/* parser/sema.c: the semantic pass: probes, statements, scratch variables.
 *
 * Gives every expression a type and checks the program, reporting every
 * error it finds (sema_expr.c does expressions and maps, sema_call.c
 * builtins and functions from stdlib/builtins.def). See sema.h for the two
 * passes. Rules, bpftrace 0.17's unless noted:
 *   - a map's key and value types are fixed by its first assignment; a
 *     later mismatch is an error at the later use with a note at the first
 *   - ints in maps are 64-bit; strings widen to the longest use
 *   - aggregations (count() ...) are only assigned to maps and read by
 *     print/clear/zero/delete, never used in arithmetic
 *   - `$x` lives in the block that first assigns it (and blocks inside)
 *   - break/continue only inside while and for; unroll(N) with 1 <= N <= 100, nested
 *     unrolls making at most SP_MAX_UNROLL_COPIES copies of a body (100 x 10: a
 *     copy costs codegen about 6 ms, and 100 x 100 x 100 took gigabytes)
 *   - for ($kv : @m) and for ($i : a..b) (bpftrace 0.27): the loop variable
 *     lives in the loop's body only and may not shadow a variable
 *   - let $x [: type] [= value] (bpftrace 0.27) declares $x in its block
 *     (and blocks inside), 0 until assigned; it may not shadow a variable
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/probes.h"
#include "parser/sema.h"
#include "parser/types/ctypes.h"

/* --- scratch variables ----------------------------------------------------- */

static struct sema_var *var_find(struct sema *s, const char *name)
{
	struct sema_scope *sc;
	struct sema_var *v;

	for (sc = s->scope; sc; sc = sc->up)
		for (v = sc->vars; v; v = v->next)
			if (!strcmp(v->name, name))
				return v;
	return NULL;
}

/* Variables live for the whole probe, as in bpftrace 0.17: one assigned
 * in an if or a loop body is read after it (0 when the branch did not run:
 * codegen zeroes every variable at the probe's start). So a variable is
 * declared in the probe's own block, the outermost scope. */
static struct sema_scope *probe_scope(struct sema *s)
{
	struct sema_scope *sc = s->scope;

	while (sc->up)
		sc = sc->up;
	return sc;
}

static void scope_push(struct sema *s, struct sema_scope *sc)
{
	sc->vars = NULL;
	sc->serial = ++s->nscopes;
	sc->up = s->scope;
	s->scope = sc;
}

static bool scope_open(const struct sema *s, int serial)
{
	const struct sema_scope *sc;

	for (sc = s->scope; sc; sc = sc->up)
		if (sc->serial == serial)
			return true;
	return false;
}

static void scope_pop(struct sema *s)
{
	s->scope = s->scope->up;
}

struct sp_type *sema_var_read(struct sema *s, struct sp_node *n);
struct sp_type *sema_var_read(struct sema *s, struct sp_node *n)
{
	struct sema_var *v = var_find(s, n->name);

	if (!v) {
		sema_err(s, n->span, "use of undefined variable '%s'", n->name);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	n->scope_id = v->id;
	return n->type = v->type;
}

/* Pass 1 records each variable's widest type by id (ids come in the same
 * order in both passes); pass 2 gives that type to the first assignment
 * already, so `$s = "a"; $s = "longer";` stores both in one buffer. */
static void var_final_note(struct sema *s, const struct sema_var *v)
{
	if (v->id >= s->var_cap) {
		int cap = v->id * 2 + 16;
		struct sp_type **n = sp_arena_alloc(s->a, sizeof(*n) * (size_t)cap);

		if (s->var_cap)
			memcpy(n, s->var_final, sizeof(*n) * (size_t)s->var_cap);
		s->var_final = n;
		s->var_cap = cap;
	}
	s->var_final[v->id] = v->type;
}

static struct sp_type *var_final_type(struct sema *s, int id, struct sp_type *t)
{
	struct sp_type *f = id < s->var_cap ? s->var_final[id] : NULL;

	if (s->quiet || !f || t->kind == SP_T_INT || !sp_type_compatible(f, t))
		return t;
	return f;
}

/* A variable holds 64 bits of an integer; a bool stays a bool, an enum
 * value an enum value. */
static struct sp_type *var_int(struct sema *s, struct sp_type *t)
{
	return sp_type_is_bool(t) ? t : sp_type_int_like(s->a, t, 8);
}

static void var_assign(struct sema *s, struct sp_node *lv, struct sp_type *t)
{
	struct sema_var *v = var_find(s, lv->name);

	if (v && sp_type_is_none(v->type) && !sp_type_is_none(t)) {
		v->type = t->kind == SP_T_INT ? var_int(s, t) : t;
	} else if (!v) {
		/* declared even when the value had an error, so later uses
		 * do not report it again */
		v = sp_arena_alloc(s->a, sizeof(*v));
		v->name = lv->name;
		v->id = s->nvars++;
		v->type = t->kind == SP_T_INT ? var_int(s, t) : var_final_type(s, v->id, t);
		v->first = lv->span;
		v->home = s->scope->serial;
		v->next = probe_scope(s)->vars;
		probe_scope(s)->vars = v;
	} else if (sp_type_is_none(t)) {
		/* keep the type the variable has */
	} else if (!sp_type_compatible(v->type, t)) {
		sema_err(s, lv->span, "type mismatch for '%s': cannot assign '%s' to a '%s' variable",
			 lv->name, sema_tstr(s, t), sema_tstr(s, v->type));
		sema_note(s, v->first, "'%s' was first assigned here", lv->name);
	} else if ((t->kind == SP_T_PTR || t->kind == SP_T_ARRAY) && t->user != v->type->user) {
		v->type = t; /* a let-declared pointer takes the space of what it holds */
	} else if (t->kind == SP_T_TUPLE && v->type->kind == SP_T_TUPLE) {
		v->type = sema_widen(s, v->type, t); /* each string of a tuple widens */
	} else if (t->size > v->type->size && t->kind != SP_T_INT) {
		v->type = t; /* strings widen */
	}
	if (v->type->kind == SP_T_INT && !v->type->src_size && t->kind == SP_T_INT)
		v->type->src_size = t->src_size ? t->src_size : t->size; /* for bswap() */
	if (s->quiet)
		var_final_note(s, v);
	lv->scope_id = v->id;
	lv->type = v->type;
}

/* --- statements ---------------------------------------------------------- */

static void block(struct sema *s, struct sp_node *b);
static void stmt(struct sema *s, struct sp_node *n);

static void cond(struct sema *s, struct sp_node *e, const char *what)
{
	struct sp_type *t = sema_value(s, e);

	if (!sp_type_is_int(t) && t->kind != SP_T_PTR)
		sema_err(s, e->span, "%s must be an integer, not '%s'", what, sema_tstr(s, t));
}

static void assign_var(struct sema *s, struct sp_node *n)
{
	struct sp_node *lv = n->a;
	struct sp_type *t;

	if (sema_is_agg_call(n->b)) {
		sema_err(s, n->b->span, "%s() must be assigned to a map, not to '%s'", n->b->name,
			 lv->name);
		return;
	}
	t = n->op ? sema_value(s, n->b) : sema_readable(s, n->b);
	if (n->op) {
		struct sp_type *cur = sema_var_read(s, lv);

		if (cur && cur->kind == SP_T_PTR && cur->pointee && sp_type_is_int(t) &&
		    (n->op == '+' || n->op == '-'))
			return;
		if (!sp_type_is_int(cur) || !sp_type_is_int(t)) {
			char op[4];

			sema_err(s, n->span, "invalid operands to '%s=': '%s' and '%s'",
				 sp_op_str(n->op, op), sema_tstr(s, cur), sema_tstr(s, t));
		}
		return;
	}
	if (var_find(s, lv->name))
		t = sema_record_order(s, n->b, t, var_find(s, lv->name)->type);
	var_assign(s, lv, t);
}

static void assign_map(struct sema *s, struct sp_node *n)
{
	struct sp_node *m = n->a;
	struct sp_type *t;

	sema_map_keys(s, m, false);
	if (sema_is_agg_call(n->b) && !n->op) {
		t = sema_call(s, n->b, true);
		sema_map_value(s, m, t, m->span);
		return;
	}
	t = n->op ? sema_value(s, n->b) : sema_readable(s, n->b);
	if (n->op) {
		struct sema_map *mm = sema_map_get(s, m->name);
		struct sp_type *cur = mm->value;

		if (!cur)
			sema_map_value(s, m, s->s64, m->span);
		else if (cur->kind == SP_T_AGG)
			sema_err(s, n->span, "aggregation '%s' (%s) cannot be used in arithmetic",
				 m->name, sema_tstr(s, cur));
		else if (cur->kind == SP_T_PTR && cur->pointee && (n->op == '+' || n->op == '-'))
			; /* pointer arithmetic */
		else if (!sp_type_is_int(cur))
			sema_err(s, n->span, "invalid operand to compound assignment: '%s'",
				 sema_tstr(s, cur));
		if (!sp_type_is_int(t))
			sema_err(s, n->b->span, "invalid operand to compound assignment: '%s'",
				 sema_tstr(s, t));
		m->type = mm->value;
		return;
	}
	t = sema_record_order(s, n->b, t, sema_map_get(s, m->name)->value);
	sema_map_value(s, m, t, m->span);
}

/* The value of an entry of @m as a for loop sees it: a plain value, or an
 * aggregation that reads as one integer (count, sum, min, max, avg). */
static struct sp_type *for_map_value(struct sema *s, struct sp_node *m, struct sp_type *v)
{
	struct sp_type *i;

	if (v->kind != SP_T_AGG)
		return v;
	i = sema_agg_int(s, v);
	if (!i) { /* bpftrace's words */
		sema_err(s, m->span, "loop expression does not support type: %s", sema_tstr(s, v));
		return sp_type_new(s->a, SP_T_NONE);
	}
	return i;
}

/* for ($kv : @m): $kv is (key, value); several keys make a tuple key. */
static struct sp_type *for_map_type(struct sema *s, struct sp_node *m)
{
	struct sema_map *mm = sema_map_get(s, m->name);
	struct sp_type *kt = sema_map_keys(s, m, true), *el[2];

	if (!mm->value) {
		if (!mm->assigned)
			sema_err(s, m->span, "undefined map '%s'", m->name);
		return sp_type_new(s->a, SP_T_NONE);
	}
	m->type = mm->value;
	if (!kt) {
		sema_err(s, m->span, "%s has no explicit keys (scalar map), and cannot be used "
			 "for iteration", m->name);
		return sp_type_new(s->a, SP_T_NONE);
	}
	el[0] = kt;
	el[1] = for_map_value(s, m, mm->value);
	if (sp_type_is_none(el[1]))
		return el[1];
	return sp_type_tuple(s->a, 2, el);
}

/* for ($i : a..b): both ends integers, evaluated once; $i is 64-bit. */
static struct sp_type *for_range_type(struct sema *s, struct sp_node *r)
{
	struct sp_type *a = sema_value(s, r->a), *b = sema_value(s, r->b);

	if (!sp_type_is_int(a) && !sp_type_is_none(a))
		sema_err(s, r->a->span, "loop range requires an integer for the start value, "
			 "not '%s'", sema_tstr(s, a));
	if (!sp_type_is_int(b) && !sp_type_is_none(b))
		sema_err(s, r->b->span, "loop range requires an integer for the end value, "
			 "not '%s'", sema_tstr(s, b));
	r->type = sp_type_int(s->a, 8, !sp_type_is_int(a) || a->is_signed ||
			      !sp_type_is_int(b) || b->is_signed);
	return r->type;
}

static void for_stmt(struct sema *s, struct sp_node *n)
{
	struct sp_node *var = n->a;
	struct sema_var *old = var_find(s, var->name), *v;
	struct sema_scope sc;
	struct sp_type *t;

	if (old) {
		sema_err(s, var->span, "loop declaration shadows existing variable: %s", var->name);
		sema_note(s, old->first, "'%s' was first assigned here", var->name);
	}
	t = n->b->kind == SP_N_MAP ? for_map_type(s, n->b) : for_range_type(s, n->b);
	scope_push(s, &sc);
	v = sp_arena_alloc(s->a, sizeof(*v));
	v->name = var->name;
	v->id = s->nvars++;
	v->type = t;
	v->first = var->span;
	sc.vars = v;
	var->scope_id = v->id;
	var->type = t;
	n->ival = v->id;
	s->loops++;
	block(s, n->c);
	s->loops--;
	scope_pop(s);
}

/* The declared type of `let $x: T`, a copy (var_assign notes bswap()'s
 * size in it); NULL after an error. */
static struct sp_type *let_type(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = n->cast_type;

	if (sp_type_is_bool(t))
		return sp_type_bool(s->a);
	if (t->kind == SP_T_INT)
		return sp_type_int(s->a, t->size, t->is_signed);
	if (t->kind == SP_T_STRING)
		return sp_type_string(s->a, t->size ? t->size : (uint32_t)s->strlen);
	/* let $t: struct task_struct *, let $w: struct W[10] (bpftrace 0.27) */
	if ((t->kind == SP_T_PTR || (t->kind == SP_T_ARRAY && t->count > 0)) && t->pointee)
		return sema_complete(s, t->pointee, n->span) ? sema_let_space(s, t) : NULL;
	sema_err(s, n->span, "a variable cannot be declared as '%s': let takes an integer type, "
		 "bool, string or a pointer", sema_tstr(s, t));
	return NULL;
}

/* let $x: u8 = 300: a literal that does not fit its declared integer */
static void let_literal_fits(struct sema *s, struct sp_node *e, const struct sp_type *t)
{
	int64_t v;
	int bits = (int)t->size * 8;

	if (bits >= 64 || sp_type_is_bool(t) || !sema_const_int(e, &v))
		return;
	if (t->is_signed ? (v < -(INT64_C(1) << (bits - 1)) || v >= (INT64_C(1) << (bits - 1)))
			 : (v < 0 || v >= (INT64_C(1) << bits)))
		sema_err(s, e->span, "value %" PRId64 " does not fit in '%s'", v, sema_tstr(s, t));
}

/* n->type: the variable's type (n->cast_type stays the declared one, for
 * both passes and the AST dump). */
static void let_stmt(struct sema *s, struct sp_node *n)
{
	struct sp_node *var = n->a;
	struct sema_var *old = var_find(s, var->name), *v;
	struct sp_type *t = n->cast_type ? let_type(s, n) : NULL, *vt = NULL;
	struct sp_type *fin = !s->quiet && s->nvars < s->var_cap ? s->var_final[s->nvars] : NULL;

	if (n->b)
		vt = sema_readable(s, n->b); /* before $x exists: `let $x = $x` is an error */
	if (old && old->home && !scope_open(s, old->home))
		old = NULL; /* first assigned in a block now closed: 0.27 scopes it there */
	if (old) {
		sema_err(s, var->span, "variable %s was already declared: variable shadowing is "
			 "not allowed", var->name);
		sema_note(s, old->first, "'%s' was first declared or assigned here", var->name);
	}
	if (vt && sp_type_is_none(vt))
		vt = NULL;
	if (t && vt) {
		if (!sp_type_compatible(t, vt) && !(sp_type_is_int(t) && sp_type_is_int(vt)))
			sema_err(s, n->b->span, "type mismatch for '%s': cannot assign '%s' to a '%s' "
				 "variable", var->name, sema_tstr(s, vt), sema_tstr(s, t));
		else if (sp_type_is_int(t))
			let_literal_fits(s, n->b, t);
	}
	if (!t && vt)
		t = vt->kind == SP_T_INT ? var_int(s, vt) : vt;
	if (t && t->kind == SP_T_STRING && vt && vt->kind == SP_T_STRING && vt->size > t->size)
		t = vt; /* strings widen */
	if ((!t || t->kind != SP_T_INT) && fin && !sp_type_is_none(fin) &&
	    (!t || sp_type_compatible(t, fin)))
		t = fin; /* the widest string pass 1 saw, or the type `let $x;` gets later */
	if (!t && !s->quiet)
		t = s->s64; /* never assigned, only read or incremented: an integer, 0 */
	v = sp_arena_alloc(s->a, sizeof(*v));
	v->name = var->name;
	v->id = s->nvars++;
	v->type = t ? t : sp_type_new(s->a, SP_T_NONE);
	v->first = var->span;
	v->next = s->scope->vars;
	s->scope->vars = v;
	if (s->quiet)
		var_final_note(s, v);
	n->type = v->type;
	var->scope_id = v->id;
	var->type = v->type;
}

/* @m = { stmts; count() }: an aggregation is only assigned to a map, so
 * the assignment moves into the block, n becoming `{ stmts; @m = count() }` */
static void hoist_agg_value(struct sema *s, struct sp_node *n)
{
	struct sp_node *be = n->b, *blk = be->a;
	struct sp_node *as = sp_arena_alloc(s->a, sizeof(*as));

	*as = *n;
	as->b = be->b;
	sp_list_push(s->a, &blk->list, as);
	*n = *blk;
	n->span = be->span;
}

struct sp_type *sema_block_expr(struct sema *s, struct sp_node *n)
{
	struct sema_scope sc;
	struct sp_type *t;

	scope_push(s, &sc);
	for (int i = 0; i < n->a->list.len; i++)
		stmt(s, n->a->list.items[i]);
	t = n->b ? sema_expr(s, n->b) : sp_type_new(s->a, SP_T_VOID);
	scope_pop(s);
	return n->type = t;
}

static void stmt(struct sema *s, struct sp_node *n)
{
	int64_t v;
	int saved = s->unroll, copies = s->unroll;

	switch (n->kind) {
	case SP_N_EXPR_STMT:
		if (sema_is_agg_call(n->a)) {
			sema_call(s, n->a, false);
			break;
		}
		sema_expr(s, n->a);
		break;
	case SP_N_ASSIGN:
		if (n->a->kind == SP_N_MAP && !n->op && n->b->kind == SP_N_BLOCK_EXPR &&
		    n->b->b && sema_is_agg_call(n->b->b)) {
			hoist_agg_value(s, n);
			block(s, n);
		} else if (n->a->kind == SP_N_VAR)
			assign_var(s, n);
		else
			assign_map(s, n);
		break;
	case SP_N_IF:
		cond(s, n->a, "an if condition");
		block(s, n->b);
		if (n->c && n->c->kind == SP_N_IF)
			stmt(s, n->c);
		else if (n->c)
			block(s, n->c);
		break;
	case SP_N_WHILE:
		cond(s, n->a, "a while condition");
		s->loops++;
		block(s, n->b);
		s->loops--;
		break;
	case SP_N_FOR:
		for_stmt(s, n);
		break;
	case SP_N_LET:
		let_stmt(s, n);
		break;
	case SP_N_BLOCK: /* { stmts } as a statement, or a statement macro's body (macro.c) */
		block(s, n);
		break;
	case SP_N_UNROLL:
		sema_expr(s, n->a);
		if (!sema_const_int(n->a, &v))
			sema_err(s, n->a->span, "unroll count must be a constant from 1 to 100");
		else if (v < 1 || v > 100) /* bpftrace's words */
			sema_err(s, n->a->span, "unroll %s value is %d (the count must be from 1 to 100)",
				 v < 1 ? "minimum" : "maximum", v < 1 ? 1 : 100);
		else if (s->unroll >= 0 && (s->unroll ? s->unroll : 1) * v > SP_MAX_UNROLL_COPIES) {
			sema_err(s, n->a->span, "nested unroll repeats its body %lld times (at most %d): "
				 "use a while or for loop", (long long)(s->unroll ? s->unroll : 1) * v,
				 SP_MAX_UNROLL_COPIES);
			copies = -1; /* said once, not again for each unroll inside */
		} else if (s->unroll >= 0)
			copies = (s->unroll ? s->unroll : 1) * (int)v;
		s->unroll = copies;
		block(s, n->b);
		s->unroll = saved;
		break;
	case SP_N_RETURN: /* return expr (bpftrace 0.27): expr runs, the probe ends */
		if (n->a)
			sema_expr(s, n->a);
		break;
	case SP_N_BREAK:
	case SP_N_CONTINUE:
		if (!s->loops)
			sema_err(s, n->span, "'%s' outside of a loop",
				 n->kind == SP_N_BREAK ? "break" : "continue");
		break;
	default:
		break;
	}
}

static void block(struct sema *s, struct sp_node *b)
{
	struct sema_scope sc;
	int i;

	scope_push(s, &sc);
	for (i = 0; i < b->list.len; i++)
		stmt(s, b->list.items[i]);
	scope_pop(s);
}

/* --- probes and the program ---------------------------------------------- */

static void probe(struct sema *s, struct sp_node *p)
{
	int i, kind;

	s->probe = p;
	s->probe_mask = 0;
	for (i = 0; i < p->list.len; i++) {
		kind = (int)p->list.items[i]->ival; /* set by the attach pre-pass */
		if (kind >= 0)
			s->probe_mask |= 1u << kind;
		if (kind == SP_PK_ITER && !s->quiet)
			sema_iter_attach(s, p->list.items[i]);
	}
	if (p->a)
		cond(s, p->a, "a predicate");
	if (p->b)
		block(s, p->b);
}

static void run_pass(struct sema *s, struct sp_node *prog)
{
	int i;

	s->nvars = 0;
	s->loops = 0;
	for (i = 0; i < prog->list.len; i++)
		probe(s, prog->list.items[i]);
}

static bool map_used(const struct sp_node *n, const char *name)
{
	if (!n)
		return false;
	if (n->kind == SP_N_MAP && n->name && strcmp(n->name, name) == 0)
		return true;
	if (map_used(n->a, name) || map_used(n->b, name) || map_used(n->c, name))
		return true;
	for (int i = 0; i < n->list.len; i++)
		if (map_used(n->list.items[i], name))
			return true;
	return false;
}

/* let @m = KIND(N); before the probes: a kind codegen knows, a size of at
 * least one, one declaration a map, and a warning for one never used. */
static void map_decls(struct sema *s, struct sp_node *prog)
{
	static const char *const kinds[] = { "hash", "lruhash", "percpuhash", "percpulruhash" };

	for (int i = 0; prog->c && i < prog->c->list.len; i++) {
		struct sp_node *d = prog->c->list.items[i];
		bool known = false;

		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			known = known || strcmp(d->name, kinds[k]) == 0;
		if (!known)
			sema_err(s, d->span, "unknown map type '%s': expected hash, lruhash, percpuhash "
				 "or percpulruhash", d->name);
		else if (d->ival < 1 || d->ival > UINT32_MAX)
			sema_err(s, d->span, "map '%s' must hold from 1 to %u entries, not %lld",
				 d->a->name, UINT32_MAX, (long long)d->ival);
		for (int j = 0; j < i; j++)
			if (strcmp(prog->c->list.items[j]->a->name, d->a->name) == 0)
				sema_err(s, d->a->span, "map '%s' is declared twice", d->a->name);
		bool used = false;

		for (int j = 0; j < prog->list.len && !used; j++)
			used = map_used(prog->list.items[j], d->a->name);
		if (!used)
			sp_diag_at(s->d, SP_DIAG_WARNING, d->a->span, "unused map: %s", d->a->name);
	}
}

int sp_sema(struct sp_arena *a, struct sp_node *prog, const struct sp_sema_opts *o,
	    struct sp_diag *d)
{
	struct sp_sema_opts defaults = { .strlen = SP_DEFAULT_STRLEN };
	struct sema s = { .a = a, .d = d, .o = o ? o : &defaults };
	int before = sp_diag_errors(d);

	if (sp_macros_expand(a, prog, d))
		return sp_diag_errors(d) - before;
	s.strlen = s.o->strlen > 0 ? s.o->strlen : SP_DEFAULT_STRLEN;
	s.u64 = sp_type_int(a, 8, false);
	s.s64 = sp_type_int(a, 8, true);
	s.ct = prog->ctypes ? prog->ctypes : (prog->ctypes = sp_ctypes_new(a));
	for (int i = 0; i < prog->list.len; i++) {
		struct sp_node *p = prog->list.items[i];

		for (int j = 0; j < p->list.len; j++)
			p->list.items[j]->ival = sp_attach_parse(a, d, p->list.items[j],
								 s.o->nparams, s.o->params);
		sema_expand_tp_wildcards(&s, p);
	}
	s.quiet = true;
	run_pass(&s, prog);
	s.quiet = false;
	run_pass(&s, prog);
	map_decls(&s, prog);
	if (prog->list.len == 0 && sp_diag_errors(d) == 0)
		sp_diag_at(d, SP_DIAG_ERROR, prog->span, "the program has no probes");
	sp_ctypes_release(s.ct);
	return sp_diag_errors(d) - before;
}
