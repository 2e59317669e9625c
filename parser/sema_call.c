/* parser/sema_call.c: builtin variables and functions.
 *
 * The table is stdlib/builtins.def (name, arity, argument kinds, result,
 * probe types, check hook). This file applies it: a name is looked up once
 * and its id kept on the node (sp_node.bi); unknown names get "did you
 * mean", wrong arity and argument kinds are errors at the argument, a
 * builtin in a probe type that lacks it is an error naming the probe type.
 * Rules the columns cannot say are the rows' check hooks, sema_check_NAME()
 * below and in sema_builtins.c (stack modes, lhist ranges, printf
 * conversions, --unsafe for system()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/builtins.h"
#include "parser/probes.h"
#include "parser/machine.h"
#include "parser/sema.h"
#include "parser/types/ctypes.h"

enum result { R_U64, R_S64, R_BOOL, R_STRING, R_VOID, R_AGG, R_USTACK, R_KSTACK, R_USYM, R_KSYM, R_BUF,
	      R_TIMESTAMP, R_INET, R_TEXT, R_SPECIAL };

struct builtin {
	const char *name;
	bool is_fn;
	int min, max;
	const char *args;
	enum result result;
	uint32_t probes;
	sema_check_fn *check; /* the row's check hook; NULL: none */
};

#define sema_check_none NULL
static const struct builtin builtins[SP_BI__COUNT] = {
#define SP_BUILTIN_VAR(n, r, p, c, e, doc) \
	[SP_BV_##n] = { #n, false, 0, 0, "", R_##r, (uint32_t)(p), sema_check_##c },
#define SP_BUILTIN_FN(n, mi, ma, a, r, p, c, e, doc) \
	[SP_BF_##n] = { #n, true, mi, ma, a, R_##r, (uint32_t)(p), sema_check_##c },
#include "stdlib/builtins.def"
};
#undef sema_check_none

static const char *const modes[] = { "bpftrace", "perf", "raw" };

static bool param_text(const struct sp_node *n);

enum sp_builtin sp_builtin_lookup(const char *name, bool is_fn)
{
	int i;

	if (!strncmp(name, "__builtin_", 10)) /* bpftrace 0.24+'s names under its stdlib macros */
		name += 10;
	for (i = 1; i < SP_BI__COUNT; i++)
		if (builtins[i].is_fn == is_fn && !strcmp(builtins[i].name, name))
			return (enum sp_builtin)i;
	return SP_BI_NONE;
}

const char *sp_builtin_name(enum sp_builtin id)
{
	return id > SP_BI_NONE && id < SP_BI__COUNT ? builtins[id].name : "?";
}

/* The row of a name, its id kept on the node; NULL for a name the table
 * does not have. */
static const struct builtin *lookup(struct sp_node *n, bool is_fn)
{
	enum sp_builtin id = sp_builtin_lookup(n->name, is_fn);

	if (id == SP_BI_NONE)
		return NULL;
	n->bi = (int)id;
	return &builtins[id];
}

static void unknown(struct sema *s, struct sp_node *n, bool is_fn)
{
	const char *cands[SP_BI__COUNT], *hint;
	int i, nc = 0;

	for (i = 1; i < SP_BI__COUNT; i++)
		if (builtins[i].is_fn == is_fn)
			cands[nc++] = builtins[i].name;
	sema_err(s, n->span, "unknown %s '%s'", is_fn ? "function" : "builtin", n->name);
	hint = sp_did_you_mean(n->name, cands, nc);
	if (hint)
		sema_note(s, n->span, "did you mean '%s'?", hint);
}

static void probe_kinds_str(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < SP_PK__COUNT && n < len; k++)
		if (mask & (1u << k))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      sp_probe_kind_name((enum sp_probe_kind)k));
}

/* Errors when the current probe has a type the builtin does not support. */
static bool allowed(struct sema *s, struct sp_node *n, const struct builtin *b)
{
	uint32_t bad = s->probe_mask & ~b->probes;
	char where[256];
	int k;

	if (!bad)
		return true;
	for (k = 0; !(bad & (1u << k)); k++)
		;
	sema_err(s, n->span, "%s '%s' is not available in %s probes",
		 b->is_fn ? "function" : "builtin", n->name, sp_probe_kind_name((enum sp_probe_kind)k));
	probe_kinds_str(b->probes, where, sizeof(where));
	sema_note(s, n->span, "'%s' is available in: %s", n->name, where);
	return false;
}

static struct sp_type *result_type(struct sema *s, enum result r)
{
	switch (r) {
	case R_U64: return s->u64;
	case R_S64: return s->s64;
	case R_BOOL: return sp_type_bool(s->a);
	case R_STRING: return sp_type_string(s->a, (uint32_t)s->strlen);
	case R_VOID: return sp_type_new(s->a, SP_T_VOID);
	case R_USTACK: return sp_type_stack(s->a, SP_T_USTACK, SP_DEFAULT_STACK_LIMIT, SP_STACK_BPFTRACE);
	case R_KSTACK: return sp_type_stack(s->a, SP_T_KSTACK, SP_DEFAULT_STACK_LIMIT, SP_STACK_BPFTRACE);
	case R_USYM: { struct sp_type *t = sp_type_new(s->a, SP_T_USYM); t->size = 16; return t; }
	case R_KSYM: { struct sp_type *t = sp_type_new(s->a, SP_T_KSYM); t->size = 8; return t; }
	case R_TIMESTAMP: { struct sp_type *t = sp_type_new(s->a, SP_T_TIMESTAMP); t->size = 8; return t; }
	case R_INET: { struct sp_type *t = sp_type_new(s->a, SP_T_INET); t->size = 16; return t; }
	default: return sp_type_new(s->a, SP_T_NONE);
	}
}

