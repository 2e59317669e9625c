/* parser/sema.h: state of the semantic pass (internal to parser/).
 *
 * sema runs twice over the tree: a quiet pass that only learns each map's
 * key and value types (first assignment in program order decides, strings
 * widen to the longest use), then the reporting pass that types every
 * expression against those and reports every error. Scratch variables are
 * probe scoped (bpftrace 0.17) and typed at their first assignment; a string (or tuple of
 * strings) variable gets, from its first assignment on, the size of its
 * longest value, which pass 1 also learns.
 */
#ifndef SPROF_PARSER_SEMA_H
#define SPROF_PARSER_SEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/ast.h"
#include "parser/base/diag.h"
#include "parser/frontend.h"
#include "parser/types/types.h"

struct sema_map {
	const char *name;
	bool keyed_known;         /* a use told whether it has keys */
	struct sp_type *key;      /* NULL: no keys */
	struct sp_span key_first;
	struct sp_type *value;    /* NULL: not assigned yet */
	bool assigned;            /* assigned somewhere, maybe with an error */
	struct sp_span value_first;
	struct sema_map *next;
};

struct sema_var {
	const char *name;
	struct sp_type *type;
	struct sp_span first;
	int id;
	int home;                  /* serial of the scope that first assigned it (no let) */
	struct sema_var *next;
};

struct sema_scope {
	struct sema_var *vars;
	struct sema_scope *up;
	int serial;                /* unique in the program: sema_var.home names it */
};

/* Copies of one body nested unroll()s may make: 100 x 10. Each copy costs
 * codegen milliseconds; 100 x 100 took a minute, 100 x 100 x 100 gigabytes. */
#define SP_MAX_UNROLL_COPIES 1000

struct sema {
	struct sp_arena *a;
	struct sp_diag *d;
	const struct sp_sema_opts *o;
	bool quiet;                /* pass 1: learn map types, report nothing */
	struct sema_map *maps;
	struct sema_scope *scope;
	int nscopes;
	int nvars;
	struct sp_type **var_final; /* by var id: a string/tuple variable's widest type, from pass 1 */
	int var_cap;
	int loops;                 /* while nesting */
	int unroll;                /* copies nested unrolls make of the current statement
				    * (0: 1; -1: too many, said) */
	uint32_t probe_mask;       /* P_* bits of the current probe */
	struct sp_node *probe;
	int strlen;
	struct sp_type *u64, *s64;
	struct sp_ctypes *ct;      /* the program's C types */
	char tbuf[4][128];         /* sema_tstr() results, used round-robin */
	int tnext;
};

/* sema_expand.c: a tracepoint wildcard of probe p that reads args becomes
 * its matches (one attach point, one program each). */
void sema_expand_tp_wildcards(struct sema *s, struct sp_node *p);

