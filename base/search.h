/* base/search.h: the one "last entry at or below" search.
 *
 * Symbol tables, line tables, unwind rows, perf maps and process mappings
 * are arrays sorted by a 64-bit start address; a lookup wants the last
 * entry whose start is <= the address (then checks its end). SP_FLOOR
 * names the array and the key field:
 *
 *     long i = SP_FLOOR(t->rows, t->n, pc, pc_wanted);   (-1: none)
 */
#ifndef SPROF_BASE_SEARCH_H
#define SPROF_BASE_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Index of the last element whose u64 at byte offset `off` is <= key in an
 * array of n elements of `size` bytes sorted by it, or -1. */
static inline long sp_floor_u64(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;

		memcpy(&v, (const char *)base + mid * size + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* The key field must be 64 bits wide (a compile error otherwise). */
#define SP_FLOOR(arr, n, field, key)                                                        \
	(sp_floor_u64((arr), (size_t)(n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), \
		      (key)) +                                                              \
	 0 * (long)sizeof(char[sizeof((arr)->field) == 8 ? 1 : -1]))

#endif
