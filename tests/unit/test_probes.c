/* tests/unit/test_probes.c: the probe-resolution parsers, without root or BPF.
 *
 *   test_probes
 *
 * Globs; /etc/ld.so.cache lookups (a synthetic cache in both layouts, and
 * the real one for libc); tracefs format lines; USDT note descriptors and
 * every argument-spec operand form; this binary's own function symbols
 * (exact, glob, file offsets). Prints "N passed, N failed" last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/attach/resolve.h"
#include "runtime/attach/tracefs.h"
#include "runtime/elf/usdt_notes.h"

#include "tests/unit/check.h"


/* Referenced by name below: keep them in the symbol table. */
__attribute__((noinline, used)) int probes_unit_alpha(int x);
__attribute__((noinline, used)) int probes_unit_beta(int x);
int probes_unit_alpha(int x) { return x + 1; }
int probes_unit_beta(int x) { return x + 2; }

static void test_glob(void)
{
	CHECK(sp_glob_match("*", ""), "* matches empty");
	CHECK(sp_glob_match("sys_enter_*", "sys_enter_openat"), "prefix glob");
	CHECK(!sp_glob_match("sys_enter_*", "sys_exit_openat"), "prefix glob mismatch");
	CHECK(sp_glob_match("*open*", "sys_enter_openat"), "infix glob");
	CHECK(sp_glob_match("a?c", "abc") && !sp_glob_match("a?c", "ac"), "question mark");
	CHECK(sp_glob_match("*a*b*c", "xxaxxbxxc") && !sp_glob_match("*a*b*c", "xxaxxcxxb"),
	      "backtracking");
	CHECK(sp_has_wildcard("a*") && !sp_has_wildcard("abc") && !sp_has_wildcard(NULL),
	      "has_wildcard");
}

/* A new-format cache: header, entries, strings (offsets from the header). */
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

static size_t make_cache(unsigned char *buf, bool with_old)
{
	static const char *const keys[] = { "libfoo.so.1", "libbar.so.2", "libfoo.so.1" };
	static const char *const vals[] = { "/lib32/libfoo.so.1", "/lib/x86_64-linux-gnu/libbar.so.2",
					    "/lib/x86_64-linux-gnu/libfoo.so.1" };
	static const int32_t flags[] = { 0x0003 /* i386 */, 0x0303, 0x0303 };
	size_t base = 0, strs, off, i;

	memset(buf, 0, 4096);
	if (with_old) {
		memcpy(buf, "ld.so-1.7.0", 11);
		put32(buf + 12, 1); /* one old 12-byte entry */
		base = (16 + 12 + 7) & ~(size_t)7;
	}
	memcpy(buf + base, "glibc-ld.so.cache1.1", 20);
	put32(buf + base + 20, 3);
	strs = 48 + 3 * 24;
	off = strs;
	for (i = 0; i < 3; i++) {
		unsigned char *e = buf + base + 48 + i * 24;

		memcpy(e, &flags[i], 4);
		put32(e + 4, (uint32_t)off);
		strcpy((char *)buf + base + off, keys[i]);
		off += strlen(keys[i]) + 1;
		put32(e + 8, (uint32_t)off);
		strcpy((char *)buf + base + off, vals[i]);
		off += strlen(vals[i]) + 1;
	}
	return base + off;
}

static void test_ldcache(void)
{
	unsigned char buf[4096];
	char path[] = "/tmp/sprof-ldcache-XXXXXX", out[256];
	int fd, old;

	for (old = 0; old < 2; old++) {
		size_t len = make_cache(buf, old);

		fd = mkstemp(path);
		if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
			CHECK(0, "cannot write %s", path);
			return;
		}
		close(fd);
		CHECK(sp_ldcache_lookup("libfoo", path, out, sizeof(out)) == 0 &&
			      !strcmp(out, "/lib/x86_64-linux-gnu/libfoo.so.1"),
		      "libfoo -> x86-64 entry, not the i386 one (old=%d): %s", old, out);
		CHECK(sp_ldcache_lookup("libbar.so.2", path, out, sizeof(out)) == 0 &&
			      !strcmp(out, "/lib/x86_64-linux-gnu/libbar.so.2"),
		      "full soname (old=%d)", old);
		CHECK(sp_ldcache_lookup("libba", path, out, sizeof(out)) == -ENOENT,
		      "a name prefix is not a library (old=%d)", old);
		unlink(path);
		strcpy(path, "/tmp/sprof-ldcache-XXXXXX");
	}
	CHECK(sp_ldcache_lookup("libc", NULL, out, sizeof(out)) == 0 && strstr(out, "libc.so"),
	      "libc through /etc/ld.so.cache: %s", out);
	CHECK(sp_resolve_binary("sh", 0, out, sizeof(out)) == 0 && strstr(out, "/sh"),
	      "sh through $PATH: %s", out);
	CHECK(sp_resolve_binary("./no/such/file", 0, out, sizeof(out)) == -ENOENT,
	      "missing path");
}

