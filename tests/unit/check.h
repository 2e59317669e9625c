/* tests/unit/check.h: the assertion the C unit tests share.
 *
 * CHECK(cond, fmt, ...) counts a pass, or counts a failure and prints
 * "file:line: FAIL: message" on stderr; a test's main() reports the two
 * counters and exits non-zero when `failed` is not 0.
 *
 * check(cond, fmt, ...) counts the same way and prints one line per check
 * on stdout, "ok message" or "FAIL message", for tests whose checks are
 * worth reading one by one (the unwind tables).
 */
#ifndef SPROF_TESTS_UNIT_CHECK_H
#define SPROF_TESTS_UNIT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
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

__attribute__((format(printf, 2, 3), unused))
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

#endif
