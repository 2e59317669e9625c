/* tests/unit/test_symbolize.c: the symbolizer on real processes, alive and exited.
 *
 * Builds tests/workloads/symtest.c (PIE, non-PIE, stripped with a separate
 * debug file found by debug link next to it or in .debug/, checked by build
 * id or CRC, with MiniDebugInfo, deleted after start) and symtest_cpp.cc
 * with the system compiler, starts each, reads the addresses it prints, and checks
 * symbol+offset, module, build id and line for its own functions, libc's
 * clock_nanosleep, its vDSO and its perf-map JIT function; then kills and
 * reaps it and checks that the SAME lookups still succeed. Also kernel
 * symbols, lookup by name, and a speed figure for 8,200 frames.
 *
 * Prints one "ok"/"FAIL" line per check; exits 1 when any failed, 77 when
 * the compiler is missing (the tier reports a skip).
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include "runtime/elf/lines.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/syms.h"
#include "runtime/stacks/kallsyms.h"
#include "runtime/stacks/procmaps.h"
#include "runtime/stacks/symbolize.h"

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

struct tctx {
	int passed, failed;
	char dir[64];      /* scratch directory for built workloads */
	char src[4096];    /* tests/workloads */
};

#define MAXADDR 16
struct workload {
	pid_t pid;
	FILE *out;
	int in;            /* its stdin */
	int n;
	char name[MAXADDR][32];
	uint64_t addr[MAXADDR];
	int leaf_line;
};

