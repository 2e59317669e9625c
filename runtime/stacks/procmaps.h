/* runtime/stacks/procmaps.h: the executable mappings of a process, from /proc/PID/maps.
 *
 * Only executable mappings matter to a symbolizer: a sampled instruction
 * pointer is always inside one. Each line keeps what is needed to find the
 * backing file later, when the process may be gone: device and inode (the
 * file's identity), the file offset of the mapping, and the path.
 */
#ifndef SPROF_RUNTIME_STACKS_PROCMAPS_H
#define SPROF_RUNTIME_STACKS_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

enum sp_map_kind {
	SP_MAP_FILE,     /* backed by a file with an inode */
	SP_MAP_VDSO,     /* [vdso] */
	SP_MAP_VSYSCALL, /* [vsyscall] */
	SP_MAP_ANON,     /* anonymous executable memory (JIT) and other [specials] */
};

struct sp_procmap {
	uint64_t start, end, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	enum sp_map_kind kind;
	bool deleted;          /* path ended with " (deleted)" (removed from it) */
	char *path;            /* malloc'd; NULL for anonymous memory */
};

struct sp_procmaps {
	int n;
	struct sp_procmap *maps; /* sorted by start, as the kernel lists them */
};

/* Read /proc/PID/maps (or any file in its format: `path` overrides when not
 * NULL, for tests). Returns 0 or -errno (-ESRCH when the process is gone). */
int sp_procmaps__read(struct sp_procmaps *pm, pid_t pid, const char *path);
/* Parse one maps line; true when it is an executable mapping (filled in). */
bool sp_procmaps__parse_line(const char *line, struct sp_procmap *m);
void sp_procmaps__free(struct sp_procmaps *pm);
/* How many times another live process's maps were read so far (tests, -v). */
unsigned long sp_procmaps__reads(void);
/* sprof's own vDSO image (the kernel maps one into every 64-bit process,
 * so it stands for every process's); false when it cannot be found. */
bool sp_procmaps__self_vdso(const void **image, size_t *size);
/* Open the file behind mapping `m` of live process `pid`:
 * /proc/PID/map_files/START-END, else (not for a deleted file)
 * /proc/PID/root/PATH and, when `host_path`, PATH itself; a file reached by
 * path must still be the mapped inode. Returns a descriptor or -1. */
int sp_procmap__open(const struct sp_procmap *m, pid_t pid, bool host_path);

/* What makes two opened files one for the symbolizer's and the unwinder's
 * caches: device, inode, size and modification time. */
struct sp_file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};
/* The id of descriptor fd; false when fstat fails or it is not a regular file. */
bool sp_file_id__of_fd(int fd, struct sp_file_id *id);
bool sp_file_id__eq(const struct sp_file_id *a, const struct sp_file_id *b);

#endif