struct sp_type *sema_builtin(struct sema *s, struct sp_node *n)
{
	const struct builtin *b = lookup(n, false);
	struct sp_type *t;
	int64_t v;

	if (!b && sp_ctypes_btf_enum(s->ct, n->name, &v)) { /* a kernel enumerator */
		if (!s->quiet) {
			n->kind = SP_N_INT;
			n->ival = v;
		}
		return n->type = s->s64;
	}
	if (!b) {
		if (sp_builtin_lookup(n->name, true))
			sema_err(s, n->span, "'%s' is a function: write '%s(...)'", n->name, n->name);
		else
			unknown(s, n, false);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (!allowed(s, n, b))
		return n->type = sp_type_new(s->a, SP_T_NONE);
	if (b->check && (t = b->check(s, n)))
		return n->type = t;
	return n->type = result_type(s, b->result);
}

/* --- the variables' check hooks ------------------------------------------------- */

struct sp_type *sema_check_args(struct sema *s, struct sp_node *n)
{
	if (s->probe_mask & P_UPROBE)
		return sema_uprobe_args(s, n);
	sema_err(s, n->span, "'args' must be followed by a field, e.g. 'args.NAME'");
	return sp_type_new(s->a, SP_T_NONE);
}

struct sp_type *sema_check_retval(struct sema *s, struct sp_node *n)
{
	return s->probe_mask & P_FEXIT ? sema_fexit_retval(s, n) : NULL;
}

struct sp_type *sema_check_comm(struct sema *s, struct sp_node *n)
{
	(void)n;
	return sp_type_string(s->a, 16);
}

/* a whole probe name ("watchpoint:/path/prog:bump_0:8:w"), as its names-map entry */
struct sp_type *sema_check_probe(struct sema *s, struct sp_node *n)
{
	(void)n;
	return sp_type_string(s->a, s->strlen > SP_PROBE_NAME_LEN ? s->strlen : SP_PROBE_NAME_LEN);
}

struct sp_type *sema_check_curtask(struct sema *s, struct sp_node *n)
{
	(void)n;
	return sema_curtask(s);
}

/* (struct S *)ctx reads kernel memory; in an iter probe, the iterator's
 * context as BTF types it (ctx->task) */
struct sp_type *sema_check_ctx(struct sema *s, struct sp_node *n)
{
	(void)n;
	if (s->probe_mask & P_ITER)
		return sema_iter_ctx(s);
	return sema_addr_space(s, s->u64, false);
}

struct sp_type *sema_check_username(struct sema *s, struct sp_node *n)
{
	sema_username(s, n);
	return n->type;
}

/* probetype: the probe type's name, BEGIN and END "special" (bpftrace's) */
struct sp_type *sema_check_probetype(struct sema *s, struct sp_node *n)
{
	(void)n;
	return sp_type_string(s->a, 24);
}

/* ppid, pcomm, leader_comm: bpftrace 0.27's names for fields of the
 * current task, read through BTF like the expressions they stand for;
 * the node becomes that expression. */
struct sp_type *sema_check_task_field(struct sema *s, struct sp_node *n)
{
	const char *link = n->bi == SP_BV_leader_comm ? "group_leader" : "real_parent";
	struct sp_node *task = sp_node_new(s->a, SP_N_BUILTIN, n->span);
	struct sp_node *up = sp_node_new(s->a, SP_N_FIELD, n->span);
	const char *field = n->bi == SP_BV_ppid ? "tgid" : "comm";

	task->name = "curtask";
	up->a = task;
	up->arrow = true;
	up->name = link;
	n->kind = SP_N_FIELD;
	n->a = up;
	n->arrow = true;
	n->name = field;
	n->bi = SP_BI_NONE;
	return sema_expr(s, n);
}

/* USDT arguments carry their sign in the probe's spec ("-4@%eax") and
 * arrive sign-extended: signed 64-bit, as in bpftrace */
struct sp_type *sema_check_arg(struct sema *s, struct sp_node *n)
{
	(void)n;
	return s->probe_mask && !(s->probe_mask & ~(uint32_t)P_USDT) ? s->s64 : NULL;
}

bool sema_is_agg_call(const struct sp_node *n)
{
	enum sp_builtin id;

	if (n->kind != SP_N_CALL)
		return false;
	id = n->bi ? (enum sp_builtin)n->bi : sp_builtin_lookup(n->name, true);
	return id && builtins[id].is_fn && builtins[id].result == R_AGG;
}

/* --- arguments -------------------------------------------------------------- */

static const char *ordinal(int i)
{
	static const char *const o[] = { "first", "second", "third", "fourth", "fifth" };

	return i < 5 ? o[i] : "an";
}

static void want(struct sema *s, struct sp_node *call, int i, struct sp_node *arg, const char *what,
		 struct sp_type *got)
{
	if (got)
		sema_err(s, arg->span, "%s() %s argument must be %s, not '%s'", call->name,
			 ordinal(i), what, sema_tstr(s, got));
	else
		sema_err(s, arg->span, "%s() %s argument must be %s", call->name, ordinal(i), what);
}

static struct sp_type *whole_map(struct sema *s, struct sp_node *call, int i, struct sp_node *arg)
{
	struct sema_map *mm;

