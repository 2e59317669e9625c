/* runtime/stacks/kallsyms.c: parse /proc/kallsyms into a sorted table of text symbols.
 *
 * Lines are `address type name [module]`. Only text is kept (types t, T,
 * w, W). The file is read whole into one buffer and names point into it, so
 * 120k symbols cost one allocation for the text and one for the table.
 * Module symbols are not guaranteed to be ordered: sort when needed.
 */
#include "runtime/stacks/kallsyms.h"
#include "base/search.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char kernel_module[] = "[kernel.kallsyms]";

struct sp_kallsyms {
	char *text;
	int n;
	struct sp_ksym *syms;
};

static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || n + 1 >= cap) {
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap);
			if (!nb)
				goto out_free;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out_free;
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
out_free:
	free(buf);
	close(fd);
	return NULL;
}

static bool is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static uint64_t hex(const char *s, char **end)
{
	uint64_t v = 0;

	for (;; s++) {
		unsigned c = (unsigned char)*s;

		if (c - '0' < 10)
			v = v << 4 | (c - '0');
		else if ((c | 0x20) - 'a' < 6)
			v = v << 4 | ((c | 0x20) - 'a' + 10);
		else
			break;
	}
	*end = (char *)s;
	return v;
}

/* Parse the line at *p in place (NULs over separators); advance *p. */
static bool parse_line(char **p, struct sp_ksym *s)
{
	char *line = *p, *nl = strchr(line, '\n'), *end, *name, *mod;
	char type;

	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	s->addr = hex(line, &end);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return false;
	type = end[1];
	name = end + 3;
	if (!is_text(type) || !*name)
		return false;
	s->name = name;
	s->module = kernel_module;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[') {
			char *close_br = strchr(++mod, ']');

			if (close_br)
				*close_br = '\0';
			s->module = mod;
		}
	}
	return true;
}

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct sp_ksym *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

static bool sorted(const struct sp_kallsyms *ks)
{
	for (int i = 1; i < ks->n; i++)
		if (ks->syms[i - 1].addr > ks->syms[i].addr)
			return false;
	return true;
}

static int count_lines(const char *s)
{
	int n = 1;

	while ((s = strchr(s, '\n'))) {
		n++;
		s++;
	}
	return n;
}

struct sp_kallsyms *sp_kallsyms__load(const char *path)
{
	struct sp_kallsyms *ks = calloc(1, sizeof(*ks));
	size_t len;
	char *p;
	bool any_nonzero = false;

	if (!ks)
		return NULL;
	ks->text = read_all(path ? path : "/proc/kallsyms", &len);
	if (!ks->text)
		goto out_free;
	ks->syms = malloc(count_lines(ks->text) * sizeof(*ks->syms));
	if (!ks->syms)
		goto out_free;
	for (p = ks->text; *p;) {
		if (!parse_line(&p, &ks->syms[ks->n]))
			continue;
		any_nonzero |= ks->syms[ks->n].addr != 0;
		ks->n++;
	}
	if (!any_nonzero)
		ks->n = 0; /* addresses hidden by kptr_restrict */
	if (ks->n && !sorted(ks))
		qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
	return ks;
out_free:
	sp_kallsyms__free(ks);
	if (!errno)
		errno = ENOMEM;
	return NULL;
}

void sp_kallsyms__free(struct sp_kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->text);
	free(ks);
}

const struct sp_ksym *sp_kallsyms__find(const struct sp_kallsyms *ks, uint64_t addr)
{
	long i = SP_FLOOR(ks->syms, ks->n, addr, addr);

	return i >= 0 ? &ks->syms[i] : NULL;
}

int sp_kallsyms_addr_of(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	char line[512], *end;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a = hex(line, &end);
		char *sym = end[0] == ' ' && end[1] && end[2] == ' ' ? end + 3 : NULL;
		size_t n = sym ? strcspn(sym, "\t\n") : 0;

		if (!sym || n != strlen(name) || strncmp(sym, name, n) != 0)
			continue;
		*addr = a;
		err = a ? 0 : -EPERM; /* zeros: kptr_restrict hides addresses */
		break;
	}
	fclose(f);
	return err;
}

uint64_t sp_kallsyms__lookup(const struct sp_kallsyms *ks, const char *name)
{
	for (int i = 0; i < ks->n; i++)
		if (strcmp(ks->syms[i].name, name) == 0)
			return ks->syms[i].addr;
	return 0;
}

int sp_kallsyms__count(const struct sp_kallsyms *ks)
{
	return ks->n;
}

/* Notes are {namesz, descsz, type} words, then name and desc, each padded to 4. */
char *sp_kernel_build_id(const char *notes_path)
{
	size_t len, off = 0;
	char *raw = read_all(notes_path, &len), *id = NULL;

	while (raw && !id && off + 12 <= len) {
		uint32_t w[3];
		size_t name_off = off + 12, desc_off, next;

		memcpy(w, raw + off, sizeof(w));
		desc_off = name_off + (((size_t)w[0] + 3) & ~(size_t)3);
		next = desc_off + (((size_t)w[1] + 3) & ~(size_t)3);
		if (next > len || next <= off)
			break;
		if (w[2] == 3 /* NT_GNU_BUILD_ID */ && w[0] == 4 && memcmp(raw + name_off, "GNU", 4) == 0 &&
		    w[1] > 0 && (id = malloc(w[1] * 2 + 1))) {
			for (uint32_t i = 0; i < w[1]; i++)
				snprintf(id + 2 * i, 3, "%02x", (unsigned char)raw[desc_off + i]);
		}
		off = next;
	}
	free(raw);
	return id;
}
