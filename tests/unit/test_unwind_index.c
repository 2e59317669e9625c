/* tests/unit/test_unwind_index.c: the unwinder's bucket index (abi/unwind_table.h).
 *
 * BPF finds a pc's row through the file's bucket index: the offsets of the
 * rows starting in the pc's 128-byte bucket, counted without a search
 * (sp_unw_bucket_row(), the code BPF runs), or a search of the bucket's
 * rows when it holds too many. Here, for every row pc of libc and of a
 * hand-made table (a bucket with more rows than offsets, rows at bucket
 * edges, gaps of empty buckets), the row the index gives must be the one
 * a binary search of all rows gives.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/unwind_table.h"
#include "runtime/elf/ehframe.h"
#include "runtime/stacks/unwind.h"
#include "tests/unit/check.h"

/* The last row with pc <= rel: what the index must give. */
static uint32_t search_all(const struct sp_unw_row *rows, uint32_t n, uint64_t rel)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rows[mid].pc <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* As BPF: the bucket's count, else a search of its rows lo..hi. */
static uint32_t by_index(const struct sp_unw_row *rows, const struct sp_unw_bucket *idx,
			 uint64_t rel, int *searched)
{
	const struct sp_unw_bucket *e = &idx[rel >> SP_UNW_PIDX_SHIFT];
	int64_t r = sp_unw_bucket_row(e, rel);

	if (r >= 0)
		return (uint32_t)r;
	++*searched;
	return e->lo + search_all(rows + e->lo, e->hi - e->lo + 1, rel);
}

/* Every pc from 0 to past the last row; the number of mismatches. */
static int check_table(const char *what, const struct sp_unw_row *rows, uint32_t n)
{
	uint64_t nb = sp_unw_index_size(rows, n), end = rows[n - 1].pc + 300, bad = 0;
	struct sp_unw_bucket *idx = calloc(nb, sizeof(*idx));
	int searched = 0;

	if (!idx)
		return -1;
	sp_unw_index_build(rows, n, idx);
	for (uint64_t rel = 0; rel < end; rel++) {
		uint32_t want = search_all(rows, n, rel), got;

		if ((rel >> SP_UNW_PIDX_SHIFT) >= nb) /* past the index: BPF searches all rows */
			continue;
		got = by_index(rows, idx, rel, &searched);
		if (got != want && bad++ < 5)
			printf("  %s: pc %#" PRIx64 ": row %u by the index, %u by search\n", what, rel,
			       got, want);
	}
	check(bad == 0, "%s: %u rows, %" PRIu64 " buckets: every pc's row by the index "
	      "(%d lookups searched a full bucket)", what, n, nb, searched);
	free(idx);
	return (int)bad;
}

static void test_synthetic(void)
{
	static const uint32_t pcs[] = {
		0, 1, 5, 127, 128, 129,                      /* edges of buckets 0 and 1 */
		300, 301, 302, 303, 304, 305, 306, 307, 308, /* 12 rows in bucket 2 */
		309, 310, 311,
		384,                                         /* at a bucket's start */
		2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007, /* exactly 8 after the first */
		2008,
		9000,                                        /* after empty buckets */
	};
	uint32_t n = sizeof(pcs) / sizeof(pcs[0]);
	struct sp_unw_row rows[sizeof(pcs) / sizeof(pcs[0])];

	for (uint32_t i = 0; i < n; i++)
		rows[i] = (struct sp_unw_row){ .pc = pcs[i], .cfa_off = (int16_t)i };
	check_table("hand-made table", rows, n);
}

static void test_libc(void)
{
	static const char *const paths[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					     "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	struct sp_eh_table t;
	struct sp_unw_row *rows;
	int fd = -1;
	Elf *elf;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && fd < 0; i++)
		fd = open(paths[i], O_RDONLY | O_CLOEXEC);
	check(fd >= 0, "libc found");
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	check(elf && sp_eh_table__from_elf(&t, elf) == 0, "libc's table parsed");
	if (elf)
		elf_end(elf);
	close(fd);
	rows = calloc((size_t)t.n, sizeof(*rows));
	if (!rows)
		return;
	/* as runtime/stacks/unwind.c stores them: pcs from the first row's */
	for (int i = 0; i < t.n; i++)
		rows[i] = (struct sp_unw_row){ .pc = (uint32_t)(t.rows[i].pc - t.rows[0].pc) };
	check_table("libc", rows, (uint32_t)t.n);
	free(rows);
	sp_eh_table__free(&t);
}

int main(void)
{
	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_synthetic();
	test_libc();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
