/* parser/frontend.h: the front end's entry points.
 *
 * sp_parse() turns source text into an untyped tree, recovering from syntax
 * errors at the next probe; sp_sema() types the tree and checks it. Both
 * report through `diag` and return the number of errors they found.
 */
#ifndef SPROF_PARSER_FRONTEND_H
#define SPROF_PARSER_FRONTEND_H

#include <stdio.h>

#include "ast.h"
#include "diag.h"

struct sp_arena;
struct sp_source;

struct sp_sema_opts {
	int strlen;        /* string buffer size; SP_DEFAULT_STRLEN */
	int nparams;       /* positional parameters $1..$N */
	char **params;
	bool unsafe;       /* system() allowed */
};

/* Parse: sets *out to the PROGRAM node (possibly partial on error). */
int sp_parse(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
	     struct sp_node **out);
/* Type check in place. */
int sp_sema(struct sp_arena *a, struct sp_node *prog, const struct sp_sema_opts *o,
	    struct sp_diag *d);
/* S-expression dump used by the golden tests (--dump ast). */
void sp_ast_dump(FILE *f, const struct sp_node *n, bool with_types);

#endif
