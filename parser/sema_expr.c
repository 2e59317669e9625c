/* parser/sema_expr.c: types of expressions, and map key/value bookkeeping.
 *
 * Integer arithmetic is 64-bit: the result is signed only when both
 * operands are signed (C's usual conversions at 64 bits); comparisons and
 * logical operators give u64 0/1. Ordering comparisons of a signed and an
 * unsigned non-literal warn, as bpftrace does. Strings compare only with
 * == and != against strings; `comm == 3` is an error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/sema.h"

struct sp_type *sema_var_read(struct sema *s, struct sp_node *n);

static struct sp_type *none(struct sema *s)
{
	return sp_type_new(s->a, SP_T_NONE);
}

bool sema_const_int(const struct sp_node *n, int64_t *v)
{
	if (n->kind == SP_N_INT) {
		*v = n->ival;
		return true;
	}
	if (n->kind == SP_N_UNOP && n->op == '-' && n->a->kind == SP_N_INT) {
		*v = -n->a->ival;
		return true;
	}
	return false;
}

/* --- maps ------------------------------------------------------------------ */

struct sema_map *sema_map_get(struct sema *s, const char *name)
{
	struct sema_map *m;

	for (m = s->maps; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	m = sp_arena_alloc(s->a, sizeof(*m));
	m->name = name;
	m->next = s->maps;
	s->maps = m;
	return m;
}

/* The type a value takes in a map slot: integers are 64-bit. */
struct sp_type *sema_slot_type(struct sema *s, struct sp_type *t)
{
	struct sp_type **el;
	int i;

	if (t->kind == SP_T_INT) /* a bool keeps its one byte and its true/false, an
				  * enum value its names */
		return t->size == 8 || sp_type_is_bool(t) ? t : sp_type_int_like(s->a, t, 8);
	if (t->kind != SP_T_TUPLE)
		return t;
	el = sp_arena_alloc(s->a, (size_t)(t->nelems + 1) * sizeof(*el));
	for (i = 0; i < t->nelems; i++)
		el[i] = sema_slot_type(s, t->elems[i]);
	return sp_type_record_of(sp_type_tuple(s->a, t->nelems, el), t);
}

/* Widen strings (and strings inside tuples) of `into` to fit `t`. */
struct sp_type *sema_widen(struct sema *s, struct sp_type *into, struct sp_type *t)
{
	struct sp_type **el;
	int i;

	if (into->kind == SP_T_TUPLE && t->kind == SP_T_TUPLE && into->nelems == t->nelems) {
		el = sp_arena_alloc(s->a, (size_t)(t->nelems + 1) * sizeof(*el));
		for (i = 0; i < t->nelems; i++)
			el[i] = sema_widen(s, into->elems[i], t->elems[i]);
		return sp_type_record_of(sp_type_tuple(s->a, t->nelems, el), into);
	}
	if ((into->kind == SP_T_STRING || into->kind == SP_T_BUF) && t->size > into->size)
		return t;
	return into;
}

static bool key_ok(const struct sp_type *t)
{
	int i;

	switch (t->kind) {
	case SP_T_AGG:
	case SP_T_VOID:
		return false;
	case SP_T_TUPLE:
		for (i = 0; i < t->nelems; i++)
			if (!key_ok(t->elems[i]))
				return false;
		return true;
	default:
		return true;
	}
}

static void keyed_mismatch(struct sema *s, struct sp_node *m, struct sema_map *mm)
{
	if (mm->key)
		sema_err(s, m->span, "map '%s' used without a key, but it has keys ('%s')", m->name,
			 sema_tstr(s, mm->key));
	else
		sema_err(s, m->span, "map '%s' has no key, but is used with one", m->name);
	sema_note(s, mm->key_first, "'%s' was first used here", m->name);
}

/* Types a MAP node's keys against the map; whole_ok: `@m` may stand for
 * the whole map (clear, zero, print). Returns the key type or NULL. */
struct sp_type *sema_map_keys(struct sema *s, struct sp_node *m, bool whole_ok)
{
	struct sema_map *mm = sema_map_get(s, m->name);
	struct sp_type *kt = NULL, **el;
	int i, n = m->list.len;

