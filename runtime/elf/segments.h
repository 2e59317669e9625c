/* runtime/elf/segments.h: which PT_LOAD segment a /proc/PID/maps mapping shows, and its bias.
 *
 * The kernel maps each PT_LOAD at page-aligned (p_vaddr, p_offset), so a
 * mapping's pgoff is its segment's p_offset rounded down to a page (or
 * beyond it, when the mapping was split). GNU ld pads the file so that
 * p_vaddr - p_offset is 0 for every segment; lld (the default linker of
 * Rust, clang -fuse-ld=lld) packs segments and the text segment has
 * p_vaddr - p_offset = 0x1000 or more. Then the read-only segment before
 * the text often covers the text mapping's pgoff too (its bytes run up to
 * the text's first page): the segment to take is the one with the
 * mapping's permissions (executable for code), not the first one holding
 * pgoff.
 *
 *   file offset  = pc - start + pgoff
 *   ELF vaddr    = file offset - p_offset + p_vaddr
 *   bias         = start - pgoff + p_offset - p_vaddr   (pc = vaddr + bias)
 */
#ifndef SPROF_RUNTIME_ELF_SEGMENTS_H
#define SPROF_RUNTIME_ELF_SEGMENTS_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

struct sp_segment {
	uint64_t off, vaddr, filesz;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};

#define SP_MAX_SEGMENTS 16

/* The PT_LOAD segments of elf, in file order, at most `max`; their number. */
int sp_segments__read(Elf *elf, struct sp_segment *segs, int max);
/* The segment a mapping at file offset pgoff shows: among segments whose
 * page-aligned range holds pgoff, the first executable one when `exec`,
 * else the first. NULL when none holds it. */
const struct sp_segment *sp_segments__for_map(const struct sp_segment *segs, int n, uint64_t pgoff,
					      bool exec);
/* The load bias of a mapping at `start` with file offset pgoff showing
 * segment s: pc = vaddr + bias. */
static inline uint64_t sp_segment__bias(const struct sp_segment *s, uint64_t start, uint64_t pgoff)
{
	return start - pgoff + s->off - s->vaddr;
}

#endif
