/* runtime/report/impl.h: helpers the report writers share (runtime/report/impl.c).
 *
 * Every writer needs the same few things: entries in bpftrace's print order,
 * a frame as text, and, for the flame-graph formats, each stack entry turned
 * into a root-first path of named frames with the key's other parts (comm,
 * pid, ...) as leading frames. They are written once here so the formats
 * cannot disagree on what a stack is called.
 */
#ifndef SPROF_RUNTIME_REPORT_IMPL_H
#define SPROF_RUNTIME_REPORT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/profile/profile.h"
#include "runtime/report/report.h"

/* Text a traced process chose (comm, a string it holds, a symbol of its
 * files) is printed with control characters (C0 but tab and newline, DEL,
 * and U+0080-U+009F in UTF-8) as \xNN, so no terminal takes them as escape
 * sequences (a comm "\e]0;...\a" set a root user's terminal title; one
 * "\e[2J" cleared it). sp_text_needs_escape() says whether s has any;
 * sp_text_escape() writes the escaped s into buf (cut to len - 1 bytes). */
bool sp_text_needs_escape(const char *s);
const char *sp_text_escape(const char *s, char *buf, size_t len);
void sp_text_safe(FILE *f, const char *s);

/* "sym+off", or "0x<addr>" when unresolved (bpftrace's frame text);
 * "sym (inlined)" for an inlined function (perf's). */
const char *sp_frame_text(const struct sp_frame *f, char *buf, size_t len);
/* Name used by flame graphs and profiles: the symbol; unresolved, the
 * module's file name in brackets ("[libc.so.6]", as stackcollapse-perf
 * does), or "[unknown]" outside any module. buf holds the bracketed form. */
const char *sp_frame_func(const struct sp_frame *f, char *buf, size_t len);

/* Entries in bpftrace's print order (ascending by value, hist by total),
 * keeping only the `top` largest when top > 0. Returns a malloc'd array of
 * *n pointers, or NULL with errno set. */
const struct sp_entry **sp_sorted_entries(const struct sp_mapdata *m, int top, int *n);
/* The first and last non-zero bucket of a hist/lhist value; lo > hi when
 * every bucket is zero. */
void sp_bucket_span(const struct sp_value *v, int *lo, int *hi);
/* An lhist map's min, step (at least 1) and max; without a plan map, buckets
 * of width 1 from 0. */
void sp_lhist_bounds(const struct sp_mapdata *m, const struct sp_value *v, int64_t *min,
		     int64_t *step, int64_t *max);
/* tseries maps (runtime/report/tseries.c): the window of epochs every key
 * is shown over, a key's rows in it (malloc'd; the count, or -errno), and
 * those rows as bpftrace 0.27's text graph or JSON array. */
struct sp_tsrow {
	uint64_t epoch;
	bool have;
	int64_t v;
};
void sp_tseries_window(const struct sp_mapdata *m, uint64_t *first, uint64_t *last);
int sp_tseries_rows(const struct sp_value *v, uint64_t first, uint64_t last,
		    struct sp_tsrow **out);
void sp_tseries_text(FILE *f, const struct sp_mapdata *m, const struct sp_tsrow *r, int n);
void sp_tseries_json(FILE *f, const struct sp_mapdata *m, const struct sp_tsrow *r, int n);
/* Maps in name order, honouring o->map_filter; malloc'd, NULL + errno. */
const struct sp_mapdata **sp_sorted_maps(const struct sp_profile *p, const char *filter, int *n);
/* Maps a flame-graph format writes: those whose key holds a stack; when none
 * does, keyed count/sum maps. */
bool sp_map_has_stack(const struct sp_mapdata *m);
bool sp_map_is_flame(const struct sp_mapdata *m);

/* Key part field for element i of a key (or the key itself), NULL if unknown. */
const struct sp_plan_field *sp_key_field(const struct sp_mapdata *m, int i);

