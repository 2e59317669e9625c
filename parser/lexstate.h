/* parser/lexstate.h: state shared by the flex lexer and the bison parser.
 *
 * Internal to parser/. One struct per parse, hung off the reentrant flex
 * scanner as its "extra" and passed to the pure bison parser as %param, so
 * any number of programs can be parsed in one process (tests, fuzzers).
 */
#ifndef SPROF_PARSER_LEXSTATE_H
#define SPROF_PARSER_LEXSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/ast.h"

struct sp_arena;
struct sp_diag;
struct sp_source;

#define SP_LEX_MAX_NEST 256

/* Where the lexer is, which decides what a character means. */
enum sp_lex_mode {
	SP_LEX_TOP,  /* between probes: attach points, ',', '/', '{', '<' */
	SP_LEX_PRED, /* inside /predicate/ */
	SP_LEX_BODY, /* inside a probe's block */
};

struct sp_pstate {
	struct sp_arena *arena;
	struct sp_diag *diag;
	const struct sp_source *src;
	void *scanner;
	struct sp_node *prog;
	/* lexer state */
	const char *text;
	uint32_t len;
	uint32_t pos;          /* byte offset of the next unread character */
	int last_tok;          /* last token returned (0 at start) */
	int prev_tok;          /* the one before it */
	enum sp_lex_mode mode;
	int depth;             /* open blocks; stack[] holds '{' or '<' */
	char stack[SP_LEX_MAX_NEST];
	int paren;             /* '(' depth inside a predicate */
	int probe_errors;      /* syntax errors reported */
	bool too_deep;         /* SP_MAX_DEPTH exceeded (reported once) */
};

/* An attach point, its span, and a probe-type provider name check
 * shared by the lexer's '>' look-ahead and attach.c. */
bool sp_is_probe_type_name(const char *s, uint32_t len);

#endif
