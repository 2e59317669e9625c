/* runtime/report/report.h: writing a collected profile in the format people asked for.
 *
 * text (bpftrace's map printing, the default), json (bpftrace's -f json
 * lines), folded, svg (sprof's own interactive flame graph), pprof
 * (gzip'd profile.proto), speedscope and residency (each stack's share). The format follows -o's extension
 * when -f is absent.
 */
#ifndef SPROF_RUNTIME_REPORT_REPORT_H
#define SPROF_RUNTIME_REPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "runtime/profile/profile.h"

enum sp_format { SP_FMT_TEXT, SP_FMT_JSON, SP_FMT_FOLDED, SP_FMT_SVG, SP_FMT_PPROF, SP_FMT_SPEEDSCOPE,
		 SP_FMT_RESIDENCY };

struct sp_report_opts {
	enum sp_format format;
	const char *output;     /* path or NULL for stdout; svg/folded with several stack maps add "-<map>" */
	const char *map_filter; /* "@name": only this map */
	const char *title;      /* svg title */
	int width;              /* svg width in px (1200) */
	const char *stdout_name; /* what stdout is, for messages: -o's file, or NULL */
	bool exclusive;         /* files are new: O_EXCL|O_NOFOLLOW, mode 0600 (a fallback) */
};

/* "out.svg" + "foo" -> "out-foo.svg" (malloc'd; NULL when out of memory). */
char *sp_report_suffixed_path(const char *path, const char *suffix);
/* "text", "json", ... -> format; -1 when unknown. */
int sp_format_parse(const char *name);
/* Format implied by an output path's extension, or SP_FMT_TEXT. */
enum sp_format sp_format_from_path(const char *path);
/* Writes the whole profile; returns 0 or -errno (message printed).
 * text and json to stdout start with "\n\n" like bpftrace's exit print. */
int sp_report_write(const struct sp_profile *p, const struct sp_report_opts *o);

/* Text pieces reused by print() and printf while running. */
void sp_report_text_map(FILE *f, const struct sp_mapdata *m, int top, int div);
/* bpftrace's stack text: "" when empty, else "\n" and one line per frame
 * (mode: enum sp_stack_mode; indent 4 in map keys, 8 for print/printf). */
void sp_report_text_stack(FILE *f, const struct sp_stack *st, int mode, int indent);
/* -f json pieces: print(@m, top, div), printf() lines, other events with a
 * string payload ("time", "cat", "join", "syscall": bpftrace's type names),
 * print(value) with its text form, and the JSON "attached_probes" record. */
void sp_report_json_map(FILE *f, const struct sp_mapdata *m, int top, int div);
void sp_report_json_printf(FILE *f, const char *text);
void sp_report_json_event(FILE *f, const char *type, const char *text);
void sp_report_json_value(FILE *f, const struct sp_kval *v, const struct sp_plan_field *fld);
void sp_report_json_attached(FILE *f, int nprobes);

#endif
