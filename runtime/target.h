/* runtime/target.h: the process a run is about (-p PID or -c 'CMD ARGS'). */
#ifndef SPROF_RUNTIME_TARGET_H
#define SPROF_RUNTIME_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

struct sp_target {
	pid_t pid;      /* 0: system wide */
	bool child;     /* started by us with -c */
	bool running;   /* child released and exec'd */
	bool reaped;
	int wstatus;    /* the child's wait status once reaped; -1: not known */
	bool traced;    /* ptrace-seized while held: stops once exec is done */
	bool stopped;   /* in that stop: its mappings are complete; resume() */
	int go_fd;      /* write end: one byte releases the held child */
	int err_fd;     /* read end of the CLOEXEC pipe carrying exec's errno */
	int pidfd;      /* readable when the target exits; -1 if unavailable */
	char *cmd;
};

/* Splits a command line into argv: blanks separate words, '...' is literal,
 * "..." allows \" \\ \$ \`, a backslash quotes the next character. No
 * shell, no globbing. Returns argc or -EINVAL (unbalanced quote). */
int sp_split_args(const char *cmd, char ***argv);
void sp_free_args(char **argv);

/* -p: checks the process exists. -c: checks the command can run and forks
 * it held (it waits before exec). Prints the error; 0 or -errno. */
int sp_target__open(struct sp_target *t, pid_t pid, const char *cmd);
/* Lets a held child exec; waits until exec happened (or failed: message
 * "cannot run 'CMD': ..." printed). When it could be traced, `at_exec`
 * (may be NULL) is called at the exec stop, with the program and ld.so
 * mapped (their unwind tables are wanted before ld.so runs), and the child
 * is left stopped at its program's entry point, the libraries ld.so loaded
 * mapped too, so they can be recorded (and the unwinder get their tables)
 * before it runs (and perhaps exits within a millisecond);
 * sp_target__resume() lets it go. No-op for -p. */
int sp_target__release(struct sp_target *t, void (*at_exec)(void *ctx), void *ctx);
void sp_target__resume(struct sp_target *t);
/* Reaps the child if it exited; true when the target is gone. */
bool sp_target__gone(struct sp_target *t);
/* A reaped child's exit status, as a shell gives it: its exit code, or 128
 * + the signal that killed it; -1 while it runs or when it is not known. */
int sp_target__exit_status(const struct sp_target *t);
/* Kills a held or still-running child, closes fds. Accepts a zeroed target. */
void sp_target__destroy(struct sp_target *t);

#endif
