/* tests/unit/test_gopclntab.c: Go's .gopclntab -> unwind rows (runtime/elf/gopclntab.c).
 *
 * Builds tests/workloads/unwind_go.go with `go build` and checks known
 * rows: the frameless leaf main.chainLeaf is CFA=rsp+8 throughout, a
 * function with a frame gets CFA=rsp+8 at entry and rsp+frame+8 with rbp
 * at CFA-16 after its SUBQ, runtime.goexit a STOP row, runtime.systemstack
 * (it switches stacks) a CUT row, the signal
 * restorer runtime.sigreturn a SIGNAL row from one byte before its entry,
 * the rows are sorted and merged; then corrupted copies of the section
 * must neither crash nor loop, and a header of an unknown version says
 * ENOTSUP. A stripped build (-ldflags='-s -w': no .symtab, no DWARF) is
 * named from .gopclntab (corrupted copies looked up too): the function
 * and file:line of 300 addresses spread over its text equal `go tool
 * addr2line`'s, and the functions inlined at each pc of a small
 * program's main.outer (inner <- middle <- outer) come with their call
 * lines. Exits 77 when go is missing (a failure under CI=true).
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
#include <unistd.h>

#include "abi/unwind_table.h"
#include "runtime/elf/ehframe.h"
#include "runtime/elf/file.h"
#include "runtime/elf/gopclntab.h"
#include "runtime/elf/inlines.h"
#include "runtime/elf/syms.h"
#include "tests/unit/check.h"


static uint64_t sym_addr(const char *path, const char *name)
{
	struct sp_elf *e = sp_elf__open_path(path);
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
	printf("  row at %#" PRIx64 " for %#" PRIx64 ": kind %d %d %d\n", r->pc, pc, r->kind,
	       r->cfa_off, r->rbp_off);
	return false;
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

/* The first pc in [from, from + 64) whose row differs from from's. */
static uint64_t next_rule(const struct sp_eh_table *t, uint64_t from)
{
	const struct sp_eh_row *r0 = sp_eh_table__find(t, from);

	for (uint64_t pc = from + 1; r0 && pc < from + 64; pc++)
		if (sp_eh_table__find(t, pc) != r0)
			return pc;
	return 0;
}

static void test_rows(const char *bin, Elf *elf)
{
	struct sp_eh_table t;
	uint64_t leaf = sym_addr(bin, "main.chainLeaf"), mid = sym_addr(bin, "main.chainMid");
	uint64_t goexit = sym_addr(bin, "runtime.goexit.abi0"), sigret = sym_addr(bin, "runtime.sigreturn.abi0");
	uint64_t systemstack = sym_addr(bin, "runtime.systemstack.abi0"), body;
	int err = sp_eh_table__from_elf(&t, elf);

	if (!sigret)
		sigret = sym_addr(bin, "runtime.sigreturn__sigaction.abi0");
	check(err == 0 && t.n > 1000, "go binary: %d rows from .gopclntab (err %d)", t.n, err);
	if (err)
		return;
	check(sorted_and_merged(&t), "rows sorted, consecutive rules differ");
	check(leaf && row_is(&t, leaf, SP_UNW_CFA_RSP, 8, 0), "main.chainLeaf entry: CFA=rsp+8");
	check(leaf && row_is(&t, leaf + 20, SP_UNW_CFA_RSP, 8, 0),
	      "main.chainLeaf body (frameless): CFA=rsp+8");
	check(mid && row_is(&t, mid, SP_UNW_CFA_RSP, 8, 0), "main.chainMid entry: CFA=rsp+8");
	body = mid ? next_rule(&t, mid) : 0;
	check(body && row_is(&t, body, SP_UNW_CFA_RSP, 24, -16),
	      "main.chainMid after SUBQ $16: CFA=rsp+24, rbp at CFA-16");
	check(goexit && row_is(&t, goexit, SP_UNW_STOP, 0, 0), "runtime.goexit: STOP");
	/* go 1.19's DWARF: m.curg at 192, g.m at 48 */
	check(systemstack && row_is(&t, systemstack, SP_UNW_GO_SWITCH, -192, 48),
	      "runtime.systemstack (switches stacks): GO_SWITCH, m.curg 192 (-: systemstack), g.m 48");
	check(sigret && row_is(&t, sigret - 1, SP_UNW_SIGNAL, 0, 0) &&
	      row_is(&t, sigret, SP_UNW_SIGNAL, 0, 0),
	      "runtime.sigreturn: SIGNAL from one byte before its entry");
	sp_eh_table__free(&t);
}

/* Names and lines of a corrupted pclntab: anything but a crash or a read
 * outside it (ASan) will do. */
