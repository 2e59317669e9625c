/* runtime/elf/funcs.c: function symbols by name over runtime/elf/syms.c (see funcs.h). */
#include "runtime/elf/funcs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/glob.h"
#include "base/vec.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/syms.h"

static int funcs_push(struct sp_funcs *f, int *cap, const struct sp_elf_sym *s)
{
	struct sp_func *fn;

	if (SP_GROW(f->v, *cap, f->n + 1, 256))
		return -ENOMEM;
	fn = &f->v[f->n];
	memset(fn, 0, sizeof(*fn));
	fn->name = strdup(s->name);
	if (!fn->name)
		return -ENOMEM;
	fn->vaddr = s->addr;
	fn->size = s->size;
	f->n++;
	return 0;
}

static int func_cmp(const void *a, const void *b)
{
	const struct sp_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

/* Sort by name, drop duplicates (.symtab and .dynsym both list exports). */
static void funcs_sort_dedup(struct sp_funcs *f)
{
	int i, j = 0;

	if (f->n > 1)
		qsort(f->v, f->n, sizeof(*f->v), func_cmp);
	for (i = 0; i < f->n; i++) {
		if (j && func_cmp(&f->v[j - 1], &f->v[i]) == 0) {
			free(f->v[i].name);
			continue;
		}
		f->v[j++] = f->v[i];
	}
	f->n = j;
}

int sp_funcs__load(struct sp_funcs *f, const char *path)
{
	struct sp_elf *e;
	int cap = 0, err = 0, n;

	memset(f, 0, sizeof(*f));
	e = sp_elf__open_path(path);
	if (!e)
		return errno == ENOEXEC ? -ENOEXEC : -(errno ? errno : ENOENT);
	f->is_exec = sp_elf__is_exec(e);
	n = sp_elf__nsyms(e);
	for (int i = 0; i < n && !err; i++)
		if (sp_elf__sym(e, i)->kind == SP_SYM_FUNC) /* labels and PLT stubs only name */
			err = funcs_push(f, &cap, sp_elf__sym(e, i));
	if (!err) {
		funcs_sort_dedup(f);
		for (int i = 0; i < f->n; i++)
			if (sp_elf__vaddr_to_foff(e, f->v[i].vaddr, true, &f->v[i].foff))
				f->v[i].foff = f->v[i].vaddr;
	}
	sp_elf__destroy(e);
	if (err)
		sp_funcs__free(f);
	return err;
}

void sp_funcs__free(struct sp_funcs *f)
{
	int i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].name);
		free(f->v[i].demangled);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* "ns::Foo::bar(int) const" -> compare `pat` with "ns::Foo::bar". */
static bool match_without_params(const char *pat, const char *dem)
{
	const char *paren = strchr(dem, '(');
	char buf[512];
	size_t n;

	if (!paren || paren == dem)
		return false;
	n = paren - dem;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, dem, n);
	buf[n] = '\0';
	return sp_glob_match(pat, buf);
}

/* Demangling is the slow part of a big C++ symbol table: done only for
 * names an exact or mangled match did not settle. */
const char *sp_func_demangled(struct sp_func *fn)
{
	if (!fn->tried_demangle) {
		fn->tried_demangle = true;
		fn->demangled = sp_demangle(fn->name);
	}
	return fn->demangled;
}

bool sp_func_matches(struct sp_func *fn, const char *pat)
{
	const char *dem;

	if (sp_glob_match(pat, fn->name))
		return true;
	if ((strncmp(fn->name, "_Z", 2) != 0 && strncmp(fn->name, "_R", 2) != 0) ||
	    !(dem = sp_func_demangled(fn)))
		return false;
	return sp_glob_match(pat, dem) || match_without_params(pat, dem);
}

struct sp_func *sp_funcs__find(struct sp_funcs *f, const char *name)
{
	int lo = 0, hi = f->n - 1, i;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(name, f->v[mid].name);

		if (c == 0) {
			while (mid > 0 && strcmp(name, f->v[mid - 1].name) == 0)
				mid--;
			return &f->v[mid];
		}
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	for (i = 0; i < f->n; i++)
		if (!sp_has_wildcard(name) && sp_func_matches(&f->v[i], name))
			return &f->v[i];
	return NULL;
}

static int with_elf(const char *path, struct sp_elf **e)
{
	*e = sp_elf__open_path(path);
	return *e ? 0 : -(errno ? errno : ENOENT);
}

int sp_elf_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff)
{
	struct sp_elf *e;
	int err = with_elf(path, &e);

	if (!err)
		err = sp_elf__vaddr_to_foff(e, vaddr, true, foff);
	sp_elf__destroy(e);
	return err;
}

int sp_elf_data_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff)
{
	struct sp_elf *e;
	int err = with_elf(path, &e);

	if (!err)
		err = sp_elf__vaddr_to_foff(e, vaddr, false, foff);
	sp_elf__destroy(e);
	return err;
}

int sp_elf_symbol_size(const char *path, const char *name, uint64_t *size)
{
	struct sp_elf *e;
	uint64_t vaddr;
	int err = with_elf(path, &e);

	if (!err)
		err = sp_elf__symbol(e, name, &vaddr, size);
	sp_elf__destroy(e);
	return err;
}

int sp_elf_symbol_vaddr(const char *path, const char *name, uint64_t *vaddr)
{
	struct sp_elf *e;
	int err = with_elf(path, &e);

	if (!err)
		err = sp_elf__symbol_vaddr(e, name, vaddr);
	sp_elf__destroy(e);
	return err;
}