	if (n == 0 && whole_ok)
		return m->key_type = mm->key;
	if (n) {
		el = sp_arena_alloc(s->a, (size_t)n * sizeof(*el));
		for (i = 0; i < n; i++) {
			el[i] = sema_slot_type(s, sema_readable(s, m->list.items[i]));
			if (!key_ok(el[i]))
				sema_err(s, m->list.items[i]->span, "'%s' cannot be a map key",
					 sema_tstr(s, el[i]));
			if (sp_type_is_none(el[i]))
				return m->key_type = mm->key;
		}
		kt = n == 1 ? el[0] : sp_type_tuple(s->a, n, el);
	}
	if (!mm->keyed_known) {
		mm->keyed_known = true;
		mm->key = kt;
		mm->key_first = m->span;
	} else if (!mm->key != !kt) {
		keyed_mismatch(s, m, mm);
	} else if (kt && !sp_type_compatible(mm->key, kt)) {
		sema_err(s, m->span, "key type mismatch for '%s': expected '%s', got '%s'", m->name,
			 sema_tstr(s, mm->key), sema_tstr(s, kt));
		sema_note(s, mm->key_first, "'%s' was first used with key '%s' here", m->name,
			  sema_tstr(s, mm->key));
	} else if (kt) {
		mm->key = sema_widen(s, mm->key, kt);
	}
	return m->key_type = mm->key;
}

/* Records or checks the value type of an assignment to map node m. */
void sema_map_value(struct sema *s, struct sp_node *m, struct sp_type *t, struct sp_span at)
{
	struct sema_map *mm = sema_map_get(s, m->name);

	mm->assigned = true;
	if (sp_type_is_none(t)) {
		m->type = mm->value;
		return;
	}
	t = sema_slot_type(s, t);
	if (!mm->value) {
		mm->value = t;
		mm->value_first = at;
	} else if (!(mm->value->kind == SP_T_AGG ? sp_type_equal(mm->value, t)
						 : sp_type_compatible(mm->value, t))) {
		sema_err(s, at, "type mismatch for '%s': expected '%s', got '%s'", m->name,
			 sema_tstr(s, mm->value), sema_tstr(s, t));
		sema_note(s, mm->value_first, "'%s' was first assigned '%s' here", m->name,
			  sema_tstr(s, mm->value));
	} else {
		mm->value = sema_widen(s, mm->value, t);
	}
	m->type = mm->value;
}

static struct sp_type *map_read(struct sema *s, struct sp_node *m)
{
	struct sema_map *mm;
	const char *cands[64], *hint;
	struct sema_map *it;
	int n = 0;

	sema_map_keys(s, m, false);
	mm = sema_map_get(s, m->name);
	if (mm->value)
		return m->type = mm->value;
	if (s->quiet || mm->assigned) /* an error was reported at the assignment */
		return m->type = none(s);
	for (it = s->maps; it && n < 64; it = it->next)
		if (it->value)
			cands[n++] = it->name;
	sema_err(s, m->span, "undefined map '%s'", m->name);
	hint = sp_did_you_mean(m->name, cands, n);
	if (hint)
		sema_note(s, m->span, "did you mean '%s'?", hint);
	return m->type = none(s);
}

/* --- operators ------------------------------------------------------------- */

/* An operand t of e: a map of count/sum/min/max/avg reads as its merged
 * integer, as bpftrace 0.27 allows (`if (@ > 5)`, `@a + @b`); the node
 * keeps its AGG type, so codegen reads the per-CPU slots. Another
 * aggregation (hist, stats ...) is an error, and gives NULL. */
static struct sp_type *agg_operand(struct sema *s, struct sp_node *e, struct sp_type *t)
{
	struct sp_type *v;

