/* runtime/stacks/perfmap.c: JIT symbols from /tmp/perf-PID.map, read as the file grows.
 *
 * The format is perf's (tools/perf/Documentation/jit-interface.txt): one
 * `START SIZE name` line per function, hex numbers, the name running to the
 * end of the line (it may hold spaces). Node.js appends to the file while it
 * runs, so the usual refresh parses only the lines after the last complete
 * one read; a file that shrank, was rewritten in place (same size, newer
 * mtime: the JVM's Compiler.perfmap) or no longer ends a line where the
 * last read stopped is read again from the start. Text is kept in chunks
 * that live as long as the map, so returned names never move.
 *
 * Lookups: symbols sorted by start, with the running maximum of their ends,
 * so the containing entries are found by walking back from the last start
 * at or below the address only while an earlier entry can still reach it;
 * among them the latest line wins.
 */
#include "runtime/stacks/perfmap.h"

#include "runtime/elf/file.h"
#include "base/search.h"
#include "base/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILE ((long long)SP_PERFMAP_MAX_MIB << 20) /* bytes: a bigger perf map is not read */

struct chunk {
	struct chunk *next;
	char text[];
};

struct sp_perfmap {
	int fd;
	char *shown;
	off_t done;             /* bytes parsed: up to the end of the last complete line */
	off_t size;             /* and the file's size and mtime at that read */
	struct timespec mtime;
	int lines, bad, first_bad;
	uint32_t seq;
	size_t n, cap;
	struct sp_perfsym *syms;
	uint64_t *maxend;       /* maxend[i]: the largest end of syms[0..i] */
	struct chunk *chunks;
};

/* The pid as the process itself sees it (last NSpid field), for its perf map name. */
static pid_t ns_pid(pid_t pid)
{
	char buf[64], *line = NULL;
	size_t cap = 0;
	pid_t nspid = pid;
	FILE *f;

	snprintf(buf, sizeof(buf), "/proc/%d/status", (int)pid);
	f = fopen(buf, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0) {
		char *last;

		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		last = strrchr(line, '\t');
		if (last)
			nspid = atoi(last + 1);
		break;
	}
	free(line);
	fclose(f);
	return nspid;
}

/* A regular file only (a FIFO planted in /tmp must not block us), owned by
 * root or by the process's owner (`owner` < 0: anyone). */
