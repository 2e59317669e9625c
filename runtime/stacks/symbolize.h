/* runtime/stacks/symbolize.h: addresses -> symbol+offset, for live and exited processes.
 *
 * A process's mappings are recorded, and its files opened, the first time
 * its samples appear (sp_symbolizer__add_pid), so it can be symbolized after
 * it exited. Symbol tables are cached per file (device, inode, size, mtime):
 * many processes of one binary share one table. Kernel addresses come from
 * /proc/kallsyms, read once on first use.
 *
 * Sources, in order: the file's .symtab and .dynsym; for stripped files a
 * debug file by build id or .gnu_debuglink (build id or CRC checked), else
 * MiniDebugInfo; [vdso] from sprof's own vDSO; JIT code (anonymous or
 * non-ELF executable memory, or any address no file symbol covers) from
 * /tmp/perf-PID.map (runtime/stacks/perfmap.h): opened at add time, read
 * again when a lookup misses and the file changed, also after exit.
 * Frames get sym+off, module (path, "[vdso]", the perf map, or
 * "[kernel.kallsyms]"/the kernel module), build_id (kernel: vmlinux's or the
 * module's), the mapping and file_off, and srcfile:srcline when the file
 * has DWARF line tables; sp_symbolize_user_inline() adds the functions
 * inlined at the address from .debug_info.
 *
 * Strings in returned frames are owned by the symbolizer and live until
 * sp_symbolizer__destroy(). Opening raises RLIMIT_NOFILE's soft limit to
 * the hard one: every recorded file is an open descriptor.
 */
#ifndef SPROF_RUNTIME_STACKS_SYMBOLIZE_H
#define SPROF_RUNTIME_STACKS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct sp_symbolizer;

struct sp_symbolizer *sp_symbolizer__open(void);
/* The same over a cache of object files shared with others (the unwinder,
 * runtime/elf/objcache.h), which must outlive the symbolizer; NULL: own one. */
struct sp_objcache;
struct sp_symbolizer *sp_symbolizer__open_shared(struct sp_objcache *objs);
/* Its cache of object files, to share with the unwinder (sp_unwind__share_objcache). */
struct sp_objcache *sp_symbolizer__objcache(struct sp_symbolizer *s);
void sp_symbolizer__destroy(struct sp_symbolizer *s); /* accepts NULL */

/* Record PID's mappings now and keep their files open. Idempotent; call
 * again with refresh=true to pick up new mappings (dlopen, exec): the older
 * mappings stay searchable for stacks taken before. Returns 0 or -errno
 * (-ESRCH when the process is gone). */
int sp_symbolizer__add_pid(struct sp_symbolizer *s, pid_t pid, bool refresh);
/* The same from a snapshot someone else read (runtime/process.h):
 * `err` is the read's result (-ESRCH: gone; pm is then not used). */
struct sp_procmaps;
int sp_symbolizer__add_maps(struct sp_symbolizer *s, pid_t pid, const struct sp_procmaps *pm,
			    int err);
/* True once pid was added (alive or not). */
bool sp_symbolizer__has_pid(struct sp_symbolizer *s, pid_t pid);

/* Fill `out` for a user address of `pid`. `leaf` is false for return
 * addresses, which are looked up at addr - 1 (off stays addr - symbol).
 * Unresolved frames keep sym == NULL and get kind SP_FRAME_UNKNOWN; module
 * is set when addr is inside a known mapping. A pid never added is added
 * on the fly; an address in no mapping of a live process re-reads its maps
 * (at most every 100 ms). Never fails. */
void sp_symbolize_user(struct sp_symbolizer *s, pid_t pid, uint64_t addr, bool leaf,
		       struct sp_frame *out);
/* The same with the functions inlined at addr (runtime/elf/inlines.h)
 * before it, as perf prints them: out[0 .. n-2] the inlined ones,
 * innermost first (inlined = true, sym their name, srcline the line each
 * runs at), out[n-1] the function itself, its srcline the call site of
 * the outermost inlined one. Returns n, 1 to max (max >= 1); 1 when
 * nothing is inlined there or inline frames are off. */
int sp_symbolize_user_inline(struct sp_symbolizer *s, pid_t pid, uint64_t addr, bool leaf,
			     struct sp_frame *out, int max);
/* Start reading /proc/kallsyms in a thread now (~50 ms of kernel time), so
 * the first sp_symbolize_kernel() at print time does not wait for it. Call
 * after the BPF programs are loaded (their symbols are in kallsyms too).
 * Optional; returns 0 or -errno. */
int sp_symbolizer__preload_kernel(struct sp_symbolizer *s);
/* Kernel address: kind SP_FRAME_KERNEL when resolved, else UNKNOWN. */
void sp_symbolize_kernel(struct sp_symbolizer *s, uint64_t addr, bool leaf,
			 struct sp_frame *out);
/* Address of a symbol in a file ("uaddr"); 0 when absent. The address is the
 * ELF virtual address (st_value); the name may be mangled or demangled. */
uint64_t sp_symbolizer__lookup_name(struct sp_symbolizer *s, const char *path, const char *name);

/* C++ names are demangled by default (bpftrace's cpp_demangle=1). */
void sp_symbolizer__set_demangle(struct sp_symbolizer *s, bool on);
/* Inline frames are on by default (perf's default; --no-inline). */
void sp_symbolizer__set_inline(struct sp_symbolizer *s, bool on);
/* Who forked a process (its fork record: runtime/stacks/unwind.h's
 * sp_unwind__parent), for a child gone before its mappings were read: it
 * ran its parent's code, so its addresses are named by the parent's. */
void sp_symbolizer__set_parent_of(struct sp_symbolizer *s, pid_t (*parent_of)(void *ctx, pid_t pid),
				  void *ctx);

/* A long run (--continuous), between two reports: forgets processes found
 * gone at least grace_ns ago (their mappings, perf map), then frees the
 * object files no process holds but the most recently released ones, at
 * most keep_files of them and keep_bytes of file size (sp_objcache__trim).
 * Frames returned before die. Returns the processes forgotten. */
int sp_symbolizer__evict(struct sp_symbolizer *s, uint64_t grace_ns, int keep_files,
			 size_t keep_bytes);

struct sp_symbolizer_stats {
	int procs;      /* processes recorded (alive or not) */
	int files;      /* distinct files opened (device, inode, size, mtime) */
	int elf_files;  /* of which usable ELF files */
	int held_files; /* files open now */
	int evicted_files; /* files closed by sp_symbolizer__evict() */
};
void sp_symbolizer__stats(const struct sp_symbolizer *s, struct sp_symbolizer_stats *st);

#endif