static void lines_of_corrupt(const uint8_t *data, size_t size, uint64_t base)
{
	struct sp_gopcln p;
	struct sp_gofunc f;
	struct sp_goinline in[8];
	const char *file;
	int line;

	if (sp_gopcln_open(&p, data, size, 0) != 0)
		return;
	p.gofunc = data; /* any bytes: the inline trees' reads must stay inside */
	p.gofunc_size = size;
	for (uint64_t pc = base - (1u << 20); pc < base; pc += 4099)
		if (sp_gopcln_find(&p, pc, &f)) {
			sp_gopcln_line(&p, &f, pc, &file, &line);
			sp_gopcln_inlines(&p, &f, pc, in, 8);
		}
}

static void test_corrupt(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, ".gopclntab", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	uint8_t *copy = d ? malloc(d->d_size) : NULL;
	int ok = 0, runs = 200;
	struct sp_eh_table t = { 0 };

	if (!copy) {
		check(false, "corrupt: .gopclntab of the go binary");
		return;
	}
	srand(1);
	for (int i = 0; i < runs; i++) {
		memcpy(copy, d->d_buf, d->d_size);
		for (int k = 0; k < 1 + i % 16; k++)
			copy[(size_t)rand() % (i % 3 ? d->d_size : 80)] = (uint8_t)rand();
		if (sp_gopclntab_parse(&t, copy, d->d_size, 0) != -ENOMEM &&
		    sp_eh_table__finish(&t) == 0 && sorted_and_merged(&t))
			ok++;
		lines_of_corrupt(copy, d->d_size, sh.sh_addr);
		sp_eh_table__free(&t);
	}
	check(ok == runs, "corrupt sections: %d of %d without crash, rows sorted", ok, runs);
	memcpy(copy, d->d_buf, d->d_size);
	copy[0] = 0xfb; /* Go 1.2's magic */
	check(sp_gopclntab_parse(&t, copy, d->d_size, 0) == -ENOTSUP, "Go 1.2 header: ENOTSUP");
	sp_eh_table__free(&t);
	check(sp_gopclntab_parse(&t, copy, 10, 0) == -EINVAL, "short section: EINVAL");
	free(copy);
}

/* 300 addresses spread over the functions of the stripped binary, their
 * names and lines from sp_elf against `go tool addr2line`'s answer. */
static void test_stripped(const char *bin, const char *dir)
{
	struct sp_elf *e = sp_elf__open_path(bin);
	Elf *elf = e ? sp_elf__libelf(e) : NULL;
	struct sp_gopcln p;
	struct sp_gofunc f;
	char path[4200], cmd[9000], name[1024], pos[4096];
	uint64_t addrs[300];
	int n = 0, names = 0, lines = 0;
	FILE *in;

	if (!elf || sp_gopcln__from_elf(&p, elf) != 0) {
		check(false, "stripped: .gopclntab of %s", bin);
		sp_elf__destroy(e);
		return;
	}
	check(sp_elf__nsyms(e) > 1000, "stripped: %d functions from .gopclntab", sp_elf__nsyms(e));
	snprintf(path, sizeof(path), "%s/addrs", dir);
	in = fopen(path, "w");
	for (uint64_t k = 0; in && k < 300; k++) {
		if (!sp_gopcln_func(&p, k * p.nfunc / 300, &f))
			continue;
		addrs[n] = f.entry + (f.end - f.entry) * (uint64_t)(n % 7) / 8;
		fprintf(in, "%#" PRIx64 "\n", addrs[n++]);
	}
	if (in)
		fclose(in);
	snprintf(cmd, sizeof(cmd), "go tool addr2line %s < %s", bin, path);
	in = popen(cmd, "r");
	for (int i = 0; in && i < n && fscanf(in, "%1023s %4095s", name, pos) == 2; i++) {
		struct sp_elf_sym *s = sp_elf__find(e, addrs[i]);
		const char *file = NULL;
		int line = 0;
		char mine[4200];

		names += s && strcmp(sp_elf_sym__name(s), name) == 0;
		if (sp_elf__find_line(e, addrs[i], &file, &line))
			snprintf(mine, sizeof(mine), "%s:%d", file, line);
		else
			snprintf(mine, sizeof(mine), ":-1"); /* addr2line's "no line" */
		lines += strcmp(mine, pos) == 0;
		if ((!s || strcmp(sp_elf_sym__name(s), name) != 0 || strcmp(mine, pos) != 0) &&
		    names + lines < 2 * i + 6)
			printf("  %#" PRIx64 ": %s %s, go tool addr2line: %s %s\n", addrs[i],
			       s ? sp_elf_sym__name(s) : "?", mine, name, pos);
	}
	if (in)
		pclose(in);
	unlink(path);
	check(n >= 290 && names == n, "stripped: %d of %d names equal go tool addr2line's", names, n);
	check(n >= 290 && lines == n, "stripped: %d of %d file:line equal go tool addr2line's", lines,
	      n);
	sp_elf__destroy(e);
}

