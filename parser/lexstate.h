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
struct sp_ctypes;
struct sp_parse_opts;

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
	/* C types and the preprocessor (pp.c) */
	struct sp_ctypes *ct;
	const struct sp_parse_opts *popts;
	uint32_t pp_active;    /* bit i: the i-th open #if is in a kept branch */
	uint32_t pp_taken;     /* bit i: a branch of the i-th #if was kept already */
	int pp_depth;
	struct sp_span pp_open[32]; /* where each open #if is */
	const char *pp_seen[256]; /* system headers whose #defines were read */
	int pp_nseen;
	uint64_t pp_local[64][2]; /* (device, inode) of each "file" included (read once) */
	int pp_nlocal;
	uint64_t pp_local_bytes; /* their sizes, summed */
	int pp_resume;         /* start condition to go back to after skipped lines */
	bool too_deep;         /* SP_MAX_DEPTH exceeded (reported once) */
};

/* pp.c: a directive line starting at '#'; true when the lines that follow
 * are to be skipped (a false #if branch). */
bool sp_pp_directive(struct sp_pstate *ps, const char *text, struct sp_span sp);
void sp_pp_include(struct sp_pstate *ps, const char *name, bool local, struct sp_span sp);

/* An attach point, its span, and a probe-type provider name check
 * shared by the lexer's '>' look-ahead and attach.c. */
bool sp_is_probe_type_name(const char *s, uint32_t len);

#endif
