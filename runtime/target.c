/* runtime/target.c: -p PID and -c 'CMD ARGS'.
 *
 * -c forks the command before anything is loaded, so its pid can go into
 * sp_config, but holds it: the child blocks reading a pipe until the
 * probes are attached, then execs. An exec failure travels back through a
 * second, close-on-exec pipe (EOF on it means exec succeeded), so sprof can
 * say "cannot run 'CMD': ..." and exit 1 instead of profiling nothing.
 * The command line is split here, without a shell. A pidfd tells the run
 * loop when the target (child or -p process) exits.
 *
 * The exec pipe closes before the new program is even mapped, and a short
 * command may be gone a millisecond later, before anyone read its
 * mappings. So the held child is ptrace-seized (PTRACE_O_TRACEEXEC): it
 * stops once exec is complete, run.c records its mappings, and it is
 * detached. Where tracing is refused (sprof itself under strace, Yama),
 * /proc/PID/maps is polled until the new program's vDSO shows instead.
 *
 * At the exec stop only the program, ld.so and the vDSO are mapped; the
 * libraries come from ld.so, and a stack taken in them before the
 * unwinder has their tables is cut short. So the traced child is run on to
 * its program's entry point (AT_ENTRY, a one-byte int3 there, put back
 * when it is hit): by then every DT_NEEDED library is mapped, and its
 * first instruction runs with complete tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "runtime/target.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct words {
	char **v;
	int n, cap;
};

static int words_push(struct words *w, char *s)
{
	if (w->n + 2 > w->cap) {
		int ncap = w->cap ? w->cap * 2 : 8;
		char **nv = realloc(w->v, sizeof(*nv) * (size_t)ncap);

		if (!nv)
			return -ENOMEM;
		w->v = nv;
		w->cap = ncap;
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return 0;
}

/* Copies one word starting at *sp into out; advances *sp. */
static int one_word(const char **sp, char *out)
{
	const char *s = *sp;
	char q = 0;

	for (; *s; s++) {
		if (q == '\'') {
			if (*s == '\'')
				q = 0;
			else
				*out++ = *s;
		} else if (q == '"') {
			if (*s == '"')
				q = 0;
			else if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
				*out++ = *++s;
			else
				*out++ = *s;
		} else if (*s == ' ' || *s == '\t' || *s == '\n') {
			break;
		} else if (*s == '\'' || *s == '"') {
			q = *s;
		} else if (*s == '\\' && s[1]) {
			*out++ = *++s;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
	*sp = s;
	return q ? -EINVAL : 0;
}

int sp_split_args(const char *cmd, char ***argv)
{
	struct words w = { 0 };
	const char *s = cmd;
	int err = 0;

	for (;;) {
		char *word;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		word = malloc(strlen(s) + 1);
		if (!word || (err = words_push(&w, word))) {
			free(word);
			err = -ENOMEM;
			break;
		}
		err = one_word(&s, word);
		if (err)
			break;
	}
	if (!err && !w.v && !(w.v = calloc(1, sizeof(*w.v))))
		err = -ENOMEM;
	if (err) {
		sp_free_args(w.v);
		return err;
	}
	*argv = w.v;
	return w.n;
}

void sp_free_args(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* execvp's search, done up front: 0 or -errno. */
static int check_runnable(const char *file)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT;

	if (strchr(file, '/'))
		return access(file, X_OK) == 0 ? 0 : -errno;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, n ? p : ".", "/", file);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 0;
			err = -EACCES;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return err;
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void child_main(char **argv, int go_rd, int err_wr)
{
	sigset_t none;
	char c;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (read(go_rd, &c, 1) != 1)
		_exit(1); /* sprof gave up before releasing us */
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int start_child(struct sp_target *t, char **argv)
{
	int go[2], ep[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(argv, go[0], ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	if (pid < 0) {
		close(go[1]);
		close(ep[0]);
		return -errno;
	}
	t->pid = pid;
	t->child = true;
	t->go_fd = go[1];
	t->err_fd = ep[0];
	t->traced = ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)PTRACE_O_TRACEEXEC) == 0;
	return 0;
}

static int open_cmd(struct sp_target *t, const char *cmd)
{
	char **argv = NULL;
	int err, n = sp_split_args(cmd, &argv);

	t->cmd = strdup(cmd);
	if (n == -EINVAL) {
		sp_err("cannot run '%s': unbalanced quote\n", cmd);
		return n;
	}
	if (n <= 0) {
		sp_err("cannot run '%s': %s\n", cmd,
		       n == 0 ? "empty command" : strerror(-n));
		sp_free_args(argv);
		return n == 0 ? -EINVAL : n;
	}
	err = check_runnable(argv[0]);
	if (!err)
		err = start_child(t, argv);
	if (err)
		sp_err("cannot run '%s': %s\n", cmd, strerror(-err));
	sp_free_args(argv);
	return err;
}

/* A thread id given to -p means its process: samples are filtered by tgid. */
static pid_t tgid_of(pid_t pid)
{
	char path[64], line[256];
	pid_t tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : pid;
}

int sp_target__open(struct sp_target *t, pid_t pid, const char *cmd)
{
	memset(t, 0, sizeof(*t));
	t->go_fd = t->err_fd = t->pidfd = -1;
	t->wstatus = -1;
	if (cmd && pid) {
		sp_err("-p and -c cannot be used together\n");
		return -EINVAL;
	}
	if (cmd) {
		int err = open_cmd(t, cmd);

		if (err)
			return err;
	} else if (pid) {
		if (pid < 0 || (kill(pid, 0) && errno == ESRCH)) {
			sp_err("-p %d: no such process\n", (int)pid);
			return -ESRCH;
		}
		t->pid = tgid_of(pid);
		t->running = true;
	} else {
		return 0;
	}
	t->pidfd = pidfd_open(t->pid);
	return 0;
}

/* The exec pipe reports success when execve closes close-on-exec fds,
 * before the new program is mapped. Its mappings are complete once the
 * vDSO is mapped (load_elf_binary's last mapping) in a memory map that is
 * no longer our fork's (which has sprof's own executable). Reading them
 * earlier would miss the program of a child that exits within ms. */
static bool exec_mapped(pid_t pid, const char *self)
{
	char path[64], line[4096];
	bool vdso = false, ours = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return true; /* gone: nothing to wait for */
	while (fgets(line, sizeof(line), f)) {
		vdso = vdso || strstr(line, "[vdso]");
		ours = ours || (self[0] && strstr(line, self));
	}
	fclose(f);
	return vdso && !ours;
}

static void wait_exec_mapped(pid_t pid)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct timespec pause = { 0, 100000 }; /* 0.1 ms, for at most 0.2 s */

	self[n > 0 ? n : 0] = '\0';
	for (int i = 0; i < 2000 && !exec_mapped(pid, self); i++)
		nanosleep(&pause, NULL);
}

/* waitpid() said w (-1: failed) with status st: the child is gone. */
static void reaped(struct sp_target *t, pid_t w, int st)
{
	t->reaped = w >= 0;
	if (w >= 0)
		t->wstatus = st;
}

/* Traced child: passes on any signal that stops it, until the exec event
 * stop (or its end). */
static void wait_exec_stop(struct sp_target *t)
{
	int st;

	for (;;) {
		pid_t w = waitpid(t->pid, &st, __WALL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			reaped(t, w, st);
			t->traced = false;
			return;
		}
		if (WIFSTOPPED(st) && st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			t->stopped = true;
			return;
		}
		/* a signal-delivery or group stop: deliver it and go on */
		ptrace(PTRACE_CONT, t->pid, 0,
		       (void *)(long)(WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP ? WSTOPSIG(st) : 0));
	}
}

/* The program's entry point (AT_ENTRY of /proc/PID/auxv); 0 when unknown. */
static uint64_t entry_point(pid_t pid)
{
	char path[64];
	uint64_t av[2], entry = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(av, sizeof(av), 1, f) == 1 && av[0] != 0)
		if (av[0] == 9 /* AT_ENTRY */)
			entry = av[1];
	fclose(f);
	return entry;
}

/* Waits for the int3 at `entry`, passing other signals on; true when the
 * child stopped there (rip put back on the entry), false when it ended. */
static bool wait_breakpoint(struct sp_target *t, uint64_t entry)
{
	struct user_regs_struct regs;
	int st;

	for (;;) {
		pid_t w = waitpid(t->pid, &st, __WALL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
			reaped(t, w, st);
			return false;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP && st >> 16 == 0 &&
		    ptrace(PTRACE_GETREGS, t->pid, 0, &regs) == 0 && regs.rip == entry + 1) {
			regs.rip = entry;
			return ptrace(PTRACE_SETREGS, t->pid, 0, &regs) == 0;
		}
		ptrace(PTRACE_CONT, t->pid, 0,
		       (void *)(long)(WIFSTOPPED(st) && st >> 16 == 0 ? WSTOPSIG(st) : 0));
	}
}

/* Exec-stopped child: on to its entry point, where ld.so has mapped its
 * libraries. Stays at the exec stop when the breakpoint cannot be set. */
static void run_to_entry(struct sp_target *t)
{
	uint64_t entry = entry_point(t->pid);
	long word;
	bool hit;

	if (!entry)
		return;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)entry, 0);
	if (errno || ptrace(PTRACE_POKETEXT, t->pid, (void *)entry, (void *)((word & ~0xffL) | 0xcc)))
		return;
	if (ptrace(PTRACE_CONT, t->pid, 0, 0)) {
		ptrace(PTRACE_POKETEXT, t->pid, (void *)entry, (void *)word);
		return;
	}
	hit = wait_breakpoint(t, entry);
	if (hit)
		ptrace(PTRACE_POKETEXT, t->pid, (void *)entry, (void *)word);
	else
		t->stopped = t->traced = false;
}

