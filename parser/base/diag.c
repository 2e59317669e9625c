/* parser/base/diag.c: clang-style diagnostics and "did you mean".
 *
 *   trace.sp:3:19: error: unknown builtin 'ustak'
 *       profile:hz:99 { @[ustak] = count(); }
 *                         ^~~~~
 *   trace.sp:3:19: note: did you mean 'ustack'?
 *
 * The source line is printed as written; the caret line copies the tabs
 * of the source line so the caret stays aligned in any tab width. The
 * underline is clipped to the first line of a multi-line span.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/diag.h"
#include "parser/base/source.h"

static const char *const level_names[] = {
	[SP_DIAG_ERROR] = "error",
	[SP_DIAG_WARNING] = "warning",
	[SP_DIAG_NOTE] = "note",
};

void sp_diag_init(struct sp_diag *d, const struct sp_source *src, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->out = out ? out : stderr;
}

static bool count_level(struct sp_diag *d, enum sp_diag_level level)
{
	if (level == SP_DIAG_WARNING && d->no_warnings)
		return false;
	if (level == SP_DIAG_ERROR)
		d->errors++;
	else if (level == SP_DIAG_WARNING)
		d->warnings++;
	return true;
}

static void print_header(struct sp_diag *d, enum sp_diag_level level, uint32_t line,
			 uint32_t col, const char *fmt, va_list ap)
{
	const char *name = d->src && d->src->name ? d->src->name : "<input>";

	fprintf(d->out, "%s:%u:%u: %s: ", name, line, col, level_names[level]);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
}

/* Source line, then spaces (tabs where the source has tabs) up to col,
 * then '^' and '~' for the rest of the span on this line. */
static void print_caret(struct sp_diag *d, uint32_t line, uint32_t col, uint32_t width)
{
	uint32_t len, i;
	const char *text;

	if (!d->src)
		return;
	text = sp_source_line(d->src, line, &len);
	fprintf(d->out, "%.*s\n", (int)len, text);
	for (i = 0; i + 1 < col; i++)
		fputc(i < len && text[i] == '\t' ? '\t' : ' ', d->out);
	fputc('^', d->out);
	for (i = col; i < col - 1 + width && i < len; i++)
		fputc('~', d->out);
	fputc('\n', d->out);
}

void sp_diag_at(struct sp_diag *d, enum sp_diag_level level, struct sp_span span,
		const char *fmt, ...)
{
	uint32_t line = 1, col = 1;
	va_list ap;

	if (!count_level(d, level))
		return;
	if (d->src)
		sp_source_linecol(d->src, span.begin, &line, &col);
	va_start(ap, fmt);
	print_header(d, level, line, col, fmt, ap);
	va_end(ap);
	print_caret(d, line, col, span.end > span.begin ? span.end - span.begin : 1);
}

void sp_diag_note(struct sp_diag *d, struct sp_span span, const char *fmt, ...)
{
	uint32_t line = 1, col = 1;
	va_list ap;

	if (d->src)
		sp_source_linecol(d->src, span.begin, &line, &col);
	va_start(ap, fmt);
	print_header(d, SP_DIAG_NOTE, line, col, fmt, ap);
	va_end(ap);
}

void sp_diag_at_linecol(struct sp_diag *d, enum sp_diag_level level, uint32_t line,
			uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (!count_level(d, level))
		return;
	va_start(ap, fmt);
	print_header(d, level, line, col, fmt, ap);
	va_end(ap);
	if (d->src && line >= 1 && line <= d->src->nlines)
		print_caret(d, line, col, 1);
}

int sp_diag_errors(const struct sp_diag *d)
{
	return d->errors;
}

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

/* Edit distance where swapping two neighbours counts as one edit
 * ("prinft" is one edit from "printf"); words here are short identifiers. */
static int edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	int d[33][33], i, j;

	if (la > 32 || lb > 32)
		return 1 << 20;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *sp_did_you_mean(const char *word, const char *const *cands, int ncands)
{
	int len = (int)strlen(word), limit = len / 3 > 1 ? len / 3 : 1;
	int best = limit + 1, best_dlen = 0, i;
	const char *found = NULL;

	for (i = 0; i < ncands; i++) {
		int dist, dlen;

		if (!cands[i] || !strcmp(cands[i], word))
			continue;
		dist = edit_distance(word, cands[i]);
		dlen = abs((int)strlen(cands[i]) - len);
		/* on a tie, prefer the candidate of the same length */
		if (dist < best || (dist == best && found && dlen < best_dlen)) {
			best = dist;
			best_dlen = dlen;
			found = cands[i];
		}
	}
	return found;
}
