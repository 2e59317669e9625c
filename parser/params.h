/* parser/params.h: named, typed parameters of a script.
 *
 * A script says what it is for and what it takes in its leading comment
 * lines (see docs/stdlib.md):
 *
 *   // purpose: latency of one user function (histogram of microseconds)
 *   // param func func -: the function, BIN:FUNC (e.g. /bin/bash:readline)
 *   // param min duration 0: ignore calls shorter than this
 *
 * `// param NAME TYPE DEFAULT: HELP`, DEFAULT `-` for a required parameter
 * and `""` for an empty string. Types: int, string, duration (a number
 * with ns/us/ms/s/m/h; its value is nanoseconds), func (BIN:FUNC, FUNC may
 * be a glob), usdt (BIN:[PROVIDER:]NAME). The command line sets them with
 * `--param NAME=VALUE`; values are checked against their type.
 *
 * `$NAME` then stands for the value everywhere in the script: in
 * expressions it is an integer literal (int, duration) or a string literal
 * (string, func, usdt); in attach points its text replaces it
 * (`uprobe:$func`, `interval:ms:$ms`; a duration there is its nanoseconds).
 * Binding happens on the parsed tree, before sema, so nothing downstream
 * knows about parameters.
 */
#ifndef SPROF_PARSER_PARAMS_H
#define SPROF_PARSER_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sp_arena;
struct sp_diag;
struct sp_node;

enum sp_param_type {
	SP_PARAM_INT,
	SP_PARAM_STRING,
	SP_PARAM_DURATION,
	SP_PARAM_FUNC,
	SP_PARAM_USDT,
};

struct sp_param {
	const char *name;
	enum sp_param_type type;
	const char *def;   /* default text; NULL: required */
	const char *help;
	const char *value; /* text given with --param, else the default */
	int64_t ival;      /* int; duration in nanoseconds */
};

struct sp_script_info {
	const char *purpose; /* NULL when the script has no purpose line */
	struct sp_param *params;
	int nparams;
};

/* Reads the purpose and param lines from the script's leading comments.
 * Returns 0, or -EINVAL with a message in err (a malformed param line). */
int sp_script_info_parse(struct sp_arena *a, const char *text, struct sp_script_info *out,
			 char *err, size_t errlen);
/* Sets one "NAME=VALUE" from the command line: -EINVAL with a message
 * naming the valid parameters when NAME is not one of them. */
int sp_script_param_set(struct sp_script_info *si, const char *kv, char *err, size_t errlen);
/* Fills in defaults and checks every value against its type: -EINVAL with
 * a message for a missing required parameter or a malformed value. */
int sp_script_params_check(struct sp_script_info *si, char *err, size_t errlen);
/* Replaces every `$NAME` of a declared parameter in prog (expressions and
 * attach points); assigning to one is an error. Returns the error count. */
int sp_script_params_bind(struct sp_arena *a, struct sp_node *prog,
			  const struct sp_script_info *si, struct sp_diag *d);
/* "NAME=TYPE (default D): help" lines, each after indent. */
void sp_script_params_print(FILE *f, const struct sp_script_info *si, const char *indent);
const char *sp_param_type_name(enum sp_param_type t);

#endif
