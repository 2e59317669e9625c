/* runtime/objcache.c: compiled BPF objects on disk by content key; see objcache.h. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <link.h>
#include <sys/utsname.h>

#include "base/fdio.h"
#include "base/sha256.h"
#include "runtime/objcache.h"

#define OBJ_MAX (64ull << 20)  /* no BPF object of sprof's comes near */
#define DIGEST 32
#define STALE_TMP_SEC 600       /* a temporary file a killed sprof left */

struct sp_objcache {
	int dirfd;
	uint64_t max_bytes;
};

static bool good_key(const char *key)
{
	size_t n = 0;

	for (; key[n]; n++)
		if (!((key[n] >= '0' && key[n] <= '9') || (key[n] >= 'a' && key[n] <= 'f')))
			return false;
	return n == 64;
}

/* Only what this user owns and no one else may write. */
static bool trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int mkdir_one(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -errno;
}

struct sp_objcache *sp_objcache_open(const char *dir, uint64_t max_bytes)
{
	struct sp_objcache *c;
	char parent[4096];
	struct stat st;
	char *slash;
	int fd, err;

	if (snprintf(parent, sizeof(parent), "%s", dir) >= (int)sizeof(parent)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdir_one(parent); /* ~/.cache on a new account */
	}
	err = mkdir_one(dir);
	if (err) {
		errno = -err;
		return NULL;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !trusted(&st)) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return NULL;
	}
	c->dirfd = fd;
	c->max_bytes = max_bytes;
	return c;
}

void sp_objcache_close(struct sp_objcache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

static void digest(const void *p, size_t n, unsigned char out[DIGEST])
{
	struct sp_sha256 h;

	sp_sha256_init(&h);
	sp_sha256_update(&h, p, n);
	sp_sha256_final(&h, out);
}

static int read_all(int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EBADMSG;
		got += (size_t)r;
	}
	return 0;
}

/* The object of an open, trusted file whose digest matches; -EBADMSG otherwise. */
static int read_obj(int fd, void **obj, size_t *len)
{
	unsigned char *buf, d[DIGEST];
	struct stat st;
	size_t n;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || !trusted(&st) || st.st_size <= DIGEST ||
	    (uint64_t)st.st_size > OBJ_MAX)
		return -EBADMSG;
	n = (size_t)st.st_size - DIGEST;
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return -ENOMEM;
	err = read_all(fd, buf, (size_t)st.st_size);
	if (!err) {
		digest(buf, n, d);
		if (memcmp(d, buf + n, DIGEST))
			err = -EBADMSG;
	}
	if (err) {
		free(buf);
		return err;
	}
	*obj = buf;
	*len = n;
	return 0;
}

/* ".o" or ".plan": what a name may end in */
static bool good_ext(const char *ext)
{
	return ext && (!strcmp(ext, ".o") || !strcmp(ext, ".plan"));
}

int sp_objcache_get(struct sp_objcache *c, const char *key, const char *ext, void **obj,
		    size_t *len)
{
	char name[80];
	int fd, err;

	if (!c || !good_key(key) || !good_ext(ext))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s%s", key, ext);
	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_obj(fd, obj, len);
	if (!err)
		futimens(fd, NULL); /* recently used: trimmed last */
	close(fd);
	if (err == -EBADMSG)
		unlinkat(c->dirfd, name, 0);
	return err;
}

struct entry {
	char name[80];
	off_t size;
	struct timespec mtime;
};

