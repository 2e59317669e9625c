/* tests/unit/test_ehframe.c: .eh_frame -> unwind rows (runtime/elf/ehframe.c).
 *
 * Builds tests/workloads/unwind_chain.c twice (-O2 -fomit-frame-pointer and
 * -O1 -fno-omit-frame-pointer) and checks known rows: every function's
 * entry is CFA=rsp+8, the -O2 leaf keeps it throughout, a framed function
 * gets CFA=rbp+16 with rbp at CFA-16, .plt stubs the PLT rule, _start a
 * STOP row; a -fno-asynchronous-unwind-tables build (.debug_frame merged
 * with .eh_frame); then libc (signal trampoline, PLT, row count, parse time) and a
 * hand-made section (remember/restore_state, 64-bit lengths, unknown
 * expressions); lld's segment layout (p_vaddr - p_offset != 0 for the text):
 * the segment and bias of a text mapping, by hand and on a clang-16
 * -fuse-ld=lld build (missing clang-16/lld-16: a skip line, a failure
 * under CI=true).
 *
 *   test_ehframe                run the checks
 *   test_ehframe --dump FILE    print FILE's rows: "pc kind cfa_off rbp_off"
 *                               (tests/tier_unwind.py compares them with readelf)
 *
 * Prints one "ok"/"FAIL" line per check; exits 1 when any failed, 77 when
 * gcc is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abi/unwind_table.h"
#include "runtime/elf/ehframe.h"
#include "runtime/elf/segments.h"
#include "runtime/elf/syms.h"
#include "tests/unit/check.h"


static const char *kind_name(int k)
{
	static const char *const names[] = { "rsp", "rbp", "plt", "signal", "fp", "stop", "cut", "go_switch",
					     "go_vdso" };

	return k >= 0 && k <= SP_UNW_GO_VDSO ? names[k] : "?";
}

static int load_file(const char *path, struct sp_eh_table *t, double *ms)
{
	struct timespec t0, t1;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = sp_eh_table__from_elf(t, elf);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ms)
		*ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	elf_end(elf);
	close(fd);
	return err;
}

static int dump(const char *path)
{
	struct sp_eh_table t;
	int err = load_file(path, &t, NULL);

	if (err) {
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		return 1;
	}
	for (int i = 0; i < t.n; i++)
		printf("%" PRIx64 " %s %d %d\n", t.rows[i].pc, kind_name(t.rows[i].kind),
		       t.rows[i].cfa_off, t.rows[i].rbp_off);
	sp_eh_table__free(&t);
	return 0;
}

static uint64_t sym_addr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct sp_elf *e = fd >= 0 ? sp_elf__open_fd(fd, path, NULL) : NULL;
	uint64_t a = e ? sp_elf__lookup_name(e, name) : 0;

	sp_elf__destroy(e);
	return a;
}

static bool row_is(const struct sp_eh_table *t, uint64_t pc, int kind, int cfa_off, int rbp_off)
{
	const struct sp_eh_row *r = pc ? sp_eh_table__find(t, pc) : NULL;

	if (!r) {
		printf("  no row for %#" PRIx64 "\n", pc);
		return false;
	}
	if (r->kind == kind && r->cfa_off == cfa_off && r->rbp_off == rbp_off)
		return true;
	printf("  row at %#" PRIx64 " for %#" PRIx64 ": %s %d %d\n", r->pc, pc, kind_name(r->kind),
	       r->cfa_off, r->rbp_off);
	return false;
}

static int count_kind(const struct sp_eh_table *t, int kind)
{
	int n = 0;

	for (int i = 0; i < t->n; i++)
		n += t->rows[i].kind == kind;
	return n;
}

static bool sorted_and_merged(const struct sp_eh_table *t)
{
	for (int i = 1; i < t->n; i++) {
		const struct sp_eh_row *a = &t->rows[i - 1], *b = &t->rows[i];

		if (a->pc >= b->pc || (a->kind == b->kind && a->cfa_off == b->cfa_off &&
				       a->rbp_off == b->rbp_off))
			return false;
	}
	return true;
}

static void test_omit_fp(const char *bin)
{
	struct sp_eh_table t;
	uint64_t leaf = sym_addr(bin, "chain_leaf"), mid = sym_addr(bin, "chain_mid");
	uint64_t start = sym_addr(bin, "_start");
	int err = load_file(bin, &t, NULL);

	check(err == 0 && t.n > 5, "-O2 -fomit-frame-pointer: %d rows (err %d)", t.n, err);
	if (err)
		return;
	check(sorted_and_merged(&t), "rows sorted, consecutive rules differ");
	check(leaf && row_is(&t, leaf, SP_UNW_CFA_RSP, 8, 0), "chain_leaf entry: CFA=rsp+8");
	check(leaf && row_is(&t, leaf + 12, SP_UNW_CFA_RSP, 8, 0), "chain_leaf body: CFA=rsp+8");
	check(mid && row_is(&t, mid, SP_UNW_CFA_RSP, 8, 0), "chain_mid entry: CFA=rsp+8");
	check(mid && row_is(&t, mid + 1, SP_UNW_CFA_RSP, 16, 0), "chain_mid after push: CFA=rsp+16");
	check(start && row_is(&t, start, SP_UNW_STOP, 0, 0), "_start: STOP (RA undefined)");
	check(count_kind(&t, SP_UNW_PLT) == 1, ".plt: one PLT row (%d)", count_kind(&t, SP_UNW_PLT));
	check(count_kind(&t, SP_UNW_FP) >= 1, "gaps between FDEs: FP rows (%d)",
	      count_kind(&t, SP_UNW_FP));
	sp_eh_table__free(&t);
}

static void test_with_fp(const char *bin)
{
	struct sp_eh_table t;
	uint64_t leaf = sym_addr(bin, "chain_leaf"), mid = sym_addr(bin, "chain_mid");
	int err = load_file(bin, &t, NULL);

	check(err == 0, "-O1 -fno-omit-frame-pointer: %d rows (err %d)", t.n, err);
	if (err)
		return;
	check(leaf && row_is(&t, leaf + 8, SP_UNW_CFA_RSP, 8, 0), "frameless leaf: CFA=rsp+8");
	check(mid && row_is(&t, mid + 1, SP_UNW_CFA_RSP, 16, -16),
	      "chain_mid after push %%rbp: CFA=rsp+16, rbp at CFA-16");
	check(mid && row_is(&t, mid + 4, SP_UNW_CFA_RBP, 16, -16),
	      "chain_mid after mov %%rsp,%%rbp: CFA=rbp+16, rbp at CFA-16");
	sp_eh_table__free(&t);
}

/* -fno-asynchronous-unwind-tables: the program's functions are only in
 * .debug_frame; .eh_frame still has the C runtime's and the PLT. */
