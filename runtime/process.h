/* runtime/process.h: one reading of a process's mappings for every consumer.
 *
 * The symbolizer (names, kept after the process exits), the unwinder
 * (per-process tables in BPF maps) and the interpreter walker (where
 * CPython's runtime state lives) all need a process's executable mappings,
 * when it first shows up and again when they change (dlopen, exec).
 * /proc/PID/maps is read here once per such event and the same snapshot
 * goes to each, so they can never disagree about a process and a busy
 * system-wide profile reads each process's maps once, not three times.
 */
#ifndef SPROF_RUNTIME_PROCESS_H
#define SPROF_RUNTIME_PROCESS_H

#include <stdbool.h>
#include <sys/types.h>

struct sp_symbolizer;
struct sp_unwind;
struct sp_langs;

/* Everyone who needs a process's mappings; any may be NULL. */
struct sp_consumers {
	struct sp_symbolizer *sym; /* names, kept after the process exits */
	struct sp_unwind *unw;     /* per-process unwind tables in BPF maps */
	struct sp_langs *langs;    /* the language walkers (runtime/langs/lang.h) */
};

/* Read pid's mappings once and hand them to the symbolizer, the unwinder
 * and the interpreter walker (any may be NULL). Without `refresh`, a pid the symbolizer
 * already knows is not read again. 0, or -errno of the read (-ESRCH: gone)
 * or of a consumer. */
int sp_process__add(const struct sp_consumers *c, pid_t pid, bool refresh);

#endif
