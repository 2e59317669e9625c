/* runtime/stacks/process.h: one reading of a process's mappings for every consumer.
 *
 * The symbolizer (names, kept after the process exits) and the unwinder
 * (per-process tables in BPF maps) both need a process's executable
 * mappings, when it first shows up and again when they change (dlopen,
 * exec). /proc/PID/maps is read here once per such event and the same
 * snapshot goes to both, so they can never disagree about a process and a
 * busy system-wide profile reads each process's maps half as often.
 */
#ifndef SPROF_RUNTIME_STACKS_PROCESS_H
#define SPROF_RUNTIME_STACKS_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

struct sp_symbolizer;
struct sp_unwind;

/* Read pid's mappings once and hand them to the symbolizer and the
 * unwinder (either may be NULL). Without `refresh`, a pid the symbolizer
 * already knows is not read again. 0, or -errno of the read (-ESRCH: gone)
 * or of a consumer. */
int sp_process__add(struct sp_symbolizer *s, struct sp_unwind *u, pid_t pid, bool refresh);

#endif
