/* runtime/elf/inlines.h: the functions inlined at an address, from DWARF .debug_info.
 *
 * A compiler that inlines g into f leaves one machine function, f, and one
 * symbol; .debug_info keeps the nesting as DW_TAG_inlined_subroutine entries
 * (with the call site, DW_AT_call_file/DW_AT_call_line) inside f's
 * DW_TAG_subprogram. This reader answers "which functions are inlined at
 * this address, innermost first, and from which line was each called", the
 * way perf and addr2line -i print inline frames. It reads through libdw,
 * once per file (the caller keeps the object per file: runtime/elf/syms.c),
 * and remembers every answer per address. A file without .debug_info, or
 * with DWARF libdw refuses, answers "none".
 */
#ifndef SPROF_RUNTIME_ELF_INLINES_H
#define SPROF_RUNTIME_ELF_INLINES_H

#include <libelf.h>
#include <stdint.h>

/* Deepest inline nesting reported at one address (the innermost levels
 * are kept). */
#define SP_INLINE_MAX 32

/* One inlined call, innermost first. name is the source name (DW_AT_name);
 * linkage the mangled name when DWARF gives one (C++, Rust), else NULL.
 * call_file:call_line is where the next outer level called this one (0:
 * unknown). Strings are owned by the sp_inlines. */
struct sp_inline {
	const char *name;
	const char *linkage;
	const char *demangled; /* linkage demangled (runtime/elf/syms.h), or NULL */
	const char *call_file;
	int call_line;
};

struct sp_inlines;

/* NULL when elf has no .debug_info libdw can read, or names a dwz file
 * (.gnu_debugaltlink) that cannot be found the safe way. `path`: the
 * file's name, for a dwz file named relative to it; NULL when unknown. */
struct sp_inlines *sp_inlines__load(Elf *elf, const char *path);
/* The inline chain at ELF virtual address vaddr into out[0..max-1],
 * innermost first; returns how many (0: none inlined there). */
int sp_inlines__find(struct sp_inlines *in, uint64_t vaddr, struct sp_inline *out, int max);
void sp_inlines__free(struct sp_inlines *in); /* accepts NULL */

#endif