/* sema_report.c: messages at a span (none in the quiet pass) */
void sema_err(struct sema *s, struct sp_span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sema_warn(struct sema *s, struct sp_span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sema_note(struct sema *s, struct sp_span sp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *sema_tstr(struct sema *s, const struct sp_type *t); /* rotating buffers */

/* sema.c: { stmts; value }, the statements in a scope of their own; the
 * value's type, void without one */
struct sp_type *sema_block_expr(struct sema *s, struct sp_node *n);

/* sema_expr.c */
struct sp_type *sema_expr(struct sema *s, struct sp_node *n);
/* An expression used as a plain value: no aggregations, no void. */
struct sp_type *sema_value(struct sema *s, struct sp_node *n);
/* `into` with each string (inside tuples too) widened to fit `t` */
struct sp_type *sema_widen(struct sema *s, struct sp_type *into, struct sp_type *t);
struct sp_type *sema_agg_int(struct sema *s, const struct sp_type *t);
struct sp_type *sema_readable(struct sema *s, struct sp_node *n);
struct sp_type *sema_cmp_bool(struct sema *s, bool is_signed);
struct sp_type *sema_record_order(struct sema *s, struct sp_node *n, struct sp_type *t,
				  const struct sp_type *want);
/* The check hooks of stdlib/builtins.def's rows (the check column X is
 * sema_check_X, in sema_call.c or sema_builtins.c): called after the
 * columns' checks, they report what the columns cannot say; the type they
 * return replaces the row's result (NULL: keep it). */
typedef struct sp_type *sema_check_fn(struct sema *s, struct sp_node *n);
#define SP_BUILTIN_VAR(name, result, probes, check, emit, doc) sema_check_fn sema_check_##check;
#define SP_BUILTIN_FN(name, min, max, args, result, probes, check, emit, doc) \
	sema_check_fn sema_check_##check;
#include "stdlib/builtins.def"
/* parser/sema_builtins.c: username's uid, printed as a name */
void sema_username(struct sema *s, struct sp_node *n);
/* $#, a missing $N (0) or a $N whose text is a number */
bool sema_param_is_int(struct sema *s, const struct sp_node *n);
/* str($N + k) of a text parameter: rewritten to the text from byte k on
 * (bpftrace's pointer arithmetic on the string); the string's size, or 0
 * if n is not that */
uint32_t sema_str_param_offset(struct sema *s, struct sp_node *n);
bool sema_const_int(const struct sp_node *n, int64_t *v);
struct sema_map *sema_map_get(struct sema *s, const char *name);
struct sp_type *sema_map_keys(struct sema *s, struct sp_node *m, bool whole_ok);
void sema_map_value(struct sema *s, struct sp_node *m, struct sp_type *t, struct sp_span at);
struct sp_type *sema_slot_type(struct sema *s, struct sp_type *t);

/* macro.c: each call of a user macro becomes a copy of its body; the
 * program's macros (prog->b) are dropped after. -1 after an error. */
int sp_macros_expand(struct sp_arena *a, struct sp_node *prog, struct sp_diag *d);

/* getopt.c: getopt("name"[, default]) becomes the literal it reads */
struct sp_type *sema_getopt(struct sema *s, struct sp_node *n);

/* sema_call.c */
struct sp_type *sema_builtin(struct sema *s, struct sp_node *n);
struct sp_type *sema_call(struct sema *s, struct sp_node *n, bool map_value);
struct sp_type *sema_args_field(struct sema *s, struct sp_node *n);
bool sema_is_agg_call(const struct sp_node *n);

/* sema_ctype.c */
bool sema_complete(struct sema *s, struct sp_type *t, struct sp_span at);
struct sp_type *sema_let_space(struct sema *s, struct sp_type *t);
struct sp_type *sema_cast(struct sema *s, struct sp_node *n);
struct sp_type *sema_deref(struct sema *s, struct sp_node *n);
struct sp_type *sema_addrof(struct sema *s, struct sp_node *n);
struct sp_type *sema_index(struct sema *s, struct sp_node *n);
struct sp_type *sema_cfield(struct sema *s, struct sp_node *n, struct sp_type *t);
struct sp_type *sema_ptr_binop(struct sema *s, struct sp_node *n, struct sp_type *x,
			       struct sp_type *y);
struct sp_type *sema_sizeof(struct sema *s, struct sp_node *n);
struct sp_type *sema_offsetof(struct sema *s, struct sp_node *n);
struct sp_type *sema_curtask(struct sema *s);
/* iter:NAME (sema_ctype.c): check the iterator, note its object's offset;
 * `ctx` typed as struct bpf_iter__NAME *. */
void sema_iter_attach(struct sema *s, struct sp_node *at);
struct sp_type *sema_iter_ctx(struct sema *s);
struct sp_type *sema_uprobe_arg(struct sema *s, struct sp_node *n);
struct sp_type *sema_uprobe_args(struct sema *s, struct sp_node *n);
struct sp_type *sema_rawtp_arg(struct sema *s, struct sp_node *n);
struct sp_type *sema_fexit_retval(struct sema *s, struct sp_node *n);
struct sp_type *sema_addr_space(struct sema *s, struct sp_type *t, bool user);

#endif