	if (!t || t->kind != SP_T_AGG)
		return t;
	v = e->kind == SP_N_MAP ? sema_agg_int(s, t) : NULL;
	if (!v)
		sema_err(s, e->span, "aggregation '%s' (%s) cannot be used in arithmetic",
			 e->kind == SP_N_MAP ? e->name : "?", sema_tstr(s, t));
	return v;
}

/* The result of a comparison, !, && or ||: a bool (bpftrace 0.27: it
 * prints true/false) 64 bits wide, signed or not, so that it counts in
 * arithmetic and further comparisons as the integer 0.17 made it. */
struct sp_type *sema_cmp_bool(struct sema *s, bool is_signed)
{
	struct sp_type *t = sp_type_int(s->a, 8, is_signed);

	t->fmt = "bool";
	return t;
}

static bool is_cmp(int op)
{
	return op == '<' || op == '>' || op == SP_OP_LE || op == SP_OP_GE;
}

/* A literal >= 0 fits either signedness: no sign warnings for it. */
static bool is_nonneg_literal(const struct sp_node *n)
{
	int64_t v;

	return sema_const_int(n, &v) && v >= 0;
}

/* bpftrace 0.17's warnings: comparisons and + - * / % mixing signs, and
 * signed operands of / and %. Bitwise, shift and logical ops do not warn. */
static void sign_warnings(struct sema *s, struct sp_node *n, struct sp_type *x,
			  struct sp_type *y)
{
	bool lit_a = is_nonneg_literal(n->a), lit_b = is_nonneg_literal(n->b);
	bool div = n->op == '/' || n->op == '%';
	bool arith = div || n->op == '+' || n->op == '-' || n->op == '*';
	char op[4];

	if (x->is_signed != y->is_signed && !lit_a && !lit_b) {
		if (is_cmp(n->op) || n->op == SP_OP_EQ || n->op == SP_OP_NE)
			sema_warn(s, n->span, "comparison of integers of different signs: '%s' and '%s' "
				  "can lead to undefined behavior", sema_tstr(s, x), sema_tstr(s, y));
		else if (arith)
			sema_warn(s, n->span, "arithmetic on integers of different signs: '%s' and '%s' "
				  "can lead to undefined behavior", sema_tstr(s, x), sema_tstr(s, y));
	}
	if (div && ((x->is_signed && !lit_a) || (y->is_signed && !lit_b)))
		sema_warn(s, n->span,
			  "signed operands for '%s' can lead to undefined behavior (cast to unsigned to silence this warning)",
			  sp_op_str(n->op, op));
}

static struct sp_type *binop(struct sema *s, struct sp_node *n)
{
	struct sp_type *x = sema_expr(s, n->a), *y = sema_expr(s, n->b);
	bool eq = n->op == SP_OP_EQ || n->op == SP_OP_NE;
	char op[4];