static void check(struct tctx *t, bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf(ok ? "ok   " : "FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (ok)
		t->passed++;
	else
		t->failed++;
}

static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Output of a shell command, first line, trailing newline removed. */
static char *sh_line(const char *cmd)
{
	static char buf[512];
	FILE *p = popen(cmd, "r");

	buf[0] = '\0';
	if (p) {
		if (!fgets(buf, sizeof(buf), p))
			buf[0] = '\0';
		pclose(p);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static uint64_t wl_addr(const struct workload *w, const char *name)
{
	for (int i = 0; i < w->n; i++)
		if (strcmp(w->name[i], name) == 0)
			return w->addr[i];
	return 0;
}

static int wl_start_arg(struct workload *w, const char *path, const char *arg)
{
	int fds[2], ins[2];
	char line[256], name[32];
	unsigned long long a;

	memset(w, 0, sizeof(*w));
	if (pipe(fds) || pipe(ins))
		return -errno;
	w->pid = fork();
	if (w->pid == 0) {
		dup2(fds[1], 1);
		dup2(ins[0], 0);
		close(fds[0]);
		close(ins[1]);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	close(ins[0]);
	w->in = ins[1];
	w->out = fdopen(fds[0], "r");
	while (fgets(line, sizeof(line), w->out)) {
		if (strncmp(line, "ready", 5) == 0)
			return 0;
		if (sscanf(line, "symtest_line %*s %d", &w->leaf_line) == 1)
			continue;
		if (w->n < MAXADDR && sscanf(line, "%31s %llx", name, &a) == 2) {
			strcpy(w->name[w->n], name);
			w->addr[w->n++] = a;
		}
	}
	return -EIO;
}

static int wl_start(struct workload *w, const char *path)
{
	return wl_start_arg(w, path, NULL);
}

static void wl_stop(struct workload *w)
{
	char path[64];

	close(w->in);
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	fclose(w->out);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)w->pid);
	unlink(path);
}

static bool sym_is(const struct sp_frame *f, const char *a, const char *b)
{
	return f->sym && (strcmp(f->sym, a) == 0 || (b && strcmp(f->sym, b) == 0));
}

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* The lookups made twice: while the workload runs and after it was reaped. */
static void check_user(struct tctx *t, struct sp_symbolizer *s, const struct workload *w,
		       const char *what, const char *module, const char *build_id, bool lines)
{
	struct sp_frame f;
	uint64_t a;

	a = wl_addr(w, "sym_leaf");
	sp_symbolize_user(s, w->pid, a + 4, true, &f);
	check(t, sym_is(&f, "sym_leaf", NULL) && f.off == 4 && f.kind == SP_FRAME_USER,
	      "%s: leaf sym_leaf+4 -> %s+%" PRIu64, what, str(f.sym), f.off);
	check(t, f.module && strcmp(f.module, module) == 0, "%s: module %s", what, str(f.module));
	check(t, build_id[0] ? f.build_id && strcmp(f.build_id, build_id) == 0 : !f.build_id,
	      "%s: build id %s", what, str(f.build_id));
	check(t, f.map_start <= a && a < f.map_end && f.file_off == a + 4 - f.map_start + f.map_pgoff,
	      "%s: mapping %#" PRIx64 "-%#" PRIx64 " file_off %#" PRIx64, what, f.map_start,
	      f.map_end, f.file_off);
	if (lines) {
		sp_symbolize_user(s, w->pid, a, true, &f);
		check(t, f.srcfile && strstr(f.srcfile, "symtest.c") &&
			      (f.srcline == w->leaf_line || f.srcline == w->leaf_line + 1),
		      "%s: sym_leaf at %s:%d (want line %d)", what, str(f.srcfile), f.srcline,
		      w->leaf_line);
	}

	a = wl_addr(w, "sym_mid");
	sp_symbolize_user(s, w->pid, a + 9, false, &f);
	check(t, sym_is(&f, "sym_mid", NULL) && f.off == 9,
	      "%s: return address sym_mid+9 -> %s+%" PRIu64, what, str(f.sym), f.off);
	a = wl_addr(w, "sym_outer");
	sp_symbolize_user(s, w->pid, a, false, &f);
	check(t, sym_is(&f, "sym_mid", NULL), "%s: return address at sym_outer+0 is looked up at -1: %s",
	      what, str(f.sym));
	sp_symbolize_user(s, w->pid, a + 1, false, &f);
	check(t, sym_is(&f, "sym_outer", NULL) && f.off == 1, "%s: static sym_outer+1 -> %s+%" PRIu64,
	      what, str(f.sym), f.off);

	a = wl_addr(w, "sym_sized");
	sp_symbolize_user(s, w->pid, a + 8, true, &f);
	check(t, !f.sym && f.kind == SP_FRAME_UNKNOWN && f.module && strcmp(f.module, module) == 0,
	      "%s: past a sized symbol's end: unresolved (%s) in its module", what, str(f.sym));
	a = wl_addr(w, "sym_nosize");
	sp_symbolize_user(s, w->pid, a + 8, true, &f);
	check(t, sym_is(&f, "sym_nosize", NULL) && f.off == 8,
	      "%s: a symbol without size extends to the next: %s+%" PRIu64, what, str(f.sym), f.off);

	a = wl_addr(w, "sym_label");
	sp_symbolize_user(s, w->pid, a + 3, true, &f);
	check(t, sym_is(&f, "sym_label", NULL) && f.off == 3,
	      "%s: an untyped label in code names its code: %s+%" PRIu64, what, str(f.sym), f.off);

	a = wl_addr(w, "clock_nanosleep");
	sp_symbolize_user(s, w->pid, a + 2, true, &f);
	check(t, sym_is(&f, "clock_nanosleep", "__clock_nanosleep") && f.off == 2 && f.module &&
		      strstr(f.module, "libc.so") && f.build_id,
	      "%s: libc %s+%" PRIu64 " in %s", what, str(f.sym), f.off, str(f.module));

	a = wl_addr(w, "jit_hot_loop");
	sp_symbolize_user(s, w->pid, a + 0x10, true, &f);
	check(t, sym_is(&f, "jit_hot_loop", NULL) && f.off == 0x10, "%s: perf map %s+%#" PRIx64 " (%s)",
	      what, str(f.sym), f.off, str(f.module));
	sp_symbolize_user(s, w->pid, a + 0x45, true, &f);
	check(t, sym_is(&f, "jit_cold path with spaces", NULL), "%s: perf map name with spaces: %s",
	      what, str(f.sym));
	sp_symbolize_user(s, w->pid, a + 0x100, true, &f);
	check(t, !f.sym && f.kind == SP_FRAME_UNKNOWN, "%s: past the perf map's symbols: %s", what,
	      str(f.sym));

	a = wl_addr(w, "jit_in_memfd");
	sp_symbolize_user(s, w->pid, a + 4, true, &f);
	check(t, sym_is(&f, "jit_in_memfd", NULL) && f.off == 4, "%s: perf map over a memfd mapping: %s",
	      what, str(f.sym));

	sp_symbolize_user(s, w->pid, 0x10, true, &f);
	check(t, !f.sym && !f.module && f.kind == SP_FRAME_UNKNOWN && f.addr == 0x10,
	      "%s: unmapped address unresolved", what);
}

/* The vDSO's clock_gettime, found through our own image (same kernel). */
static void check_vdso(struct tctx *t, struct sp_symbolizer *s, const struct workload *w,
		       const char *what, uint64_t vdso_fn)
{
	struct sp_frame f;

	sp_symbolize_user(s, w->pid, wl_addr(w, "vdso") + vdso_fn + 3, true, &f);
	check(t, sym_is(&f, "__vdso_clock_gettime", "clock_gettime") && f.off == 3 && f.module &&
		      strcmp(f.module, "[vdso]") == 0,
	      "%s: vdso %s+%" PRIu64 " in %s", what, str(f.sym), f.off, str(f.module));
}

static const char *build_id_of(const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", path);
	return strdup(sh_line(cmd));
}

/* Offset of __vdso_clock_gettime in our own vDSO image, from its ELF. */
static uint64_t vdso_clock_gettime(void)
{
	struct sp_procmaps pm;
	uint64_t off = 0;

	if (sp_procmaps__read(&pm, getpid(), NULL))
		return 0;
	for (int i = 0; i < pm.n; i++) {
		struct sp_elf *e;

		if (pm.maps[i].kind != SP_MAP_VDSO)
			continue;
		e = sp_elf__open_mem((void *)pm.maps[i].start, pm.maps[i].end - pm.maps[i].start,
				     "[vdso]");
		off = e ? sp_elf__lookup_name(e, "__vdso_clock_gettime") : 0;
		sp_elf__destroy(e);
	}
	sp_procmaps__free(&pm);
	return off;
}

static void run_variant(struct tctx *t, const char *what, const char *bin, bool deleted, bool lines)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct workload w;
	char label[128], run_path[4200];
	const char *bid = build_id_of(bin);
	uint64_t vdso_fn = vdso_clock_gettime();

	snprintf(run_path, sizeof(run_path), "%s", bin);
	if (deleted) {
		snprintf(run_path, sizeof(run_path), "%s.deleted", bin);
		sh("cp '%s' '%s'", bin, run_path);
	}
	if (wl_start(&w, run_path)) {
		check(t, false, "%s: workload %s did not start", what, run_path);
		goto out;
	}
	if (deleted)
		unlink(run_path);
	check(t, sp_symbolizer__add_pid(s, w.pid, false) == 0, "%s: add_pid", what);
	snprintf(label, sizeof(label), "%s, alive", what);
	check_user(t, s, &w, label, run_path, bid, lines);
	check_vdso(t, s, &w, label, vdso_fn);
	wl_stop(&w);
	snprintf(label, sizeof(label), "%s, exited", what);
	check_user(t, s, &w, label, run_path, bid, lines);
	check_vdso(t, s, &w, label, vdso_fn);
	check(t, sp_symbolizer__add_pid(s, w.pid, true) == -ESRCH, "%s: refresh of a gone pid is -ESRCH",
	      what);
	check_user(t, s, &w, "after failed refresh", run_path, bid, false);
out:
	free((void *)bid);
	sp_symbolizer__destroy(s);
}

static void test_clean_path(struct tctx *t)
{
	static const char *cases[][2] = {
		{ "./csu/../sysdeps/nptl/x.h", "sysdeps/nptl/x.h" }, { "/a/b/../c", "/a/c" },
		{ "/../a", "/a" }, { "../../a", "../../a" }, { "a/../../b", "../b" }, { "./x.c", "x.c" },
		{ "a//b/./c/", "a/b/c" }, { "/", "/" }, { "a/..", "." }, { "../a/../b", "../b" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s", cases[i][0]);
		sp_lines__clean_path(buf);
		check(t, strcmp(buf, cases[i][1]) == 0, "source path %s -> %s", cases[i][0], buf);
	}
}

/* Every PLT stub objdump names is named alike ("realloc@plt"); objdump's
 * "*ABS*+0xADDR@plt" (an IRELATIVE slot) is named after the IFUNC whose
 * resolver is at ADDR. Labels and stubs name code but are not functions
 * to attach to: lookup by name and the attach list leave them out. */
static void test_plt(struct tctx *t, const char *what, const char *bin)
{
	struct sp_elf *e = sp_elf__open_path(bin);
	char cmd[4400], line[512], want[300];
	int n = 0, bad = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec '%s' 2>/dev/null", bin);
	p = e ? popen(cmd, "r") : NULL;
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long addr, res;
		char name[256];
		struct sp_elf_sym *sym, *ifn;

		/* (the header is "<first@plt-0x10>") */
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 || !strstr(name, "@plt") ||
		    strstr(name, "@plt")[4])
			continue;
		*strstr(name, "@plt") = '\0';
		if (sscanf(name, "*ABS*+%llx", &res) == 1) {
			ifn = sp_elf__find(e, res);
			snprintf(want, sizeof(want), "%s@plt", ifn ? ifn->name : "?");
		} else
			snprintf(want, sizeof(want), "%s@plt", name);
		sym = sp_elf__find(e, addr + 6);
		n++;
		if (!sym || strcmp(sym->name, want) != 0 || sym->kind != SP_SYM_PLT) {
			if (bad++ < 3)
				printf("  %s: %#llx is %s, objdump: %s\n", what, addr, sym ? sym->name : "nothing",
				       want);
		}
	}
	if (p)
		pclose(p);
	check(t, e && n > 0 && bad == 0, "%s: %d PLT stubs named as objdump names them (%d differ)",
	      what, n, bad);
	check(t, e && sp_elf__lookup_name(e, "sym_label") == 0 &&
		      sp_elf__lookup_name(e, "clock_nanosleep@plt") == 0,
	      "%s: labels and PLT stubs are not looked up by name", what);
	sp_elf__destroy(e);
}

