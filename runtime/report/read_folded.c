/* runtime/report/read_folded.c: folded stacks read back ("a;b;c 123").
 *
 * The input side of `sprof diff` for folded files, sprof's own or those of
 * stackcollapse-*.pl and inferno: one stack per line, frames root first
 * joined by ';', a blank, an integer count. Blank lines and lines starting
 * with '#' are skipped; any other line without a trailing count is an error
 * naming the file and line. Also the path list both readers fill
 * (read_pprof.c, and read_stacks.c picks the reader by content).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "runtime/report/input.h"
#include "base/vec.h"

static enum sp_pe_kind name_kind(char *name)
{
	size_t n = strlen(name);

	if (n > 4 && strcmp(name + n - 4, "_[k]") == 0) {
		name[n - 4] = '\0';
		return SP_PE_KERNEL;
	}
	if (n > 4 && strcmp(name + n - 4, "_[i]") == 0) {
		name[n - 4] = '\0';
		return SP_PE_INLINE;
	}
	return name[0] == '[' && name[n ? n - 1 : 0] == ']' ? SP_PE_UNKNOWN : SP_PE_USER;
}

int sp_stacks_add(struct sp_stacks *s, char **names, int n, uint64_t w)
{
	struct sp_path *p;

	if (SP_GROW(s->paths, s->cap, s->n + 1, 64))
		return -ENOMEM;
	p = &s->paths[s->n];
	memset(p, 0, sizeof(*p));
	p->weight = w;
	p->el = calloc(n + 1, sizeof(*p->el));
	if (!p->el)
		return -ENOMEM;
	p->cap = n + 1;
	for (int i = 0; i < n; i++) {
		p->el[i].name = strdup(names[i]);
		if (!p->el[i].name) {
			sp_path_free(p);
			return -ENOMEM;
		}
		p->el[i].kind = name_kind(p->el[i].name);
		p->n++;
	}
	s->n++;
	s->total = s->total > UINT64_MAX - w ? UINT64_MAX : s->total + w; /* saturates, never wraps */
	return 0;
}

void sp_stacks_free(struct sp_stacks *s)
{
	sp_paths_free(s->paths, s->n);
	memset(s, 0, sizeof(*s));
}

/* One "a;b;c 123" line (NUL-terminated, modified in place). */
static int folded_line(char *line, struct sp_stacks *out)
{
	char *sp = strrchr(line, ' '), *end, **names = NULL;
	unsigned long long w;
	int n = 0, cap = 0, err = 0;

	if (!sp || sp == line)
		return -EINVAL;
	errno = 0;
	w = strtoull(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end)
		return -EINVAL;
	*sp = '\0';
	for (char *save = NULL, *t = strtok_r(line, ";", &save); t && !err; t = strtok_r(NULL, ";", &save)) {
		if (SP_GROW(names, cap, n + 1, 32))
			err = -ENOMEM;
		else
			names[n++] = t;
	}
	if (!err && n == 0)
		err = -EINVAL;
	if (!err && w)
		err = sp_stacks_add(out, names, n, (uint64_t)w);
	free(names);
	return err;
}

int sp_read_folded(const char *path, const char *text, size_t len, struct sp_stacks *out)
{
	size_t at = 0;
	int lineno = 0;

	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char *line = strndup(text + at, n);
		int err;

		at += n + 1;
		lineno++;
		if (!line)
			return -ENOMEM;
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		err = n == 0 || line[0] == '#' ? 0 : folded_line(line, out);
		free(line);
		if (err == -EINVAL)
			sp_err("'%s':%d: not a folded stack line (frames;... COUNT)\n", path, lineno);
		if (err)
			return err;
	}
	return 0;
}
