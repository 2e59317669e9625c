/* runtime/elf/funcs.h: one ELF file's function symbols by name, for attaching.
 *
 * A view over the symbol table runtime/elf/syms.c reads for the symbolizer
 * (.symtab and .dynsym merged, plus the separate debug file or MiniDebugInfo
 * of a stripped binary), sorted by name and carrying the file offsets the
 * kernel's uprobe API takes. So a uprobe can attach to every function the
 * symbolizer can name, and a wildcard over hundreds of functions costs one
 * parse, not one per probe. Matching is by glob against the mangled name,
 * the demangled name, or the demangled name without its parameter list.
 */
#ifndef SPROF_RUNTIME_ELF_FUNCS_H
#define SPROF_RUNTIME_ELF_FUNCS_H

#include <stdbool.h>
#include <stdint.h>

struct sp_func {
	char *name;       /* as in the symbol table (mangled) */
	char *demangled;  /* made on first use (sp_func_demangled); NULL when not C++/Rust */
	bool tried_demangle;
	uint64_t vaddr;   /* ELF virtual address */
	uint64_t size;
	uint64_t foff;    /* file offset, what uprobes take */
};

struct sp_funcs {
	struct sp_func *v; /* sorted by name, one entry per (name, address) */
	int n;
	bool is_exec;      /* ET_EXEC: vaddr is absolute */
};

/* Read the function symbols of an ELF file (and its debug file). 0, -ENOENT,
 * or -ENOEXEC when not an ELF. */
int sp_funcs__load(struct sp_funcs *f, const char *path);
void sp_funcs__free(struct sp_funcs *f);
/* True when `pat` (a glob) names `fn`: mangled, demangled or demangled without "(...)". */
bool sp_func_matches(struct sp_func *fn, const char *pat);
/* The demangled name of a C++ or Rust symbol (made on first use), or NULL. */
const char *sp_func_demangled(struct sp_func *fn);
/* The symbol named exactly `name` (mangled or demangled), or NULL. */
struct sp_func *sp_funcs__find(struct sp_funcs *f, const char *name);
/* ELF virtual address -> file offset through the executable PT_LOAD
 * segments (code), or any PT_LOAD segment (data: USDT semaphores). 0 or -ENOENT. */
int sp_elf_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff);
int sp_elf_data_vaddr_to_foff(const char *path, uint64_t vaddr, uint64_t *foff);
/* Address of any defined symbol (object or function) by name. 0 or -ENOENT. */
int sp_elf_symbol_vaddr(const char *path, const char *name, uint64_t *vaddr);
/* Its size in bytes (0: not recorded). 0 or -ENOENT. */
int sp_elf_symbol_size(const char *path, const char *name, uint64_t *size);

#endif
