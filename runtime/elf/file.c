/* runtime/elf/file.c: the one way to open a file a target names, section
 * lookup by name for the DWARF readers, a file's build id (see file.h). */
#define _GNU_SOURCE
#include "base/log.h"
#include "runtime/elf/file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/elf/mounts.h"

int sp_file_check(int fd, uint64_t max_size)
{
	struct stat st;
	int err = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size > max_size)
		err = -EFBIG;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Devices where a file did not answer in time (a hung FUSE or NFS mount):
 * every later file there fails at once. Process-wide, as the mount is;
 * read without the lock by the open helper (below). */
#define HUNG_MAX 16
static struct {
	pthread_mutex_t mu;
	dev_t dev[HUNG_MAX];
	int n;
} hung = { .mu = PTHREAD_MUTEX_INITIALIZER };

static bool hung_device(dev_t dev)
{
	int n = __atomic_load_n(&hung.n, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (hung.dev[i] == dev)
			return true;
	return false;
}

static void mark_hung(dev_t dev)
{
	pthread_mutex_lock(&hung.mu);
	if (!hung_device(dev) && hung.n < HUNG_MAX) {
		hung.dev[hung.n] = dev;
		__atomic_store_n(&hung.n, hung.n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&hung.mu);
}

/* ---- the open helper ------------------------------------------------------
 * A file on a FUSE or NFS mount that never answers puts whoever reads it
 * in an uninterruptible sleep; a thread of sprof's asleep there would keep
 * sprof from ever exiting, even on SIGKILL. So the open and the read of a
 * file's first and last bytes (libelf's headers sit at both ends) are done
 * by a helper process sharing sprof's memory (clone(CLONE_VM): no copy),
 * which sends the fd back over a socket, is waited for SP_FILE_ANSWER_NS at
 * most, and is left behind when late. It closes every descriptor but its
 * socket first (sprof's stdout kept open by a stuck helper would keep a
 * pipe reader waiting), and shares sprof's thread-local storage, so it
 * makes raw system calls only (no errno, no libc locks). */
struct opener {
	int sock;           /* the helper's end of the socket pair */
	dev_t dev;          /* set as soon as stat answered, 0 before */
	uint64_t max_size;
	char path[4096];
};

static long raw_syscall(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* As plain_open() (below), in raw system calls. */
static int helper_open(struct opener *o)
{
	struct stat st;
	char b;
	long fd, r;

	r = raw_syscall(SYS_newfstatat, AT_FDCWD, (long)o->path, (long)&st, 0);
	if (r < 0)
		return (int)r;
	__atomic_store_n(&o->dev, st.st_dev, __ATOMIC_RELEASE);
	if (hung_device(st.st_dev))
		return -ETIMEDOUT;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = raw_syscall(SYS_openat, AT_FDCWD, (long)o->path,
			 O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
	if (fd < 0)
		return (int)fd;
	r = raw_syscall(SYS_fstat, fd, (long)&st, 0, 0);
	if (r == 0 && !S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (r == 0 && (uint64_t)st.st_size > o->max_size)
		r = -EFBIG;
	if (r == 0 && st.st_size > 0)
		r = raw_syscall(SYS_pread64, fd, (long)&b, 1, 0);
	if (r >= 0 && st.st_size > 1)
		r = raw_syscall(SYS_pread64, fd, (long)&b, 1, st.st_size - 1);
	return r < 0 ? (int)r : (int)fd;
}

/* Sends the result, an int (fd or -errno), with the fd itself when open. */
static int helper(void *arg)
{
	struct opener *o = arg;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	int res;

	if (o->sock > 0)
		raw_syscall(SYS_close_range, 0, o->sock - 1, 0, 0);
	raw_syscall(SYS_close_range, o->sock + 1, ~0u, 0, 0);
	res = helper_open(o);
	iov = (struct iovec){ .iov_base = &res, .iov_len = sizeof(res) };
	if (res >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &res, sizeof(int));
	}
	raw_syscall(SYS_sendmsg, o->sock, (long)&m, MSG_NOSIGNAL, 0);
	return 0;
}

/* The helper's answer on sock: the fd or -errno. */
static int receive(int sock)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	int res = -EIO, fd = -1;
	struct iovec iov = { .iov_base = &res, .iov_len = sizeof(res) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(res))
		return -EIO;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (res < 0) {
		if (fd >= 0)
			close(fd);
		return res;
	}
	return fd >= 0 ? fd : -EIO;
}

/* The name to say: a /proc/PID/map_files link's target, else the path. */
static void say_hung(const char *path)
{
	char real[4096];
	ssize_t n = strncmp(path, "/proc/", 6) == 0 ? readlink(path, real, sizeof(real) - 1) : -1;
	bool link = n > 0 && real[0] == '/';

	if (link)
		real[n] = '\0';
	sp_warn("%s did not answer in %d s: its symbols are missing\n",
		link ? real : path, (int)(SP_FILE_ANSWER_NS / 1000000000ull));
}

#define HELPER_STACK (64 << 10)

/* Starts the helper on o and waits for it: the fd or -errno; *late when
 * it did not answer (o and stack then stay its own). */
static int run_helper(struct opener *o, char *stack, int sock, bool *late)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	sigset_t all, old;
	int pid, n, fd;

	sigfillset(&all); /* the helper never takes a signal meant for the run */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(helper, stack + HELPER_STACK, CLONE_VM | CLONE_UNTRACED, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -EAGAIN;
	do
		n = poll(&pfd, 1, (int)(SP_FILE_ANSWER_NS / 1000000ull));
	while (n < 0 && errno == EINTR);
	*late = n == 0;
	if (*late) {
		dev_t dev = __atomic_load_n(&o->dev, __ATOMIC_ACQUIRE);

		if (dev)
			mark_hung(dev);
		return -ETIMEDOUT;
	}
	fd = receive(sock);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	return fd;
}

/* stat() first: a symlink to a device (a tape that rewinds when opened) is
 * not even opened; fstat() after: the name may change in between. */
static int plain_open(const char *path, uint64_t max_size)
{
	struct stat st;
	int fd;

	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return sp_file_check(fd < 0 ? -errno : fd, max_size);
}

/* A file on a FUSE or network mount is opened by the helper, the others
 * directly: the helper costs a clone, a socket pair and a wait, which every
 * file of every target paid when it was the only way (a starting Ruby's
 * first samples then came before its tables). */
int sp_file_open(const char *path, uint64_t max_size)
{
	size_t len = strlen(path);
	struct opener *o;
	char *stack;
	int sv[2], fd;
	bool late = false;

	if (len >= sizeof(o->path))
		return -ENAMETOOLONG;
	if (!sp_path_on_slow_mount(path))
		return plain_open(path, max_size);
	o = calloc(1, sizeof(*o));
	stack = malloc(HELPER_STACK);
	if (!o || !stack || socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		free(o);
		free(stack);
		return -ENOMEM;
	}
	memcpy(o->path, path, len + 1);
	o->max_size = max_size;
	o->sock = sv[1];
	fd = run_helper(o, stack, sv[0], &late);
	close(sv[0]);
	close(sv[1]);
	if (late) { /* the helper may still read o and run on its stack */
		say_hung(path);
		return fd;
	}
	free(o);
	free(stack);
	return fd;
}

Elf_Scn *sp_elf_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

#define NT_GNU_BUILD_ID_TYPE 3 /* NT_GNU_BUILD_ID */

static char *hex_string(const unsigned char *b, size_t n)
{
	char *s = malloc(n * 2 + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	s[n * 2] = '\0';
	return s;
}

char *sp_elf_read_build_id(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID_TYPE && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz > 0 &&
			    doff + nh.n_descsz <= d->d_size)
				return hex_string((unsigned char *)d->d_buf + doff, nh.n_descsz);
		}
	}
	return NULL;
}

/* The size a compressed section says it inflates to: SHF_COMPRESSED's
 * header, or a GNU .zdebug_* section's "ZLIB" and big-endian size. */
static bool inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, uint64_t *size)
{
	GElf_Chdr ch;
	Elf_Data *raw;
	const uint8_t *p;

	if (sh->sh_flags & SHF_COMPRESSED) {
		if (!gelf_getchdr(scn, &ch))
			return false;
		*size = ch.ch_size;
		return true;
	}
	if (strncmp(name, ".zdebug", 7) != 0)
		return false;
	raw = elf_rawdata(scn, NULL);
	if (!raw || !raw->d_buf || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4) != 0)
		return false;
	p = (const uint8_t *)raw->d_buf + 4;
	*size = 0;
	for (int i = 0; i < 8; i++)
		*size = *size << 8 | p[i];
	return true;
}

bool sp_elf_inflate_ok(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || !inflated_size(scn, &sh, name, &size))
			continue;
		if (size > SP_FILE_INFLATE_MAX || (size > (1u << 20) && size / SP_FILE_INFLATE_RATIO > sh.sh_size))
			return false;
	}
	return true;
}