static void test_debug_frame(const char *bin)
{
	struct sp_eh_table t;
	uint64_t leaf = sym_addr(bin, "chain_leaf"), mid = sym_addr(bin, "chain_mid");
	uint64_t start = sym_addr(bin, "_start");
	int err = load_file(bin, &t, NULL);

	check(err == 0, ".debug_frame build: %d rows (err %d)", t.n, err);
	if (err)
		return;
	check(sorted_and_merged(&t), ".debug_frame build: rows sorted and merged");
	check(leaf && row_is(&t, leaf + 4, SP_UNW_CFA_RSP, 8, 0), ".debug_frame: chain_leaf CFA=rsp+8");
	check(mid && row_is(&t, mid + 1, SP_UNW_CFA_RSP, 16, 0),
	      ".debug_frame: chain_mid after push: CFA=rsp+16");
	check(start && row_is(&t, start, SP_UNW_STOP, 0, 0), ".eh_frame too: _start STOP");
	check(count_kind(&t, SP_UNW_PLT) == 1, ".eh_frame too: the PLT row");
	sp_eh_table__free(&t);
}

static void test_libc(void)
{
	static const char *const paths[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					     "/usr/lib/x86_64-linux-gnu/libc.so.6" };
	const char *path = NULL;
	struct sp_eh_table t;
	uint64_t cn;
	double ms = 0;
	int err;

	for (int i = 0; i < 2 && !path; i++)
		if (access(paths[i], R_OK) == 0)
			path = paths[i];
	if (!path) {
		printf("skip libc: not found\n");
		return;
	}
	err = load_file(path, &t, &ms);
	check(err == 0 && t.n > 10000, "libc: %d rows, %d FDEs, %d bad, %d expression rows, "
	      "%d other; %.1f ms", t.n, t.st.fdes, t.st.bad_fdes, t.st.expr_rows, t.st.other_rows, ms);
	if (err)
		return;
	check(sorted_and_merged(&t), "libc: rows sorted and merged");
	check(t.st.bad_fdes == 0, "libc: no FDE rejected");
	check(count_kind(&t, SP_UNW_SIGNAL) >= 1, "libc: __restore_rt is a SIGNAL row");
	check(count_kind(&t, SP_UNW_PLT) >= 1, "libc: .plt rows");
	cn = sym_addr(path, "clock_nanosleep");
	check(cn && row_is(&t, cn, SP_UNW_CFA_RSP, 8, 0), "libc clock_nanosleep entry: CFA=rsp+8");
	sp_eh_table__free(&t);
}

