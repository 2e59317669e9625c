/* runtime/elf/objcache.c: one open sp_elf per file, for every consumer (see objcache.h). */
#include "runtime/elf/objcache.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/elf/syms.h"

#define BUCKETS 256

struct sp_objcache {
	struct sp_objfile *b[BUCKETS];
	struct sp_objfile *vdso;
	bool vdso_tried;
	int files, elf_files, opens, held, evicted;
	unsigned long releases;
};

bool sp_file_id__of_fd(int fd, struct sp_file_id *id)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = st.st_size;
	id->mtime = st.st_mtim;
	return true;
}

bool sp_file_id__eq(const struct sp_file_id *a, const struct sp_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

struct sp_objcache *sp_objcache__new(void)
{
	return calloc(1, sizeof(struct sp_objcache));
}

static void objfile_free(struct sp_objfile *f)
{
	if (!f)
		return;
	sp_elf__destroy(f->elf);
	free(f);
}

void sp_objcache__destroy(struct sp_objcache *c)
{
	if (!c)
		return;
	for (int i = 0; i < BUCKETS; i++) {
		while (c->b[i]) {
			struct sp_objfile *next = c->b[i]->next;

			objfile_free(c->b[i]);
			c->b[i] = next;
		}
	}
	objfile_free(c->vdso);
	free(c);
}

struct sp_objfile *sp_objcache__get_fd(struct sp_objcache *c, int fd, const char *path,
				       const char *root)
{
	struct sp_objfile *f, **b;
	struct sp_file_id id;

	if (!sp_file_id__of_fd(fd, &id)) {
		close(fd);
		return NULL;
	}
	b = &c->b[(id.dev * 31 + id.ino) % BUCKETS];
	for (f = *b; f; f = f->next) {
		if (sp_file_id__eq(&f->id, &id)) {
			close(fd);
			f->refs++;
			return f;
		}
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	f->id = id;
	f->elf = sp_elf__open_fd(fd, path, root); /* consumes fd; NULL for non-ELF */
	c->opens++;
	c->files++;
	c->elf_files += f->elf != NULL;
	c->held++;
	f->refs = 1;
	f->next = *b;
	*b = f;
	return f;
}

void sp_objcache__put(struct sp_objcache *c, struct sp_objfile *f)
{
	if (!f || f == c->vdso || f->refs <= 0)
		return;
	if (--f->refs == 0)
		f->idle_since = ++c->releases;
}

static int newest_first(const void *a, const void *b)
{
	unsigned long x = (*(struct sp_objfile *const *)a)->idle_since;
	unsigned long y = (*(struct sp_objfile *const *)b)->idle_since;

	return (y > x) - (y < x);
}

/* Marks (idle_since 0) the idle files that go: newest first, a file stays
 * while the kept ones number at most `keep` and weigh at most keep_bytes
 * (a file bigger than what is left goes, smaller older ones may stay). */
static int mark_doomed(struct sp_objcache *c, int keep, size_t keep_bytes, int idle)
{
	struct sp_objfile **v = malloc(sizeof(*v) * (size_t)idle);
	size_t bytes = 0;
	int n = 0, kept = 0, doomed = 0;

	if (!v)
		return 0;
	for (int i = 0; i < BUCKETS; i++)
		for (struct sp_objfile *f = c->b[i]; f; f = f->next)
			if (!f->refs && n < idle)
				v[n++] = f;
	qsort(v, (size_t)n, sizeof(*v), newest_first);
	for (int k = 0; k < n; k++) {
		if (kept < keep && bytes + (size_t)v[k]->id.size <= keep_bytes) {
			kept++;
			bytes += (size_t)v[k]->id.size;
		} else {
			v[k]->idle_since = 0;
			doomed++;
		}
	}
	free(v);
	return doomed;
}

int sp_objcache__trim(struct sp_objcache *c, int keep, size_t keep_bytes)
{
	int idle = 0, freed = 0;

	for (int i = 0; i < BUCKETS; i++)
		for (const struct sp_objfile *f = c->b[i]; f; f = f->next)
			idle += !f->refs;
	if (!idle || !mark_doomed(c, keep, keep_bytes, idle))
		return 0;
	for (int i = 0; i < BUCKETS; i++) {
		for (struct sp_objfile **p = &c->b[i]; *p;) {
			struct sp_objfile *f = *p;

			if (f->refs || f->idle_since) {
				p = &f->next;
				continue;
			}
			*p = f->next;
			objfile_free(f);
			freed++;
		}
	}
	c->held -= freed;
	c->evicted += freed;
	return freed;
}

struct sp_objfile *sp_objcache__vdso(struct sp_objcache *c, const void *image, size_t size)
{
	if (c->vdso_tried)
		return c->vdso;
	c->vdso_tried = true;
	c->vdso = calloc(1, sizeof(*c->vdso));
	if (c->vdso)
		c->vdso->elf = sp_elf__open_mem(image, size, "[vdso]");
	return c->vdso;
}

void sp_objcache__stats(const struct sp_objcache *c, struct sp_objcache_stats *st)
{
	st->files = c->files;
	st->elf_files = c->elf_files;
	st->opens = c->opens;
	st->held = c->held;
	st->evicted = c->evicted;
}
