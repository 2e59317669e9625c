/* runtime/shell.c: system()'s commands, killed rather than waited for (see shell.h).
 *
 * The pipe is read with poll() in short slices so that a stop request
 * (the run's signal thread took a SIGINT, SIGTERM or SIGHUP, or one is
 * pending) or the deadline is noticed within SLICE_MS, even when
 * the command prints nothing or closes its output and keeps running.
 */
#define _GNU_SOURCE
#include "runtime/shell.h"
#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLICE_MS 20

extern char **environ;

static int stop_seen; /* set by the run's signal thread, read with atomics */

void sp_shell_set_stop(bool on)
{
	__atomic_store_n(&stop_seen, on, __ATOMIC_RELEASE);
}

bool sp_shell_stop_pending(void)
{
	sigset_t set;

	if (__atomic_load_n(&stop_seen, __ATOMIC_ACQUIRE))
		return true;
	if (sigpending(&set) != 0)
		return false;
	return sigismember(&set, SIGINT) == 1 || sigismember(&set, SIGTERM) == 1 ||
	       sigismember(&set, SIGHUP) == 1;
}

static bool must_stop(uint64_t deadline_ns)
{
	return sp_shell_stop_pending() || (deadline_ns && sp_mono_ns() >= deadline_ns);
}

/* /bin/sh -c cmd, stdout into `out`, own process group, default signals. */
static int spawn_shell(const char *cmd, int out, pid_t *pid)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	int err;

	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGUSR1);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	err = posix_spawn(pid, "/bin/sh", &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -err;
}

/* Reads the command's output into m until EOF; false when it must stop. */
static bool read_output(int fd, FILE *m, uint64_t deadline_ns)
{
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (must_stop(deadline_ns))
			return false;
		if (poll(&p, 1, SLICE_MS) <= 0)
			continue; /* timeout or EINTR: check again */
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return true;
		if (m)
			fwrite(buf, 1, (size_t)n, m);
	}
}

/* Waits for pid, which closed its output but may still run. */
static bool wait_exit(pid_t pid, uint64_t deadline_ns)
{
	const struct timespec slice = { 0, SLICE_MS * 1000000L };
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return true;
		if (must_stop(deadline_ns))
			return false;
		nanosleep(&slice, NULL);
	}
}

int sp_shell_run(const char *cmd, uint64_t deadline_ns, char **text)
{
	size_t len = 0;
	FILE *m;
	pid_t pid;
	int fds[2], err, st;
	bool done;

	*text = NULL;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	err = spawn_shell(cmd, fds[1], &pid);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		return err;
	}
	m = open_memstream(text, &len);
	done = read_output(fds[0], m, deadline_ns) && wait_exit(pid, deadline_ns);
	close(fds[0]);
	if (m)
		fclose(m);
	if (!done) {
		kill(-pid, SIGKILL); /* the whole group: the shell's own children too */
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return done ? 0 : -ECANCELED;
}