/* A hand-made .eh_frame: CIE "zR" (pcrel sdata4), then an FDE for
 * [0x1000, 0x1040) with push/remember/restore_state and an unknown CFA
 * expression, then an FDE with a 64-bit length for [0x1050, 0x1060). */
static void test_synthetic(void)
{
	static const uint8_t cie[] = {
		0x14, 0, 0, 0,  0, 0, 0, 0,  1, 'z', 'R', 0,  1, 0x78, 16,  1, 0x1b,
		0x0c, 7, 8,  0x90, 1,  0, 0,
	};
	uint8_t sec[256];
	size_t n = 0;
	struct sp_eh_table t = { 0 };
	int err;

	memcpy(sec, cie, sizeof(cie));
	n = sizeof(cie);
	{
		/* FDE 1: body length filled below */
		size_t at = n;
		uint8_t ops[] = {
			0x41, 0x0e, 16, 0x86, 2,   /* +1: cfa rsp+16, rbp at cfa-16 */
			0x43, 0x0a, 0x0e, 32,      /* +3: remember; cfa rsp+32 */
			0x44, 0x0b,                /* +4: restore_state: rsp+16 */
			0x44, 0x0f, 2, 0x76, 0x00, /* +4: cfa = expr (breg6 0): FP */
			0x44, 0x0c, 7, 8, 0xc6,    /* +4: cfa rsp+8, restore rbp */
			0, 0, 0,
		};
		uint32_t len, ptr;
		int32_t pc;

		n += 4;
		ptr = (uint32_t)(n);           /* back to the CIE at 0 */
		memcpy(sec + n, &ptr, 4);
		n += 4;
		pc = (int32_t)(0x1000 - (0x2000 + n)); /* section at 0x2000 */
		memcpy(sec + n, &pc, 4);
		n += 4;
		len = 0x40;
		memcpy(sec + n, &len, 4);
		n += 4;
		sec[n++] = 0; /* augmentation length */
		memcpy(sec + n, ops, sizeof(ops));
		n += sizeof(ops);
		len = (uint32_t)(n - at - 4);
		memcpy(sec + at, &len, 4);
	}
	{
		/* FDE 2, 64-bit length form: 8-byte length and CIE pointer */
		size_t at = n;
		uint32_t esc = 0xffffffff, range = 0x10;
		uint64_t len, ptr;
		int32_t pc;

		memcpy(sec + n, &esc, 4);
		n += 12;
		ptr = n; /* back to the CIE at 0 */
		memcpy(sec + n, &ptr, 8);
		n += 8;
		pc = (int32_t)(0x1050 - (0x2000 + n));
		memcpy(sec + n, &pc, 4);
		n += 4;
		memcpy(sec + n, &range, 4);
		n += 4;
		sec[n++] = 0;
		sec[n++] = 0x41; /* +1: cfa rsp+16 */
		sec[n++] = 0x0e;
		sec[n++] = 16;
		len = n - at - 12;
		memcpy(sec + at + 4, &len, 8);
	}
	memset(sec + n, 0, 4); /* terminator */
	n += 4;
	err = sp_eh_parse(&t, sec, n, 0x2000, false);
	if (!err)
		err = sp_eh_table__finish(&t);
	check(err == 0 && t.st.fdes == 2 && t.st.bad_fdes == 0, "synthetic: parsed (%d FDEs, %d bad)",
	      t.st.fdes, t.st.bad_fdes);
	check(row_is(&t, 0x1000, SP_UNW_CFA_RSP, 8, 0), "synthetic: entry rsp+8");
	check(row_is(&t, 0x1001, SP_UNW_CFA_RSP, 16, -16), "synthetic: after push");
	check(row_is(&t, 0x1004, SP_UNW_CFA_RSP, 32, -16), "synthetic: remembered state changed");
	check(row_is(&t, 0x1008, SP_UNW_CFA_RSP, 16, -16), "synthetic: restore_state");
	check(row_is(&t, 0x100c, SP_UNW_FP, 0, 0) && t.st.expr_rows == 1,
	      "synthetic: unknown CFA expression is an FP row");
	check(row_is(&t, 0x1010, SP_UNW_CFA_RSP, 8, 0), "synthetic: restore rbp");
	check(row_is(&t, 0x1040, SP_UNW_FP, 0, 0), "synthetic: gap after the FDE");
	check(row_is(&t, 0x1051, SP_UNW_CFA_RSP, 16, 0), "synthetic: 64-bit FDE");
	check(row_is(&t, 0x1060, SP_UNW_FP, 0, 0), "synthetic: end of the last FDE");
	sp_eh_table__free(&t);
}

