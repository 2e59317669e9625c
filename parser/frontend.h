/* parser/frontend.h: the front end's entry points.
 *
 * sp_parse() turns source text into an untyped tree, recovering from syntax
 * errors at the next probe; sp_sema() types the tree and checks it. Both
 * report through `diag` and return the number of errors they found.
 */
#ifndef SPROF_PARSER_FRONTEND_H
#define SPROF_PARSER_FRONTEND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ast.h"
#include "diag.h"

struct sp_arena;
struct sp_source;

/* One field of a tracepoint's format (tracefs events/CAT/NAME/format). */
struct sp_tp_field {
	const char *name;
	uint32_t offset;    /* in the tracepoint record */
	uint32_t size;      /* bytes; for __data_loc the 4-byte locator */
	bool is_signed;
	bool is_string;     /* char[N] or __data_loc char[] */
	bool is_data_loc;   /* __data_loc: (len << 16 | offset) at `offset` */
};

/* Looks up a tracepoint's fields for `args.NAME`. category is NULL for
 * rawtracepoint:NAME. category/event are as written and may contain '*'
 * (the driver decides which match to use). Returns 0 and sets *out (which
 * must stay valid until codegen is done) and *n, or -errno (-ENOENT: no
 * such tracepoint, reported by sema with a caret on the attach point). */
typedef int (*sp_tp_fields_fn)(void *ctx, const char *category, const char *event,
			       const struct sp_tp_field **out, int *n);

struct sp_sema_opts {
	int strlen;        /* string buffer size; SP_DEFAULT_STRLEN */
	int nparams;       /* positional parameters $1..$N */
	char **params;
	bool unsafe;       /* system() allowed */
	/* Tracepoint formats. When NULL, `args.NAME` is typed u64 without a
	 * diagnostic and node->tp_field stays NULL, which codegen must refuse
	 * (this is what `-d ast` without a kernel needs). */
	sp_tp_fields_fn tp_fields;
	void *tp_ctx;
};

/* Parse: sets *out to the PROGRAM node (possibly partial on error). */
int sp_parse(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
	     struct sp_node **out);
/* Type check in place. Besides typing, sema rewrites positional
 * parameters into literals: `$N` becomes INT (0 when not given; an error
 * when not a number), `$#` INT, and `str($N)` STR. ATTACH nodes get their
 * sp_attach fields filled (attach.c). */
int sp_sema(struct sp_arena *a, struct sp_node *prog, const struct sp_sema_opts *o,
	    struct sp_diag *d);
/* S-expression dump used by the golden tests (--dump ast). */
void sp_ast_dump(FILE *f, const struct sp_node *n, bool with_types);

#endif
