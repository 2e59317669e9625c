/* runtime/stacks/sideband.h: new programs and new code mappings, as they happen, for the unwinder.
 *
 * The BPF unwinder can only walk a process whose mappings user space has
 * registered (runtime/stacks/unwind.h); a process that execs, or a library
 * ld.so or dlopen maps, is unknown until then, and its stacks are cut
 * short. Samples ask for a re-read, but only once they miss. perf's side
 * band (a dummy software event with `mmap` and `comm_exec` records, the
 * kernel's own notification of every executable mapping) says so at the
 * time of the exec or mmap: before the new code runs, so the tables are
 * usually in place by its first sample.
 *
 * Which processes: with a target (-p/-c), that process and, when its
 * children are followed, the processes in the follow map; system wide,
 * every process that execs (files with big tables are left to its first
 * sample: sp_unwind__add_pid_early), and code mapped later by processes
 * the unwinder already knows.
 */
#ifndef SPROF_RUNTIME_STACKS_SIDEBAND_H
#define SPROF_RUNTIME_STACKS_SIDEBAND_H

#include <sys/types.h>

struct sp_unwind;
struct sp_sideband;

/* Side-band events of `pid` (0: every CPU, every process) feeding u, and
 * of its descendants when follow_fd (the BPF map of followed tgids,
 * abi/plan.h SP_MAP_FOLLOW) is not -1. NULL with errno set when perf
 * events cannot be opened (the run goes on without: tables come at the
 * first sample). */
struct sp_sideband *sp_sideband__open(struct sp_unwind *u, pid_t pid, int follow_fd);
/* One descriptor (an epoll of the per-CPU buffers), readable when records wait. */
int sp_sideband__fd(const struct sp_sideband *sb);
/* Reads what is waiting and registers the processes concerned. */
void sp_sideband__drain(struct sp_sideband *sb);
/* Side-band records applied (exec and mmap). */
unsigned long sp_sideband__count(const struct sp_sideband *sb);
void sp_sideband__destroy(struct sp_sideband *sb); /* accepts NULL */

#endif