/* The rustc 1.95 binary of the research notes (lld 22): the text mapping
 * "55721b6f7000 r-xp 00013000" is also inside the first (read-only)
 * segment's range; its bias must come from the executable one. */
static void test_lld_segments_by_hand(void)
{
	static const struct sp_segment segs[] = {
		{ 0x000000, 0x000000, 0x013f40, PF_R },
		{ 0x013f40, 0x014f40, 0x040000, PF_R | PF_X },
		{ 0x0545f0, 0x0565f0, 0x002000, PF_R | PF_W },
		{ 0x056fd8, 0x059fd8, 0x000100, PF_R | PF_W },
	};
	const struct sp_segment *s = sp_segments__for_map(segs, 4, 0x13000, true);
	uint64_t start = 0x55721b6f7000ull, bias = s ? sp_segment__bias(s, start, 0x13000) : 0;

	check(s == &segs[1], "lld layout: the text mapping at pgoff 0x13000 shows the R E segment");
	check(bias && 0x55721b6f9f10ull - bias == 0x16f10,
	      "lld layout: hash_work at 0x55721b6f9f10 is vaddr 0x16f10 (got %#" PRIx64 ")",
	      0x55721b6f9f10ull - bias);
	check(sp_segments__for_map(segs, 4, 0x13000, false) == &segs[0],
	      "lld layout: without the exec preference the R segment is first (the old bug)");
	check(sp_segments__for_map(segs, 4, 0x60000, true) == NULL, "no segment past the file");
}

/* A real lld build: map its text segment the way the kernel does (at a
 * page-aligned vaddr and offset), then check that a function's runtime
 * address goes back to its own rows. */
