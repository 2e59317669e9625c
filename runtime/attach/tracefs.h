/* runtime/attach/tracefs.h: the kernel's trace event catalogue.
 *
 * Tracepoints are described by tracefs: events/CAT/NAME/format lists each
 * field of the record a tracepoint program receives as its context, with
 * its C declaration, offset, size and signedness. The semantic pass types
 * `args.FIELD` from it (through the driver's sp_sema_opts.tp_fields);
 * listing prints it with -lv.
 */
#ifndef SPROF_RUNTIME_ATTACH_TRACEFS_H
#define SPROF_RUNTIME_ATTACH_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field of a tracepoint record. The front end has its own, smaller
 * struct sp_tp_field (parser/frontend.h); the driver copies name, offset,
 * size, is_signed, is_data_loc, and is_string && !is_pointer into it. */
struct sp_tracefs_field {
	char *name;        /* "filename" */
	char *type;        /* C type as declared: "const char *", "char[16]", "__data_loc char[]" */
	uint32_t offset;   /* from the start of the record (the program's ctx) */
	uint32_t size;     /* bytes in the record (4 for __data_loc) */
	bool is_signed;
	bool is_pointer;   /* "T *": the value is an address (kernel or user) */
	bool is_string;    /* char array, char pointer or __data_loc char[] */
	bool is_data_loc;  /* u32: (length << 16) | offset of the bytes from ctx */
	bool is_common;    /* common_type, common_pid ...: not shown as args */
	uint32_t array_len;/* "char comm[16]" -> 16; 0 when not an array */
};

/* Where tracefs is (mounting it at /sys/kernel/tracing when it is not):
 * 0 and the directory in buf, or -errno. */
int sp_tracefs_root(char *buf, size_t len);
/* Fields of CAT:NAME in record order (common_* fields included, flagged).
 * 0, -ENOENT when the tracepoint does not exist, or -errno. */
int sp_tracepoint_fields(const char *cat, const char *name, struct sp_tracefs_field **out,
			 int *n);
void sp_tracefs_fields_free(struct sp_tracefs_field *f, int n);
/* A wildcard's fields: those that every matching tracepoint has at the same
 * offset with the same size, sign and type (one program serves them all,
 * so any other field would be read from the wrong place in some). 0, or
 * -ENOENT when nothing matches, or -errno. */
int sp_tracepoint_fields_common(const char *cat_glob, const char *name_glob,
				struct sp_tracefs_field **out, int *n);
/* Parse one "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line. */
bool sp_tp_parse_field_line(const char *line, struct sp_tracefs_field *f);
/* Parse a whole format file's text. 0 or -errno. */
int sp_tp_parse_format(const char *text, struct sp_tracefs_field **out, int *n);

bool sp_tracepoint_exists(const char *cat, const char *name);
/* Every "CAT:NAME" matching the globs (either may be NULL = all), sorted.
 * 0 or -errno; free with sp_strv_free(). */
int sp_tracepoints_list(const char *cat_glob, const char *name_glob, char ***out, int *n);
/* The known "CAT:NAME" closest to the given one, for "did you mean"; malloc'd or NULL. */
char *sp_tracepoint_suggest(const char *cat, const char *name);
/* Raw tracepoint NAME exists (a tracefs event of any category, or a
 * btf_trace_NAME type in the kernel's BTF). */
bool sp_rawtracepoint_exists(const char *name);

#endif
