/* parser/parse.c: sp_parse(), the glue between flex, bison and the caller.
 *
 * Creates one reentrant scanner over the source text, runs the pure
 * parser, and hands back the PROGRAM node even after syntax errors (the
 * probes that parsed are kept; sema may still report on them).
 */
#include <errno.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/frontend.h"
#include "parser/lexstate.h"
#include "parser/types/ctypes.h"
#include "parser.h"
#include "parser/base/source.h"

typedef void *yyscan_t;
int splxlex_init_extra(struct sp_pstate *extra, yyscan_t *scanner);
int splxlex_destroy(yyscan_t scanner);
void *splx_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int sp_lex_next(SPYSTYPE *lval, struct sp_span *lloc, yyscan_t scanner);

int spylex(SPYSTYPE *lval, SPYLTYPE *lloc, struct sp_pstate *ps)
{
	return sp_lex_next(lval, lloc, ps->scanner);
}

int sp_parse(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
	     struct sp_node **out)
{
	return sp_parse_ex(a, src, d, NULL, out);
}

/* --include FILE: like `#include "FILE"` (or <FILE> when not found as is). */
static void pre_includes(struct sp_pstate *ps, const struct sp_parse_opts *o)
{
	for (int i = 0; o && i < o->nincludes; i++)
		sp_pp_include(ps, o->includes[i], true, (struct sp_span){ 0, 0 });
}

int sp_parse_ex(struct sp_arena *a, const struct sp_source *src, struct sp_diag *d,
		const struct sp_parse_opts *o, struct sp_node **out)
{
	struct sp_pstate ps;
	int before = sp_diag_errors(d), rc;

	memset(&ps, 0, sizeof(ps));
	ps.arena = a;
	ps.diag = d;
	ps.src = src;
	ps.text = src->text;
	ps.len = src->len;
	ps.popts = o;
	ps.ct = sp_ctypes_new(a);
	ps.ct->no_btf = o && o->no_btf;
	*out = NULL;
	if (splxlex_init_extra(&ps, &ps.scanner))
		return -errno;
	splx_scan_bytes(src->text, (int)src->len, ps.scanner);
	pre_includes(&ps, o);
	rc = spyparse(&ps);
	splxlex_destroy(ps.scanner);
	if (!ps.prog)
		ps.prog = sp_node_new(a, SP_N_PROGRAM, (struct sp_span){ 0, src->len });
	ps.prog->ctypes = ps.ct;
	sp_ctypes_release(ps.ct); /* sema loads BTF again if it needs it */
	*out = ps.prog;
	if (rc && sp_diag_errors(d) == before)
		sp_diag_at(d, SP_DIAG_ERROR, (struct sp_span){ src->len, src->len },
			   "cannot parse the program");
	return sp_diag_errors(d) - before;
}
