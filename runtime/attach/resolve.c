/* runtime/attach/resolve.c: binaries, libraries and function symbols for uprobes.
 *
 * Library names are resolved the way the dynamic loader would find them:
 * /etc/ld.so.cache ("glibc-ld.so.cache1.1": a header, fixed-size entries
 * of {flags, soname offset, path offset, ...}, and a string table; the old
 * "ld.so-1.7.0" table may precede it). With -p, the traced process's own
 * mappings win, so `uprobe:libc:malloc -p PID` probes the libc that process
 * actually runs, even inside a container or with LD_LIBRARY_PATH.
 *
 * Function symbols are read once per file with libelf and kept with their
 * file offsets, so a wildcard matching hundreds of functions costs one
 * parse, not one per probe (libbpf's func_name lookup reopens the ELF on
 * every attach).
 */
#include "runtime/attach/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/elf/syms.h"
#include "runtime/stacks/procmaps.h"

bool sp_has_wildcard(const char *s)
{
	return s && (strchr(s, '*') || strchr(s, '?'));
}

bool sp_glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

static bool is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int copy_path(const char *path, char *out, size_t outlen)
{
	if (snprintf(out, outlen, "%s", path) >= (int)outlen)
		return -ENAMETOOLONG;
	return 0;
}

/* "libc" names "libc.so.6" and "libc-2.36.so"; "libc.so.6" names itself. */
static bool libname_matches(const char *want, const char *base)
{
	size_t n = strlen(want);

	if (strcmp(want, base) == 0)
		return true;
	if (strncmp(want, base, n) != 0)
		return false;
	return strncmp(base + n, ".so", 3) == 0 || (base[n] == '-' && strstr(base + n, ".so"));
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* --- /etc/ld.so.cache -------------------------------------------------------- */

#define LDCACHE_NEW "glibc-ld.so.cache1.1"
#define LDCACHE_OLD "ld.so-1.7.0"
#define LDCACHE_FLAG_TYPE_MASK 0x00ff
#define LDCACHE_FLAG_ELF_LIBC6 0x0003
#define LDCACHE_FLAG_ARCH_MASK 0xff00
#define LDCACHE_FLAG_X8664 0x0300

struct ldcache_head {
	char magic[20];
	uint32_t nlibs, len_strings;
	uint8_t flags, pad[3];
	uint32_t ext_offset, unused[3];
};

struct ldcache_entry {
	int32_t flags;
	uint32_t key, value; /* string offsets from the new header */
	uint32_t osversion;
	uint64_t hwcap;
};

/* Offset of the new-format header in the mapped cache, or -1. */
static long ldcache_find_new(const char *p, size_t len)
{
	uint32_t nold;
	size_t off;

	if (len >= sizeof(struct ldcache_head) && memcmp(p, LDCACHE_NEW, 20) == 0)
		return 0;
	if (len < 16 || memcmp(p, LDCACHE_OLD, 11) != 0)
		return -1;
	memcpy(&nold, p + 12, 4);
	off = 16 + (size_t)nold * 12;
	off = (off + 7) & ~(size_t)7;
	if (off + sizeof(struct ldcache_head) > len || memcmp(p + off, LDCACHE_NEW, 20) != 0)
		return -1;
	return (long)off;
}

static int ldcache_search(const char *p, size_t len, const char *name, char *out, size_t outlen)
{
	const struct ldcache_head *h;
	const struct ldcache_entry *e;
	long base = ldcache_find_new(p, len);
	uint32_t i;

	if (base < 0)
		return -ENOENT;
	h = (const void *)(p + base);
	if (base + sizeof(*h) + (size_t)h->nlibs * sizeof(*e) > len)
		return -ENOENT;
	e = (const void *)(p + base + sizeof(*h));
	for (i = 0; i < h->nlibs; i++, e++) {
		if ((e->flags & LDCACHE_FLAG_TYPE_MASK) != LDCACHE_FLAG_ELF_LIBC6 ||
		    (e->flags & LDCACHE_FLAG_ARCH_MASK) != LDCACHE_FLAG_X8664)
			continue;
		if ((size_t)base + e->key >= len || (size_t)base + e->value >= len)
			continue;
		if (!memchr(p + base + e->key, 0, len - base - e->key) ||
		    !memchr(p + base + e->value, 0, len - base - e->value))
			continue;
		if (libname_matches(name, p + base + e->key))
			return copy_path(p + base + e->value, out, outlen);
	}
	return -ENOENT;
}

int sp_ldcache_lookup(const char *name, const char *cache, char *out, size_t outlen)
{
	struct stat st;
	void *p;
	int fd, err;

	fd = open(cache ? cache : "/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		close(fd);
		return -ENOENT;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	err = ldcache_search(p, st.st_size, name, out, outlen);
	munmap(p, st.st_size);
	return err;
}

/* --- programs, libraries, processes ------------------------------------------ */

void sp_strv_free(char **v, int n)
{
	int i;

	for (i = 0; i < n && v; i++)
		free(v[i]);
	free(v);
}

static int strv_push(char ***v, int *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static bool strv_has(char **v, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

int sp_pid_objects(pid_t pid, char ***paths, int *n)
{
	struct sp_procmaps pm = { 0 };
	int i, err;

	*paths = NULL;
	*n = 0;
	err = sp_procmaps__read(&pm, pid, NULL);
	if (err)
		return err;
	for (i = 0; i < pm.n && !err; i++) {
		const struct sp_procmap *m = &pm.maps[i];

		if (m->kind != SP_MAP_FILE || !m->path || m->deleted || strv_has(*paths, *n, m->path))
			continue;
		err = strv_push(paths, n, m->path);
	}
	sp_procmaps__free(&pm);
	if (err) {
		sp_strv_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	return err;
}

static int resolve_in_pid(const char *name, pid_t pid, char *out, size_t outlen)
{
	char **objs;
	int i, n, err;

	if (sp_pid_objects(pid, &objs, &n))
		return -ENOENT;
	err = -ENOENT;
	for (i = 0; i < n && err == -ENOENT; i++)
		if (libname_matches(name, basename_of(objs[i])))
			err = copy_path(objs[i], out, outlen);
	sp_strv_free(objs, n);
	return err;
}

static int resolve_in_path(const char *name, char *out, size_t outlen)
{
	const char *env = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int err = -ENOENT;

	dirs = strdup(env ? env : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir && err; dir = strtok_r(NULL, ":", &save)) {
		char buf[4096];

		snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", name);
		if (is_regular(buf) && access(buf, X_OK) == 0)
			err = copy_path(buf, out, outlen);
	}
	free(dirs);
	return err;
}

int sp_resolve_binary(const char *name, pid_t pid, char *out, size_t outlen)
{
	if (!name || !*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (pid > 0 && name[0] == '/') {
			char buf[4096];

			snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, name);
			if (!is_regular(name) && is_regular(buf))
				return copy_path(buf, out, outlen);
		}
		return is_regular(name) ? copy_path(name, out, outlen) : -ENOENT;
	}
	if (pid > 0 && resolve_in_pid(name, pid, out, outlen) == 0)
		return 0;
	if (strncmp(name, "lib", 3) == 0 && sp_ldcache_lookup(name, NULL, out, outlen) == 0)
		return 0;
	if (resolve_in_path(name, out, outlen) == 0)
		return 0;
	return sp_ldcache_lookup(name, NULL, out, outlen);
}

/* --- ELF function symbols ---------------------------------------------------- */

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_file_open(struct elf_file *ef, const char *path)
{
	ef->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return -errno;
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		if (ef->elf)
			elf_end(ef->elf);
		close(ef->fd);
		ef->elf = NULL;
		return -ENOEXEC;
	}
	return 0;
}

static void elf_file_close(struct elf_file *ef)
{
	if (!ef->elf)
		return;
	elf_end(ef->elf);
	close(ef->fd);
	ef->elf = NULL;
}

static int phdrs_vaddr_to_foff(Elf *elf, uint64_t vaddr, bool code, uint64_t *foff)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || (code && !(ph.p_flags & PF_X)))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*foff = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static int vaddr_to_foff(const char *path, uint64_t vaddr, bool code, uint64_t *foff)
{
	struct elf_file ef;
	int err = elf_file_open(&ef, path);

	if (err)
		return err;
	err = phdrs_vaddr_to_foff(ef.elf, vaddr, code, foff);
	elf_file_close(&ef);
	return err;
}

int sp_elf_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff)
{
	return vaddr_to_foff(path, vaddr, true, foff);
}

int sp_elf_data_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff)
{
	return vaddr_to_foff(path, vaddr, false, foff);
}

