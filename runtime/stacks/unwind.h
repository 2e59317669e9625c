/* runtime/stacks/unwind.h: feed the BPF DWARF unwinder (bpf/unwind.bpf.c) its tables.
 *
 * Per file (device, inode, size, mtime), once: .eh_frame -> rows
 * (runtime/elf/ehframe.c), appended to the shared rows array, which is mmapped,
 * and an entry in the files map (by the kernel's device and inode), so BPF
 * can place a mapping it was not told about (bpf_find_vma).
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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct bpf_object;
struct sp_unwind;

#define SP_UNWIND_DEFAULT_ROWS (16u << 20) /* the budget: 128 MiB of 8-byte rows, in pages made as needed */
#define SP_UNWIND_DEFAULT_PROCS 4096

struct sp_unw_row;
struct sp_unw_bucket;
/* A file's bucket index (abi/unwind_table.h): its size in buckets for the
 * file's n sorted rows (pcs from 0), and the index itself into out. */
uint64_t sp_unw_index_size(const struct sp_unw_row *rows, uint32_t n);
void sp_unw_index_build(const struct sp_unw_row *rows, uint32_t n, struct sp_unw_bucket *out);

/* NULL with errno ENOENT when the object has no unwinder maps (the driver
 * opens none for SPROF_NO_DWARF: frame pointers only, for comparisons).
 * max_rows 0: SP_UNWIND_DEFAULT_ROWS (the driver's SPROF_UNWIND_ROWS): the
 * budget of rows; their pages (8 MiB each) are made as tables need them. */
struct sp_unwind *sp_unwind__open(struct bpf_object *obj, uint32_t max_rows);
/* -v: say a file's .gopclntab refused (corrupt or of an unknown version), once per file. */
void sp_unwind__set_verbose(struct sp_unwind *u, bool verbose);
void sp_unwind__destroy(struct sp_unwind *u); /* accepts NULL */
/* Use `objs` (which must outlive u) for object files instead of an own
 * cache, so a file the symbolizer opened is not opened again. Call before
 * the first process is added: 0, or -EBUSY. */
struct sp_objcache;
int sp_unwind__share_objcache(struct sp_unwind *u, struct sp_objcache *objs);

/* (Re-)read pid's mappings and register them. Returns 1 when they are new
 * or changed since the last call (the symbolizer should re-read them too),
 * 0 when unchanged (or u is NULL), -errno on failure (-ESRCH: gone). */
int sp_unwind__add_pid(struct sp_unwind *u, pid_t pid);
/* The same from a snapshot someone else read (runtime/process.h). */
struct sp_procmaps;
int sp_unwind__add_maps(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm);
/* False for NULL, sprof itself, and an unwinder whose maps failed. */
bool sp_unwind__wants(const struct sp_unwind *u, pid_t pid);

/* A followed process forked (no exec yet): child runs parent's code. Kept
 * for the last SP_UNWIND_FORKS forks (forgotten at the child's exec), so a
 * child gone before anyone read its mappings is still named by its
 * parent's (sp_unwind__parent). */
#define SP_UNWIND_FORKS 4096
void sp_unwind__forked(struct sp_unwind *u, pid_t child, pid_t parent);
/* child's parent from its fork record, or 0 when none is kept. */
pid_t sp_unwind__parent(const struct sp_unwind *u, pid_t child);

/* After load: the kernel field offsets for BPF's own mapping lookups
 * (runtime/stacks/kofs.h). Done by the first add_pid otherwise. 0 or -errno. */
int sp_unwind__start(struct sp_unwind *u);
/* true when pid's mappings are registered (by add_pid, and it is not gone). */
bool sp_unwind__knows(struct sp_unwind *u, pid_t pid);

/* The same before a process's first sample (an exec seen system wide):
 * files with more than SP_UNWIND_EARLY_MAX_CFI bytes of tables not parsed
 * yet are left out, so the caller stays quick; its first sample's
 * sp_unwind__add_pid() adds them. */
#define SP_UNWIND_EARLY_MAX_CFI (512u << 10)
int sp_unwind__add_pid_early(struct sp_unwind *u, pid_t pid);

/* Side-band records (runtime/stacks/sideband.c), applied to the entry
 * BPF holds without reading /proc/PID/maps: pid exec'd (its mappings are
 * gone: an empty entry, made if needed), pid mapped code (m; the file is
 * opened through /proc/PID/map_files and parsed unless cached; `early` as
 * for add_pid_early). 0 or -errno; map_added: -ENOENT for an unknown pid. */
struct sp_procmap;
int sp_unwind__exec(struct sp_unwind *u, pid_t pid);
int sp_unwind__map_added(struct sp_unwind *u, pid_t pid, const struct sp_procmap *m, bool early);

/* Removes the entries of exited processes from BPF's procs map now (also
 * done every so many adds). Returns how many. */
int sp_unwind__sweep(struct sp_unwind *u);

struct sp_unwind_stats {
	int procs, files, files_with_rows;
	uint32_t rows, max_rows;
	int files_over_budget;
	double parse_ms;          /* time spent parsing .eh_frame */
	uint64_t bpf[16];         /* enum sp_unw_stat counters, summed over CPUs */
};
void sp_unwind__stats(struct sp_unwind *u, struct sp_unwind_stats *st);
/* Two lines of the above ("unwind: ..."); u may be NULL. */
void sp_unwind__print_stats(struct sp_unwind *u, FILE *f);
/* What the user should know, after the report: stacks cut short because
 * a process's tables were not loaded yet ("sprof: N stacks cut short:
 * unwind tables not loaded yet"), counted from sp_unwind__started() on.
 * Nothing when all is well; u may be NULL. */
void sp_unwind__print_summary(struct sp_unwind *u, FILE *f);
/* The -c command has exec'd and its tables are in: stacks cut before
 * (samples of the child while it still ran sprof's own image, inside
 * execve, whose tables are not wanted) lost nothing of the program and
 * are not reported. u may be NULL. */
void sp_unwind__started(struct sp_unwind *u);

#endif