/* The C library the test itself runs with. */
static bool own_libc(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4400];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (path && strstr(path, "/libc.so")) {
			path[strcspn(path, "\n")] = '\0';
			snprintf(out, len, "%s", path);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static void test_demangle(struct tctx *t)
{
	char *rust = sp_demangle("_ZN7mycrate7example17h0123456789abcdefE");
	char *bad = sp_demangle("_Znotvalid");
	char *c = sp_demangle("main");

	check(t, rust && strcmp(rust, "mycrate::example") == 0, "demangle: rust legacy hash dropped: %s",
	      str(rust));
	check(t, !bad && !c, "demangle: invalid and C names stay as they are");
	free(rust);
	free(bad);
	free(c);
}

static void test_cpp(struct tctx *t, const char *bin)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct workload w;
	struct sp_frame f;
	uint64_t want, by_mangled, by_demangled;

	if (wl_start(&w, bin)) {
		check(t, false, "c++: workload did not start");
		goto out;
	}
	sp_symbolize_user(s, w.pid, wl_addr(&w, "run_int") + 1, true, &f); /* never added: on the fly */
	check(t, sym_is(&f, "symtest::Worker::run(int)", NULL) && f.off == 1, "c++: demangled %s+%" PRIu64,
	      str(f.sym), f.off);
	sp_symbolize_user(s, w.pid, wl_addr(&w, "run_double") + 1, true, &f);
	check(t, sym_is(&f, "symtest::Worker::run(double)", NULL), "c++: overload %s", str(f.sym));
	wl_stop(&w);
	sp_symbolize_user(s, w.pid, wl_addr(&w, "run_double") + 1, true, &f);
	check(t, sym_is(&f, "symtest::Worker::run(double)", NULL), "c++, exited: overload %s",
	      str(f.sym));
	sp_symbolizer__set_demangle(s, false);
	sp_symbolize_user(s, w.pid, wl_addr(&w, "run_int") + 1, true, &f);
	check(t, sym_is(&f, "_ZN7symtest6Worker3runEi", NULL), "c++: demangling off gives %s", str(f.sym));

	want = strtoull(sh_line("nm symtest_cpp 2>/dev/null | sed -n 's/ T _ZN7symtest6Worker3runEi$//p'"),
			NULL, 16);
	by_mangled = sp_symbolizer__lookup_name(s, bin, "_ZN7symtest6Worker3runEi");
	by_demangled = sp_symbolizer__lookup_name(s, bin, "symtest::Worker::run(int)");
	check(t, want && by_mangled == want && by_demangled == want,
	      "c++: lookup_name mangled %#" PRIx64 " demangled %#" PRIx64 " nm %#" PRIx64, by_mangled,
	      by_demangled, want);
out:
	sp_symbolizer__destroy(s);
}

