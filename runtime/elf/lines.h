/* runtime/elf/lines.h: address -> source file:line from DWARF .debug_line.
 *
 * A small reader of the line-number programs (DWARF 2 to 5) of one ELF
 * file, run once on first use into a sorted row table, so pprof locations
 * can carry line numbers. Inlined frames are not expanded here: the row
 * gives the innermost source position of an address, and
 * runtime/elf/inlines.h the functions inlined there with their call lines.
 */
#ifndef SPROF_RUNTIME_ELF_LINES_H
#define SPROF_RUNTIME_ELF_LINES_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

struct sp_lines;

/* NULL when the file has no (readable) .debug_line. */
struct sp_lines *sp_lines__load(Elf *elf);
bool sp_lines__find(const struct sp_lines *l, uint64_t vaddr, const char **file, int *line);
void sp_lines__free(struct sp_lines *l); /* accepts NULL */
/* Lexical path clean-up in place ("./a/../b/./c" -> "b/c"), as Go's path.Clean. */
void sp_lines__clean_path(char *p);

#endif
