/* tests/unit/test_inlines.c: inline frames from .debug_info (runtime/elf/inlines.c).
 *
 * Builds tests/workloads/inline_hot.c with gcc -O2 -g (hot_inner inlined
 * into hot, hot into caller_a and caller_b) four ways: with its DWARF; with
 * the DWARF in a separate file (objcopy --only-keep-debug, found by debug
 * link) next to a `strip -g` binary that keeps .symtab and next to a fully
 * stripped one; and without -g. Checks, through sp_elf (the object every
 * consumer shares):
 *   - some address of caller_a and of caller_b has the chain hot_inner, hot
 *     with the call lines of the source's "call:" markers;
 *   - the binary without DWARF has no chain (and no crash);
 *   - C++ (a source the test writes, g++ -O2 -g): the inlined member is
 *     named "ns::W::hot(unsigned long)", its linkage name demangled;
 * and through the symbolizer on the running workload, sp_symbolize_user_inline
 * gives hot_inner (inlined), hot (inlined), caller_a with per-level lines,
 * and one frame when inline frames are off. Prints the cost of symbolizing
 * N stacks with and without inline frames: through the symbolizer on the
 * workload (first pass: files opened; second: every address seen before),
 * and through sp_elf on this test binary's own functions (RelWithDebInfo,
 * most addresses new, the DWARF load included).
 *
 * Exits 77 (skip) without gcc/objcopy/strip.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/elf/inlines.h"
#include "runtime/elf/syms.h"
#include "runtime/stacks/symbolize.h"
#include "tests/unit/check.h"

static char dir[64], src[4096];

static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Line number of the source line holding `marker`, 0 when absent. */
static int marker_line(const char *marker)
{
	char path[4200], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/inline_hot.c", src);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

static bool build(void)
{
	const char *cf = "-O2 -g";

	return sh("cd %s && gcc %s -o inl %s/inline_hot.c", dir, cf, src) == 0 &&
	       sh("cd %s && gcc -O2 -o inl-nodebug %s/inline_hot.c", dir, src) == 0 &&
	       sh("cd %s && cp inl inl-g && objcopy --only-keep-debug inl-g inl-g.debug && "
		  "strip -g inl-g && objcopy --add-gnu-debuglink=inl-g.debug inl-g", dir) == 0 &&
	       sh("cd %s && cp inl inl-s && objcopy --only-keep-debug inl-s inl-s.debug && "
		  "strip inl-s && objcopy --add-gnu-debuglink=inl-s.debug inl-s", dir) == 0;
}

static char *bin(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* Whether some address of function `fn` has the chain hot_inner <- hot
 * called from `call_line`; *any counts the addresses with a chain. */
static bool has_chain(struct sp_elf *e, const char *fn, int call_line, int *any)
{
	uint64_t start = sp_elf__lookup_name(e, fn);
	struct sp_elf_sym *s = start ? sp_elf__find(e, start) : NULL;
	struct sp_inline in[SP_INLINE_MAX];
	bool found = false;

	*any = 0;
	for (uint64_t a = start; s && a < start + s->size; a++) {
		int n = sp_elf__find_inlines(e, a, in, SP_INLINE_MAX);

		*any += n > 0;
		if (n == 2 && in[0].name && strcmp(in[0].name, "hot_inner") == 0 && in[1].name &&
		    strcmp(in[1].name, "hot") == 0 && in[0].call_line == marker_line("call:hot_inner") &&
		    in[1].call_line == call_line && in[1].call_file &&
		    strstr(in[1].call_file, "inline_hot.c"))
			found = true;
	}
	return found;
}

static void test_file(const char *name, bool dwarf)
{
	struct sp_elf *e = sp_elf__open_path(bin(name));
	int any_a = 0, any_b = 0;
	bool a, b;

	CHECK(e != NULL, "%s: opened", name);
	if (!e)
		return;
	a = has_chain(e, "caller_a", marker_line("call:hot_a"), &any_a);
	b = has_chain(e, "caller_b", marker_line("call:hot_b"), &any_b);
	if (dwarf) {
		CHECK(a, "%s: caller_a has hot_inner <- hot (line %d) (%d addresses inline)", name,
		      marker_line("call:hot_a"), any_a);
		CHECK(b, "%s: caller_b has hot_inner <- hot (line %d) (%d addresses inline)", name,
		      marker_line("call:hot_b"), any_b);
	} else {
		CHECK(any_a == 0 && any_b == 0, "%s: no DWARF, no chains (%d, %d)", name, any_a, any_b);
	}
	printf("%s %s: caller_a %d, caller_b %d addresses with inline frames\n",
	       failed ? "----" : "ok  ", name, any_a, any_b);
	sp_elf__destroy(e);
}

/* C++: the inlined member function is named by its demangled linkage
 * name, as the symbol table's names are (the test writes the source). */
static void test_cpp(void)
{
	static const char src_cc[] =
		"namespace ns { struct W { static inline __attribute__((always_inline)) unsigned long\n"
		"hot(unsigned long x) { for (int i = 0; i < 100; i++) x = x * 3 + 1; return x; } }; }\n"
		"volatile unsigned long sink;\n"
		"__attribute__((noinline)) void outer(int n) { for (int i = 0; i < n; i++) sink += ns::W::hot(i); }\n"
		"int main() { outer(10); return 0; }\n";
	struct sp_inline in[SP_INLINE_MAX];
	struct sp_elf *e;
	FILE *f = fopen(bin("inl.cc"), "w");
	bool found = false;
	uint64_t a;
	struct sp_elf_sym *s;

	if (!f || fputs(src_cc, f) < 0 || fclose(f) != 0 ||
	    sh("cd %s && g++ -O2 -g -o inl-cxx inl.cc", dir) != 0) {
		printf("skip C++: no g++\n");
		return;
	}
	e = sp_elf__open_path(bin("inl-cxx"));
	a = e ? sp_elf__lookup_name(e, "outer(int)") : 0;
	s = a ? sp_elf__find(e, a) : NULL;
	for (uint64_t v = a; s && v < a + s->size && !found; v++)
		found = sp_elf__find_inlines(e, v, in, SP_INLINE_MAX) == 1 && in[0].demangled &&
			!strcmp(in[0].demangled, "ns::W::hot(unsigned long)") && in[0].name &&
			!strcmp(in[0].name, "hot");
	CHECK(found, "C++: ns::W::hot(unsigned long) inlined into outer(int) (outer at %#" PRIx64 ")", a);
	sp_elf__destroy(e);
}

/* The workload running, with caller_a's addresses as the process maps them. */
static pid_t start(const char *path)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The runtime address of the first byte of `fn` in process pid (PIE). */
static uint64_t runtime_addr(pid_t pid, const char *path, const char *fn)
{
	struct sp_elf *e = sp_elf__open_path(path);
	uint64_t v = e ? sp_elf__lookup_name(e, fn) : 0, foff = 0, base = 0;
	char maps[64], line[512], p[300];
	unsigned long long lo, hi, off;
	FILE *f;

	if (!v || sp_elf__vaddr_to_foff(e, v, true, &foff) != 0) {
		sp_elf__destroy(e);
		return 0;
	}
	sp_elf__destroy(e);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %299s", &lo, &hi, &off, p) == 4 &&
		    strcmp(p, path) == 0 && foff >= off && foff < off + (hi - lo))
			base = lo + (foff - off);
	if (f)
		fclose(f);
	return base;
}

static void test_symbolizer(const char *name)
{
	const char *path = bin(name);
	pid_t pid = start(path);
	uint64_t a = runtime_addr(pid, path, "caller_a");
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct sp_frame fr[SP_INLINE_MAX + 1];
	int best = 0, n;

	CHECK(a && s, "%s: running at %#" PRIx64, name, a);
	for (int off = 0; a && s && off < 256 && !best; off++) {
		n = sp_symbolize_user_inline(s, pid, a + off, true, fr, SP_INLINE_MAX + 1);
		if (n == 3)
			best = off;
	}
	if (best) {
		sp_symbolize_user_inline(s, pid, a + best, true, fr, SP_INLINE_MAX + 1);
		CHECK(fr[0].inlined && fr[0].sym && !strcmp(fr[0].sym, "hot_inner") &&
		      fr[1].inlined && fr[1].sym && !strcmp(fr[1].sym, "hot") && !fr[2].inlined &&
		      fr[2].sym && !strcmp(fr[2].sym, "caller_a"),
		      "%s: frames hot_inner, hot, caller_a", name);
		CHECK(fr[1].srcline == marker_line("call:hot_inner") &&
		      fr[2].srcline == marker_line("call:hot_a") && fr[0].srcline > 0 &&
		      fr[0].srcline < fr[1].srcline,
		      "%s: lines %d, %d, %d", name, fr[0].srcline, fr[1].srcline, fr[2].srcline);
		CHECK(fr[0].addr == fr[2].addr && fr[0].module && fr[0].module == fr[2].module,
		      "%s: inline frames share the address and module", name);
		sp_symbolizer__set_inline(s, false);
		n = sp_symbolize_user_inline(s, pid, a + best, true, fr, SP_INLINE_MAX + 1);
		CHECK(n == 1 && !fr[0].inlined && fr[0].sym && !strcmp(fr[0].sym, "caller_a"),
		      "%s: inline frames off: one frame, caller_a", name);
	} else {
		CHECK(false, "%s: no address of caller_a with two inline frames", name);
	}
	sp_symbolizer__destroy(s);
	stop(pid);
}

/* N stacks of 8 frames over the addresses of caller_a and caller_b (each
 * address once in the cold pass), with and without inline frames. */
static void test_cost(const char *name)
{
	enum { N = 20000, DEPTH = 8 };
	const char *path = bin(name);
	pid_t pid = start(path);
	uint64_t a = runtime_addr(pid, path, "caller_a"), b = runtime_addr(pid, path, "caller_b");
	struct sp_frame fr[SP_INLINE_MAX + 1];
	double t[2][2];
	long frames[2] = { 0, 0 };

	for (int on = 0; on < 2 && a && b; on++) {
		struct sp_symbolizer *s = sp_symbolizer__open();

		sp_symbolizer__set_inline(s, on);
		for (int pass = 0; pass < 2; pass++) {
			double t0 = now();

			for (int i = 0; i < N; i++)
				for (int d = 0; d < DEPTH; d++) {
					uint64_t addr = (d & 1 ? b : a) + (uint64_t)((i * DEPTH + d) % 96);

					frames[on] += sp_symbolize_user_inline(s, pid, addr, d == 0, fr,
									       SP_INLINE_MAX + 1);
				}
			t[on][pass] = now() - t0;
		}
		sp_symbolizer__destroy(s);
	}
	CHECK(a && b && frames[1] > frames[0], "%s: inline frames add frames (%ld vs %ld)", name,
	      frames[1], frames[0]);
	if (a && b)
		printf("cost: %d stacks x %d frames: without inline frames %.1f ms (first, files "
		       "opened) %.1f ms (again); with %.1f ms %.1f ms; %.2f vs %.2f frames/address\n",
		       N, DEPTH, t[0][0] * 1e3, t[0][1] * 1e3, t[1][0] * 1e3, t[1][1] * 1e3,
		       frames[1] / (2.0 * N * DEPTH), frames[0] / (2.0 * N * DEPTH));
	stop(pid);
}

/* N stacks of 8 frames at pseudo-random addresses of this test binary's
 * own functions (sprof's runtime, RelWithDebInfo: hundreds of inlined
 * calls), most addresses seen once: symbol + line, then symbol + line +
 * inline chain, each on a freshly opened file (so the DWARF load counts). */
static void test_cost_self(void)
{
	enum { N = 20000, DEPTH = 8 };
	struct sp_inline in[SP_INLINE_MAX];
	double t[2];
	long chains = 0;

	for (int on = 0; on < 2; on++) {
		struct sp_elf *e = sp_elf__open_path("/proc/self/exe");
		uint64_t x = 88172645463325252ull;
		double t0 = now();
		int nsyms = e ? sp_elf__nsyms(e) : 0;

		for (long i = 0; nsyms && i < (long)N * DEPTH; i++) {
			struct sp_elf_sym *s;
			const char *file;
			int line;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			s = sp_elf__sym(e, (int)(x % (uint64_t)nsyms));
			if (!s->size)
				continue;
			sp_elf__find(e, s->addr + (x >> 32) % s->size);
			sp_elf__find_line(e, s->addr + (x >> 32) % s->size, &file, &line);
			if (on)
				chains += sp_elf__find_inlines(e, s->addr + (x >> 32) % s->size, in,
							       SP_INLINE_MAX) > 0;
		}
		t[on] = now() - t0;
		CHECK(nsyms > 0, "self: symbols");
		sp_elf__destroy(e);
	}
	printf("cost: %d stacks x %d frames of this binary's functions: symbol+line %.1f ms, "
	       "with inline chains %.1f ms (%.2f us/frame more); %ld frames had inlined calls\n",
	       N, DEPTH, t[0] * 1e3, t[1] * 1e3, (t[1] - t[0]) * 1e6 / (N * DEPTH), chains);
}

int main(void)
{
	char file[] = __FILE__, path[4200];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/../workloads", dirname(file));
	if (!realpath(path, src)) {
		printf("FAIL no workload sources at %s\n", path);
		return 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/sp-inltest-XXXXXX");
	if (!mkdtemp(dir) || sh("command -v gcc objcopy strip >/dev/null") != 0) {
		printf("skip: no scratch dir or no gcc/objcopy/strip\n");
		return 77;
	}
	if (!build()) {
		printf("FAIL building inline_hot.c in %s\n", dir);
		return 1;
	}
	test_file("inl", true);
	test_file("inl-g", true);
	test_file("inl-s", true);
	test_file("inl-nodebug", false);
	test_cpp();
	test_symbolizer("inl");
	test_symbolizer("inl-s");
	test_cost("inl");
	test_cost_self();
	sh("rm -rf '%s'", dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
