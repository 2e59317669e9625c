/* tests/unit/test_perfmap.c: runtime/stacks/perfmap.c on perf maps written by the test.
 *
 * Good lines in the forms JITs write (node: bare hex; the JVM: 0x-prefixed,
 * names with spaces), malformed ones (skipped and counted, the first one's
 * line number kept), blank lines, unsorted and overlapping entries (the
 * later line wins), a map that grows between reads (only the new lines are
 * parsed; a half-written last line waits for its newline), one rewritten in
 * place (read again), a name still valid after refreshes, and a map read
 * after the file was unlinked (the descriptor is kept).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/stacks/perfmap.h"
#include "tests/unit/check.h"

static char path[64];

static void write_file(const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static const char *name_at(const struct sp_perfmap *pm, uint64_t addr)
{
	const struct sp_perfsym *s = sp_perfmap__find(pm, addr);

	return s ? s->name : "(none)";
}

#define NAME_IS(pm, addr, want)                                                          \
	CHECK(strcmp(name_at(pm, addr), want) == 0, "%#llx: got '%s', want '%s'",         \
	      (unsigned long long)(addr), name_at(pm, addr), want)

static void good_and_bad(void)
{
	struct sp_perfmap *pm;
	int first = 0;

	write_file("w", "7f0000001000 40 LazyCompile:*hotLoop /tmp/hot.js:1:17\n"
			"0x00007f0000002000 0x20 Interpreter: void java.lang.Thread.run()\n"
			"\n"
			"7f0000000800 10 sorted_before_the_others\r\n"
			"not a line\n"
			"7f0000003000\n"
			"7f0000003000 10\n"
			"7f0000003000 zz name\n"
			"-10 10 negative\n"
			"ffffffffffffffff 10 wraps\n"
			"7f0000004000 10 last_good\n");
	pm = sp_perfmap__open_path(path, "/tmp/perf-test.map");
	CHECK(pm != NULL, "open %s", path);
	if (!pm)
		return;
	CHECK(sp_perfmap__refresh(pm) == 0, "first read");
	CHECK(sp_perfmap__count(pm) == 4, "4 good lines, got %d", sp_perfmap__count(pm));
	CHECK(sp_perfmap__bad_lines(pm, &first) == 6 && first == 5,
	      "6 malformed lines from line 5, got %d from %d", sp_perfmap__bad_lines(pm, NULL), first);
	NAME_IS(pm, 0x7f0000001000, "LazyCompile:*hotLoop /tmp/hot.js:1:17");
	NAME_IS(pm, 0x7f000000103f, "LazyCompile:*hotLoop /tmp/hot.js:1:17");
	NAME_IS(pm, 0x7f0000001040, "(none)");
	NAME_IS(pm, 0x7f0000002010, "Interpreter: void java.lang.Thread.run()");
	NAME_IS(pm, 0x7f0000000805, "sorted_before_the_others");
	NAME_IS(pm, 0x7f0000004000, "last_good");
	NAME_IS(pm, 0x10, "(none)");
	CHECK(strcmp(sp_perfmap__path(pm), "/tmp/perf-test.map") == 0, "path shown");
	sp_perfmap__destroy(pm);
}

static void overlaps(void)
{
	struct sp_perfmap *pm;

	/* a big stub, code inside it re-JITted twice, and one range reused */
	write_file("w", "1000 1000 outer_stub\n"
			"1800 100 inner_v1\n"
			"3000 10 reused_old\n"
			"1800 80 inner_v2\n"
			"3000 10 reused_new\n"
			"2f00 200 late_wide\n");
	pm = sp_perfmap__open_path(path, NULL);
	if (!pm || sp_perfmap__refresh(pm) != 0) {
		CHECK(0, "open overlaps");
		sp_perfmap__destroy(pm);
		return;
	}
	NAME_IS(pm, 0x1000, "outer_stub");
	NAME_IS(pm, 0x1810, "inner_v2");   /* later than inner_v1 */
	NAME_IS(pm, 0x1890, "inner_v1");   /* past inner_v2's end */
	NAME_IS(pm, 0x1900, "outer_stub"); /* past both */
	NAME_IS(pm, 0x3005, "late_wide");  /* the last line covers it */
	NAME_IS(pm, 0x30ff, "late_wide");
	NAME_IS(pm, 0x3100, "(none)");
	sp_perfmap__destroy(pm);
}

static void bump_mtime(void)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += 2;
	ts[1] = ts[0];
	utimensat(AT_FDCWD, path, ts, 0);
}

static void growing(void)
{
	struct sp_perfmap *pm;
	const char *kept;

	write_file("w", "1000 10 first\n2000 10 half");
	pm = sp_perfmap__open_path(path, NULL);
	if (!pm || sp_perfmap__refresh(pm) != 0) {
		CHECK(0, "open growing");
		sp_perfmap__destroy(pm);
		return;
	}
	kept = name_at(pm, 0x1000);
	NAME_IS(pm, 0x2000, "(none)"); /* no newline yet */
	CHECK(sp_perfmap__refresh(pm) == 0 && sp_perfmap__count(pm) == 1, "unchanged: nothing new");
	write_file("a", "_written\n3000 10 third\nbad line\n");
	CHECK(sp_perfmap__refresh(pm) == 0, "grown");
	NAME_IS(pm, 0x2000, "half_written");
	NAME_IS(pm, 0x3000, "third");
	NAME_IS(pm, 0x1000, "first");
	CHECK(sp_perfmap__count(pm) == 3 && sp_perfmap__bad_lines(pm, NULL) == 1,
	      "3 symbols, 1 bad line after growing: %d, %d", sp_perfmap__count(pm),
	      sp_perfmap__bad_lines(pm, NULL));
	/* rewritten in place, same size: read again */
	write_file("w", "1000 10 FIRST\n2000 10 half_written\n3000 10 THIRD\nbad line\n");
	bump_mtime();
	CHECK(sp_perfmap__refresh(pm) == 0, "rewritten");
	NAME_IS(pm, 0x1000, "FIRST");
	NAME_IS(pm, 0x3000, "THIRD");
	CHECK(sp_perfmap__count(pm) == 3, "3 symbols after the rewrite: %d", sp_perfmap__count(pm));
	/* rewritten shorter */
	write_file("w", "4000 10 only\n");
	CHECK(sp_perfmap__refresh(pm) == 0, "shrunk");
	NAME_IS(pm, 0x4000, "only");
	NAME_IS(pm, 0x1000, "(none)");
	CHECK(strcmp(kept, "first") == 0, "a name handed out survives refreshes: '%s'", kept);
	/* unlinked, then appended through the kept descriptor's file: still read */
	unlink(path);
	CHECK(sp_perfmap__refresh(pm) == 0 && strcmp(name_at(pm, 0x4000), "only") == 0,
	      "read after unlink");
	sp_perfmap__destroy(pm);
}

static void missing(void)
{
	CHECK(sp_perfmap__open_path("/nonexistent/perf-1.map", NULL) == NULL, "no file: NULL");
	CHECK(sp_perfmap__open_path("/dev/null", NULL) == NULL, "not a regular file: NULL");
	CHECK(sp_perfmap__open(999999999) == NULL, "no such process: NULL");
	CHECK(sp_perfmap__find(NULL, 0x1000) == NULL, "find in no map");
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/sprof-test-perfmap-%d.map", (int)getpid());
	good_and_bad();
	overlaps();
	growing();
	missing();
	unlink(path);
	printf("%s perfmap: %d passed, %d failed\n", failed ? "FAIL" : "ok", passed, failed);
	return failed ? 1 : 0;
}