static int open_map(const char *path, long owner)
{
	struct stat st;
	int fd = sp_file_open(path, UINT64_MAX); /* grows: MAX_FILE checked at each read */

	if (fd < 0)
		return fd == -EINVAL ? -EPERM : fd;
	if (fstat(fd, &st) != 0 || (owner >= 0 && st.st_uid != 0 && (long)st.st_uid != owner)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static struct sp_perfmap *perfmap_new(int fd, const char *shown)
{
	struct sp_perfmap *pm = calloc(1, sizeof(*pm));

	if (!pm || !(pm->shown = strdup(shown))) {
		free(pm);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	pm->fd = fd;
	return pm;
}

struct sp_perfmap *sp_perfmap__open(pid_t pid)
{
	char path[128], shown[64];
	pid_t nspid = ns_pid(pid);
	struct stat st;
	long owner;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	owner = stat(path, &st) == 0 ? (long)st.st_uid : -1;
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", (int)pid, (int)nspid);
	snprintf(shown, sizeof(shown), "/tmp/perf-%d.map", (int)nspid);
	fd = open_map(path, owner);
	if (fd < 0 && nspid == pid) /* same pid namespace: the host's /tmp may do */
		fd = open_map(shown, owner);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return perfmap_new(fd, shown);
}

struct sp_perfmap *sp_perfmap__open_path(const char *path, const char *shown)
{
	int fd = open_map(path, -1);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return perfmap_new(fd, shown ? shown : path);
}

void sp_perfmap__destroy(struct sp_perfmap *pm)
{
	if (!pm)
		return;
	while (pm->chunks) {
		struct chunk *c = pm->chunks;

		pm->chunks = c->next;
		free(c);
	}
	free(pm->syms);
	free(pm->maxend);
	free(pm->shown);
	close(pm->fd);
	free(pm);
}

/* --- parsing --------------------------------------------------------------------------- */

/* [0x]hex, 1 to 16 digits; the end, or NULL. */
static char *hex(char *p, uint64_t *v)
{
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (*v = 0;; p++, n++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	return n >= 1 && n <= 16 ? p : NULL;
}

static char *blanks(char *p)
{
	char *q = p;

	while (*q == ' ' || *q == '\t')
		q++;
	return q != p ? q : NULL;
}

/* `START SIZE name` (NUL-terminated, no newline); false when malformed. */
static bool parse_line(char *line, struct sp_perfsym *out)
{
	char *p = hex(line, &out->start), *end;

	if (!p || !(p = blanks(p)) || !(p = hex(p, &out->size)) || !(p = blanks(p)))
		return false;
	end = p + strlen(p);
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	out->name = p;
	return *p && out->start + out->size >= out->start;
}

static int push(struct sp_perfmap *pm, const struct sp_perfsym *ps)
{
	if (SP_GROW(pm->syms, pm->cap, pm->n + 1, 256))
		return -ENOMEM;
	pm->syms[pm->n++] = *ps;
	return 0;
}

/* Every complete line of `text`; the bytes consumed. */
static size_t parse_text(struct sp_perfmap *pm, char *text, size_t len)
{
	size_t used = 0;

	while (used < len) {
		char *line = text + used, *nl = memchr(line, '\n', len - used);
		struct sp_perfsym ps = { 0 };

		if (!nl)
			break;
		*nl = '\0';
		used = (size_t)(nl - text) + 1;
		pm->lines++;
		if (line[strspn(line, " \t\r")] == '\0')
			continue; /* a blank line */
		if (memchr(line, '\0', (size_t)(nl - line)) != NULL || !parse_line(line, &ps)) {
			if (!pm->bad++)
				pm->first_bad = pm->lines;
			continue;
		}
		ps.seq = pm->seq++;
		if (push(pm, &ps) != 0)
			break;
	}
	return used;
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct sp_perfsym *a = pa, *b = pb;

	if (a->start != b->start)
		return (a->start > b->start) - (a->start < b->start);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int index_syms(struct sp_perfmap *pm)
{
	uint64_t *m, top = 0;

	if (pm->n)
		qsort(pm->syms, pm->n, sizeof(*pm->syms), sym_cmp);
	m = realloc(pm->maxend, (pm->n ? pm->n : 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	pm->maxend = m;
	for (size_t i = 0; i < pm->n; i++) {
		uint64_t end = pm->syms[i].start + pm->syms[i].size;

		top = end > top ? end : top;
		m[i] = top;
	}
	return 0;
}

/* --- reading --------------------------------------------------------------------------- */

/* Start over: the file was rewritten. Old chunks stay (names handed out). */
static void restart(struct sp_perfmap *pm)
{
	pm->done = 0;
	pm->n = 0;
	pm->lines = 0;
	pm->bad = 0;
	pm->first_bad = 0;
}

/* Only lines were added since the last read: the file grew and the byte
 * before where that read stopped still ends a line. */
static bool appended(const struct sp_perfmap *pm, const struct stat *st)
{
	char c;

	if (pm->done == 0)
		return true;
	if (st->st_size <= pm->size) /* shrank, or rewritten at the same size */
		return false;
	return pread(pm->fd, &c, 1, pm->done - 1) == 1 && c == '\n';
}

static int read_from(struct sp_perfmap *pm, off_t from, off_t to)
{
	size_t len = (size_t)(to - from), got = 0;
	struct chunk *c = malloc(sizeof(*c) + len + 1);

	if (!c)
		return -ENOMEM;
	while (got < len) {
		ssize_t r = pread(pm->fd, c->text + got, len - got, from + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	c->text[got] = '\0';
	c->next = pm->chunks;
	pm->chunks = c;
	pm->done = from + (off_t)parse_text(pm, c->text, got);
	return index_syms(pm);
}

int sp_perfmap__refresh(struct sp_perfmap *pm)
{
	struct stat st;

	if (fstat(pm->fd, &st) != 0)
		return -errno;
	if (st.st_size == pm->size && st.st_mtim.tv_sec == pm->mtime.tv_sec &&
	    st.st_mtim.tv_nsec == pm->mtime.tv_nsec && pm->done)
		return 0;
	if (st.st_size > MAX_FILE)
		return -EFBIG;
	if (!appended(pm, &st))
		restart(pm);
	pm->size = st.st_size;
	pm->mtime = st.st_mtim;
	if (st.st_size <= pm->done)
		return 0;
	return read_from(pm, pm->done, st.st_size);
}

const struct sp_perfsym *sp_perfmap__find(const struct sp_perfmap *pm, uint64_t addr)
{
	const struct sp_perfsym *best = NULL;
	long i = pm ? SP_FLOOR(pm->syms, pm->n, start, addr) : -1;

	for (; i >= 0 && pm->maxend[i] > addr; i--) {
		const struct sp_perfsym *s = &pm->syms[i];

		if (addr - s->start < s->size && (!best || s->seq > best->seq))
			best = s;
	}
	return best;
}

const char *sp_perfmap__path(const struct sp_perfmap *pm)
{
	return pm->shown;
}

int sp_perfmap__bad_lines(const struct sp_perfmap *pm, int *first_line)
{
	if (first_line)
		*first_line = pm->first_bad;
	return pm->bad;
}

int sp_perfmap__count(const struct sp_perfmap *pm)
{
	return (int)pm->n;
}
