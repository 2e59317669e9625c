/* runtime/attach/follow.c: -c and -p follow the target's process tree.
 *
 * A build (`make`, `go build`, a compiler driver) does its work in child
 * processes; profiling only the pid sprof started found the driver and
 * lost the workers. With -c or -p (and without --no-follow) codegen keeps
 * two hidden programs of bpf/common.bpf.c: on sched_process_fork a child
 * of a followed process is added to the sp_follow map, from its first
 * instruction on (exec keeps the pid, threads share the tgid), and
 * sched_process_exit takes it out; sp_filter() passes the target and
 * every process in the map. They are attached before the -c command runs.
 * For -p, the processes the target had started before sprof came are
 * found in /proc and added after the programs are attached, so none is
 * missed in between.
 */
#include "base/log.h"
#include "runtime/attach/follow.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "abi/plan.h"
#include "base/vec.h"

struct proc {
	pid_t pid, ppid;
};

/* The parent of pid from /proc/PID/stat (after the command name, which may
 * hold spaces and parentheses: the last ')' ends it); 0 when gone. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* Every process of /proc with its parent. */
static int list_procs(struct proc **out, int *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (SP_GROW(*out, cap, *n + 1, 256)) {
			closedir(d);
			return -ENOMEM;
		}
		(*out)[(*n)++] = (struct proc){ (pid_t)pid, parent_of((pid_t)pid) };
	}
	closedir(d);
	return 0;
}

/* root's descendants now running, into the map (children before their
 * own children: a pass per generation). Returns how many. */
static int seed(int map_fd, pid_t root)
{
	struct proc *v;
	int n, added = 0, err = list_procs(&v, &n);
	bool more = true;
	uint8_t one = 1;

	if (err)
		return err;
	while (more) {
		more = false;
		for (int i = 0; i < n; i++) {
			uint32_t ppid = (uint32_t)v[i].ppid, pid = (uint32_t)v[i].pid;
			uint8_t val;

			if (!v[i].ppid || (v[i].ppid != root && bpf_map_lookup_elem(map_fd, &ppid, &val)))
				continue;
			if (bpf_map_update_elem(map_fd, &pid, &one, BPF_ANY) == 0)
				added++;
			v[i].ppid = 0; /* done */
			more = true;
		}
	}
	free(v);
	return added;
}

int sp_follow_attach(struct bpf_object *obj, pid_t root, bool existing, struct sp_links *links)
{
	static const char *const progs[] = { SP_FOLLOW_PROG_EXIT, SP_FOLLOW_PROG_FORK };
	struct bpf_map *m = bpf_object__find_map_by_name(obj, SP_MAP_FOLLOW);
	int err;

	if (!bpf_object__find_program_by_name(obj, SP_FOLLOW_PROG_FORK))
		return 0; /* --no-follow, or no target */
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, progs[i]);
		struct bpf_link *l = p ? bpf_program__attach(p) : NULL;

		err = l ? sp_links_push(links, l) : -errno;
		if (err == -EACCES || err == -EPERM) {
			/* the sched tracepoints' folder is root's (file capabilities
			 * without cap_dac_read_search): the process alone, said once */
			sp_warn("cannot follow the children of pid %d: %s: %s "
				"(tracefs needs root or cap_dac_read_search); tracing the process "
				"alone\n", (int)root, progs[i], strerror(-err));
			return 0;
		}
		if (err) {
			sp_err("cannot follow the children of pid %d: %s: %s "
			       "(--no-follow traces the process alone)\n", (int)root, progs[i],
			       strerror(-err));
			return err;
		}
	}
	if (existing && m) {
		err = seed(bpf_map__fd(m), root);
		if (err < 0) {
			sp_err("cannot list the children of pid %d: %s\n", (int)root,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

int sp_follow_map_fd(struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, SP_MAP_FOLLOW);

	if (!m || !bpf_object__find_program_by_name(obj, SP_FOLLOW_PROG_FORK))
		return -1;
	return bpf_map__fd(m);
}