static int older(const void *a, const void *b)
{
	const struct timespec *x = &((const struct entry *)a)->mtime;
	const struct timespec *y = &((const struct entry *)b)->mtime;

	if (x->tv_sec != y->tv_sec)
		return (x->tv_sec > y->tv_sec) - (x->tv_sec < y->tv_sec);
	return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* The store's objects (and stale temporary files, removed on the way). */
static struct entry *list(struct sp_objcache *c, size_t *n, uint64_t *total)
{
	int fd = dup(c->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct entry *v = NULL, *nv;
	size_t cap = 0;
	struct dirent *de;
	time_t now = time(NULL);

	*n = 0;
	*total = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' && strncmp(de->d_name, ".tmp.", 5))
			continue;
		if (strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (de->d_name[0] == '.') {
			if (now - st.st_mtime > STALE_TMP_SEC)
				unlinkat(c->dirfd, de->d_name, 0);
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", de->d_name);
		v[*n].size = st.st_size;
		v[*n].mtime = st.st_mtim;
		*total += (uint64_t)st.st_size;
		(*n)++;
	}
	closedir(d);
	return v;
}

/* The oldest objects go until the store fits in its size. */
static void trim(struct sp_objcache *c)
{
	uint64_t total;
	size_t n;
	struct entry *v = list(c, &n, &total);

	if (!v)
		return;
	if (total > c->max_bytes) {
		qsort(v, n, sizeof(*v), older);
		for (size_t i = 0; i < n && total > c->max_bytes; i++)
			if (!unlinkat(c->dirfd, v[i].name, 0))
				total -= (uint64_t)v[i].size;
	}
	free(v);
}

int sp_objcache_put(struct sp_objcache *c, const char *key, const char *ext, const void *obj,
		    size_t len)
{
	unsigned char d[DIGEST];
	char name[80], tmp[96];
	int fd, err;

	if (!c || !good_key(key) || !good_ext(ext) || len == 0 || len > OBJ_MAX - DIGEST)
		return -EINVAL;
	snprintf(name, sizeof(name), "%s%s", key, ext);
	snprintf(tmp, sizeof(tmp), ".tmp.%.16s.%d", key, (int)getpid());
	fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	digest(obj, len, d);
	err = sp_write_all(fd, obj, len);
	if (!err)
		err = sp_write_all(fd, d, DIGEST);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(c->dirfd, tmp, c->dirfd, name))
		err = -errno;
	if (err) {
		unlinkat(c->dirfd, tmp, 0);
		return err;
	}
	trim(c);
	return 0;
}

const char *sp_objcache_default_dir(char *buf, size_t size, const char *xdg_cache_home,
				    const char *home)
{
	int n;

	if (geteuid() == 0)
		n = snprintf(buf, size, "/var/cache/sprof");
	else if (xdg_cache_home && xdg_cache_home[0] == '/')
		n = snprintf(buf, size, "%s/sprof", xdg_cache_home);
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.cache/sprof", home);
	else
		return NULL;
	return n > 0 && (size_t)n < size ? buf : NULL;
}

/* The GNU build id of the running program (hex), or "" (then *size and *mtime
 * of /proc/self/exe stand in). */
static int build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	char *out = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + 12 <= ph->p_memsz) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(p + off);
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;

			if (off + 12 + name + desc > ph->p_memsz)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + off + 12, "GNU", 4) && nh->n_descsz <= 64) {
				for (size_t j = 0; j < nh->n_descsz; j++)
					sprintf(out + 2 * j, "%02x", p[off + 12 + name + j]);
				return 1;
			}
			off += 12 + name + desc;
		}
	}
	return 1; /* the first object is the program itself */
}

static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f && !fgets(buf, (int)size, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

const char *sp_objcache_host(char *buf, size_t size)
{
	char id[129] = "", cpus[256];
	struct utsname u;
	struct stat exe, btf;

	dl_iterate_phdr(build_id_cb, id);
	if (!id[0] && !stat("/proc/self/exe", &exe))
		snprintf(id, sizeof(id), "exe %lld %lld.%09ld", (long long)exe.st_size,
			 (long long)exe.st_mtim.tv_sec, exe.st_mtim.tv_nsec);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (stat("/sys/kernel/btf/vmlinux", &btf))
		memset(&btf, 0, sizeof(btf));
	read_line("/sys/devices/system/cpu/possible", cpus, sizeof(cpus));
	snprintf(buf, size, "build %s\nkernel %s %s %s %s\nbtf %lld %lld.%09ld\ncpus %s\n", id,
		 u.sysname, u.release, u.version, u.machine, (long long)btf.st_size,
		 (long long)btf.st_mtim.tv_sec, btf.st_mtim.tv_nsec, cpus);
	return buf;
}