	if (arg->kind != SP_N_MAP || arg->list.len) {
		want(s, call, i, arg, "a map (e.g. @m)", NULL);
		return NULL;
	}
	sema_map_keys(s, arg, true);
	mm = sema_map_get(s, arg->name);
	if (!mm->value && !s->quiet)
		sema_err(s, arg->span, "undefined map '%s'", arg->name);
	return arg->type = mm->value;
}

static void stack_arg(struct sema *s, struct sp_node *call, int i, struct sp_node *arg)
{
	const char *hint;
	int64_t v;

	/* kstack($1): the parameter's number (a text one is reported there) */
	if (arg->kind == SP_N_POSITIONAL && sp_type_is_none(sema_expr(s, arg)))
		return;
	if (arg->kind == SP_N_BUILTIN) {
		int m;

		for (m = 0; m < 3 && strcmp(arg->name, modes[m]); m++)
			;
		if (m < 3 && i == 0) {
			call->type->stack_mode = (enum sp_stack_mode)m;
			return;
		}
		if (m == 3) {
			sema_err(s, arg->span, "unknown stack mode '%s', expected bpftrace, perf or raw",
				 arg->name);
			hint = sp_did_you_mean(arg->name, modes, 3);
			if (hint)
				sema_note(s, arg->span, "did you mean '%s'?", hint);
			return;
		}
	}
	if (!sema_const_int(arg, &v) || (i == 0 && call->list.len == 2)) {
		want(s, call, i, arg, i == 0 && call->list.len == 2 ? "a stack mode" :
			i == 1 ? "a constant frame limit" : "a stack mode or a constant frame limit",
		     NULL);
		return;
	}
	sema_expr(s, arg);
	if (v < 1 || v > 1024)
		sema_err(s, arg->span, "%s() frame limit must be from 1 to 1024, not %lld", call->name,
			 (long long)v);
	else
		call->type->stack_limit = (int)v;
}

static void check_arg(struct sema *s, struct sp_node *call, int i, char kind)
{
	struct sp_node *arg = call->list.items[i];
	struct sp_type *t;
	int64_t v;

	switch (kind) {
	case 'm':
		whole_map(s, call, i, arg);
		return;
	case 'k':
		if (arg->kind != SP_N_MAP) {
			want(s, call, i, arg, "a map entry (e.g. @m[key])", NULL);
			return;
		}
		sema_map_keys(s, arg, arg->list.len == 0);
		arg->type = sema_map_get(s, arg->name)->value;
		if (!arg->type && !s->quiet)
			sema_err(s, arg->span, "undefined map '%s'", arg->name);
		return;
	case 'M':
		if (arg->kind == SP_N_MAP && !arg->list.len) {
			whole_map(s, call, i, arg);
			return;
		}
		kind = 'v';
		break;
	case 'S':
		if (arg->kind == SP_N_CALL && sp_builtin_lookup(arg->name, true) == SP_BF_str &&
		    arg->list.len &&
		    param_text(arg->list.items[0]))
			sema_expr(s, arg); /* kaddr(str($1)): the parameter's text is a literal */
		if (arg->kind != SP_N_STR)
			want(s, call, i, arg, "a string literal", NULL);
		sema_expr(s, arg);
		return;
	case 'c':
		sema_expr(s, arg);
		if (!sema_const_int(arg, &v))
			want(s, call, i, arg, "an integer constant", NULL);
		return;
	case 'x':
		stack_arg(s, call, i, arg);
		return;
	default:
		break;
	}
	t = sema_value(s, arg);
	if (sp_type_is_none(t))
		return;
	if (kind == 'i' && t->kind != SP_T_INT && t->kind != SP_T_PTR)
		want(s, call, i, arg, "an integer", t);
	else if (kind == 's' && t->kind != SP_T_STRING)
		want(s, call, i, arg, "a string", t);
	else if (kind == 'a' && t->kind != SP_T_INT && t->kind != SP_T_PTR && t->kind != SP_T_STRING &&
		 t->kind != SP_T_ARRAY)
		want(s, call, i, arg, "an address or a string", t);
}

static bool check_args(struct sema *s, struct sp_node *n, const struct builtin *b)
{
	int i, nargs = n->list.len, nkinds = (int)strlen(b->args);

	if (nargs < b->min || (b->max >= 0 && nargs > b->max)) {
		if (b->min == b->max)
			sema_err(s, n->span, "%s() takes %d argument%s, not %d", n->name, b->min,
				 b->min == 1 ? "" : "s", nargs);
		else if (b->max < 0)
			sema_err(s, n->span, "%s() takes at least %d argument%s, not %d", n->name,
				 b->min, b->min == 1 ? "" : "s", nargs);
		else if (b->min == 0)
			sema_err(s, n->span, "%s() takes at most %d argument%s, not %d", n->name,
				 b->max, b->max == 1 ? "" : "s", nargs);
		else
			sema_err(s, n->span, "%s() takes %d to %d arguments, not %d", n->name, b->min,
				 b->max, nargs);
		return false;
	}
	for (i = 0; i < nargs; i++)
		check_arg(s, n, i, nargs == 1 && n->bi == SP_BF_ntop ? 'a' : /* ntop(addr) */
			  b->args[i < nkinds ? i : nkinds - 1]);
	return true;
}

/* --- per-name rules ---------------------------------------------------------- */

static bool printable_as_string(const struct sp_type *t)
{
	return (t->kind != SP_T_INT && t->kind != SP_T_PTR) || sp_type_is_bool(t) ||
	       sp_type_is_enum(t); /* its enumerator's name, or its number */
}

/* Checks printf-style conversions: %[-+ #0]*[0-9]*(.[0-9]*)?(hh|h|l|ll|z|j|t)?[diuxXocsp]
 * (and %r, %rx, %rh for buffers) against the arguments after the format. */
static void check_format(struct sema *s, struct sp_node *n)
{
	struct sp_node *fmt = n->list.items[0];
	struct sp_type *t;
	const char *p;
	int argi = 1;

	if (fmt->kind != SP_N_STR)
		return;
	for (p = fmt->str; (p = strchr(p, '%')); ) {
		const char *start = p++;
		struct sp_node *arg;

		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-+ #0");
		p += strspn(p, "0123456789");
		if (*p == '.')
			p += 1 + strspn(p + 1, "0123456789");
		p += strspn(p, "hlzjt");
		if (!*p || !strchr("diuxXocspr", *p)) {
			sema_err(s, fmt->span, "%s(): invalid conversion '%.*s' in the format", n->name,
				 (int)(p - start + (*p ? 1 : 0)), start);
			return;
		}
		if (argi >= n->list.len) {
			sema_err(s, fmt->span, "%s(): no argument for conversion '%.*s'", n->name,
				 (int)(p - start + 1), start);
			return;
		}
		arg = n->list.items[argi++];
		t = arg->type && arg->type->kind == SP_T_AGG ? sema_agg_int(s, arg->type) : arg->type;
		if (!t || sp_type_is_none(t) || t->kind == SP_T_VOID) /* already reported */
			continue;
		if (*p == 's' && !printable_as_string(t))
			sema_err(s, arg->span, "%s(): '%%s' needs a string, not '%s'", n->name,
				 sema_tstr(s, t));
		else if (*p == 'r' && t->kind != SP_T_BUF)
			sema_err(s, arg->span, "%s(): '%%r' needs a buffer, not '%s'", n->name,
				 sema_tstr(s, t));
		else if (*p != 's' && *p != 'r' && t->kind != SP_T_INT && t->kind != SP_T_PTR)
			sema_err(s, arg->span, "%s(): '%.*s' needs an integer, not '%s'", n->name,
				 (int)(p - start + 1), start, sema_tstr(s, t));
		p++;
	}
	if (argi < n->list.len)
		sema_err(s, n->list.items[argi]->span,
			 "%s(): %d argument%s but the format has %d conversion%s", n->name,
			 n->list.len - 1, n->list.len == 2 ? "" : "s", argi - 1, argi == 2 ? "" : "s");
}

/* tseries(x, interval_ns, num[, fn]): the type keeps interval_ns, num and
 * the function in lhist_min/max/step, and x's signedness (bpftrace 0.27's
 * checks and messages). */
static struct sp_type *tseries_type(struct sema *s, struct sp_node *n, struct sp_type *t)
{
	static const char *const fns[] = { "", "avg", "max", "min", "sum" };
	struct sp_node *x = n->list.len > 0 ? n->list.items[0] : NULL;
	int64_t iv = 0, num = 0;