/* A debug file from another build must not lend its symbols. */
static void test_mismatch(struct tctx *t, const char *what, const char *bin)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct workload w;
	struct sp_frame f;

	if (wl_start(&w, bin)) {
		check(t, false, "mismatched debug file (%s): workload did not start", what);
		goto out;
	}
	sp_symbolize_user(s, w.pid, wl_addr(&w, "sym_mid") + 4, true, &f);
	check(t, !f.sym && f.module, "mismatched debug file (%s): ignored (sym %s)", what, str(f.sym));
	wl_stop(&w);
out:
	sp_symbolizer__destroy(s);
}

/* First r-xp mapping of `path` in pid's maps, or 0. */
static uint64_t text_of(pid_t pid, const char *path)
{
	struct sp_procmaps pm;
	uint64_t a = 0;

	if (sp_procmaps__read(&pm, pid, NULL))
		return 0;
	for (int i = 0; i < pm.n && !a; i++)
		if (pm.maps[i].path && strcmp(pm.maps[i].path, path) == 0)
			a = pm.maps[i].start;
	sp_procmaps__free(&pm);
	return a;
}

/* exec under the same pid: new mappings are found on a miss, and stacks
 * taken before the exec still resolve against the old ones. */
static void test_exec(struct tctx *t, const char *bin)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct sp_frame f;
	struct workload w;
	char link[64], exe[4096], sleep_path[4096];
	uint64_t new_text = 0;
	ssize_t n;

	if (!realpath("/bin/sleep", sleep_path) || wl_start_arg(&w, bin, "exec-on-input")) {
		check(t, false, "exec: workload did not start");
		goto out;
	}
	sp_symbolizer__add_pid(s, w.pid, false);
	if (write(w.in, "x", 1) != 1)
		check(t, false, "exec: cannot poke the workload");
	for (int i = 0; i < 200 && !new_text; i++) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)w.pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		if (strcmp(exe, sleep_path) == 0)
			new_text = text_of(w.pid, sleep_path);
		if (!new_text)
			usleep(10000);
	}
	check(t, new_text != 0, "exec: the workload became %s", sleep_path);
	usleep(150000); /* past the symbolizer's minimum interval between re-reads */
	sp_symbolize_user(s, w.pid, new_text + 0x10, true, &f);
	check(t, f.module && strcmp(f.module, sleep_path) == 0, "exec: new image found on a miss: %s",
	      str(f.module));
	sp_symbolize_user(s, w.pid, wl_addr(&w, "sym_mid") + 3, true, &f);
	check(t, sym_is(&f, "sym_mid", NULL), "exec: pre-exec address still resolves: %s", str(f.sym));
	wl_stop(&w);
	sp_symbolize_user(s, w.pid, new_text + 0x10, true, &f);
	check(t, f.module && strcmp(f.module, sleep_path) == 0, "exec, exited: new image %s",
	      str(f.module));
	sp_symbolize_user(s, w.pid, wl_addr(&w, "sym_mid") + 3, true, &f);
	check(t, sym_is(&f, "sym_mid", NULL), "exec, exited: pre-exec address: %s", str(f.sym));
