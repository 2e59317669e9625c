/* runtime/timings.h: where start-up time goes, for SPROF_TIMINGS=1.
 *
 * With SPROF_TIMINGS set in the environment, each sp_timing_lap() ends a
 * phase (named by the caller) that began at the previous lap, or at the
 * process's start for the first one, and records its wall time and this
 * thread's CPU time (user and system: a BPF program's verification runs in
 * the bpf(2) call, so it counts as the loading thread's system time).
 * sp_timings_print() writes one line per phase to stderr, then the total.
 * Without the variable every call returns at once.
 *
 * The one process-wide record: start-up is one sequence across the driver,
 * codegen and runtime, and a diagnostic switch should not be threaded
 * through every context struct. Laps from other threads are ignored.
 */
#ifndef SPROF_RUNTIME_TIMINGS_H
#define SPROF_RUNTIME_TIMINGS_H

#include <stdbool.h>
#include <stdio.h>

bool sp_timings_on(void);
/* Ends the phase `what` now. `what` must outlive the process (a literal). */
void sp_timing_lap(const char *what);
/* A figure that is not a phase (e.g. "verified insns  profile_0  68256"). */
void sp_timing_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The phases so far and their sum, on stderr; once. */
void sp_timings_print(void);

#endif
