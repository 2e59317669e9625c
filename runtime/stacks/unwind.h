/* runtime/stacks/unwind.h: feed the BPF DWARF unwinder (bpf/unwind.bpf.c) its tables.
 *
 * Per file (device, inode, size, mtime), once: .eh_frame -> rows
 * (runtime/ehframe.c), appended to the shared rows array, which is mmapped.
 * Per process: its executable mappings with the row slice and load bias of
 * each, one entry of the procs map. Call sp_unwind__open() on the opened,
 * not yet loaded object (it sizes the maps), sp_unwind__add_pid() after
 * load for the -p/-c target and on every SP_EV_NEWPID event (BPF sends it
 * again when a pc falls in no known mapping: dlopen, exec).
 *
 * Policy: every process that shows up gets tables (with -p/-c only the
 * target's samples are taken, so only it does), first come first served,
 * until the row budget (max_rows) is used up; files that do not fit are
 * registered without rows, so their frames take frame-pointer steps.
 * sprof's own process is left out.
 */
#ifndef SPROF_RUNTIME_STACKS_UNWIND_H
#define SPROF_RUNTIME_STACKS_UNWIND_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct bpf_object;
struct sp_unwind;

#define SP_UNWIND_DEFAULT_ROWS (2u << 20) /* 16 MiB of 8-byte rows */
#define SP_UNWIND_DEFAULT_PROCS 4096

/* NULL with errno ENOENT when the object has no unwinder maps, or when the
 * environment has SPROF_NO_DWARF (frame pointers only, for comparisons).
 * max_rows 0: SP_UNWIND_DEFAULT_ROWS (env SPROF_UNWIND_ROWS overrides).
 * The rows array is preallocated (8 bytes a row): open it only for
 * programs that take user stacks. */
struct sp_unwind *sp_unwind__open(struct bpf_object *obj, uint32_t max_rows);
void sp_unwind__destroy(struct sp_unwind *u); /* accepts NULL */

/* (Re-)read pid's mappings and register them. Returns 1 when they are new
 * or changed since the last call (the symbolizer should re-read them too),
 * 0 when unchanged (or u is NULL), -errno on failure (-ESRCH: gone). */
int sp_unwind__add_pid(struct sp_unwind *u, pid_t pid);
/* The same from a snapshot someone else read (runtime/stacks/process.h). */
struct sp_procmaps;
int sp_unwind__add_maps(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm);
/* False for NULL, sprof itself, and an unwinder whose maps failed. */
#include <stdbool.h>
bool sp_unwind__wants(const struct sp_unwind *u, pid_t pid);

struct sp_unwind_stats {
	int procs, files, files_with_rows;
	uint32_t rows, max_rows;
	int files_over_budget;
	double parse_ms;          /* time spent parsing .eh_frame */
	uint64_t bpf[8];          /* enum sp_unw_stat counters, summed over CPUs */
};
void sp_unwind__stats(struct sp_unwind *u, struct sp_unwind_stats *st);
/* Two lines of the above ("unwind: ..."); u may be NULL. */
void sp_unwind__print_stats(struct sp_unwind *u, FILE *f);

#endif
