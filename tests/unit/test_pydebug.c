/* tests/unit/test_pydebug.c: _Py_DebugOffsets as real interpreters publish it.
 *
 * The words after the cookie are what pyenv's CPython 3.13.0 and Debian
 * sid's 3.14.10 hold at the start of _PyRuntime (read with ctypes from
 * the running interpreters); the expected offsets are the ones their
 * frames were walked with (tests/tier_interp.py). A description moved by
 * one word (a field inserted, as a next minor version may do), a
 * free-threaded build and a version that is not Py_Version's are refused
 * with a reason, never read as offsets.
 */
#include <errno.h>
#include <string.h>

#include "runtime/langs/pydebug.h"
#include "tests/unit/check.h"

static const uint64_t py313[] = {
	51183856, 0, 283320, 608, 632, 194968, 7272, 7264, 7344, 7400, 7656, 7640, 7648, 16, 7752, 0,
	7768, 7760, 304, 0, 8, 16, 72, 152, 160, 232, 32, 80, 8, 0, 56, 72, 70, 208, 112, 120, 128,
	136, 68, 52, 96, 104, 200, 16, 8, 416, 24, 88, 168, 32, 24, 16, 40, 24, 16, 48, 32, 40, 24,
	16, 32, 16, 24, 40, 16, 32, 64, 32, 16, 40, 240, 200,
};

static const uint64_t py314[] = {
	51251952, 0, 316616, 784, 808, 225864, 7280, 7272, 7344, 7360, 7408, 7688, 7672, 7680, 16,
	7784, 0, 7800, 7792, 7992, 0, 832, 0, 8, 16, 72, 152, 160, 232, 32, 88, 8, 0, 56, 80, 74, 64,
	0, 216, 112, 120, 128, 136, 68, 52, 96, 104, 208, 0, 16, 8, 416, 24, 88, 168, 40, 32, 16, 40,
	24, 16, 200, 24, 40, 32, 48, 32, 40, 24, 16, 32, 16, 24, 40, 16, 32, 64, 32, 16, 40, 264, 192,
	160, 24, 72, 67, 0, 8, 24, 304, 8076, 0, 4, 512,
};

/* The description: cookie, then the words above, zeros after them. */
static void words_of(uint64_t *w, const uint64_t *src, size_t n)
{
	memset(w, 0, SP_PYDBG_WORDS * sizeof(*w));
	memcpy(w, "xdebugpy", 8);
	memcpy(w + 1, src, n * sizeof(*src));
}

static void test_313(void)
{
	uint64_t w[SP_PYDBG_WORDS];
	struct sp_pydbg d;

	words_of(w, py313, sizeof(py313) / sizeof(py313[0]));
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0x030d00f0, &d) == 0, "3.13.0: %s", d.why);
	CHECK(d.layout == 13 && !d.newer && d.hexversion == 0x030d00f0, "3.13 layout");
	CHECK(d.interp_head == 632 && d.threads_head == 7344, "3.13 runtime and interpreter");
	CHECK(d.ts_next == 8 && d.ts_interp == 16 && d.ts_frame == 72 && d.ts_native_tid == 160,
	      "3.13 thread state");
	CHECK(d.fr_previous == 8 && d.fr_executable == 0 && d.fr_instr == 56 && d.fr_owner == 70,
	      "3.13 frame");
	CHECK(d.co_filename == 112 && d.co_qualname == 128 && d.co_linetable == 136 &&
	      d.co_firstlineno == 68 && d.co_code == 200 && d.ascii_data == 40, "3.13 code");
}

static void test_314(void)
{
	uint64_t w[SP_PYDBG_WORDS];
	struct sp_pydbg d;

	words_of(w, py314, sizeof(py314) / sizeof(py314[0]));
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0x030e0af0, &d) == 0, "3.14.10: %s", d.why);
	CHECK(d.layout == 14 && !d.newer, "3.14 layout");
	CHECK(d.interp_head == 808 && d.threads_head == 7344, "3.14 runtime and interpreter");
	CHECK(d.ts_next == 8 && d.ts_interp == 16 && d.ts_frame == 72 && d.ts_native_tid == 160,
	      "3.14 thread state");
	CHECK(d.fr_previous == 8 && d.fr_executable == 0 && d.fr_instr == 56 && d.fr_owner == 74,
	      "3.14 frame: owner moved to 74");
	CHECK(d.co_filename == 112 && d.co_qualname == 128 && d.co_linetable == 136 &&
	      d.co_firstlineno == 68 && d.co_code == 208 && d.ascii_data == 40, "3.14 code");

	/* 3.14's description said to be 3.15's: read with 3.14's positions */
	w[1] = 0x030f00a1;
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0, &d) == 0 && d.newer && d.layout == 14 &&
	      d.fr_owner == 74, "a newer version that fits: taken, marked newer");
}

static void test_refused(void)
{
	uint64_t w[SP_PYDBG_WORDS];
	struct sp_pydbg d;

	words_of(w, py314, sizeof(py314) / sizeof(py314[0]));
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0x030d05f0, &d) == -ENOTSUP && strstr(d.why, "Py_Version"),
	      "not Py_Version's version: %s", d.why);
	w[2] = 1;
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0x030e0af0, &d) == -ENOTSUP &&
	      strstr(d.why, "free-threaded"), "free-threaded: %s", d.why);

	/* a field inserted at the end of the interpreter group of a 3.15 */
	words_of(w, py314, sizeof(py314) / sizeof(py314[0]));
	memmove(w + 22, w + 21, (SP_PYDBG_WORDS - 22) * sizeof(*w));
	w[21] = 8000;
	w[1] = 0x030f00a1;
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0x030f00a1, &d) == -ENOTSUP &&
	      strstr(d.why, "differs from 3.14"), "a shifted description: %s", d.why);

	memset(w, 0, sizeof(w));
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0, &d) == -ENOENT && strstr(d.why, "xdebugpy"),
	      "no cookie: %s", d.why);
	words_of(w, py313, sizeof(py313) / sizeof(py313[0]));
	w[1] = 0x030c00f0;
	CHECK(sp_pydbg_read(w, SP_PYDBG_WORDS, 0, &d) == -ENOTSUP, "3.12 has no description");
}

int main(void)
{
	test_313();
	test_314();
	test_refused();
	printf("test_pydebug: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
