/* runtime/elf/mounts.c: FUSE and network mounts, from mountinfo (see
 * mounts.h). A process's mounts are kept a second, only the slow ones:
 * on most machines there are none, and the check is a table lookup.
 */
#define _GNU_SOURCE
#include "runtime/elf/mounts.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/vec.h"

/* File system types whose reads go to a daemon or a server that may never
 * answer: every FUSE type (fuse, fuseblk, fuse.sshfs ...) and the network
 * ones. */
static bool slow_type(const char *t)
{
	static const char *const net[] = { "nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph",
					   "glusterfs", "afs", "lustre", "gpfs", "ncpfs", "coda",
					   "davfs", "virtiofs" };

	if (strncmp(t, "fuse", 4) == 0)
		return true;
	for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
		if (strcmp(t, net[i]) == 0)
			return true;
	return false;
}

/* mountinfo's octal escapes (\040 a space, \011, \012, \134) undone in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

struct slow_set {
	int pid;          /* 0: sprof's own */
	uint64_t at_ns;   /* when read */
	bool unknown;     /* mountinfo unreadable: every path is slow */
	char **mnt;       /* mount points of slow mounts */
	int n, cap;
};

#define SETS 8
#define KEEP_NS 1000000000ull
static struct slow_set sets[SETS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void set_clear(struct slow_set *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->mnt[i]);
	free(s->mnt);
	memset(s, 0, sizeof(*s));
}

/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": the
 * mount point is field 5, the type the first field after " - ". */
static void read_set(struct slow_set *s, int pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	set_clear(s);
	s->pid = pid;
	s->at_ns = now_ns();
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	f = fopen(path, "re");
	if (!f) {
		s->unknown = errno != ENOENT && errno != ESRCH; /* a gone process names nothing */
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), *save = NULL, *mnt = NULL, *type, *tok;
		int field = 0;

		if (!sep)
			continue;
		*sep = '\0';
		type = strtok_r(sep + 3, " ", &save);
		if (!type || !slow_type(type))
			continue;
		save = NULL;
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (++field == 5)
				mnt = tok;
		if (!mnt || SP_GROW(s->mnt, s->cap, s->n + 1, 4))
			continue;
		unescape(mnt);
		if ((s->mnt[s->n] = strdup(mnt)))
			s->n++;
	}
	free(line);
	fclose(f);
}

/* Whether path is mnt or under it. */
static bool under(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	if (n == 1 && mnt[0] == '/')
		return true;
	return strncmp(path, mnt, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static bool slow_in(int pid, const char *path)
{
	struct slow_set *s = NULL, *oldest = &sets[0];
	uint64_t t = now_ns();
	bool slow;

	pthread_mutex_lock(&mu);
	for (int i = 0; i < SETS && !s; i++) {
		if (sets[i].at_ns && sets[i].pid == pid)
			s = &sets[i];
		else if (sets[i].at_ns < oldest->at_ns)
			oldest = &sets[i];
	}
	if (!s || t - s->at_ns > KEEP_NS)
		read_set(s ? s : (s = oldest), pid);
	slow = s->unknown;
	for (int i = 0; i < s->n && !slow; i++)
		slow = under(path, s->mnt[i]);
	pthread_mutex_unlock(&mu);
	return slow;
}

bool sp_path_on_slow_mount(const char *path)
{
	char buf[4096], *end;
	long pid = 0;
	ssize_t n;

	if (strncmp(path, "/proc/", 6) == 0 && path[6] >= '1' && path[6] <= '9') {
		pid = strtol(path + 6, &end, 10);
		if (strncmp(end, "/root/", 6) == 0) /* the target's view of the rest */
			return slow_in((int)pid, end + 5);
		if (strncmp(end, "/map_files/", 11) == 0) {
			/* the link's text is the kernel's name of the file (no file system is
			 * asked); judged in both namespaces, as sprof may not share the target's */
			n = readlink(path, buf, sizeof(buf) - 1);
			if (n <= 0 || buf[0] != '/')
				return n <= 0 && errno != ENOENT && errno != ESRCH;
			buf[n] = '\0';
			return slow_in((int)pid, buf) || slow_in(0, buf);
		}
	}
	if (path[0] == '/')
		return slow_in(0, path);
	if (!getcwd(buf, sizeof(buf) - 1))
		return true;
	n = (ssize_t)strlen(buf);
	snprintf(buf + n, sizeof(buf) - (size_t)n, "/%s", path);
	return slow_in(0, buf);
}
