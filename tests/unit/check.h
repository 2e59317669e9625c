/* tests/unit/check.h: the assertion the C unit tests share.
 *
 * CHECK(cond, fmt, ...) counts a pass, or counts a failure and prints
 * "file:line: FAIL: message" on stderr; a test's main() reports the two
 * counters and exits non-zero when `failed` is not 0.
 */
#ifndef SPROF_TESTS_UNIT_CHECK_H
#define SPROF_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(c, ...)                                                         \
	do {                                                                  \
		if (c) {                                                      \
			passed++;                                             \
		} else {                                                      \
			failed++;                                             \
			fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
		}                                                             \
	} while (0)

#endif
