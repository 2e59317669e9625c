/* parser/macro.c: bpftrace 0.27's user macros, expanded before sema.
 *
 *   macro add_one(x) { x + 1 }             an expression macro
 *   macro bump($a, @b) { $a += 1; @b += 1; }   a statement macro
 *
 * A call of a macro is replaced by a copy of its body in which each
 * parameter stands for its argument: `x` for any expression, `$a` for a
 * scratch variable, `@b` for a map (the argument must be one). The body is
 * hygienic: it sees no variable or map that is not passed in, and the
 * variables it makes are its own (renamed per expansion). A macro whose
 * body is one expression is a value; one with statements is a statement,
 * or, used in an expression, a block expression `{ stmts; value }` whose
 * value is the body's last expression (written without ';'). Macros may
 * call macros; a call cycle stops at SP_MACRO_DEPTH with an error.
 */
#include <stdio.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/frontend.h"
#include "parser/sema.h"

#define SP_MACRO_DEPTH 32

struct mx {
	struct sp_arena *a;
	struct sp_diag *d;
	const struct sp_node *macros; /* BLOCK of MACRO nodes */
	int serial;                   /* expansions, for renamed variables */
	int errors;
};

struct mx_call {
	const struct sp_node *mac, *call;
	int serial;
};

static const struct sp_node *find_macro(struct mx *x, const char *name)
{
	for (int i = 0; x->macros && i < x->macros->list.len; i++)
		if (!strcmp(x->macros->list.items[i]->name, name))
			return x->macros->list.items[i];
	return NULL;
}

/* The argument standing for parameter `name` of kind k, or -1. */
static int param_index(const struct mx_call *c, enum sp_node_kind k, const char *name)
{
	for (int i = 0; i < c->mac->list.len; i++) {
		const struct sp_node *p = c->mac->list.items[i];

		if (p->kind == k && !strcmp(p->name, name))
			return i;
	}
	return -1;
}

static struct sp_node *clone(struct mx *x, const struct mx_call *c, const struct sp_node *n);

static struct sp_node *copy(struct mx *x, const struct sp_node *n)
{
	struct sp_node *r = sp_arena_alloc(x->a, sizeof(*r));

	*r = *n;
	r->list.items = NULL;
	r->list.len = r->list.cap = 0;
	return r;
}

/* A copy of body node n, parameters replaced (c NULL: a plain copy). */
static struct sp_node *clone(struct mx *x, const struct mx_call *c, const struct sp_node *n)
{
	struct sp_node *r;
	int i;

	if (!n)
		return NULL;
	if (c && n->kind == SP_N_BUILTIN && (i = param_index(c, SP_N_BUILTIN, n->name)) >= 0)
		return clone(x, NULL, c->call->list.items[i]);
	r = copy(x, n);
	if (c && n->kind == SP_N_VAR) {
		i = param_index(c, SP_N_VAR, n->name);
		if (i >= 0) {
			r->name = c->call->list.items[i]->name;
		} else { /* the macro's own variable */
			char buf[160];

			snprintf(buf, sizeof(buf), "%s__%s_%d", n->name, c->mac->name, c->serial);
			r->name = sp_arena_strdup(x->a, buf);
		}
	}
	if (c && n->kind == SP_N_MAP) {
		i = param_index(c, SP_N_MAP, n->name);
		if (i >= 0) {
			r->name = c->call->list.items[i]->name;
		} else {
			sp_diag_at(x->d, SP_DIAG_ERROR, n->span, "macro '%s' uses map %s, which is not "
				   "one of its parameters: a macro sees only the maps passed to it",
				   c->mac->name, n->name);
			sp_diag_note(x->d, c->call->span, "expanded from here");
			x->errors++;
		}
	}
	r->a = clone(x, c, n->a);
	r->b = clone(x, c, n->b);
	r->c = clone(x, c, n->c);
	for (i = 0; i < n->list.len; i++)
		sp_list_push(x->a, &r->list, clone(x, c, n->list.items[i]));
	return r;
}

