/* runtime/elf/syms.h: one ELF file's function symbols, load segments and build id.
 *
 * An sp_elf is opened from a file descriptor the symbolizer already holds
 * (taken from /proc/PID/map_files while the process was alive), so it never
 * needs the process again. Cheap facts (PT_LOAD segments, GNU build id, the
 * separate debug file of a stripped binary) are read at open time; the symbol
 * table is built on first lookup: .symtab and .dynsym merged, functions only,
 * sorted by address. Names point into the section data libelf read (with
 * pread: a file truncated meanwhile fails a read, never raises SIGBUS), or
 * into demangled copies made on first use. Files are opened with
 * sp_file_open (runtime/elf/file.h): no FIFOs, no devices, size-capped.
 */
#ifndef SPROF_RUNTIME_ELF_SYMS_H
#define SPROF_RUNTIME_ELF_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_elf;

enum sp_sym_kind {
	SP_SYM_FUNC,  /* FUNC or IFUNC: named, attached to, symbolized */
	SP_SYM_LABEL, /* an untyped symbol in code (ld.so's `_start`, assembly): names only */
	SP_SYM_PLT,   /* a PLT stub, "memcpy@plt", made from the PLT relocations: names only */
};

struct sp_elf_sym {
	uint64_t addr, size;   /* ELF virtual address; size 0 = unknown */
	const char *name;      /* as in the file (mangled) */
	char *demangled;       /* made on first use; NULL when not C++/Rust */
	uint8_t bind, tried_demangle;
	uint8_t kind;          /* enum sp_sym_kind: only FUNC is looked up by name */
};

/* Takes ownership of `fd`. `path` is the path the process used (for
 * .gnu_debuglink lookups), `root` a prefix to try first ("/proc/PID/root")
 * or NULL. Returns NULL and sets errno when the file is not a usable ELF. */
struct sp_elf *sp_elf__open_fd(int fd, const char *path, const char *root);
/* A file by path, with its debug file or MiniDebugInfo as for open_fd.
 * NULL and errno set (ENOEXEC: not an ELF). */
struct sp_elf *sp_elf__open_path(const char *path);
/* An in-memory image (the vDSO); the buffer is copied. */
struct sp_elf *sp_elf__open_mem(const void *image, size_t size, const char *name);
void sp_elf__destroy(struct sp_elf *e); /* accepts NULL */

/* The libelf handle of the file itself (for .eh_frame), or NULL. */
struct Elf;
struct Elf *sp_elf__libelf(const struct sp_elf *e);
/* Hex GNU build id, or NULL when the file has none. */
const char *sp_elf__build_id(const struct sp_elf *e);
/* File offset -> ELF virtual address through the PT_LOAD segment holding it. */
bool sp_elf__foff_to_vaddr(const struct sp_elf *e, uint64_t foff, uint64_t *vaddr);
/* The function containing `vaddr`, or NULL. Builds the table on first use. */
struct sp_elf_sym *sp_elf__find(struct sp_elf *e, uint64_t vaddr);
/* Demangled name when the symbol is C++ or Rust, else its name. */
const char *sp_elf_sym__name(struct sp_elf_sym *s);
/* Virtual address of a function by mangled or demangled name; 0 when absent. */
uint64_t sp_elf__lookup_name(struct sp_elf *e, const char *name);
/* Source file and line of `vaddr` from .debug_line; false when unknown. */
bool sp_elf__find_line(struct sp_elf *e, uint64_t vaddr, const char **file, int *line);
/* The functions inlined at `vaddr`, innermost first, from .debug_info
 * (runtime/elf/inlines.h; read on first use from the debug file when there
 * is one); returns how many were written to out (at most max). */
struct sp_inline;
int sp_elf__find_inlines(struct sp_elf *e, uint64_t vaddr, struct sp_inline *out, int max);
/* Number of function symbols (loads the table) and the i-th, by address
 * (aliases included: every name of a function is listed). */
int sp_elf__nsyms(struct sp_elf *e);
struct sp_elf_sym *sp_elf__sym(struct sp_elf *e, int i);
/* ET_EXEC: symbol addresses are absolute (not PIE). */
bool sp_elf__is_exec(const struct sp_elf *e);
/* ELF virtual address -> file offset through the PT_LOAD holding it (only
 * executable segments when `code`). 0 or -ENOENT. */
int sp_elf__vaddr_to_foff(const struct sp_elf *e, uint64_t vaddr, bool code, uint64_t *foff);
/* Address of any defined symbol (function or object) by exact name, from
 * the file, its debug file or MiniDebugInfo. 0 or -ENOENT. */
int sp_elf__symbol_vaddr(struct sp_elf *e, const char *name, uint64_t *vaddr);
/* The same, with the symbol's size (0: not recorded). */
int sp_elf__symbol(struct sp_elf *e, const char *name, uint64_t *vaddr, uint64_t *size);

#endif
