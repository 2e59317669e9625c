/* runtime/elf/segments.c: PT_LOAD segments and the one a mapping shows (see segments.h). */
#include "runtime/elf/segments.h"

#include <gelf.h>
#include <stddef.h>

int sp_segments__read(Elf *elf, struct sp_segment *segs, int max)
{
	size_t n;
	int k = 0;

	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n && k < max; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		segs[k++] = (struct sp_segment){ ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_flags };
	}
	return k;
}

static bool holds(const struct sp_segment *s, uint64_t pgoff)
{
	return pgoff >= (s->off & ~0xfffull) && pgoff < s->off + s->filesz;
}

const struct sp_segment *sp_segments__for_map(const struct sp_segment *segs, int n, uint64_t pgoff,
					      bool exec)
{
	const struct sp_segment *any = NULL;

	for (int i = 0; i < n; i++) {
		if (!holds(&segs[i], pgoff))
			continue;
		if (!exec || (segs[i].flags & PF_X))
			return &segs[i];
		if (!any)
			any = &segs[i];
	}
	return any;
}
