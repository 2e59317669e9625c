/* tests/unit/test_pylines.c: CPython line-table decoding against the interpreters' own answers.
 *
 * The tables and the expected (start, end, line) ranges are what
 * CPython 3.10.13, 3.11.7, 3.12.1 and 3.13.0 print for the same function
 * (co_linetable and co_lines()), and 3.8.18/3.9.18 (co_lnotab and
 * dis.findlinestarts()); every code unit of each range must decode to its
 * line, and corrupt or short tables must give 0, never garbage.
 *
 *   def f(n):              # line 2
 *       x = 0
 *       for i in range(n):
 *           if i % 3 == 0:
 *               x += i
 *           else:
 *               x -= 1
 *
 *
 *       return (x +
 *               1)
 */
#include <string.h>

#include "runtime/langs/pylines.h"
#include "tests/unit/check.h"

struct range { uint32_t start, end; int line; };

/* 3.8 and 3.9 print the same co_lnotab */
static const uint8_t t39[] = { 0, 1, 4, 1, 12, 1, 12, 1, 10, 2, 10, 3, 2, 1, 2, 255 };
static const struct range r39[] = { { 0, 4, 3 }, { 4, 16, 4 }, { 16, 28, 5 }, { 28, 38, 6 },
	{ 38, 48, 8 }, { 48, 50, 11 }, { 50, 52, 12 }, { 52, 56, 11 } };

static const uint8_t t310[] = { 4, 1, 12, 1, 12, 1, 10, 1, 10, 2, 2, 3, 2, 1, 4, 255 };
static const struct range r310[] = { { 0, 4, 3 }, { 4, 16, 4 }, { 16, 28, 5 }, { 28, 38, 6 },
	{ 38, 48, 8 }, { 48, 50, 11 }, { 50, 52, 12 }, { 52, 56, 11 } };

static const uint8_t t311[] = { 128, 0, 216, 8, 9, 128, 65, 221, 13, 18, 144, 49, 137, 88, 140,
	88, 240, 0, 4, 5, 19, 240, 0, 4, 5, 19, 136, 1, 216, 11, 12, 136, 113, 137, 53, 144, 65,
	138, 58, 136, 58, 216, 12, 13, 144, 17, 137, 70, 136, 65, 136, 65, 224, 12, 13, 144, 17,
	137, 70, 136, 65, 136, 65, 240, 6, 0, 13, 14, 216, 12, 13, 241, 3, 1, 13, 14, 240, 0, 1,
	5, 15 };
static const struct range r311[] = { { 0, 2, 2 }, { 2, 6, 3 }, { 6, 40, 4 }, { 40, 58, 5 },
	{ 58, 70, 6 }, { 70, 82, 8 }, { 82, 84, 11 }, { 84, 86, 12 }, { 86, 92, 11 } };

static const uint8_t t312[] = { 128, 0, 216, 8, 9, 128, 65, 220, 13, 18, 144, 49, 139, 88, 242,
	0, 4, 5, 19, 136, 1, 216, 11, 12, 136, 113, 137, 53, 144, 65, 138, 58, 216, 12, 13, 144,
	17, 137, 70, 137, 65, 224, 12, 13, 144, 17, 137, 70, 137, 65, 240, 9, 4, 5, 19, 240, 14, 0,
	13, 14, 216, 12, 13, 241, 3, 1, 13, 14, 240, 0, 1, 5, 15 };
static const struct range r312[] = { { 0, 2, 2 }, { 2, 6, 3 }, { 6, 34, 4 }, { 34, 50, 5 },
	{ 50, 62, 6 }, { 62, 74, 8 }, { 74, 76, 4 }, { 76, 78, 11 }, { 78, 80, 12 }, { 80, 86, 11 } };

static const uint8_t t313[] = { 128, 0, 216, 8, 9, 128, 65, 220, 13, 18, 144, 49, 142, 88, 136,
	1, 216, 11, 12, 136, 113, 137, 53, 144, 65, 139, 58, 216, 12, 13, 137, 70, 138, 65, 224, 12,
	13, 144, 17, 137, 70, 138, 65, 241, 9, 0, 14, 22, 240, 14, 0, 13, 14, 216, 12, 13, 241, 3, 1,
	13, 14, 240, 0, 1, 5, 15 };
static const struct range r313[] = { { 0, 2, 2 }, { 2, 6, 3 }, { 6, 34, 4 }, { 34, 52, 5 },
	{ 52, 64, 6 }, { 64, 78, 8 }, { 78, 82, 4 }, { 82, 84, 11 }, { 84, 86, 12 }, { 86, 92, 11 } };

/* Every code unit of every range, and the first unit past the table. */
static void check_table(int minor, const uint8_t *t, size_t len, const struct range *r, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (uint32_t b = r[i].start; b < r[i].end; b += 2) {
			int got = sp_py_line(minor, t, len, 2, b / 2);

			CHECK(got == r[i].line, "3.%d: offset %u: line %d, want %d", minor, b, got,
			      r[i].line);
		}
	/* 3.8/3.9 keep the last line past the end, like PyCode_Addr2Line */
	CHECK(sp_py_line(minor, t, len, 2, r[nr - 1].end / 2) == (minor <= 9 ? r[nr - 1].line : 0),
	      "3.%d: past the end", minor);
}

/* Cut tables and bytes that are no entry start give 0 or a line of the
 * table, never read past the end. */
static void check_corrupt(void)
{
	uint8_t bad[sizeof(t311)];

	for (size_t cut = 0; cut < sizeof(t311); cut++)
		for (uint32_t u = 0; u < 50; u++) {
			int l = sp_py_line(11, t311, cut, 2, u);

			CHECK(l == 0 || (l >= 2 && l <= 12), "cut %zu unit %u: line %d", cut, u, l);
		}
	memcpy(bad, t311, sizeof(bad));
	bad[0] = 0x05; /* no entry-start bit */
	CHECK(sp_py_line(11, bad, sizeof(bad), 2, 0) == 0, "corrupt first byte gives 0");
	CHECK(sp_py_line(11, NULL, 0, 2, 0) == 0, "no table gives 0");
	CHECK(sp_py_line(10, t310, 1, 2, 0) == 0, "half a 3.10 pair gives 0");
}

int main(void)
{
	check_table(8, t39, sizeof(t39), r39, sizeof(r39) / sizeof(r39[0]));
	check_table(9, t39, sizeof(t39), r39, sizeof(r39) / sizeof(r39[0]));
	check_table(10, t310, sizeof(t310), r310, sizeof(r310) / sizeof(r310[0]));
	check_table(11, t311, sizeof(t311), r311, sizeof(r311) / sizeof(r311[0]));
	check_table(12, t312, sizeof(t312), r312, sizeof(r312) / sizeof(r312[0]));
	check_table(13, t313, sizeof(t313), r313, sizeof(r313) / sizeof(r313[0]));
	check_corrupt();
	printf("test_pylines: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