/* A program whose main.outer inlines middle, which inlines inner twice
 * (line numbers matter: INL_* below). */
static const char inl_src[] =
	"package main\n"                                                   /* 1 */
	"\n"
	"var sink uint64\n"
	"\n"
	"func inner(h uint64) uint64 { return (h ^ 7) * 1099511628211 }\n" /* 5 */
	"\n"
	"func middle(h uint64) uint64 { return inner(h) + inner(h>>1) }\n" /* 7 */
	"\n"
	"//go:noinline\n"
	"func outer(seed uint64) uint64 {\n"                                /* 10 */
	"\th := seed\n"
	"\tfor i := 0; i < 100000; i++ {\n"
	"\t\th = middle(h)\n"                                            /* 13 */
	"\t}\n"
	"\treturn h\n"
	"}\n"
	"\n"
	"func main() { sink = outer(sink) }\n";
#define INL_INNER 5
#define INL_MIDDLE 7
#define INL_OUTER_CALL 13

/* Every pc of main.outer in inner's body says inner <- middle (called at
 * line 7) <- outer (line 13); in middle's own code, middle <- outer. */
static void test_inlines(const char *dir)
{
	char src[4200], bin[4200], cmd[9000];
	struct sp_elf *e = NULL;
	struct sp_gopcln p;
	struct sp_gofunc f;
	int in_inner = 0, in_middle = 0, good = 0, pcs = 0;
	FILE *out;

	snprintf(src, sizeof(src), "%s/inl.go", dir);
	snprintf(bin, sizeof(bin), "%s/inl", dir);
	out = fopen(src, "w");
	if (out) {
		fputs(inl_src, out);
		fclose(out);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && go build -ldflags='-s -w' -o %s %s", dir, bin, src);
	if (!out || system(cmd) != 0 || !(e = sp_elf__open_path(bin)) ||
	    sp_gopcln__from_elf(&p, sp_elf__libelf(e)) != 0) {
		check(false, "inlines: build and open %s", bin);
		goto out;
	}
	check(p.gofunc != NULL, "inlines: go:func.* found through the module data");
	for (uint64_t i = 0; i < p.nfunc; i++)
		if (sp_gopcln_func(&p, i, &f) && strcmp(f.name, "main.outer") == 0)
			break;
	for (uint64_t pc = f.entry; strcmp(f.name, "main.outer") == 0 && pc < f.end; pc++) {
		struct sp_inline in[SP_INLINE_MAX];
		const char *file;
		int line, n = sp_elf__find_inlines(e, pc, in, SP_INLINE_MAX);

		if (!sp_elf__find_line(e, pc, &file, &line))
			continue; /* the padding after the code */
		pcs++;
		if (line == INL_INNER) {
			in_inner++;
			good += n == 2 && !strcmp(in[0].name, "main.inner") && in[0].call_line == INL_MIDDLE &&
				!strcmp(in[1].name, "main.middle") && in[1].call_line == INL_OUTER_CALL;
		} else if (line == INL_MIDDLE) {
			in_middle++;
			good += n == 1 && !strcmp(in[0].name, "main.middle") &&
				in[0].call_line == INL_OUTER_CALL;
		} else {
			good += n == 0;
		}
	}
	check(in_inner > 0 && in_middle > 0 && pcs > 20 && good == pcs,
	      "inlines: %d of %d pcs of main.outer right (%d in inner, %d in middle)", good, pcs,
	      in_inner, in_middle);
out:
	sp_elf__destroy(e);
	unlink(bin);
	unlink(src);
}

int main(void)
{
	char file[] = __FILE__, src[4096], dir[] = "/tmp/sp-gotest-XXXXXX", bin[4200], cmd[9000];
	bool ci = getenv("CI") && strcmp(getenv("CI"), "true") == 0;
	int fd;
	Elf *elf;

	elf_version(EV_CURRENT);
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(src, sizeof(src), "%s/../workloads/unwind_go.go", dirname(file));
	if (!mkdtemp(dir) || system("command -v go >/dev/null") != 0) {
		printf("skip: no scratch dir or no go\n");
		return ci ? 1 : 77;
	}
	snprintf(bin, sizeof(bin), "%s/unwind_go", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && go build -o %s %s", dir, bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (elf) {
		test_rows(bin, elf);
		test_corrupt(elf);
		elf_end(elf);
	} else {
		check(false, "open %s", bin);
	}
	if (fd >= 0)
		close(fd);
	unlink(bin);
	snprintf(cmd, sizeof(cmd), "cd %s && go build -ldflags='-s -w' -o %s %s", dir, bin, src);
	check(system(cmd) == 0, "build %s", cmd);
	test_stripped(bin, dir);
	unlink(bin);
	test_inlines(dir);
	rmdir(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
