/* runtime/elf/objcache.h: every object file opened once, shared by its consumers.
 *
 * A file is identified by device, inode, size and modification time (a
 * rebuilt binary at the same path is another file); the first consumer to
 * meet it opens it (runtime/elf/syms.c: PT_LOADs, build id, debug file or
 * MiniDebugInfo found at open time, symbols and line tables on first use)
 * and every later one — the symbolizer naming frames, the unwinder parsing
 * .eh_frame, for every process mapping the file — gets the same object.
 * Files stay open while someone holds them (every get is a reference,
 * given back with sp_objcache__put), so frames of processes that exited
 * still resolve; a file nobody holds stays cached until
 * sp_objcache__trim() finds more such files than it may keep (least
 * recently released first out: a long --continuous run).
 */
#ifndef SPROF_RUNTIME_ELF_OBJCACHE_H
#define SPROF_RUNTIME_ELF_OBJCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* What makes two opened files one: device, inode, size and mtime. */
struct sp_file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};
/* The id of descriptor fd; false when fstat fails or it is not a regular file. */
bool sp_file_id__of_fd(int fd, struct sp_file_id *id);
bool sp_file_id__eq(const struct sp_file_id *a, const struct sp_file_id *b);

struct sp_elf;

struct sp_objfile {
	struct sp_file_id id;
	struct sp_elf *elf;        /* NULL when the file is not a usable ELF (cached as such) */
	struct sp_objfile *next;   /* the cache's bucket chain */
	int refs;                  /* gets not put back yet */
	unsigned long idle_since;  /* the cache's release count when refs fell to 0 */
};

struct sp_objcache;

struct sp_objcache *sp_objcache__new(void); /* NULL with errno on failure */
void sp_objcache__destroy(struct sp_objcache *c); /* accepts NULL */

/* The file behind descriptor fd (consumed): the cached one, or opened now.
 * `path` is the path the process used and `root` a prefix to try first
 * ("/proc/PID/root"; may be NULL), both for finding a debug file. NULL
 * when fd is not a regular file or memory runs out. */
struct sp_objfile *sp_objcache__get_fd(struct sp_objcache *c, int fd, const char *path,
				       const char *root);
/* Gives back one reference of a get (f may be NULL or the vDSO's). */
void sp_objcache__put(struct sp_objcache *c, struct sp_objfile *f);
/* Frees the files nobody holds but the most recently released ones, at
 * most `keep` of them and keep_bytes of file size. Returns the number
 * freed. Pointers into them (names) die: call it between reports. */
int sp_objcache__trim(struct sp_objcache *c, int keep, size_t keep_bytes);
/* An in-memory image (the vDSO: one for every process); opened once. */
struct sp_objfile *sp_objcache__vdso(struct sp_objcache *c, const void *image, size_t size);

struct sp_objcache_stats {
	int files;     /* distinct files met */
	int elf_files; /* of which usable ELF */
	int opens;     /* sp_elf opens (one per file: the test of "opened once") */
	int held;      /* files in the cache now */
	int evicted;   /* files freed by sp_objcache__trim() */
};
void sp_objcache__stats(const struct sp_objcache *c, struct sp_objcache_stats *st);

#endif
