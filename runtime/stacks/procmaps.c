/* runtime/stacks/procmaps.c: parse /proc/PID/maps, keeping executable mappings.
 *
 * Line format (proc(5)): `start-end perms offset major:minor inode   path`.
 * The path may be empty (anonymous), a [special] name, or carry a
 * " (deleted)" suffix when the file was removed after it was mapped; the
 * file itself stays reachable through /proc/PID/map_files.
 */
#include "runtime/stacks/procmaps.h"
#include "runtime/elf/file.h"
#include "base/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

static const char deleted_suffix[] = " (deleted)";

static enum sp_map_kind special_kind(const char *path, uint64_t inode)
{
	if (!path)
		return SP_MAP_ANON;
	if (strcmp(path, "[vdso]") == 0)
		return SP_MAP_VDSO;
	if (strcmp(path, "[vsyscall]") == 0)
		return SP_MAP_VSYSCALL;
	if (path[0] == '[' || inode == 0)
		return SP_MAP_ANON;
	return SP_MAP_FILE;
}

static char *dup_path(const char *p, bool *deleted)
{
	size_t len, sl = sizeof(deleted_suffix) - 1;

	while (*p == ' ' || *p == '\t')
		p++;
	len = strcspn(p, "\n");
	if (len == 0)
		return NULL;
	if (len > sl && memcmp(p + len - sl, deleted_suffix, sl) == 0) {
		*deleted = true;
		len -= sl;
	}
	return strndup(p, len);
}

bool sp_procmaps__parse_line(const char *line, struct sp_procmap *m)
{
	char perms[8];
	int pathpos = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 "%n",
		   &m->start, &m->end, perms, &m->pgoff, &m->dev_major, &m->dev_minor,
		   &m->inode, &pathpos) < 7)
		return false;
	if (strlen(perms) < 3 || perms[2] != 'x' || m->end <= m->start)
		return false;
	m->path = dup_path(line + pathpos, &m->deleted);
	m->kind = special_kind(m->path, m->inode);
	return true;
}

static int push_map(struct sp_procmaps *pm, int *cap, const struct sp_procmap *m)
{
	if (SP_GROW(pm->maps, *cap, pm->n + 1, 16))
		return -ENOMEM;
	pm->maps[pm->n++] = *m;
	return 0;
}

/* Reads of another live process's maps (sprof's own, for its vDSO, are not
 * counted), for tests and -v: one per process event. */
static unsigned long nreads;

unsigned long sp_procmaps__reads(void)
{
	return nreads;
}

int sp_procmaps__read(struct sp_procmaps *pm, pid_t pid, const char *path)
{
	char buf[64], *line = NULL;
	size_t linecap = 0;
	struct sp_procmap m;
	int cap = 0, err = 0;
	FILE *f;

	if (!path && pid != getpid())
		nreads++;
	pm->n = 0;
	pm->maps = NULL;
	if (!path) {
		snprintf(buf, sizeof(buf), "/proc/%d/maps", (int)pid);
		path = buf;
	}
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &linecap, f) > 0) {
		if (!sp_procmaps__parse_line(line, &m))
			continue;
		err = push_map(pm, &cap, &m);
		if (err) {
			free(m.path);
			sp_procmaps__free(pm);
			break;
		}
	}
	free(line);
	fclose(f);
	return err;
}

void sp_procmaps__free(struct sp_procmaps *pm)
{
	for (int i = 0; i < pm->n; i++)
		free(pm->maps[i].path);
	free(pm->maps);
	pm->maps = NULL;
	pm->n = 0;
}

/* sprof's own vDSO, found once: it never moves, and every process
 * registered asked for it (reading sprof's own maps each time was a seventh
 * of sprof's CPU system-wide). The vDSO's size, 0 when there is none. */
static size_t self_vdso_size;
static pthread_once_t self_vdso_once = PTHREAD_ONCE_INIT;

static void find_self_vdso(void)
{
	struct sp_procmaps pm;
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base || sp_procmaps__read(&pm, getpid(), NULL) != 0)
		return;
	for (int i = 0; i < pm.n; i++) {
		if (pm.maps[i].kind == SP_MAP_VDSO && pm.maps[i].start == base) {
			self_vdso_size = pm.maps[i].end - pm.maps[i].start;
			break;
		}
	}
	sp_procmaps__free(&pm);
}

bool sp_procmaps__self_vdso(const void **image, size_t *size)
{
	pthread_once(&self_vdso_once, find_self_vdso);
	if (!self_vdso_size)
		return false;
	*image = (const void *)getauxval(AT_SYSINFO_EHDR);
	*size = self_vdso_size;
	return true;
}

int sp_procmap__open(const struct sp_procmap *m, pid_t pid, bool host_path)
{
	char buf[4200];
	struct stat st;
	int fd;

	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
		 m->end);
	fd = sp_file_open(buf, SP_FILE_ELF_MAX);
	if (fd >= 0 || !m->path || m->deleted)
		return fd < 0 ? -1 : fd;
	snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, m->path);
	fd = sp_file_open(buf, SP_FILE_ELF_MAX);
	if (fd < 0 && host_path)
		fd = sp_file_open(m->path, SP_FILE_ELF_MAX);
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_ino != m->inode)) {
		close(fd);
		return -1;
	}
	return fd < 0 ? -1 : fd;
}

