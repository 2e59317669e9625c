/* tests/unit/test_continuous.c: what keeps a --continuous run flat, without BPF.
 *
 * The -o pattern of a period (%t: the period's start in UTC, milliseconds
 * for short periods, %% a percent, too long refused); the object cache's
 * references and trim: a held file is never freed, idle files go oldest
 * first past the count or byte bound, a file got again after a trim is
 * opened again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/continuous.h"
#include "runtime/elf/objcache.h"
#include "tests/unit/check.h"

static void paths(void)
{
	char out[64];
	uint64_t t = 1795601700ull * 1000000000ull + 500000000ull; /* 2026-11-25 10:15:00.5 UTC */

	CHECK(sp_continuous_path("prof-%t.svg", t, false, out, sizeof(out)) == 0 &&
	      strcmp(out, "prof-20261125T101500Z.svg") == 0, "got '%s'", out);
	CHECK(sp_continuous_path("p-%t.folded", t, true, out, sizeof(out)) == 0 &&
	      strcmp(out, "p-20261125T101500.500Z.folded") == 0, "got '%s'", out);
	CHECK(sp_continuous_path("100%%-%t", t, false, out, sizeof(out)) == 0 &&
	      strcmp(out, "100%-20261125T101500Z") == 0, "got '%s'", out);
	CHECK(sp_continuous_path("same.svg", t, false, out, sizeof(out)) == 0 &&
	      strcmp(out, "same.svg") == 0, "got '%s'", out);
	CHECK(sp_continuous_path("a-very-long-name-%t-%t-%t.svg", t, false, out, 32) == -ENAMETOOLONG,
	      "a name longer than the buffer is refused");
}

static struct sp_objfile *get(struct sp_objcache *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? NULL : sp_objcache__get_fd(c, fd, path, NULL);
}

static void trim(void)
{
	static const char *files[] = { "/bin/true", "/bin/false", "/bin/ls", "/bin/cat" };
	struct sp_objcache *c = sp_objcache__new();
	struct sp_objfile *f[4];
	struct sp_objcache_stats st;

	for (int i = 0; i < 4; i++)
		f[i] = get(c, files[i]);
	CHECK(f[0] && f[1] && f[2] && f[3], "the four files open");
	CHECK(get(c, files[0]) == f[0], "a file is opened once");
	CHECK(sp_objcache__trim(c, 0, 0) == 0, "held files are never freed");
	sp_objcache__put(c, f[0]); /* f[0] is held twice */
	for (int i = 0; i < 4; i++)
		sp_objcache__put(c, f[i]); /* released in order: f[0] oldest */
	CHECK(sp_objcache__trim(c, 4, 1u << 30) == 0, "four idle files under a bound of four");
	CHECK(sp_objcache__trim(c, 2, 1u << 30) == 2, "two oldest freed past two");
	sp_objcache__stats(c, &st);
	CHECK(st.held == 2 && st.evicted == 2, "held %d, evicted %d", st.held, st.evicted);
	CHECK(sp_objcache__trim(c, 4, 0) == 2, "a byte bound of 0 frees every idle file");
	CHECK(get(c, files[0]) != NULL, "a freed file opens again");
	sp_objcache__stats(c, &st);
	CHECK(st.opens == 5 && st.held == 1, "opens %d, held %d", st.opens, st.held);
	sp_objcache__destroy(c);
}

int main(void)
{
	paths();
	trim();
	printf("%s continuous: %d passed, %d failed\n", failed ? "FAIL" : "ok", passed, failed);
	return failed ? 1 : 0;
}