static void test_tracefs_format(void)
{
	static const char fmt[] =
		"name: x\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:32;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:36;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned char mac[6];\toffset:40;\tsize:6;\tsigned:0;\n"
		"\nprint fmt: \"...\"\n";
	struct sp_tracefs_field *f;
	int n = 0;

	CHECK(sp_tp_parse_format(fmt, &f, &n) == 0 && n == 6, "six fields, got %d", n);
	if (n != 6)
		return;
	CHECK(f[0].is_common && !strcmp(f[0].name, "common_type"), "common field");
	CHECK(!strcmp(f[1].name, "filename") && !strcmp(f[1].type, "const char *") &&
		      f[1].is_pointer && f[1].is_string && f[1].offset == 24 && f[1].size == 8,
	      "char pointer: '%s' '%s'", f[1].name, f[1].type);
	CHECK(!strcmp(f[2].name, "prev_comm") && !strcmp(f[2].type, "char[16]") &&
		      f[2].array_len == 16 && f[2].is_string && !f[2].is_pointer,
	      "char array: '%s' '%s'", f[2].name, f[2].type);
	CHECK(!strcmp(f[3].name, "name") && f[3].is_data_loc && f[3].is_string &&
		      !strcmp(f[3].type, "__data_loc char[]"),
	      "__data_loc: '%s' '%s'", f[3].name, f[3].type);
	CHECK(!strcmp(f[4].name, "pid") && f[4].is_signed && !f[4].is_string, "signed int");
	CHECK(!strcmp(f[5].name, "mac") && !f[5].is_string && f[5].array_len == 6,
	      "unsigned char array is not a string");
	sp_tracefs_fields_free(f, n);
}

static void test_usdt_note(void)
{
	unsigned char d[64] = { 0 };
	struct sp_usdt_note n;
	uint64_t pc = 0x1234, sema = 0x4000;

	memcpy(d, &pc, 8);
	memcpy(d + 16, &sema, 8);
	memcpy(d + 24, "prov\0name\0-4@%edi 8@$3", 23);
	CHECK(sp_usdt_note_parse(d, 24 + 23 + 1, &n) == 0 && !strcmp(n.provider, "prov") &&
		      !strcmp(n.name, "name") && n.nargs == 2 && n.pc == pc && n.semaphore == sema,
	      "note descriptor");
	free(n.provider);
	free(n.name);
	free(n.args);
	CHECK(sp_usdt_note_parse(d, 20, &n) == -EINVAL, "short descriptor");
}

static void test_usdt_specs(const char *self)
{
	struct sp_usdt_spec s;
	char bad[64];
	uint64_t alpha;

	CHECK(sp_usdt_spec_parse("-4@%edi 8@(%rsi) -2@-20(%rbp) 1@$-56", self, 0, &s, bad,
				 sizeof(bad)) == 0 && s.nargs == 4, "basic forms");
	CHECK(s.args[0].kind == SP_USDT_REG && s.args[0].reg_off == 112 && s.args[0].size == 4 &&
		      s.args[0].is_signed, "register edi");
	CHECK(s.args[1].kind == SP_USDT_MEM && s.args[1].reg_off == 104 && s.args[1].val_off == 0,
	      "(%%rsi)");
	CHECK(s.args[2].kind == SP_USDT_MEM && s.args[2].reg_off == 32 && s.args[2].val_off == -20 &&
		      s.args[2].size == 2, "-20(%%rbp)");
	CHECK(s.args[3].kind == SP_USDT_CONST && s.args[3].val_off == -56 && !s.args[3].is_signed,
	      "constant");
	CHECK(sp_usdt_spec_parse("-4@(%rax,%rdx,4) 8@(,%r8,8)", self, 0, &s, bad, sizeof(bad)) == 0 &&
		      s.args[0].reg_off == 80 && s.args[0].idx_off == 96 && s.args[0].scale == 4 &&
		      s.args[1].reg_off == -1 && s.args[1].idx_off == 72 && s.args[1].scale == 8,
	      "base+index*scale");
	CHECK(sp_elf_symbol_vaddr(self, "probes_unit_alpha", &alpha) == 0, "symbol lookup");
	CHECK(sp_usdt_spec_parse("-4@8+probes_unit_alpha(%rip)", self, 0x1000, &s, bad,
				 sizeof(bad)) == 0 && s.args[0].kind == SP_USDT_IPREL &&
		      s.args[0].val_off == (int64_t)(alpha + 8 - 0x1000),
	      "sym+off(%%rip) is relative to the site");
	CHECK(sp_usdt_spec_parse("-4@%eax 4@%xmm0", self, 0, &s, bad, sizeof(bad)) == -EINVAL &&
		      !strcmp(bad, "4@%xmm0"), "unknown register names the token: %s", bad);
	CHECK(sp_usdt_spec_parse("8@nosuch(%rip)", self, 0, &s, bad, sizeof(bad)) == -ENOENT,
	      "unknown symbol");
	CHECK(sp_usdt_spec_parse("3@%eax", self, 0, &s, bad, sizeof(bad)) == -EINVAL, "bad size");
	CHECK(sp_usdt_spec_parse("8@", self, 0, &s, bad, sizeof(bad)) == -EINVAL, "empty operand");
}

static void test_funcs(const char *self)
{
	struct sp_funcs f;
	const struct sp_func *a;
	uint64_t foff;
	int i, n = 0;

	if (sp_funcs__load(&f, self)) {
		CHECK(0, "cannot read %s", self);
		return;
	}
	a = sp_funcs__find(&f, "probes_unit_alpha");
	CHECK(a != NULL, "exact name");
	for (i = 0; i < f.n; i++)
		n += sp_func_matches(&f.v[i], "probes_unit_*");
	CHECK(n == 2, "glob matches 2, got %d", n);
	CHECK(a && sp_elf_vaddr_to_foff(self, a->vaddr, &foff) == 0 && foff == a->foff,
	      "file offset");
	CHECK(sp_funcs__find(&f, "probes_unit_gamma") == NULL, "missing name");
	sp_funcs__free(&f);
	n = sp_funcs__load(&f, "/etc/passwd");
	CHECK(n == -ENOEXEC, "not an ELF file: %d", n);
}

int main(int argc, char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	(void)argv;
	if (n <= 0)
		return 77;
	self[n] = '\0';
	test_glob();
	test_ldcache();
	test_tracefs_format();
	test_usdt_note();
	test_usdt_specs(self);
	test_funcs(self);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
