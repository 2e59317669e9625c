/* runtime/attach/resolve.c: binaries and libraries for uprobes and USDT.
 *
 * Library names are resolved the way the dynamic loader would find them:
 * /etc/ld.so.cache ("glibc-ld.so.cache1.1": a header, fixed-size entries
 * of {flags, soname offset, path offset, ...}, and a string table; the old
 * "ld.so-1.7.0" table may precede it). With -p, the traced process's own
 * mappings win, so `uprobe:libc:malloc -p PID` probes the libc that process
 * actually runs, even inside a container or with LD_LIBRARY_PATH.
 *
 * Function symbols by name come from runtime/elf/funcs.h (the same reader
 * the symbolizer uses).
 */
#include "runtime/attach/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/glob.h"
#include "runtime/stacks/procmaps.h"

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

/* --- path globs: uprobe:/usr/lib/x86_64-linux-gnu/libssl*:SSL_read ------------ */

bool sp_is_path_glob(const char *target)
{
	return target && strchr(target, '/') && sp_has_wildcard(target);
}

int sp_resolve_glob(const char *pattern, char ***paths, int *n)
{
	glob_t g;
	int err = 0, rc = glob(pattern, 0, NULL, &g);

	*paths = NULL;
	*n = 0;
	if (rc == GLOB_NOMATCH)
		return 0;
	if (rc)
		return rc == GLOB_NOSPACE ? -ENOMEM : -EIO;
	for (size_t i = 0; i < g.gl_pathc && !err; i++)
		if (is_regular(g.gl_pathv[i]))
			err = strv_push(paths, n, g.gl_pathv[i]);
	globfree(&g);
	if (err) {
		sp_strv_free(*paths, *n);
		*paths = NULL;
		*n = 0;
	}
	return err;
}
