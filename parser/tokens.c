/* parser/tokens.c: sp_tokens_dump() (tokens.h), the lexer run on its own. */
#include "parser/tokens.h"

#include <errno.h>
#include <string.h>

#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/lexstate.h"
#include "parser.h"
#include "parser/base/source.h"

typedef void *yyscan_t;
int splxlex_init_extra(struct sp_pstate *extra, yyscan_t *scanner);
int splxlex_destroy(yyscan_t scanner);
void *splx_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int sp_lex_next(SPYSTYPE *lval, struct sp_span *lloc, yyscan_t scanner);

static void print_token(FILE *f, const struct sp_source *src, int tok, struct sp_span sp)
{
	uint32_t line, col, n = sp.end - sp.begin;

	sp_source_linecol(src, sp.begin, &line, &col);
	fprintf(f, "%u:%-4u %-22s '", line, col, sp_token_name(tok));
	for (uint32_t i = 0; i < n && i < 60; i++) {
		char c = src->text[sp.begin + i];

		fputs(c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\'' ? "\\'" : (char[2]){ c, 0 }, f);
	}
	fprintf(f, "%s'\n", n > 60 ? "..." : "");
}

int sp_tokens_dump(FILE *f, struct sp_arena *a, const struct sp_source *src, struct sp_diag *d)
{
	struct sp_pstate ps;
	SPYSTYPE val;
	struct sp_span sp;
	int tok;

	memset(&ps, 0, sizeof(ps));
	ps.arena = a;
	ps.diag = d;
	ps.src = src;
	ps.text = src->text;
	ps.len = src->len;
	if (splxlex_init_extra(&ps, &ps.scanner))
		return -errno;
	splx_scan_bytes(src->text, (int)src->len, ps.scanner);
	while ((tok = sp_lex_next(&val, &sp, ps.scanner)) > 0)
		print_token(f, src, tok, sp);
	splxlex_destroy(ps.scanner);
	return 0;
}
