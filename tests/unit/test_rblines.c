/* tests/unit/test_rblines.c: Ruby 3.1 iseq line info against the interpreter's own answers.
 *
 * The succ_index_table bytes and the insns_info lines were read out of a
 * running Debian Ruby 3.1.2 (process memory, offsets of
 * runtime/langs/ruby.c) for this method of 150 instruction words; the
 * expected (instruction start, line) pairs are what
 * RubyVM::InstructionSequence#to_a prints for it. Every word of every
 * instruction must decode to its line (a frame's pc points after its
 * instruction: off = word + 1); a table cut short must give 0. Made-up
 * tables built the way iseq.c's succ_index_table_create() builds them
 * cover a short iseq (fewer rank words) and several 512-position blocks.
 *
 *   def big(a)               # 1
 *     x = 0
 *     a.each do |v|
 *       x += v
 *     end
 *     y = [x, 1].max
 *     z = y * 2
 *     if z > 10
 *       z -= 1
 *     else
 *       z += 1
 *     end
 *     i = 0
 *     while i < 3
 *       i += 1
 *       z += i * 2 + z / 3 - (z % 7) + (z << 1) - (z >> 2)
 *     end
 *     sleep(ARGV[0].to_f) if z != 0
 *     z.to_s.size
 *   end
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/langs/rblines.h"
#include "tests/unit/check.h"

static const uint8_t big_succ[] = {
	1, 129, 96, 48, 32, 16, 8, 5, 6, 195, 1, 129, 72, 36, 20, 10, 139, 5, 131, 209, 104, 56, 28,
	15, 15, 8, 36, 18, 145, 72, 38, 20, 148, 74, 197, 98, 185, 92, 48, 25, 25, 141, 102, 195,
	225, 116, 58, 30, 30, 0, 0, 0, 0, 0, 0, 0, 32, 90, 180, 104, 209, 162, 69, 11, 104, 85, 85,
	85, 181, 170, 170, 170, 166, 1, 86, 170, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0
};
static const int32_t big_lines[] = {
	2, 2, 3, 3, 3, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 8, 11, 11, 11, 11, 13, 13,
	14, 14, 15, 15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16,
	16, 16, 16, 16, 16, 14, 14, 14, 14, 14, 18, 18, 18, 18, 18, 18, 18, 18, 18, 18, 19, 19, 19,
	20
};
static const struct { uint32_t start; int line; } big_insns[] = {
	{ 0, 2 }, { 1, 2 }, { 3, 3 }, { 5, 3 }, { 8, 3 }, { 9, 6 }, { 11, 6 }, { 12, 6 }, { 14, 6 },
	{ 16, 7 }, { 18, 7 }, { 20, 7 }, { 22, 7 }, { 24, 8 }, { 26, 8 }, { 28, 8 }, { 30, 8 }, {
	32, 9 }, { 34, 9 }, { 35, 9 }, { 37, 9 }, { 39, 8 }, { 41, 11 }, { 43, 11 }, { 44, 11 }, {
	46, 11 }, { 48, 13 }, { 49, 13 }, { 51, 14 }, { 53, 14 }, { 54, 14 }, { 55, 14 }, { 57, 15
	}, { 59, 15 }, { 60, 15 }, { 62, 15 }, { 64, 16 }, { 66, 16 }, { 68, 16 }, { 70, 16 }, { 72,
	16 }, { 74, 16 }, { 76, 16 }, { 78, 16 }, { 80, 16 }, { 82, 16 }, { 84, 16 }, { 86, 16 }, {
	88, 16 }, { 90, 16 }, { 91, 16 }, { 93, 16 }, { 95, 16 }, { 97, 16 }, { 99, 16 }, { 101, 16
	}, { 103, 16 }, { 105, 16 }, { 107, 14 }, { 109, 14 }, { 111, 14 }, { 113, 14 }, { 115, 14
	}, { 116, 14 }, { 117, 18 }, { 119, 18 }, { 120, 18 }, { 123, 18 }, { 125, 18 }, { 126, 18
	}, { 129, 18 }, { 131, 18 }, { 133, 18 }, { 135, 18 }, { 136, 18 }, { 138, 18 }, { 140, 18
	}, { 142, 18 }, { 143, 19 }, { 145, 19 }, { 147, 19 }, { 149, 20 }
};
#define BIG_SIZE 150
#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t *entries_of(const int32_t *lines, size_t n)
{
	uint8_t *e = calloc(n, SP_RB_INSN_INFO_SIZE);

	for (size_t i = 0; e && i < n; i++)
		memcpy(e + i * SP_RB_INSN_INFO_SIZE, &lines[i], sizeof(lines[i]));
	return e;
}

static void test_big(void)
{
	uint8_t *e = entries_of(big_lines, N(big_lines));

	CHECK(sp_rb_succ_size(BIG_SIZE) == sizeof(big_succ), "size %zu", sp_rb_succ_size(BIG_SIZE));
	for (size_t i = 0; e && i < N(big_insns); i++) {
		uint32_t end = i + 1 < N(big_insns) ? big_insns[i + 1].start : BIG_SIZE;

		for (uint32_t w = big_insns[i].start; w < end; w++) {
			int got = sp_rb_line(e, N(big_lines), big_succ, sizeof(big_succ), w + 1);

			CHECK(got == big_insns[i].line, "word %u: line %d, want %d", w, got,
			      big_insns[i].line);
		}
	}
	CHECK(sp_rb_line(e, N(big_lines), big_succ, 48, 100) == 0, "table cut before its block");
	CHECK(sp_rb_line(e, N(big_lines), big_succ, 16, 30) == 0, "table cut in its ranks");
	CHECK(sp_rb_line(e, N(big_lines), NULL, 0, 3) == 0, "no table, many entries");
	CHECK(sp_rb_line(e, 1, NULL, 0, 77) == 2, "one entry needs no table");
	CHECK(sp_rb_line(NULL, 0, NULL, 0, 1) == 0, "no entries");
	free(e);
}

/* iseq.c's succ_index_table_create(max_pos, data, size) */
static uint8_t *succ_create(uint32_t max_pos, const uint32_t *data, int size, size_t *len)
{
	int imm = (max_pos < 54 ? (int)max_pos + 8 : 54) / 9;
	int blocks = max_pos < 54 ? 0 : (int)(max_pos - 54 + 511) / 512, r = 0;
	uint8_t *t;

	*len = (size_t)(max_pos < 54 ? imm * 8 : 48 + blocks * 80);
	t = calloc(1, *len);
	for (int j = 0; t && j < imm; j++) {
		uint64_t v = 0;

		for (int i = 0; i < 9; i++) {
			if (r < size && data[r] == (uint32_t)(j * 9 + i))
				r++;
			v |= (uint64_t)r << (7 * i);
		}
		memcpy(t + j * 8, &v, 8);
	}
	for (int k = 0; t && k < blocks; k++) {
		uint8_t *b = t + 48 + k * 80;
		uint64_t small = 0;
		uint32_t rank = (uint32_t)r;
		int small_rank = 0;

		memcpy(b, &rank, 4);
		for (int j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small |= (uint64_t)small_rank << (9 * (j - 1));
			for (int i = 0; i < 64; i++)
				if (r < size && data[r] == (uint32_t)(k * 512 + j * 64 + i + 54))
					bits |= 1ull << i, r++;
			memcpy(b + 16 + j * 8, &bits, 8);
			small_rank += __builtin_popcountll(bits);
		}
		memcpy(b + 8, &small, 8);
	}
	return t;
}

static void test_made_up(uint32_t max_pos, uint32_t step)
{
	uint32_t pos[600];
	int32_t lines[600];
	int n = 0;
	size_t len;
	uint8_t *t, *e;

	for (uint32_t p = 0; p < max_pos && n < 600; p += step + (uint32_t)n % 3, n++)
		pos[n] = p, lines[n] = 100 + n;
	t = succ_create(max_pos, pos, n, &len);
	e = entries_of(lines, (size_t)n);
	CHECK(t && sp_rb_succ_size(max_pos) == len, "size of %u: %zu", max_pos, len);
	for (uint32_t w = 0, k = 0; t && e && w < max_pos; w++) {
		while (k + 1 < (uint32_t)n && pos[k + 1] <= w)
			k++;
		CHECK(sp_rb_line(e, (uint32_t)n, t, len, w + 1) == lines[k], "max %u word %u", max_pos, w);
	}
	free(t);
	free(e);
}

int main(void)
{
	test_big();
	test_made_up(40, 2);
	test_made_up(1200, 3);
	printf("test_rblines: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