/* One element of a stack path, root first. */
/* INLINE: a user function inlined into the element after it (its caller). */
enum sp_pe_kind { SP_PE_LABEL, SP_PE_USER, SP_PE_KERNEL, SP_PE_UNKNOWN, SP_PE_INTERP, SP_PE_INLINE };
struct sp_pelem {
	char *name;                  /* owned */
	enum sp_pe_kind kind;
	const struct sp_frame *frame; /* NULL for labels */
	const char *label;           /* labels: the key part's builtin name ("tid"), or NULL */
	int64_t num;                 /* labels: the value of an integer key part */
	bool is_num;
};
struct sp_path {
	int n, cap;
	struct sp_pelem *el;
	uint32_t pid;                /* from the first user stack, 0 if none */
	const char *comm;            /* a 16-byte string key part, or NULL */
	uint64_t weight;
};
/* Labels (non-stack key parts), then user frames, then kernel frames, each
 * stack root first. Returns 0 or -errno. */
int sp_entry_path(const struct sp_mapdata *m, const struct sp_entry *e, struct sp_path *out);
void sp_path_free(struct sp_path *p);
/* Every entry's path with weight and frames, sorted by names (by pid first
 * when by_pid) with identical ones merged: stacks differing only in
 * offsets become one. Returns 0 or -errno. */
int sp_map_paths(const struct sp_mapdata *m, bool by_pid, struct sp_path **out, int *n);
void sp_paths_free(struct sp_path *v, int n);

/* String keys -> ids 1, 2, ...; *fresh tells a key just added. 0 on ENOMEM. */
struct sp_intern {
	char **keys;
	uint64_t *ids;
	size_t cap, n;
};
uint64_t sp_intern(struct sp_intern *t, const char *key, bool *fresh);
void sp_intern_free(struct sp_intern *t);

/* Text forms shared by text and json. */
void sp_text_key(FILE *f, const struct sp_mapdata *m, const struct sp_kval *k, const char *sep);
void sp_text_kval(FILE *f, const struct sp_kval *k, const struct sp_plan_field *fld, bool in_tuple);
/* An integer key part or value, signed or unsigned as it was declared. */
void sp_text_int(FILE *f, const struct sp_kval *k);
/* A symbol value: its name, or bpftrace's 0x%lx ("0" for null) when unresolved. */
void sp_text_addr(FILE *f, const char *name, uint64_t addr);
void sp_json_str(FILE *f, const char *s);
/* Length of the valid UTF-8 sequence at s (1-4), 0 if invalid. JSON and
 * SVG readers refuse bad UTF-8, so writers replace such bytes. */
size_t sp_utf8_len(const unsigned char *s, size_t n);
void sp_json_strn(FILE *f, const char *s, size_t n);

/* Opens o->output (with "-<map>" inserted before the extension when suffix
 * is set) or returns stdout; *path gets the name for messages. */
FILE *sp_report_open(const struct sp_report_opts *o, const char *suffix, char **path);
/* Flushes (stdout) or closes f and frees path; a failed write is said on
 * stderr with its errno ("No space left on device"), naming path, or
 * stdout_name for stdout. 0 or -errno. */
int sp_report_close(FILE *f, char *path, const char *stdout_name);

/* A frame name as folded lines write it (';' -> ':', "_[k]" for kernel
 * frames, "_[i]" for inlined ones as stackcollapse-perf --inline marks them). */
void sp_folded_name(FILE *f, const char *s, enum sp_pe_kind kind);

int sp_report_folded(FILE *f, const struct sp_mapdata *m);
int sp_report_residency(FILE *f, const struct sp_mapdata *m);
int sp_report_svg(FILE *f, const struct sp_mapdata *m, const struct sp_report_opts *o);
/* A flame graph of paths read back from files (cur); with base, the
 * differential one: widths from cur, colours from the change of share. */
int sp_report_svg_paths(FILE *f, const struct sp_path *cur, int ncur, const struct sp_path *base,
			int nbase, const char *subtitle, const struct sp_report_opts *o);
int sp_report_pprof(FILE *f, const struct sp_profile *p, const struct sp_mapdata *m);
int sp_report_speedscope(FILE *f, const struct sp_profile *p, const struct sp_mapdata **maps, int nmaps);

#endif