int sp_target__release(struct sp_target *t, void (*at_exec)(void *ctx), void *ctx)
{
	int e = 0;
	ssize_t n;

	if (!t->child || t->running)
		return 0;
	if (write(t->go_fd, "g", 1) != 1)
		return -errno;
	close(t->go_fd);
	t->go_fd = -1;
	do
		n = read(t->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	if (n == sizeof(e)) {
		sp_err("cannot run '%s': %s\n", t->cmd, strerror(e));
		waitpid(t->pid, NULL, 0);
		t->reaped = true;
		return -e;
	}
	t->running = true;
	if (t->traced) {
		wait_exec_stop(t);
		if (t->stopped && at_exec)
			at_exec(ctx);
		if (t->stopped)
			run_to_entry(t);
	} else
		wait_exec_mapped(t->pid);
	return 0;
}

void sp_target__resume(struct sp_target *t)
{
	if (!t->stopped)
		return;
	ptrace(PTRACE_DETACH, t->pid, 0, 0);
	t->stopped = false;
	t->traced = false;
}

bool sp_target__gone(struct sp_target *t)
{
	int st;

	if (!t->pid)
		return false;
	if (t->child) {
		if (!t->reaped && waitpid(t->pid, &st, WNOHANG) == t->pid)
			reaped(t, t->pid, st);
		return t->reaped;
	}
	return kill(t->pid, 0) && errno == ESRCH;
}

int sp_target__exit_status(const struct sp_target *t)
{
	if (!t->child || !t->reaped || t->wstatus < 0)
		return -1;
	if (WIFSIGNALED(t->wstatus))
		return 128 + WTERMSIG(t->wstatus);
	return WIFEXITED(t->wstatus) ? WEXITSTATUS(t->wstatus) : -1;
}

void sp_target__destroy(struct sp_target *t)
{
	sp_target__resume(t);
	if (t->child && !t->reaped && t->pid > 0) {
		if (t->running)
			kill(t->pid, SIGTERM);
		if (t->go_fd >= 0) {  /* held: closing the pipe makes it exit */
			close(t->go_fd);
			t->go_fd = -1;
		}
		waitpid(t->pid, NULL, t->running ? WNOHANG : 0);
		t->reaped = true;
	}
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->err_fd >= 0)
		close(t->err_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t->cmd);
	memset(t, 0, sizeof(*t));
	t->go_fd = t->err_fd = t->pidfd = -1;
	t->wstatus = -1;
}