static bool check_args(struct mx *x, const struct sp_node *mac, const struct sp_node *call)
{
	bool ok = true;

	if (call->list.len != mac->list.len) {
		sp_diag_at(x->d, SP_DIAG_ERROR, call->span, "macro '%s' takes %d argument%s, not %d",
			   mac->name, mac->list.len, mac->list.len == 1 ? "" : "s", call->list.len);
		x->errors++;
		return false;
	}
	for (int i = 0; i < mac->list.len; i++) {
		const struct sp_node *p = mac->list.items[i], *arg = call->list.items[i];

		if (p->kind == SP_N_BUILTIN || arg->kind == p->kind)
			if (p->kind != SP_N_MAP || !arg->list.len)
				continue;
		sp_diag_at(x->d, SP_DIAG_ERROR, arg->span, "macro '%s' expects %s for %s",
			   mac->name, p->kind == SP_N_VAR ? "a scratch variable" : "a map without a key",
			   p->name);
		x->errors++;
		ok = false;
	}
	return ok;
}

static void expand(struct mx *x, struct sp_node *n, int depth);

/* Replaces call node n by macro mac's body: an expression in place, or
 * (stmt) a BLOCK of statements in place of the statement n is. */
static void expand_call(struct mx *x, struct sp_node *n, struct sp_node *stmt,
			const struct sp_node *mac, int depth)
{
	const struct sp_node *body = mac->b;
	struct mx_call c = { mac, n, ++x->serial };
	struct sp_node *r;

	if (depth >= SP_MACRO_DEPTH) {
		sp_diag_at(x->d, SP_DIAG_ERROR, n->span, "macro '%s' expands more than %d levels "
			   "deep: do its macros call each other?", mac->name, SP_MACRO_DEPTH);
		x->errors++;
		return;
	}
	if (!check_args(x, mac, n))
		return;
	if (body->list.len == 1 && body->list.items[0]->kind == SP_N_EXPR_STMT) {
		r = clone(x, &c, body->list.items[0]->a);
		*n = *r;
		expand(x, n, depth + 1);
		return;
	}
	r = clone(x, &c, body);
	if (stmt) {
		*stmt = *r;
		expand(x, stmt, depth + 1);
		return;
	}
	if (!body->ival || !body->list.len ||
	    body->list.items[body->list.len - 1]->kind != SP_N_EXPR_STMT) {
		sp_diag_at(x->d, SP_DIAG_ERROR, n->span, "macro '%s' gives no value: its body "
			   "does not end in an expression without ';'", mac->name);
		x->errors++;
		return;
	}
	/* { stmts; value }: a block expression in place of the call */
	r->list.len--;
	r->ival = 0;
	n->kind = SP_N_BLOCK_EXPR;
	n->a = r;
	n->b = r->list.items[r->list.len]->a;
	n->c = NULL;
	n->list.len = 0;
	n->name = NULL;
	expand(x, n->a, depth + 1);
	expand(x, n->b, depth + 1);
}

/* Expands the macro calls in and below n. */
static void expand(struct mx *x, struct sp_node *n, int depth)
{
	const struct sp_node *mac;

	if (!n || x->errors > 20)
		return;
	if (n->kind == SP_N_EXPR_STMT && n->a && n->a->kind == SP_N_CALL &&
	    (mac = find_macro(x, n->a->name))) {
		for (int i = 0; i < n->a->list.len; i++)
			expand(x, n->a->list.items[i], depth);
		expand_call(x, n->a, n, mac, depth);
		return;
	}
	if ((n->kind == SP_N_CALL || n->kind == SP_N_BUILTIN) && (mac = find_macro(x, n->name))) {
		if (n->kind == SP_N_BUILTIN && mac->list.len)
			return; /* a bare name: only a macro without parameters */
		for (int i = 0; i < n->list.len; i++)
			expand(x, n->list.items[i], depth);
		expand_call(x, n, NULL, mac, depth);
		return;
	}
	expand(x, n->a, depth);
	expand(x, n->b, depth);
	expand(x, n->c, depth);
	for (int i = 0; i < n->list.len; i++)
		expand(x, n->list.items[i], depth);
}

int sp_macros_expand(struct sp_arena *a, struct sp_node *prog, struct sp_diag *d)
{
	struct mx x = { .a = a, .d = d, .macros = prog->b };

	if (!prog->b)
		return 0;
	for (int i = 0; i < prog->b->list.len; i++) {
		const struct sp_node *m = prog->b->list.items[i];

		for (int j = 0; j < i; j++)
			if (!strcmp(prog->b->list.items[j]->name, m->name)) {
				sp_diag_at(d, SP_DIAG_ERROR, m->span, "macro '%s' is defined twice",
					   m->name);
				x.errors++;
			}
	}
	for (int i = 0; i < prog->list.len; i++)
		expand(&x, prog->list.items[i], 0);
	prog->b = NULL; /* expanded: sema and codegen see probes only */
	return x.errors ? -1 : 0;
}