	t->is_signed = !x || !x->type || x->type->kind != SP_T_INT || x->type->is_signed;
	if (n->list.len < 3)
		return t;
	if (!sema_const_int(n->list.items[1], &iv) || !sema_const_int(n->list.items[2], &num))
		return t; /* the argument check said so */
	if (iv <= 0) {
		sema_err(s, n->list.items[1]->span, "tseries() interval_ns must be >= 1 (%lld provided)",
			 (long long)iv);
		return t;
	}
	if (num <= 0) {
		sema_err(s, n->list.items[2]->span, "tseries() num_intervals must be >= 1 (%lld provided)",
			 (long long)num);
		return t;
	}
	if (num > 1000000)
		sema_err(s, n->list.items[2]->span,
			 "tseries() num_intervals must be < 1000000 (%lld provided)", (long long)num);
	t->lhist_min = iv;
	t->lhist_max = num;
	t->lhist_step = SP_TS_LAST;
	if (n->list.len < 4 || n->list.items[3]->kind != SP_N_STR)
		return t;
	for (size_t i = 1; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (strcmp(n->list.items[3]->str, fns[i]) == 0)
			t->lhist_step = (int64_t)i;
	if (t->lhist_step == SP_TS_LAST)
		sema_err(s, n->list.items[3]->span,
			 "tseries() expects one of the following aggregation functions: avg, max, min, sum (\"%s\" provided)",
			 n->list.items[3]->str);
	return t;
}

static struct sp_type *agg_type(struct sema *s, struct sp_node *n)
{
	static const struct { enum sp_builtin id; enum sp_agg_kind k; } aggs[] = {
		{ SP_BF_count, SP_AGG_COUNT }, { SP_BF_sum, SP_AGG_SUM }, { SP_BF_min, SP_AGG_MIN },
		{ SP_BF_max, SP_AGG_MAX }, { SP_BF_avg, SP_AGG_AVG }, { SP_BF_stats, SP_AGG_STATS },
		{ SP_BF_hist, SP_AGG_HIST }, { SP_BF_lhist, SP_AGG_LHIST },
		{ SP_BF_tseries, SP_AGG_TSERIES },
	};
	struct sp_type *t = NULL;
	int64_t v[3] = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(aggs) / sizeof(aggs[0]) && !t; i++)
		if (n->bi == (int)aggs[i].id)
			t = sp_type_agg(s->a, aggs[i].k);
	if (t->agg == SP_AGG_HIST && n->list.len == 2 && sema_const_int(n->list.items[1], &v[0])) {
		if (v[0] < 0 || v[0] > 5)
			sema_err(s, n->list.items[1]->span, "hist() bits must be from 0 to 5, not %lld",
				 (long long)v[0]);
		else if (v[0] > 0) /* codegen and the printers know plain log2 buckets only */
			sema_err(s, n->list.items[1]->span,
				 "hist() with sub-buckets (bits %lld) is not supported yet: use hist(x) or lhist()",
				 (long long)v[0]);
		t->lhist_step = v[0]; /* hist: 2^k buckets per power of two */
	}
	if (t->agg == SP_AGG_TSERIES)
		return tseries_type(s, n, t);
	if (t->agg != SP_AGG_LHIST || n->list.len != 4)
		return t;
	for (i = 0; i < 3; i++)
		if (!sema_const_int(n->list.items[i + 1], &v[i]))
			return t;
	if (v[0] < 0)
		sema_err(s, n->list.items[1]->span, "lhist() min must not be negative");
	else if (v[1] <= v[0])
		sema_err(s, n->list.items[2]->span, "lhist() max must be above min");
	else if (v[2] <= 0)
		sema_err(s, n->list.items[3]->span, "lhist() step must be positive");
	else if ((v[1] - v[0]) / v[2] > 1000)
		sema_err(s, n->list.items[3]->span, "lhist() step is too small: more than 1000 buckets");
	t->lhist_min = v[0];
	t->lhist_max = v[1];
	t->lhist_step = v[2];
	return t;
}

/* $1..$N, whose text str() takes as a string (not $#) */
static bool param_text(const struct sp_node *n)
{
	return n->kind == SP_N_POSITIONAL && strcmp(n->name, "$#");
}

/* str($N) is the parameter's text; str(p, n) reads n bytes at most, the NUL
 * included (bpftrace 0.27: n - 1 characters). */
static struct sp_type *str_call(struct sema *s, struct sp_node *n)
{
	struct sp_node *arg = n->list.items[0];
	int64_t len;

