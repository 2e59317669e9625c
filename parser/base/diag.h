/* parser/base/diag.h: diagnostics in clang's format.
 *
 *   trace.sp:3:19: error: unknown builtin 'ustak'
 *       profile:hz:99 { @[ustak] = count(); }
 *                         ^~~~~
 *   trace.sp:3:19: note: did you mean 'ustack'?
 *
 * Errors are counted, not fatal: every pass reports all it can and the
 * driver stops before codegen when sp_diag_errors() > 0. Later layers
 * (codegen, verifier mapping) report through the same sink using the line
 * and column they carry.
 */
#ifndef SPROF_PARSER_BASE_DIAG_H
#define SPROF_PARSER_BASE_DIAG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parser/base/source.h" /* struct sp_span */

struct sp_source;

enum sp_diag_level { SP_DIAG_ERROR, SP_DIAG_WARNING, SP_DIAG_NOTE };

struct sp_diag {
	const struct sp_source *src;
	FILE *out;          /* stderr by default */
	int errors;
	int warnings;
	bool no_warnings;
	bool color;         /* reserved; output is plain text today */
};

void sp_diag_init(struct sp_diag *d, const struct sp_source *src, FILE *out);
/* Message at a span: prints "name:line:col: level: msg", the source line and
 * a ^~~~ underline spanning the span (clipped to the first line). */
void sp_diag_at(struct sp_diag *d, enum sp_diag_level level, struct sp_span span,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A note without source line: "name:line:col: note: msg". */
void sp_diag_note(struct sp_diag *d, struct sp_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Diagnostic located by line:col (1-based) e.g. from BPF line info. */
void sp_diag_at_linecol(struct sp_diag *d, enum sp_diag_level level, uint32_t line,
			uint32_t col, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int sp_diag_errors(const struct sp_diag *d);

/* Closest candidate by edit distance (<= max(1, len/3)), or NULL. */
const char *sp_did_you_mean(const char *word, const char *const *cands, int ncands);

#endif