out:
	sp_symbolizer__destroy(s);
}

/* A pid that was never seen alive: nothing to resolve, no crash, no module. */
static void test_gone_pid(struct tctx *t)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct sp_frame f;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	check(t, sp_symbolizer__add_pid(s, pid, false) == -ESRCH, "gone pid: add_pid is -ESRCH");
	sp_symbolize_user(s, pid, 0x401000, false, &f);
	check(t, !f.sym && !f.module && f.kind == SP_FRAME_UNKNOWN && f.addr == 0x401000,
	      "gone pid: frame unresolved");
	sp_symbolizer__destroy(s);
}

/* Many processes of one binary share one opened file and table. */
static void test_sharing(struct tctx *t, const char *bin)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct sp_symbolizer_stats st1, st2;
	struct workload a, b;

	if (wl_start(&a, bin) || wl_start(&b, bin)) {
		check(t, false, "sharing: workloads did not start");
		goto out;
	}
	sp_symbolizer__add_pid(s, a.pid, false);
	sp_symbolizer__stats(s, &st1);
	sp_symbolizer__add_pid(s, b.pid, false);
	sp_symbolizer__add_pid(s, b.pid, true); /* same maps: no new generation, no new files */
	sp_symbolizer__stats(s, &st2);
	check(t, st2.procs == 2 && st1.elf_files == st2.elf_files && st1.elf_files >= 2,
	      "sharing: 2 processes, %d ELF files after one, %d after both (+1 memfd each)",
	      st1.elf_files, st2.elf_files);
	wl_stop(&a);
	wl_stop(&b);
out:
	sp_symbolizer__destroy(s);
}