	if (param_text(arg)) {
		const char *text = arg->ival >= 1 && arg->ival <= s->o->nparams ?
					   s->o->params[arg->ival - 1] : "";
		size_t keep = strlen(text);

		/* str($N, n): the first n bytes of the text, as bpftrace does */
		if (n->list.len == 2 && sema_const_int(n->list.items[1], &len)) {
			if (len < 1 || len > s->strlen)
				sema_err(s, n->list.items[1]->span,
					 "str() length must be from 1 to %d", s->strlen);
			else if ((size_t)len < keep)
				keep = (size_t)len;
		}
		if (s->quiet) /* rewritten once, in the reporting pass */
			return n->type = sp_type_string(s->a, (uint32_t)keep + 1);
		n->kind = SP_N_STR;
		n->str = sp_arena_strndup(s->a, text, keep);
		n->len = (uint32_t)keep;
		n->list.len = 0;
		return n->type = sp_type_string(s->a, n->len + 1);
	}
	if (n->list.len == 2 && sema_const_int(n->list.items[1], &len)) {
		if (len < 1 || len > s->strlen)
			sema_err(s, n->list.items[1]->span, "str() length must be from 1 to %d",
				 s->strlen);
		else /* n bytes, the NUL included, as bpftrace 0.27 reads them
		      * (0.17 kept n characters and the NUL) */
			n->type->size = (uint32_t)len;
	}
	return n->type;
}

/* ntop([af,] addr) formats 4 bytes (IPv4) for an integer address, as
 * bpftrace does, unless af is AF_INET6 (10); a string address stays 16
 * bytes (IPv6). */
static void ntop_size(struct sp_node *n)
{
	const struct sp_node *addr = n->list.items[n->list.len - 1];
	bool is_int = addr->type && addr->type->kind != SP_T_STRING;
	int64_t af;

	if (addr->type && addr->type->kind == SP_T_ARRAY) /* ntop(pton("::1")) */
		n->type->size = sp_type_csize(addr->type) == 16 ? 16 : 4;
	else if (n->list.len == 2 && sema_const_int(n->list.items[0], &af))
		n->type->size = af == 10 ? 16 : af == 2 && is_int ? 4 : n->type->size;
	else if (is_int)
		n->type->size = 4;
}

/* reg("name") names a register. */
struct sp_type *sema_check_reg(struct sema *s, struct sp_node *n)
{
	const struct sp_node *a = n->list.len == 1 ? n->list.items[0] : NULL;

	if (a && sp_reg_offset(a->str) < 0)
		sema_err(s, a->span, "unknown register '%s' (registers: %s)", a->str, sp_reg_names());
	return NULL;
}

/* signal(SIG): a signal name or a number; needs --unsafe, as in bpftrace. */
struct sp_type *sema_check_signal(struct sema *s, struct sp_node *n)
{
	const struct sp_node *a = n->list.len == 1 ? n->list.items[0] : NULL;
	int64_t v;

