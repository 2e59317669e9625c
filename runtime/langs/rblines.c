/* runtime/langs/rblines.c: Ruby 3.1 succ_index_table rank and iseq lines (see rblines.h).
 *
 * Layout (iseq.c, Ruby 3.1): six u64 words hold the ranks of positions
 * 0-53, 7 bits each, nine per word (fewer words for a shorter iseq); then one block per 512 positions:
 * u32 rank before the block (padded to 8), u64 of seven 9-bit ranks of the
 * 64-bit sub-blocks 1-7 (sub-block 0: 0), eight u64 bit words.
 */
#include "runtime/langs/rblines.h"

#include <string.h>

#define IMM_SIZE 54
#define IMM_BYTES (IMM_SIZE / 9 * 8)
#define BLOCK_BITS 512
#define BLOCK_BYTES (8 + 8 + BLOCK_BITS / 8)

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* As succ_index_table_create() allocates it: fewer rank words when the
 * iseq is shorter than the immediate part. */
size_t sp_rb_succ_size(uint32_t iseq_size)
{
	if (iseq_size < IMM_SIZE)
		return (iseq_size + 8) / 9 * 8;
	return IMM_BYTES + (size_t)((iseq_size - IMM_SIZE + BLOCK_BITS - 1) / BLOCK_BITS) * BLOCK_BYTES;
}

int sp_rb_succ_rank(const uint8_t *tab, size_t len, uint32_t x)
{
	size_t b;
	uint32_t rank, bit, sub;
	uint64_t small, bits;

	if (x < IMM_SIZE) {
		if (len < (size_t)(x / 9 + 1) * 8)
			return -1;
		return (int)((u64_at(tab, x / 9 * 8) >> (x % 9 * 7)) & 0x7f);
	}
	b = IMM_BYTES + (size_t)((x - IMM_SIZE) / BLOCK_BITS) * BLOCK_BYTES;
	if (len < b + BLOCK_BYTES)
		return -1;
	bit = (x - IMM_SIZE) % BLOCK_BITS;
	sub = bit / 64;
	memcpy(&rank, tab + b, sizeof(rank));
	small = u64_at(tab, b + 8);
	bits = u64_at(tab, b + 16 + sub * 8) << (63 - bit % 64);
	return (int)(rank + (sub ? (uint32_t)((small >> ((sub - 1) * 9)) & 0x1ff) : 0) +
		     (uint32_t)__builtin_popcountll(bits));
}

int sp_rb_line(const uint8_t *entries, uint32_t n, const uint8_t *succ, size_t succlen,
	       uint32_t off)
{
	uint32_t pos = off ? off - 1 : 0;
	int idx = 1, line;

	if (!entries || n == 0)
		return 0;
	if (n > 1)
		idx = succ ? sp_rb_succ_rank(succ, succlen, pos) : -1;
	if (idx < 1 || (uint32_t)idx > n)
		return 0;
	memcpy(&line, entries + (size_t)(idx - 1) * SP_RB_INSN_INFO_SIZE, sizeof(line));
	return line > 0 ? line : 0;
}