/* kallsyms parsing on a made-up file: modules, data, disorder, hidden addresses. */
static void test_kallsyms_file(struct tctx *t)
{
	char path[128];
	FILE *f;
	struct sp_kallsyms *ks;
	const struct sp_ksym *k;

	snprintf(path, sizeof(path), "%s/kallsyms", t->dir);
	f = fopen(path, "w");
	fputs("ffffffff81000000 T _stext\nffffffff81000100 t foo\n"
	      "ffffffffc0001000 t modfn\t[mymod]\nffffffff81000200 D data_sym\n"
	      "ffffffffc0000000 t modfirst\t[mymod]\nffffffff81000300 W weakfn\n", f);
	fclose(f);
	ks = sp_kallsyms__load(path);
	k = ks ? sp_kallsyms__find(ks, 0xffffffffc0001005ull) : NULL;
	check(t, k && strcmp(k->name, "modfn") == 0 && strcmp(k->module, "mymod") == 0,
	      "kallsyms file: module symbol %s [%s]", k ? k->name : "-", k ? k->module : "-");
	k = ks ? sp_kallsyms__find(ks, 0xffffffff81000205ull) : NULL;
	check(t, k && strcmp(k->name, "foo") == 0 && strcmp(k->module, "[kernel.kallsyms]") == 0,
	      "kallsyms file: data symbols skipped, %s", k ? k->name : "-");
	check(t, ks && sp_kallsyms__count(ks) == 5 && sp_kallsyms__lookup(ks, "weakfn"),
	      "kallsyms file: 5 text symbols");
	sp_kallsyms__free(ks);
	f = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 t foo\n", f);
	fclose(f);
	ks = sp_kallsyms__load(path);
	check(t, ks && sp_kallsyms__count(ks) == 0 && !sp_kallsyms__find(ks, 0),
	      "kallsyms file: hidden addresses resolve nothing");
	sp_kallsyms__free(ks);
}

static void test_kernel(struct tctx *t)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	struct sp_kallsyms *ks = sp_kallsyms__load(NULL);
	uint64_t want = strtoull(sh_line("sed -n 's/ [Tt] schedule$//p' /proc/kallsyms"), NULL, 16);
	struct sp_frame f;
	struct sp_procmap m;
	const char *want_id;

	check(t, ks && (sp_kallsyms__count(ks) > 1000 || (!want && sp_kallsyms__count(ks) == 0)),
	      "kallsyms: %d text symbols%s", ks ? sp_kallsyms__count(ks) : -1,
	      want ? "" : " (addresses hidden: none kept)");
	{
		struct timespec t0;
		struct sp_kallsyms *again;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		again = sp_kallsyms__load(NULL);
		printf("speed: /proc/kallsyms read and sorted in %.1f ms\n", secs_since(&t0) * 1e3);
		sp_kallsyms__free(again);
	}
	if (!want) {
		printf("skip kernel round trip: kallsyms addresses hidden\n");
	} else {
		check(t, ks && sp_kallsyms__lookup(ks, "schedule") == want, "kallsyms: schedule by name");
		sp_symbolize_kernel(s, want + 5, true, &f);
		check(t, sym_is(&f, "schedule", NULL) && f.off == 5 && f.kind == SP_FRAME_KERNEL &&
			      strcmp(f.module, "[kernel.kallsyms]") == 0,
		      "kernel: schedule+5 -> %s+%" PRIu64 " %s", str(f.sym), f.off, str(f.module));
		want_id = access("/sys/kernel/notes", R_OK) == 0
				  ? sh_line("od -An -tx1 -v /sys/kernel/notes | tr -d ' \\n' | "
					    "sed -n 's/^04000000\\(..\\)000000030000004.4e5500//p' | head -c 40")
				  : "";
		check(t, !want_id[0] || (f.build_id && strncmp(f.build_id, want_id, strlen(want_id)) == 0),
		      "kernel: build id %s (od says %s)", str(f.build_id), want_id);
		sp_symbolize_kernel(s, want, false, &f);
		check(t, f.sym && !sym_is(&f, "schedule", NULL), "kernel: return address at start -> %s",
		      str(f.sym));
		{
			struct sp_symbolizer *pre = sp_symbolizer__open(), *pending = sp_symbolizer__open();
			struct timespec t0;
			int err = sp_symbolizer__preload_kernel(pre);

			sp_symbolizer__preload_kernel(pending); /* destroyed while loading */
			usleep(200000);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			sp_symbolize_kernel(pre, want + 5, true, &f);
			printf("speed: first kernel frame after a preload: %.3f ms\n", secs_since(&t0) * 1e3);
			check(t, err == 0 && sym_is(&f, "schedule", NULL) && f.build_id,
			      "kernel: preloaded in a thread: %s", str(f.sym));
			sp_symbolizer__destroy(pending);
			sp_symbolizer__destroy(pre);
		}
	}
	check(t, sp_procmaps__parse_line("7f00-7f10 r-xp 00001000 fe:00 1234    /a b (deleted)\n", &m) &&
		      m.deleted && strcmp(m.path, "/a b") == 0 && m.pgoff == 0x1000 && m.inode == 1234,
	      "procmaps: deleted path with a space");
	free(m.path);
	check(t, !sp_procmaps__parse_line("7f00-7f10 rw-p 00000000 00:00 0\n", &m),
	      "procmaps: non-executable skipped");
	sp_kallsyms__free(ks);
	sp_symbolizer__destroy(s);
}


