/* runtime/stacks/sideband.c: perf's exec/mmap records -> the unwinder's process entries (see sideband.h).
 *
 * One PERF_COUNT_SW_DUMMY event per CPU (system wide, or a target whose
 * descendants are followed: records of other processes are dropped here)
 * or one for the target process alone, each with its ring buffer (the kernel refuses to share
 * one across CPUs), all in one epoll. A one-byte wakeup watermark: every
 * record wakes us, since the point is to be early (wakeup_events counts
 * samples only; side-band records would wait for half a buffer).
 *
 * Records: PERF_RECORD_FORK when following (a followed process's child
 * is registered at once), PERF_RECORD_COMM with PERF_RECORD_MISC_COMM_EXEC (an exec:
 * the process's entry is emptied) and PERF_RECORD_MMAP2 (with mmap_data 0
 * only executable mappings: code), whose address, offset and path go
 * straight into the process's entry (sp_unwind__map_added): no
 * /proc/PID/maps read, and no parse for a file seen before.
 */
#define _GNU_SOURCE
#include "runtime/stacks/sideband.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/stacks/unwind.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES 16 /* data pages per buffer (64 KiB): records are small */

struct ring {
	int fd;
	struct perf_event_mmap_page *mp;
	uint8_t *data;
	size_t size;
};

struct sp_sideband {
	struct sp_unwind *u;
	pid_t target;
	int follow_fd;           /* the target's descendants (BPF map by tgid), or -1 */
	int epfd, nrings;
	struct ring *rings;
	size_t map_len;
	unsigned long records;   /* exec and mmap records applied */
};

static int open_event(pid_t pid, int cpu, bool forks)
{
	struct perf_event_attr a = {
		.task = forks, /* PERF_RECORD_FORK and _EXIT */
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.watermark = 1,
		.wakeup_watermark = 1, /* bytes: side-band records never count as events */
		.exclude_kernel = 1,
	};

	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int add_ring(struct sp_sideband *sb, pid_t pid, int cpu)
{
	struct ring *r = &sb->rings[sb->nrings];
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)sb->nrings };
	void *m;

	r->fd = open_event(pid, cpu, sb->follow_fd >= 0);
	if (r->fd < 0)
		return -errno;
	m = mmap(NULL, sb->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED || epoll_ctl(sb->epfd, EPOLL_CTL_ADD, r->fd, &e)) {
		int err = -errno;

		if (m != MAP_FAILED)
			munmap(m, sb->map_len);
		close(r->fd);
		return err;
	}
	r->mp = m;
	r->data = (uint8_t *)m + sysconf(_SC_PAGESIZE);
	r->size = sb->map_len - (size_t)sysconf(_SC_PAGESIZE);
	sb->nrings++;
	return 0;
}

struct sp_sideband *sp_sideband__open(struct sp_unwind *u, pid_t pid, int follow_fd)
{
	bool one = pid > 0 && follow_fd < 0; /* one process: one event */
	int ncpu = one ? 1 : (int)sysconf(_SC_NPROCESSORS_CONF), err = 0;
	struct sp_sideband *sb;

	if (!u || ncpu <= 0) {
		errno = EINVAL;
		return NULL;
	}
	sp_unwind__start(u); /* BPF's vma lookups work before the first registration */
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return NULL;
	sb->u = u;
	sb->target = pid;
	sb->follow_fd = pid > 0 ? follow_fd : -1;
	sb->map_len = (size_t)(RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	sb->rings = calloc((size_t)ncpu, sizeof(*sb->rings));
	sb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!sb->rings || sb->epfd < 0) {
		err = -errno;
		goto out_destroy;
	}
	for (int c = 0; c < ncpu && !err; c++) {
		err = add_ring(sb, one ? pid : -1, one ? -1 : c);
		if (err == -ENODEV || err == -EINVAL)
			err = 0; /* an offline CPU */
	}
	if (!err && sb->nrings == 0)
		err = -ENODEV;
	if (!err)
		return sb;
out_destroy:
	sp_sideband__destroy(sb);
	errno = -err;
	return NULL;
}

int sp_sideband__fd(const struct sp_sideband *sb)
{
	return sb ? sb->epfd : -1;
}

/* PERF_RECORD_MMAP2's body up to the file name. */
struct mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

static enum sp_map_kind name_kind(const char *name, uint64_t ino)
{
	if (strcmp(name, "[vdso]") == 0)
		return SP_MAP_VDSO;
	if (strcmp(name, "[vsyscall]") == 0)
		return SP_MAP_VSYSCALL;
	if (name[0] == '[' || strncmp(name, "//", 2) == 0 || ino == 0)
		return SP_MAP_ANON; /* //anon, [heap], [stack], JIT code */
	return SP_MAP_FILE;
}

/* A descendant of the target (followed: -c/-p without --no-follow). */
static bool followed(const struct sp_sideband *sb, pid_t pid)
{
	uint32_t key = (uint32_t)pid;
	uint8_t v;

	return sb->follow_fd >= 0 && bpf_map_lookup_elem(sb->follow_fd, &key, &v) == 0;
}