	x = agg_operand(s, n->a, x);
	y = agg_operand(s, n->b, y);
	if (!x || !y)
		return n->type = none(s);
	/* `@x = @x + 1` as @x's first assignment: a map of no type yet in
	 * arithmetic with an integer is an integer, as bpftrace types it */
	if (sp_type_is_none(x) && n->a->kind == SP_N_MAP && y && y->kind == SP_T_INT)
		x = s->s64;
	if (sp_type_is_none(y) && n->b->kind == SP_N_MAP && x && x->kind == SP_T_INT)
		y = s->s64;
	if (sp_type_is_none(x) || sp_type_is_none(y))
		return n->type = none(s);
	if (x->kind == SP_T_PTR || y->kind == SP_T_PTR)
		return n->type = sema_ptr_binop(s, n, x, y);
	if (x->kind == SP_T_STRING && y->kind == SP_T_STRING && eq)
		return n->type = sema_cmp_bool(s, false);
	/* arrays of one type, and buffers, compare byte for byte (as bpftrace) */
	if (eq && ((x->kind == SP_T_ARRAY && sp_type_equal(x, y)) ||
		   (x->kind == SP_T_BUF && y->kind == SP_T_BUF)))
		return n->type = sema_cmp_bool(s, false);
	if ((x->kind == SP_T_STRING && y->kind == SP_T_INT) ||
	    (x->kind == SP_T_INT && y->kind == SP_T_STRING)) {
		if (eq || is_cmp(n->op)) {
			sema_err(s, n->span, "cannot compare a string with an integer ('%s' %s '%s')",
				 sema_tstr(s, x), sp_op_str(n->op, op), sema_tstr(s, y));
			return n->type = none(s);
		}
	}
	if (x->kind != SP_T_INT || y->kind != SP_T_INT) {
		sema_err(s, n->span, "invalid operands to '%s': '%s' and '%s'", sp_op_str(n->op, op),
			 sema_tstr(s, x), sema_tstr(s, y));
		return n->type = none(s);
	}
	sign_warnings(s, n, x, y);
	/* comparisons, && and || give a bool, as in bpftrace 0.27 (print(1 < 2)
	 * prints true): 0 or 1, typed like arithmetic, signed when both operands
	 * are, as bpftrace types them (-1 < (1 == 1)) */
	if (eq || is_cmp(n->op) || n->op == SP_OP_LAND || n->op == SP_OP_LOR)
		return n->type = sema_cmp_bool(s, x->is_signed && y->is_signed);
	return n->type = x->is_signed && y->is_signed ? s->s64 : s->u64;
}

static struct sp_type *unop(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = sema_expr(s, n->a);
	char op[4];

	t = agg_operand(s, n->a, t);
	if (!t || sp_type_is_none(t))
		return n->type = none(s);
	if (n->op == '!' && t->kind == SP_T_PTR)
		return n->type = sema_cmp_bool(s, false);
	if (t->kind != SP_T_INT) {
		sema_err(s, n->span, "invalid operand to '%s': '%s'", sp_op_str(n->op, op),
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	if (n->op == '!')
		return n->type = sema_cmp_bool(s, false);
	/* - and ~ keep the operand's signedness, as in C and bpftrace */
	return n->type = sp_type_int(s->a, 8, t->is_signed);
}

/* t, the type of n, as a value: not an aggregation, not nothing. */
static struct sp_type *value_of(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	if (n->kind == SP_N_BLOCK_EXPR && !n->b) {
		sema_err(s, n->span, "this block has no value: end it with an expression "
			 "without ';', e.g. { $x = 1; $x + 1 }");
		return none(s);
	}
	if (n->kind == SP_N_BLOCK_EXPR) /* the value's rules, said at the value */
		return n->type = value_of(s, n->b, t);
	if (t->kind == SP_T_AGG && n->kind == SP_N_MAP && sema_agg_int(s, t))
		return sema_agg_int(s, t); /* its merged integer, as in agg_operand() */
	if (t->kind == SP_T_AGG) {
		sema_err(s, n->span, "cannot read aggregation '%s' (%s) as a value",
			 n->kind == SP_N_MAP ? n->name : "?", sema_tstr(s, t));
		return none(s);
	}
	if (t->kind == SP_T_VOID && n->kind == SP_N_TERNARY) {
		sema_err(s, n->span, "a '?:' whose branches have no value has no value");
		return none(s);
	}
	if (t->kind == SP_T_VOID) {
		sema_err(s, n->span, "%s() has no value", n->kind == SP_N_CALL ? n->name : "?");
		return none(s);
	}
	return t;
}

/* As bpftrace, `c ? printf(...) : exit()` is a statement: both branches
 * without value make a ternary without value. */
static struct sp_type *ternary(struct sema *s, struct sp_node *n)
{
	struct sp_type *c = sema_value(s, n->a);
	struct sp_type *x = sema_expr(s, n->b), *y = sema_expr(s, n->c);

	if (!sp_type_is_int(c) && c->kind != SP_T_PTR) /* a pointer is true when not NULL */
		sema_err(s, n->a->span, "condition must be an integer, not '%s'", sema_tstr(s, c));
	if (x->kind == SP_T_VOID && y->kind == SP_T_VOID)
		return n->type = x;
	x = value_of(s, n->b, x);
	y = value_of(s, n->c, y);
	if (sp_type_is_none(x) || sp_type_is_none(y))
		return n->type = none(s);
	if (!sp_type_compatible(x, y)) {
		sema_err(s, n->span, "the branches of '?:' have different types: '%s' and '%s'",
			 sema_tstr(s, x), sema_tstr(s, y));
		return n->type = none(s);
	}
	if (sp_type_is_bool(x) && sp_type_is_bool(y)) /* c ? true : false */
		return n->type = sp_type_bool(s->a);
	if (x->kind == SP_T_INT)
		return n->type = x->is_signed && y->is_signed ? s->s64 : s->u64;
	return n->type = sema_widen(s, x, y);
}

static int field_index(const struct sp_type *t, const char *name)
{
	for (int i = 0; i < t->nelems; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return -1;
}

/* $r = (b=1, a=2) where $r is (a=.., b=..): bpftrace 0.27 matches a record's
 * fields by name. The literal n takes the target's order; n->order keeps the
 * source order its fields are evaluated in. t is n's type; the result is the
 * type to assign. */
struct sp_type *sema_record_order(struct sema *s, struct sp_node *n, struct sp_type *t,
				  const struct sp_type *want)
{
	struct sp_node **items;
	struct sp_type **el;
	int *order, k;

	if (n->kind != SP_N_TUPLE || !n->fnames || n->order || !want || !t ||
	    t->kind != SP_T_TUPLE || want->kind != SP_T_TUPLE || !want->names ||
	    t->nelems != want->nelems || n->list.len != t->nelems)
		return t;
	for (k = 0; k < t->nelems && !strcmp(n->fnames[k], want->names[k]); k++)
		;
	if (k == t->nelems) /* already in order */
		return t;
	for (k = 0; k < t->nelems; k++)
		if (field_index(want, n->fnames[k]) < 0)
			return t; /* another record: the caller reports the mismatch */
	items = sp_arena_alloc(s->a, sizeof(*items) * (size_t)t->nelems);
	el = sp_arena_alloc(s->a, sizeof(*el) * (size_t)t->nelems);
	order = sp_arena_alloc(s->a, sizeof(*order) * (size_t)t->nelems);
	for (k = 0; k < t->nelems; k++) {
		int i = field_index(want, n->fnames[k]);

		items[i] = n->list.items[k];
		el[i] = t->elems[k];
		order[k] = i;
	}
	for (k = 0; k < t->nelems; k++)
		n->list.items[k] = items[k];
	n->fnames = want->names;
	n->order = order;
	n->type = sp_type_tuple(s->a, t->nelems, el);
	n->type->names = want->names;
	return n->type;
}

static struct sp_type *incdec(struct sema *s, struct sp_node *n)
{
	struct sp_node *lv = n->a;
	struct sp_type *t;

	if (lv->kind == SP_N_VAR) {
		t = sema_var_read(s, lv);
	} else {
		struct sema_map *mm = sema_map_get(s, lv->name);

		sema_map_keys(s, lv, false);
		if (!mm->value)
			sema_map_value(s, lv, s->s64, lv->span);
		t = lv->type = mm->value;
	}
	if (t && t->kind == SP_T_AGG) {
		sema_err(s, n->span, "cannot use '%s' on aggregation '%s' (%s)",
			 n->op == '+' ? "++" : "--", lv->name, sema_tstr(s, t));
		return n->type = none(s);
	}
	if (t && t->kind == SP_T_PTR && t->pointee)
		return n->type = t;
	if (!sp_type_is_int(t)) {
		sema_err(s, n->span, "cannot use '%s' on '%s' of type '%s'",
			 n->op == '+' ? "++" : "--", lv->name, sema_tstr(s, t));
		return n->type = none(s);
	}
	return n->type = t;
}

/* --- the rest ---------------------------------------------------------------- */

static struct sp_type *tuple(struct sema *s, struct sp_node *n)
{
	struct sp_type **el = sp_arena_alloc(s->a, (size_t)n->list.len * sizeof(*el));
	int i;

	for (i = 0; i < n->list.len; i++) {
		el[i] = sema_value(s, n->list.items[i]);
		if (sp_type_is_none(el[i]))
			return n->type = none(s);
	}
	for (i = 0; n->fnames && i < n->list.len; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(n->fnames[i], n->fnames[j]) == 0)
				sema_err(s, n->list.items[i]->span, "field '%s' is given twice in the record",
					 n->fnames[i]);
	n->type = sp_type_tuple(s->a, n->list.len, el);
	n->type->names = n->fnames;
	return n->type;
}

/* r.name of a record (a=1, b=2): its element, as r.N */
static struct sp_type *record_field(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	for (int i = 0; i < t->nelems; i++)
		if (strcmp(t->names[i], n->name) == 0) {
			n->kind = SP_N_TUPLE_INDEX;
			n->ival = i;
			return n->type = t->elems[i];
		}
	sema_err(s, n->span, "record '%s' has no field '%s'", sema_tstr(s, t), n->name);
	return n->type = none(s);
}

static struct sp_type *tuple_index(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = sema_value(s, n->a);

	if (sp_type_is_none(t))
		return n->type = none(s);
	if (t->kind != SP_T_TUPLE) {
		sema_err(s, n->span, "'.%lld' needs a tuple, not '%s'", (long long)n->ival,
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	if (n->ival < 0 || n->ival >= t->nelems) {
		sema_err(s, n->span, "tuple index %lld out of range for '%s'", (long long)n->ival,
			 sema_tstr(s, t));
		return n->type = none(s);
	}
	return n->type = t->elems[n->ival];
}


/* $N: a number when its text is one (up to 2^64 - 1: u64 above s64's
 * range), else the text as a string, as in bpftrace 0.27 (0.17 wanted
 * str($N)); not given: 0. A literal from pass 1 on, so lhist(x, $1, $2,
 * $3) and kstack($1) see constants. */
static struct sp_type *positional(struct sema *s, struct sp_node *n)
{
	const char *text;
	char *end;
	long long v;

	if (!strcmp(n->name, "$#")) {
		n->kind = SP_N_INT;
		n->ival = s->o->nparams;
		return n->type = s->s64;
	}
	if (n->ival > s->o->nparams || n->ival < 1) {
		n->kind = SP_N_INT;
		n->ival = 0; /* not given: 0, like bpftrace */
		return n->type = s->s64;
	}
	text = s->o->params[n->ival - 1];
	errno = 0;
	v = strtoll(text, &end, 0);
	if (*text && !*end && errno == ERANGE && *text != '-') {
		errno = 0;
		v = (long long)strtoull(text, &end, 0);
		if (!errno) {
			n->kind = SP_N_INT;
			n->ival = v;
			return n->type = s->u64;
		}
	}
	if (*text && !*end && errno == ERANGE) {
		if (s->quiet) /* errors: in the reporting pass */
			return s->s64;
		n->kind = SP_N_INT;
		sema_err(s, n->span, "positional parameter %s is out of range ('%s'); use str(%s)",
			 n->name, text, n->name);
		return n->type = none(s);
	}
	if (!*text || *end) {
		n->kind = SP_N_STR;
		n->str = sp_arena_strndup(s->a, text, strlen(text));
		n->len = (uint32_t)strlen(text);
		return n->type = sp_type_string(s->a, n->len + 1);
	}
	n->kind = SP_N_INT;
	n->ival = v;
	return n->type = s->s64;
}

static struct sp_type *field(struct sema *s, struct sp_node *n)
{
	struct sp_type *t;

	if (n->a->kind == SP_N_BUILTIN && !strcmp(n->a->name, "args"))
		return sema_args_field(s, n);
	t = sema_value(s, n->a);
	if (sp_type_is_none(t))
		return n->type = none(s);
	if (t->kind == SP_T_TUPLE && t->names && !n->arrow)
		return record_field(s, n, t);
	return sema_cfield(s, n, t);
}

static struct sp_type *expr_kind(struct sema *s, struct sp_node *n)
{
	switch (n->kind) {
	case SP_N_INT:
		return n->type ? n->type : (n->type = s->s64);
	case SP_N_STR:
		/* strings live in fixed buffers on the BPF side (--strlen's limit) */
		if (n->len + 1 > SP_MAX_STRING)
			sema_err(s, n->span, "string literal of %u bytes is longer than a string can be "
				 "(%d bytes with its NUL)", (unsigned)n->len, SP_MAX_STRING);
		return n->type = sp_type_string(s->a, n->len + 1);
	case SP_N_BUILTIN:
		return sema_builtin(s, n);
	case SP_N_CALL:
		return sema_call(s, n, false);
	case SP_N_MAP:
		return map_read(s, n);
	case SP_N_VAR:
		return sema_var_read(s, n);
	case SP_N_POSITIONAL:
		return positional(s, n);
	case SP_N_BINOP:
		return binop(s, n);
	case SP_N_UNOP:
		return unop(s, n);
	case SP_N_TERNARY:
		return ternary(s, n);
	case SP_N_CAST:
		return sema_cast(s, n);
	case SP_N_DEREF:
		return sema_deref(s, n);
	case SP_N_ADDROF:
		return sema_addrof(s, n);
	case SP_N_INDEX:
		return sema_index(s, n);
	case SP_N_SIZEOF:
		return sema_sizeof(s, n);
	case SP_N_OFFSETOF:
		return sema_offsetof(s, n);
	case SP_N_TUPLE:
		return tuple(s, n);
	case SP_N_FIELD:
		return field(s, n);
	case SP_N_TUPLE_INDEX:
		return tuple_index(s, n);
	case SP_N_INCDEC:
		return incdec(s, n);
	case SP_N_BLOCK_EXPR:
		return sema_block_expr(s, n);
	default:
		return n->type = none(s);
	}
}

struct sp_type *sema_expr(struct sema *s, struct sp_node *n)
{
	struct sp_type *t = expr_kind(s, n);

	if (!t)
		t = n->type = none(s);
	return t;
}

/* The integer an aggregation reads as (count -> u64; sum, min, max and avg
 * -> s64), or NULL for one that has no single integer (hist, stats...).
 * Reading a map as a value (sema_readable) and iterating it (for loops in
 * sema.c) share it. */
struct sp_type *sema_agg_int(struct sema *s, const struct sp_type *t)
{
	switch (t->agg) {
	case SP_AGG_COUNT:
		return s->u64;
	case SP_AGG_SUM:
	case SP_AGG_MIN:
	case SP_AGG_MAX:
	case SP_AGG_AVG:
		return s->s64;
	default:
		return NULL;
	}
}

/* Like sema_value(), but a map holding count/sum/min/max/avg may be read
 * as its merged integer value, as bpftrace 0.17 allows on the right of '='
 * and in map keys. The MAP node keeps its AGG type (codegen reads the
 * per-CPU slots); the returned type is the integer the destination gets. */
struct sp_type *sema_readable(struct sema *s, struct sp_node *n)
{
	struct sp_type *t, *v;

	if (n->kind != SP_N_MAP)
		return sema_value(s, n);
	t = sema_expr(s, n);
	if (t->kind != SP_T_AGG)
		return t;
	v = sema_agg_int(s, t);
	if (!v) {
		sema_err(s, n->span, "cannot read aggregation '%s' (%s) as a value", n->name,
			 sema_tstr(s, t));
		return none(s);
	}
	return v;
}

struct sp_type *sema_value(struct sema *s, struct sp_node *n)
{
	return value_of(s, n, sema_expr(s, n));
}
