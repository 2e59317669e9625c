/* parser/tokens.h: `-d tokens`, the lexer's view of a program.
 *
 * One line per token: line:column, the grammar's name for it, and the text
 * it covers. The lexer is modal (attach points between probes, expressions
 * inside predicates and blocks), so this shows how a line was cut up before
 * any grammar rule saw it.
 */
#ifndef SPROF_PARSER_TOKENS_H
#define SPROF_PARSER_TOKENS_H

#include <stdio.h>

struct sp_arena;
struct sp_diag;
struct sp_source;

/* Prints every token of src to f; returns 0 or -errno. */
int sp_tokens_dump(FILE *f, struct sp_arena *a, const struct sp_source *src, struct sp_diag *d);
/* Bison's name of a token kind (parser.y). */
const char *sp_token_name(int tok);

#endif
