/* parser/types/listargs.h: `-lv`'s argument listing, read from the same BTF
 * and DWARF the type readers use (ctypes_btf.c, ctypes_dwarf.c). The front
 * end's face (parser/frontend.h) hands it on to the driver.
 */
#ifndef SPROF_PARSER_TYPES_LISTARGS_H
#define SPROF_PARSER_TYPES_LISTARGS_H

#include <stdio.h>

/* `-lv`: prints the parameters of `func` in `binary` from its DWARF, one
 * "    TYPE NAME" line each (bpftrace's listing). 0 or -errno. */
int sp_dwarf_list_params(const char *binary, const char *func, FILE *out);
/* The same for a uprobe (binary set) or, with binary NULL, the arguments
 * of raw tracepoint `func` from the kernel's BTF, with binary "[kernel]"
 * those of kernel function `func` and its return type: the listing's hook; ctx
 * is an sp_arglister (which keeps BTF loaded between calls). */
struct sp_arglister;
struct sp_arglister *sp_arglister_new(void); /* NULL and errno on failure */
void sp_arglister_free(struct sp_arglister *l); /* accepts NULL */
int sp_list_args(void *ctx, const char *binary, const char *func, FILE *out);

#endif