	if (!a)
		return NULL;
	if (!s->o->unsafe)
		sema_err(s, n->span, "signal() is unsafe: run sprof with --unsafe to allow it");
	if (a->kind == SP_N_STR && sp_signal_number(a->str) < 0)
		sema_err(s, a->span, "unknown signal '%s'", a->str);
	else if (a->kind != SP_N_STR && (!sema_const_int(a, &v) || v < 1 || v > 64))
		sema_err(s, a->span, "signal() needs a signal name or a number from 1 to 64");
	return NULL;
}

/* buf(a): all the bytes of array a (as bpftrace); other values need a length. */
static void buf_of_array(struct sema *s, struct sp_node *n)
{
	const struct sp_type *t = n->list.items[0]->type;
	uint32_t size = t && t->kind == SP_T_ARRAY ? sp_type_csize(t) : 0;
	char tn[64];

	if (!t || sp_type_is_none(t))
		return;
	if (!size)
		sema_err(s, n->list.items[0]->span, "buf() of a '%s' needs a length: buf(p, n)",
			 sp_type_str(t, tn, sizeof(tn)));
	else if (size > (uint32_t)s->strlen)
		sema_err(s, n->list.items[0]->span, "buf() of a %u-byte array is longer than %d bytes",
			 size, s->strlen);
	else
		n->type->size = size;
}

/* uaddr("VAR") points to VAR's type when the probed binary's DWARF has it,
 * else to an int of its symbol's size (1, 2, 4, 8: bpftrace's typing), so
 * *uaddr("VAR") reads it. */
static void uaddr_type(struct sema *s, struct sp_node *n)
{
	const struct sp_node *a = n->list.items[0];

	if (a->kind != SP_N_STR || !s->probe || !(s->probe_mask & P_UPROBES))
		return;
	for (int i = 0; i < s->probe->list.len; i++) {
		const struct sp_attach *at = s->probe->list.items[i]->attach;
		struct sp_type *t = at && at->target ? sp_ctypes_dwarf_var(s->ct, at->target, a->str)
						     : NULL;

		uint64_t size = 0;

		if (!t && at && at->target && s->o->sym_size &&
		    !s->o->sym_size(at->target, a->str, &size) &&
		    (size == 1 || size == 2 || size == 4 || size == 8))
			t = sp_type_int(s->a, (uint32_t)size, true);
		if (t) {
			n->type = sp_type_ptr(s->a, t, true);
			return;
		}
	}
}

/* --- the functions' check hooks (more in sema_builtins.c) --------------------- */

struct sp_type *sema_check_format(struct sema *s, struct sp_node *n)
{
	check_format(s, n);
	return NULL;
}

struct sp_type *sema_check_system(struct sema *s, struct sp_node *n)
{
	check_format(s, n);
	if (!s->o->unsafe)
		sema_err(s, n->span, "system() is unsafe: run sprof with --unsafe to allow it");
	return NULL;
}

struct sp_type *sema_check_buf(struct sema *s, struct sp_node *n)
{
	int64_t v;

	if (n->list.len == 2 && sema_const_int(n->list.items[1], &v)) {
		if (v < 1 || v > s->strlen)
			sema_err(s, n->list.items[1]->span, "buf() length must be from 1 to %d",
				 s->strlen);
		else
			n->type->size = (uint32_t)v;
	}
	if (n->list.len == 1)
		buf_of_array(s, n);
	return NULL;
}

struct sp_type *sema_check_ntop(struct sema *s, struct sp_node *n)
{
	if (n->list.len)
		ntop_size(n);
	return NULL;
}

struct sp_type *sema_check_uaddr(struct sema *s, struct sp_node *n)
{
	if (n->list.len == 1)
		uaddr_type(s, n);
	return NULL;
}

/* uptr(x), kptr(x): x's type, pointing into user or kernel memory */
struct sp_type *sema_check_addr_space(struct sema *s, struct sp_node *n)
{
	if (n->list.len == 1)
		n->type = sema_addr_space(s, n->list.items[0]->type, n->bi == SP_BF_uptr);
	return NULL;
}

struct sp_type *sema_check_print(struct sema *s, struct sp_node *n)
{
	if (n->list.len > 1 && n->list.items[0]->kind != SP_N_MAP)
		sema_err(s, n->list.items[1]->span, "print() of a value takes no other arguments");
	return NULL;
}

/* len() and has_key() of a hist, lhist or tseries map: its entries are buckets */
static void not_per_bucket(struct sema *s, struct sp_node *n)
{
	const struct sp_node *m = n->list.items[0];

	if (m->kind == SP_N_MAP && m->type && m->type->kind == SP_T_AGG &&
	    (m->type->agg == SP_AGG_HIST || m->type->agg == SP_AGG_LHIST ||
	     m->type->agg == SP_AGG_TSERIES))
		sema_err(s, m->span, "%s() of a %s() map is not supported: its entries "
			 "are kept per bucket", n->name, sp_agg_name(m->type->agg));
}

/* delete() and has_key() of a map with keys need a key */
static void needs_key(struct sema *s, struct sp_node *n)
{
	const struct sp_node *m = n->list.items[0];

	if (m->kind == SP_N_MAP && !m->list.len && m->key_type)
		sema_err(s, m->span, "%s() needs a key: %s(%s, key)", n->name, n->name, m->name);
}

struct sp_type *sema_check_len(struct sema *s, struct sp_node *n)
{
	const struct sp_node *m = n->list.items[0];

