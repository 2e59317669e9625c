/* parser/base/source.h: a program's text, its name, and its line map.
 *
 * Every token and node keeps byte offsets; this is the one place that turns
 * an offset into line:column, only when something is printed.
 */
#ifndef SPROF_PARSER_BASE_SOURCE_H
#define SPROF_PARSER_BASE_SOURCE_H

#include <stdint.h>

/* A half-open byte range [begin, end) in the source text. */
struct sp_span {
	uint32_t begin;
	uint32_t end;
};

struct sp_source {
	const char *name;   /* "trace.sp", or "<cmdline>" for -e / positional text */
	char *text;         /* NUL terminated; owned */
	uint32_t len;
	uint32_t *line_starts; /* offset of each line's first byte */
	uint32_t nlines;
};

/* Returns NULL and sets errno on failure. */
struct sp_source *sp_source_from_string(const char *name, const char *text);
struct sp_source *sp_source_from_file(const char *path);
void sp_source_free(struct sp_source *s); /* accepts NULL */

/* 1-based line and column (in bytes) of a byte offset. */
void sp_source_linecol(const struct sp_source *s, uint32_t off, uint32_t *line, uint32_t *col);
/* Pointer to the start of 1-based line `line` and its length without '\n'. */
const char *sp_source_line(const struct sp_source *s, uint32_t line, uint32_t *len);

#endif