/* 1,025 stacks, 8,200 frames of one process, symbolized cold (fresh
 * symbolizer: maps read, files opened, tables built) after it exited. */
static void test_speed(struct tctx *t, const char *bin)
{
	struct sp_symbolizer *s = sp_symbolizer__open();
	static const char *fns[] = { "sym_leaf", "sym_mid", "sym_outer", "clock_nanosleep" };
	struct workload w;
	struct timespec t0;
	struct sp_frame f;
	int resolved = 0, frames = 0;
	double secs;

	if (wl_start(&w, bin)) {
		check(t, false, "speed: workload did not start");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sp_symbolizer__add_pid(s, w.pid, false);
	printf("speed: add_pid (maps read, %s) took %.3f ms\n", "files opened", secs_since(&t0) * 1e3);
	wl_stop(&w);
	for (int st = 0; st < 1025; st++) {
		for (int i = 0; i < 8; i++, frames++) {
			uint64_t a = wl_addr(&w, fns[(st + i) % 4]) + 1 + (st * 7 + i) % 16;

			sp_symbolize_user(s, w.pid, a, i == 0, &f);
			resolved += f.sym != NULL;
		}
	}
	secs = secs_since(&t0);
	printf("speed: %d frames over 1025 stacks in %.4f s (%.2f us/frame), cold, process exited\n",
	       frames, secs, secs * 1e6 / frames);
	check(t, resolved == frames, "speed: %d of %d frames resolved", resolved, frames);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < frames; i++)
		sp_symbolize_user(s, w.pid, wl_addr(&w, fns[i % 4]) + 1 + i % 16, i % 8 == 0, &f);
	secs = secs_since(&t0);
	printf("speed: the same %d frames again in %.4f s (%.3f us/frame), tables loaded\n", frames,
	       secs, secs * 1e6 / frames);
out:
	sp_symbolizer__destroy(s);
}

static bool build(struct tctx *t)
{
	const char *cf = "-O0 -g -fno-omit-frame-pointer";

	if (chdir(t->dir))
		return false;
	return sh("gcc %s -pie -fPIE -o symtest-pie %s/symtest.c", cf, t->src) == 0 &&
	       sh("gcc %s -no-pie -fno-pie -o symtest-nopie %s/symtest.c", cf, t->src) == 0 &&
	       sh("cp symtest-pie symtest-stripped && objcopy --only-keep-debug symtest-stripped "
		  "symtest-stripped.debug && objcopy --strip-all symtest-stripped && "
		  "objcopy --add-gnu-debuglink=symtest-stripped.debug symtest-stripped") == 0 &&
	       sh("mkdir -p .debug && cp symtest-pie symtest-dotdebug && objcopy --only-keep-debug "
		  "symtest-dotdebug .debug/symtest-dotdebug.dbg && objcopy --strip-all symtest-dotdebug && "
		  "objcopy --add-gnu-debuglink=.debug/symtest-dotdebug.dbg symtest-dotdebug") == 0 &&
	       /* a debug link to another build's debug file (same name, other build id) */
	       sh("gcc %s -DOTHER_BUILD -pie -fPIE -o symtest-other %s/symtest.c && "
		  "cp symtest-pie symtest-mismatch && objcopy --strip-all symtest-mismatch && "
		  "objcopy --only-keep-debug symtest-other symtest-mismatch.debug && "
		  "objcopy --add-gnu-debuglink=symtest-mismatch.debug symtest-mismatch", cf, t->src) == 0 &&
	       /* no build id: the debug link's CRC decides; then a wrong file under the name */
	       sh("gcc %s -Wl,--build-id=none -pie -fPIE -o symtest-crc %s/symtest.c && "
		  "cp symtest-crc symtest-crcbad && objcopy --only-keep-debug symtest-crc symtest-crc.debug && "
		  "objcopy --strip-all symtest-crc && objcopy --add-gnu-debuglink=symtest-crc.debug symtest-crc && "
		  "objcopy --strip-all symtest-crcbad && cp symtest-crc.debug symtest-crcbad.debug && "
		  "objcopy --add-gnu-debuglink=symtest-crcbad.debug symtest-crcbad && "
		  "gcc %s -DOTHER_BUILD -Wl,--build-id=none -pie -fPIE -o symtest-other2 %s/symtest.c && "
		  "objcopy --only-keep-debug symtest-other2 symtest-crcbad.debug", cf, t->src, cf, t->src) == 0 &&
	       /* MiniDebugInfo, the recipe of Fedora's find-debuginfo (needs xz) */
	       (sh("command -v xz >/dev/null") != 0 ||
		sh("cp symtest-pie symtest-mini && "
		   "nm -D symtest-mini --format=posix --defined-only | awk '{print $1}' | sort > mini.dyn && "
		   "nm symtest-mini --format=posix --defined-only | awk '$2 ~ /[TtD]/ {print $1}' | sort > mini.all && "
		   "comm -13 mini.dyn mini.all > mini.keep && "
		   "objcopy --only-keep-debug symtest-mini mini.dbg && "
		   "objcopy -S --remove-section .gdb_index --remove-section .comment "
		   "--keep-symbols=mini.keep mini.dbg && "
		   "strip --strip-all -R .comment symtest-mini && xz -f mini.dbg && "
		   "objcopy --add-section .gnu_debugdata=mini.dbg.xz symtest-mini") == 0) &&
	       sh("g++ %s -o symtest_cpp %s/symtest_cpp.cc", cf, t->src) == 0;
}

