/* parser/base/source.c: program text and its line map.
 *
 * The text is copied once and a table of line-start offsets is built, so
 * tokens and nodes can carry plain byte offsets and diagnostics turn them
 * into line:column only when they print (binary search, no rescanning).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/base/source.h"

static int build_line_map(struct sp_source *s)
{
	uint32_t i, n = 1;

	for (i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	s->line_starts = malloc(n * sizeof(*s->line_starts));
	if (!s->line_starts)
		return -ENOMEM;
	s->nlines = 0;
	s->line_starts[s->nlines++] = 0;
	for (i = 0; i < s->len; i++)
		if (s->text[i] == '\n')
			s->line_starts[s->nlines++] = i + 1;
	return 0;
}

static struct sp_source *source_new(const char *name, const char *text, size_t len)
{
	struct sp_source *s;

	if (len > UINT32_MAX - 2) {
		errno = EFBIG;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_nomem;
	s->name = strdup(name);
	s->text = malloc(len + 1);
	if (!s->name || !s->text)
		goto out_free;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->len = (uint32_t)len;
	if (build_line_map(s))
		goto out_free;
	return s;
out_free:
	sp_source_free(s);
out_nomem:
	errno = ENOMEM;
	return NULL;
}

struct sp_source *sp_source_from_string(const char *name, const char *text)
{
	return source_new(name, text, strlen(text));
}

struct sp_source *sp_source_from_file(const char *path)
{
	struct sp_source *s = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb) {
				err = ENOMEM;
				goto out_close;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		err = EIO;
		goto out_close;
	}
	s = source_new(path, buf, len);
	err = s ? 0 : errno;
out_close:
	fclose(f);
	free(buf);
	errno = err;
	return s;
}

void sp_source_free(struct sp_source *s)
{
	if (!s)
		return;
	free((char *)s->name);
	free(s->text);
	free(s->line_starts);
	free(s);
}

void sp_source_linecol(const struct sp_source *s, uint32_t off, uint32_t *line, uint32_t *col)
{
	uint32_t lo = 0, hi = s->nlines;

	if (off > s->len)
		off = s->len;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = lo + 1;
	*col = off - s->line_starts[lo] + 1;
}

const char *sp_source_line(const struct sp_source *s, uint32_t line, uint32_t *len)
{
	uint32_t start, end;

	if (line < 1 || line > s->nlines) {
		*len = 0;
		return "";
	}
	start = s->line_starts[line - 1];
	end = line < s->nlines ? s->line_starts[line] - 1 : s->len;
	if (end > start && s->text[end - 1] == '\r')
		end--;
	*len = end - start;
	return s->text + start;
}
