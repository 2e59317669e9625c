/* runtime/elf_lines.c: DWARF .debug_line reader (see elf_lines.h). */
#include "elf_lines.h"

#include <stdlib.h>

struct sp_lines {
	int n;
};

struct sp_lines *sp_lines__load(Elf *elf)
{
	return NULL;
}

bool sp_lines__find(const struct sp_lines *l, uint64_t vaddr, const char **file, int *line)
{
	return false;
}

void sp_lines__free(struct sp_lines *l)
{
	free(l);
}
