/* runtime/shell.h: system()'s commands, bounded.
 *
 * A command runs as `/bin/sh -c CMD` in a process group of its own, with
 * the default signal mask (sprof blocks SIGINT and friends for its
 * signalfd; a shell must not inherit that), its standard output captured
 * so it stays in order with sprof's. It never holds up the end of a run:
 * it is killed, its whole group, as soon as a SIGINT, SIGTERM or SIGHUP
 * waits for the run loop, or once the deadline passes; and it is always
 * reaped.
 */
#ifndef SPROF_RUNTIME_SHELL_H
#define SPROF_RUNTIME_SHELL_H

#include <stdbool.h>
#include <stdint.h>

/* true when SIGINT, SIGTERM or SIGHUP is pending (blocked, not yet read)
 * or was taken by the run's signal thread, which says so here. */
bool sp_shell_stop_pending(void);
void sp_shell_set_stop(bool on);

/* Runs cmd; its output (malloc'd, possibly empty) in *text. deadline_ns:
 * a sp_mono_ns() time, 0 for none. 0, -ECANCELED when the command was
 * killed (signal or deadline: *text holds what it wrote), or -errno when
 * it could not start (*text NULL). */
int sp_shell_run(const char *cmd, uint64_t deadline_ns, char **text);

#endif
