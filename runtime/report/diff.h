/* runtime/report/diff.h: `sprof diff BASE NEW`, what changed between two profiles.
 *
 * Each side is a pprof (.pb.gz, sprof's own or another producer's) or a
 * folded file. Counts are normalised by each side's total, so profiles of
 * different lengths compare. Two outputs: a differential flame graph (the
 * svg writer's: widths from NEW, red = share grew, blue = shrank, white =
 * within sampling noise by a two-proportion z test) and a text
 * table of the functions whose share changed most (self and total share,
 * before, after, delta).
 */
#ifndef SPROF_RUNTIME_REPORT_DIFF_H
#define SPROF_RUNTIME_REPORT_DIFF_H

#include "runtime/report/report.h"

struct sp_diff_opts {
	const char *base, *cur; /* the two files */
	const char *output;     /* -o FILE, NULL = stdout */
	enum sp_format format;  /* SP_FMT_TEXT or SP_FMT_SVG */
	const char *title;      /* svg title */
	int top;                /* text: at most this many rows, 0 = all */
};

/* Reads both files and writes the diff; 0 or -errno (message printed). */
int sp_diff(const struct sp_diff_opts *o);

/* The functions table as JSON ({"total", "base_total", "functions": [{name,
 * self, total, base_self, base_total}]}), the first `top` rows (0: all):
 * of cur alone by total samples (base NULL), or by change of share from
 * base to cur, as the text table of sprof diff. 0 or -ENOMEM. */
struct sp_path;
int sp_functions_json(FILE *f, const struct sp_path *base, int nbase, const struct sp_path *cur,
		      int ncur, int top);

#endif