/* A new executable mapping: into its process's entry when the process
 * is known (the target or a followed process: registered whole if not). */
static void on_mmap(struct sp_sideband *sb, const uint8_t *body, size_t len)
{
	static const char deleted[] = " (deleted)";
	struct sp_procmap m = { 0 };
	struct mmap2 r;
	char *name = (char *)body + sizeof(r);
	size_t nlen;

	if (len <= sizeof(r))
		return;
	memcpy(&r, body, sizeof(r));
	nlen = strnlen(name, len - sizeof(r));
	if (nlen == len - sizeof(r))
		return; /* not terminated */
	if (nlen > sizeof(deleted) - 1 && strcmp(name + nlen - (sizeof(deleted) - 1), deleted) == 0) {
		name[nlen - (sizeof(deleted) - 1)] = '\0';
		m.deleted = true;
	}
	m.start = r.addr;
	m.end = r.addr + r.len;
	m.pgoff = r.pgoff;
	m.dev_major = r.maj;
	m.dev_minor = r.min;
	m.inode = r.ino;
	m.path = name;
	m.kind = name_kind(name, r.ino);
	if (sb->target > 0 && (pid_t)r.pid != sb->target && !followed(sb, (pid_t)r.pid))
		return;
	if (sp_unwind__map_added(sb->u, (pid_t)r.pid, &m, sb->target <= 0) == -ENOENT &&
	    sb->target > 0)
		sp_unwind__add_pid(sb->u, (pid_t)r.pid);
	sb->records++;
}

/* PERF_RECORD_FORK's body. */
struct fork_rec {
	uint32_t pid, ppid, tid, ptid;
};

/* A followed process forked (not a new thread: pid != ppid): the child
 * runs its parent's code, registered now rather than at its first sample
 * (a shell's subshells live for milliseconds). */
static void on_fork(struct sp_sideband *sb, const uint8_t *body, size_t len)
{
	struct fork_rec r;

	if (len < sizeof(r))
		return;
	memcpy(&r, body, sizeof(r));
	if (r.pid == r.ppid || ((pid_t)r.ppid != sb->target && !followed(sb, (pid_t)r.ppid)))
		return;
	sp_unwind__forked(sb->u, (pid_t)r.pid, (pid_t)r.ppid);
	sp_unwind__add_pid(sb->u, (pid_t)r.pid);
	sb->records++;
}

static void on_record(struct sp_sideband *sb, const struct perf_event_header *h, uint8_t *body,
		      size_t len)
{
	uint32_t pid;

	if (h->type == PERF_RECORD_FORK) {
		on_fork(sb, body, len);
	} else if (h->type == PERF_RECORD_MMAP2) {
		on_mmap(sb, body, len);
	} else if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
		   len >= sizeof(pid)) {
		memcpy(&pid, body, sizeof(pid));
		if (sb->target <= 0 || (pid_t)pid == sb->target || followed(sb, (pid_t)pid))
			sp_unwind__exec(sb->u, (pid_t)pid);
		sb->records++;
	}
}

/* Byte-wise copy out of the ring (records may wrap around its end). */
static void ring_copy(const struct ring *r, uint64_t at, void *dst, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)dst)[i] = r->data[(at + i) % r->size];
}

static void read_ring(struct sp_sideband *sb, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->mp->data_tail;
	uint8_t rec[4200]; /* an mmap record with its path */

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t n;

		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		n = h.size - sizeof(h) < sizeof(rec) ? h.size - sizeof(h) : sizeof(rec);
		ring_copy(r, tail + sizeof(h), rec, n);
		on_record(sb, &h, rec, n);
		tail += h.size;
	}
	__atomic_store_n(&r->mp->data_tail, tail, __ATOMIC_RELEASE);
}

void sp_sideband__drain(struct sp_sideband *sb)
{
	struct epoll_event evs[16];
	int n;

	if (!sb)
		return;
	/* clears the wakeups; a target's event hangs up when it exits, and
	 * would keep the epoll readable: its ring leaves the epoll */
	n = epoll_wait(sb->epfd, evs, 16, 0);
	for (int i = 0; i < n; i++)
		if ((evs[i].events & (EPOLLHUP | EPOLLERR)) && evs[i].data.u32 < (uint32_t)sb->nrings)
			epoll_ctl(sb->epfd, EPOLL_CTL_DEL, sb->rings[evs[i].data.u32].fd, NULL);
	for (int i = 0; i < sb->nrings; i++)
		read_ring(sb, &sb->rings[i]);
}

unsigned long sp_sideband__count(const struct sp_sideband *sb)
{
	return sb ? sb->records : 0;
}

void sp_sideband__destroy(struct sp_sideband *sb)
{
	if (!sb)
		return;
	for (int i = 0; i < sb->nrings; i++) {
		munmap(sb->rings[i].mp, sb->map_len);
		close(sb->rings[i].fd);
	}
	if (sb->epfd >= 0)
		close(sb->epfd);
	free(sb->rings);
	free(sb);
}