int main(void)
{
	struct tctx t = { 0 };
	char file[] = __FILE__, path[4200], libc[4096];

	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/../workloads", dirname(file));
	if (!realpath(path, t.src)) {
		printf("FAIL no workload sources at %s\n", path);
		return 1;
	}
	snprintf(t.dir, sizeof(t.dir), "/tmp/sp-symtest-XXXXXX");
	if (!mkdtemp(t.dir) || sh("command -v gcc g++ objcopy readelf nm >/dev/null") != 0) {
		printf("skip: no scratch dir or no gcc/g++/objcopy/readelf/nm\n");
		return 77;
	}
	if (!build(&t)) {
		printf("FAIL building the workloads in %s\n", t.dir);
		return 1;
	}
#define BIN(name) (snprintf(path, sizeof(path), "%s/%s", t.dir, name), path)
	run_variant(&t, "pie", BIN("symtest-pie"), false, true);
	run_variant(&t, "non-pie", BIN("symtest-nopie"), false, true);
	run_variant(&t, "stripped+debuglink", BIN("symtest-stripped"), false, true);
	if (geteuid() == 0) /* /proc/PID/map_files needs CAP_SYS_ADMIN */
		run_variant(&t, "deleted", BIN("symtest-pie"), true, true);
	else
		printf("skip deleted binary: not root\n");
	run_variant(&t, "stripped+.debug/", BIN("symtest-dotdebug"), false, true);
	test_mismatch(&t, "build id", BIN("symtest-mismatch"));
	run_variant(&t, "no build id, debug link CRC", BIN("symtest-crc"), false, true);
	test_mismatch(&t, "CRC", BIN("symtest-crcbad"));
	if (access(BIN("symtest-mini"), X_OK) == 0)
		run_variant(&t, "MiniDebugInfo", BIN("symtest-mini"), false, false);
	else
		printf("skip MiniDebugInfo: no xz\n");
	test_plt(&t, "pie", BIN("symtest-pie"));
	test_plt(&t, "non-pie", BIN("symtest-nopie"));
	if (own_libc(libc, sizeof(libc)))
		test_plt(&t, "libc (IRELATIVE slots)", libc);
	test_demangle(&t);
	test_clean_path(&t);
	test_cpp(&t, BIN("symtest_cpp"));
	test_gone_pid(&t);
	test_exec(&t, BIN("symtest-pie"));
	test_sharing(&t, BIN("symtest-pie"));
	test_kernel(&t);
	test_kallsyms_file(&t);
	test_speed(&t, BIN("symtest-pie"));
	sh("rm -rf '%s'", t.dir);
	printf("%d passed, %d failed\n", t.passed, t.failed);
	return t.failed ? 1 : 0;
}