static void test_lld_binary(const char *bin)
{
	int fd = open(bin, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	struct sp_segment segs[SP_MAX_SEGMENTS];
	const struct sp_segment *text = NULL, *s;
	uint64_t base = 0x555555554000ull, start, pgoff, pc, leaf = sym_addr(bin, "chain_leaf");
	int n = elf ? sp_segments__read(elf, segs, SP_MAX_SEGMENTS) : 0;
	struct sp_eh_table t;

	for (int i = 0; i < n && !text; i++)
		if (segs[i].flags & PF_X)
			text = &segs[i];
	check(text && text->vaddr != text->off, "lld build: text segment p_vaddr - p_offset = %#" PRIx64,
	      text ? text->vaddr - text->off : 0);
	if (!text || !leaf || load_file(bin, &t, NULL) != 0) {
		check(false, "lld build: segments, chain_leaf and rows");
		goto out;
	}
	start = base + (text->vaddr & ~0xfffull);
	pgoff = text->off & ~0xfffull;
	s = sp_segments__for_map(segs, n, pgoff, true);
	pc = base + leaf; /* where the loader put chain_leaf */
	check(s == text, "lld build: the text mapping shows the text segment");
	check(s && pc - sp_segment__bias(s, start, pgoff) == leaf,
	      "lld build: chain_leaf's runtime pc maps back to its vaddr");
	check(row_is(&t, leaf, SP_UNW_CFA_RSP, 8, 0), "lld build: chain_leaf entry: CFA=rsp+8");
	sp_eh_table__free(&t);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static void lld_build(const char *dir, const char *src)
{
	char bin[4200], cmd[9000];
	bool ci = getenv("CI") && strcmp(getenv("CI"), "true") == 0;

	if (system("command -v clang-16 >/dev/null && command -v ld.lld-16 >/dev/null") != 0) {
		if (ci)
			check(false, "lld layout: clang-16 and lld-16 are installed (.ci/setup)");
		else
			printf("skip lld build: no clang-16 or ld.lld-16\n");
		return;
	}
	snprintf(bin, sizeof(bin), "%s/chain-lld", dir);
	snprintf(cmd, sizeof(cmd), "clang-16 -O2 -fomit-frame-pointer -fuse-ld=lld "
		 "--ld-path=$(command -v ld.lld-16) -o %s %s", bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	test_lld_binary(bin);
	unlink(bin);
}

/* Corrupted sections (libc's .eh_frame with random bytes changed) must
 * neither crash nor loop; rows stay sorted. */
static void test_corrupt(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0, runs = 300;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	Elf_Data *d = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	uint8_t *copy;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) &&
			    strcmp(elf_strptr(elf, shstrndx, sh.sh_name) ?: "", ".eh_frame") == 0)
				break;
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !(copy = malloc(d->d_size))) {
		printf("skip corrupt sections: no libc .eh_frame\n");
		goto out;
	}
	srand(1);
	for (int i = 0; i < runs; i++) {
		struct sp_eh_table t = { 0 };

		memcpy(copy, d->d_buf, d->d_size);
		for (int k = 0; k < 1 + i % 16; k++)
			copy[(size_t)rand() % d->d_size] = (uint8_t)rand();
		if (sp_eh_parse(&t, copy, d->d_size, sh.sh_addr, i % 7 == 0) == 0 &&
		    sp_eh_table__finish(&t) == 0 && sorted_and_merged(&t))
			ok++;
		sp_eh_table__free(&t);
	}
	free(copy);
	check(ok == runs, "corrupt sections: %d of %d parsed without error, rows sorted", ok, runs);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	char file[] = __FILE__, src[4096], dir[] = "/tmp/sp-ehtest-XXXXXX", bin[4200], cmd[9000];

	elf_version(EV_CURRENT);
	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return dump(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_synthetic();
	test_libc();
	test_corrupt();
	test_lld_segments_by_hand();
	snprintf(src, sizeof(src), "%s/../workloads/unwind_chain.c", dirname(file));
	if (!mkdtemp(dir) || system("command -v gcc >/dev/null") != 0) {
		printf("skip: no scratch dir or no gcc\n");
		return failed ? 1 : 77;
	}
	snprintf(bin, sizeof(bin), "%s/chain-o2", dir);
	snprintf(cmd, sizeof(cmd), "gcc -O2 -fomit-frame-pointer -o %s %s", bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	test_omit_fp(bin);
	unlink(bin);
	snprintf(bin, sizeof(bin), "%s/chain-o1", dir);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -fno-omit-frame-pointer -o %s %s", bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	test_with_fp(bin);
	unlink(bin);
	snprintf(bin, sizeof(bin), "%s/chain-debug-frame", dir);
	snprintf(cmd, sizeof(cmd), "gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -g "
		 "-o %s %s", bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	test_debug_frame(bin);
	unlink(bin);
	lld_build(dir, src);
	rmdir(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
