/* runtime/symbolize.h: addresses -> symbol+offset, for live and exited processes.
 *
 * A process's mappings are recorded, and its files opened, the first time
 * its samples appear (sp_symbolizer__add_pid), so it can be symbolized after
 * it exited. Symbol tables are cached per file (device, inode): many
 * processes of one binary share one table. Kernel addresses come from
 * /proc/kallsyms, read once on first use.
 *
 * Strings in returned frames are owned by the symbolizer and live until
 * sp_symbolizer__destroy().
 */
#ifndef SPROF_RUNTIME_SYMBOLIZE_H
#define SPROF_RUNTIME_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

struct sp_symbolizer;

struct sp_symbolizer *sp_symbolizer__open(void);
void sp_symbolizer__destroy(struct sp_symbolizer *s); /* accepts NULL */

/* Record PID's mappings now and keep their files open. Idempotent; call
 * again with refresh=true to pick up new mappings (dlopen, exec). Returns 0
 * or -errno (-ESRCH when the process is gone). */
int sp_symbolizer__add_pid(struct sp_symbolizer *s, pid_t pid, bool refresh);

/* Fill `out` for a user address of `pid`. `leaf` is false for return
 * addresses, which are looked up at addr - 1. Unresolved frames keep
 * sym == NULL and get kind SP_FRAME_UNKNOWN. Never fails. */
void sp_symbolize_user(struct sp_symbolizer *s, pid_t pid, uint64_t addr, bool leaf,
		       struct sp_frame *out);
void sp_symbolize_kernel(struct sp_symbolizer *s, uint64_t addr, bool leaf,
			 struct sp_frame *out);
/* Address of a symbol in a file ("uaddr"); 0 when absent. The address is the
 * ELF virtual address (st_value); the name may be mangled or demangled. */
uint64_t sp_symbolizer__lookup_name(struct sp_symbolizer *s, const char *path, const char *name);

/* C++ names are demangled by default (bpftrace's cpp_demangle=1). */
void sp_symbolizer__set_demangle(struct sp_symbolizer *s, bool on);

struct sp_symbolizer_stats {
	int procs;      /* processes recorded (alive or not) */
	int files;      /* distinct files opened (device, inode, size, mtime) */
	int elf_files;  /* of which usable ELF files */
};
void sp_symbolizer__stats(const struct sp_symbolizer *s, struct sp_symbolizer_stats *st);

#endif