	not_per_bucket(s, n);
	if (m->kind == SP_N_MAP && m->type && !m->key_type)
		sema_err(s, m->span, "len() of '%s', a map without keys: len() counts the keys of "
			 "a map like %s[key]", m->name, m->name);
	return NULL;
}

struct sp_type *sema_check_has_key(struct sema *s, struct sp_node *n)
{
	not_per_bucket(s, n);
	needs_key(s, n);
	return NULL;
}

struct sp_type *sema_check_delete(struct sema *s, struct sp_node *n)
{
	needs_key(s, n);
	return NULL;
}

/* delete(@m, k) and has_key(@m, k), bpftrace 0.22+'s map-and-key form:
 * the key moves into the map reference, @m[k] (a tuple literal key,
 * (a, b), becomes @m[a, b]), so the rest of sema and codegen see the one
 * form delete(@m[k]) has always had. delete(@m) of a map without keys
 * stays as it is. False after an error. */
static bool map_key_form(struct sema *s, struct sp_node *n)
{
	bool del = n->bi == SP_BF_delete;
	struct sp_node *m, *k;

	if (n->ival) /* typed before (printf's arguments are seen twice) */
		return true;
	if ((del && (n->list.len < 1 || n->list.len > 2)) || (!del && n->list.len != 2)) {
		sema_err(s, n->span, "%s() takes %s, not %d", n->name, del ?
			 "1 or 2 arguments: delete(@m, key) or delete(@m[key])" :
			 "2 arguments: has_key(@m, key)", n->list.len);
		return false;
	}
	m = n->list.items[0];
	if (n->list.len == 1)
		return true;
	k = n->list.items[1];
	if (m->kind != SP_N_MAP || m->list.len) {
		want(s, n, 0, m, "a map without a key (e.g. @m), the key being the second", NULL);
		return false;
	}
	if (k->kind == SP_N_TUPLE)
		m->list = k->list;
	else
		sp_list_push(s->a, &m->list, k);
	n->list.len = 1;
	n->ival = 1;
	return true;
}

/* nsecs(monotonic|boot|tai|sw_tai): the clock, kept in the BUILTIN's ival.
 * sw_tai is bpftrace 0.27's TAI computed from the boot clock in user space;
 * the kernel's own TAI clock (6.1+) is the same time. */
static const char *const clocks[] = { "monotonic", "boot", "tai", "sw_tai" };

static bool nsecs_clock(struct sema *s, struct sp_node *n)
{
	struct sp_node *arg = n->list.items[0];
	const char *hint;
	int c;

	for (c = 0; c < 4 && (arg->kind != SP_N_BUILTIN || strcmp(arg->name, clocks[c])); c++)
		;
	if (c < 4) {
		n->ival = c < 3 ? c : 2;
		return true;
	}
	sema_err(s, arg->span, "unknown clock for nsecs(), expected monotonic, boot, tai or sw_tai");
	hint = arg->kind == SP_N_BUILTIN ? sp_did_you_mean(arg->name, clocks, 4) : NULL;
	if (hint)
		sema_note(s, arg->span, "did you mean '%s'?", hint);
	return false;
}

/* pid(curr_ns|init), tid(curr_ns|init): the numbers in sprof's own pid
 * namespace (the default, as bpftrace 0.27) or in the initial one; ival 1
 * for init. */
static bool pid_ns(struct sema *s, struct sp_node *n)
{
	struct sp_node *arg = n->list.items[0];

	if (arg->kind == SP_N_BUILTIN && (!strcmp(arg->name, "curr_ns") ||
					  !strcmp(arg->name, "init"))) {
		n->ival = !strcmp(arg->name, "init");
		return true;
	}
	sema_err(s, arg->span, "unknown pid namespace for %s(), expected curr_ns or init", n->name);
	return false;
}

/* pid(), pid(init), comm(), nsecs(), nsecs(boot), retval(): bpftrace 0.24+ writes
 * builtins as calls too. The call becomes the BUILTIN node. args, argN,
 * sargN and ctx stay values only, as in bpftrace. */
static struct sp_type *builtin_call(struct sema *s, struct sp_node *n)
{
	enum sp_builtin id = sp_builtin_lookup(n->name, false);