static int find_symbol(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
		       uint64_t *vaddr)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, nsyms;

	if (!d || !sh->sh_entsize)
		return -ENOENT;
	nsyms = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (s && strcmp(s, name) == 0) {
			*vaddr = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

int sp_elf_symbol_vaddr(const char *path, const char *name, uint64_t *vaddr)
{
	struct elf_file ef;
	Elf_Scn *scn = NULL;
	int err = elf_file_open(&ef, path);

	if (err)
		return err;
	err = -ENOENT;
	while (err && (scn = elf_nextscn(ef.elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			err = find_symbol(ef.elf, scn, &sh, name, vaddr);
	}
	elf_file_close(&ef);
	return err;
}

static int funcs_push(struct sp_funcs *f, int *cap, const char *name, const GElf_Sym *s)
{
	struct sp_func *fn;

	if (f->n == *cap) {
		int ncap = *cap ? *cap * 2 : 256;
		struct sp_func *nv = realloc(f->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->v = nv;
		*cap = ncap;
	}
	fn = &f->v[f->n];
	memset(fn, 0, sizeof(*fn));
	fn->name = strdup(name);
	if (!fn->name)
		return -ENOMEM;
	fn->vaddr = s->st_value;
	fn->size = s->st_size;
	f->n++;
	return 0;
}

static bool is_func_sym(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);

	return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF && s->st_value;
}

static int funcs_read_symtab(struct sp_funcs *f, int *cap, Elf *elf, Elf_Scn *scn,
			     const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, nsyms;

	if (!d || !sh->sh_entsize)
		return 0;
	nsyms = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym s;
		const char *name;
		int err;

		if (!gelf_getsym(d, i, &s) || !is_func_sym(&s))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		err = funcs_push(f, cap, name, &s);
		if (err)
			return err;
	}
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

static void funcs_fill(struct sp_funcs *f, Elf *elf)
{
	int i;

	for (i = 0; i < f->n; i++) {
		struct sp_func *fn = &f->v[i];

		if (phdrs_vaddr_to_foff(elf, fn->vaddr, true, &fn->foff))
			fn->foff = fn->vaddr;
	}
}

int sp_funcs__load(struct sp_funcs *f, const char *path)
{
	struct elf_file ef;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int cap = 0, err;

	memset(f, 0, sizeof(*f));
	err = elf_file_open(&ef, path);
	if (err)
		return err;
	if (!gelf_getehdr(ef.elf, &eh)) {
		elf_file_close(&ef);
		return -ENOEXEC;
	}
	f->is_exec = eh.e_type == ET_EXEC;
	while ((scn = elf_nextscn(ef.elf, scn)) && !err) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		err = funcs_read_symtab(f, &cap, ef.elf, scn, &sh);
	}
	if (!err) {
		funcs_sort_dedup(f);
		funcs_fill(f, ef.elf);
	}
	elf_file_close(&ef);
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