	if (id == SP_BV_args || id == SP_BV_ctx ||
	    (id >= SP_BV_arg0 && id <= SP_BV_arg9) || (id >= SP_BV_sarg0 && id <= SP_BV_sarg9)) {
		sema_err(s, n->span, "'%s' is not a function: write '%s' without '()'", n->name,
			 n->name);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	bool ns = id == SP_BV_pid || id == SP_BV_tid;

	if (n->list.len > 1 || (n->list.len == 1 && id != SP_BV_nsecs && !ns)) {
		sema_err(s, n->span, id == SP_BV_nsecs ?
			 "%s() takes one argument at most, the clock: nsecs(monotonic|boot|tai)" :
			 ns ? "%s() takes one argument at most: curr_ns or init" :
			 "%s() takes no arguments", n->name);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (n->list.len == 1 && !(ns ? pid_ns(s, n) : nsecs_clock(s, n)))
		return n->type = sp_type_new(s->a, SP_T_NONE);
	n->kind = SP_N_BUILTIN;
	n->list.len = 0;
	return sema_builtin(s, n);
}

struct sp_type *sema_call(struct sema *s, struct sp_node *n, bool map_value)
{
	static const struct builtin map_entry = { "", true, 1, 1, "k", R_BOOL, P_ALL, NULL };
	const struct builtin *b = lookup(n, true);
	struct sp_type *t;
	uint32_t size;
	bool is_str;

	if (!strcmp(n->name, "getopt"))
		return sema_getopt(s, n);
	if (!b) {
		if (sp_builtin_lookup(n->name, false))
			return builtin_call(s, n);
		unknown(s, n, true);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (b->result == R_AGG && !map_value) {
		sema_err(s, n->span, "%s() must be assigned to a map, e.g. '@x = %s(%s)'", n->name,
			 n->name, b->max ? "..." : "");
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	is_str = n->bi == SP_BF_str;
	if (is_str && (size = sema_str_param_offset(s, n))) /* str($1 + 1) */
		return n->type = sp_type_string(s->a, size);
	if (is_str && (n->list.len == 1 || n->list.len == 2) && param_text(n->list.items[0])) {
		if (n->list.len == 2)
			check_arg(s, n, 1, 'c');
		return str_call(s, n);
	}
	n->type = b->result == R_BUF ? sp_type_new(s->a, SP_T_BUF) : result_type(s, b->result);
	if (b->result == R_BUF)
		n->type->size = (uint32_t)s->strlen;
	if ((n->bi == SP_BF_delete || n->bi == SP_BF_has_key) && !map_key_form(s, n))
		return n->type = sp_type_new(s->a, SP_T_NONE);
	if (n->bi == SP_BF_len && n->list.len == 1 && n->list.items[0]->name &&
	    (n->list.items[0]->kind == SP_N_BUILTIN || n->list.items[0]->kind == SP_N_CALL) &&
	    strstr(n->list.items[0]->name, "stack")) {
		sema_err(s, n->list.items[0]->span, "len() of a stack is not supported: len() counts "
			 "the entries of a map");
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	if (!allowed(s, n, b) || !check_args(s, n, b->args[0] == 'k' ? &map_entry : b))
		return n->type = sp_type_new(s->a, SP_T_NONE);
	if (is_str)
		return str_call(s, n);
	if (b->result == R_AGG)
		return n->type = agg_type(s, n);
	if (b->check && (t = b->check(s, n)))
		n->type = t;
	return n->type;
}

/* --- tracepoint args ----------------------------------------------------------- */

/* "struct foo *" or "const struct foo *": a pointer to that record when
 * BTF knows it (syscall arguments point into user memory). */
static struct sp_type *record_pointer(struct sema *s, const struct sp_tp_field *f, bool user)
{
	const char *t = f->type ? strstr(f->type, "struct ") : NULL;
	char name[128];
	struct sp_record *r;
	size_t n;

	if (!t || strchr(t, '*') != strrchr(t, '*'))
		return NULL;
	t += 7;
	n = strcspn(t, " *");
	if (n == 0 || n >= sizeof(name))
		return NULL;
	memcpy(name, t, n);
	name[n] = '\0';
	r = sp_ctypes_record(s->ct, name, false);
	if (!sp_ctypes_complete(s->ct, r))
		return NULL;
	return sp_type_ptr(s->a, sp_type_record(s->a, r), user);
}

static struct sp_type *field_type(struct sema *s, const struct sp_tp_field *f, bool user)
{
	struct sp_type *t;

	if (f->is_pointer && !f->is_string && (t = record_pointer(s, f, user)))
		return t;
	if (f->is_pointer && f->type && strchr(f->type, '*') != strrchr(f->type, '*'))
		/* "const char *const * argv": args.argv[i] reads the i-th pointer */
		return sp_type_ptr(s->a, s->u64, user);
	if (f->is_pointer)
		return s->u64;
	if (f->is_string)
		return sp_type_string(s->a, f->is_data_loc || f->size > (uint32_t)s->strlen ?
					     (uint32_t)s->strlen : f->size);
	if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
		return sp_type_int(s->a, f->size, f->is_signed);
	return NULL;
}

static const struct sp_tp_field *find_field(struct sema *s, struct sp_node *n,
					     struct sp_node *at)
{
	const struct sp_tp_field *fields = NULL;
	const char *cands[128], *hint;
	bool tp = !strcmp(at->attach->provider, "tracepoint");
	int nf = 0, i, err;

	err = s->o->tp_fields(s->o->tp_ctx, tp ? at->attach->target : NULL, at->attach->func,
			      &fields, &nf);
	if (err) {
		/* once per attach point: scope_id is otherwise unused on ATTACH */
		if (at->scope_id != -2 && !s->quiet) {
			at->scope_id = -2;
			if (err == -ENOENT)
				sema_err(s, at->span, "%s '%s' does not exist", at->attach->provider,
					 at->attach->raw);
			else
				sema_err(s, at->span, "cannot read the format of %s '%s': %s",
					 at->attach->provider, at->attach->raw, strerror(-err));
		}
		return NULL;
	}
	for (i = 0; i < nf; i++)
		if (!fields[i].is_common && !strcmp(fields[i].name, n->name))
			return &fields[i];
	for (i = 0; i < nf && i < 128; i++)
		cands[i] = fields[i].is_common ? NULL : fields[i].name;
	sema_err(s, n->span, "%s '%s' has no field '%s'%s", at->attach->provider, at->attach->raw,
		 n->name, strchr(at->attach->raw, '*') ? " at the same place in every tracepoint "
		 "it matches (one program serves them all)" : "");
	hint = sp_did_you_mean(n->name, cands, nf < 128 ? nf : 128);
	if (hint)
		sema_note(s, n->span, "did you mean '%s'?", hint);
	return NULL;
}

/* args.NAME / args->NAME: typed from the tracepoint format through the
 * driver's callback; every attach point of the probe must have the field. */
struct sp_type *sema_args_field(struct sema *s, struct sp_node *n)
{
	const struct builtin *b = &builtins[SP_BV_args];
	const struct sp_tp_field *f, *first = NULL;
	const char *cat = NULL;
	int i;

	n->a->type = sp_type_new(s->a, SP_T_PTR);
	if (!allowed(s, n->a, b))
		return n->type = sp_type_new(s->a, SP_T_NONE);
	if (s->probe_mask & P_UPROBE)
		return sema_uprobe_arg(s, n);
	if (s->probe_mask & (P_RAWTRACEPOINT | P_FENTRIES))
		return sema_rawtp_arg(s, n);
	if (!s->o->tp_fields)
		return n->type = s->u64;
	n->tp_field_at = sp_arena_alloc(s->a, s->probe->list.len * sizeof(*n->tp_field_at));
	for (i = 0; i < s->probe->list.len; i++) {
		struct sp_node *at = s->probe->list.items[i];

		if (!at->attach->provider)
			continue;
		f = find_field(s, n, at);
		if (!f)
			return n->type = sp_type_new(s->a, SP_T_NONE);
		n->tp_field_at[i] = f;
		if (!first)
			cat = at->attach->target;
		first = first ? first : f;
	}
	if (!first)
		return n->type = sp_type_new(s->a, SP_T_NONE);
	n->tp_field = first;
	n->type = field_type(s, first, cat && !strcmp(cat, "syscalls"));
	if (!n->type) {
		sema_err(s, n->span, "field '%s' of %u bytes is not an integer or a string", n->name,
			 first->size);
		return n->type = sp_type_new(s->a, SP_T_NONE);
	}
	return n->type;
}
