/* tests/unit/test_symbolize_corrupt.c: damaged ELF files never crash the symbolizer.
 *
 * Takes this test's own executable (built with -g: it has .symtab, notes
 * and DWARF line tables), then writes damaged copies: truncated at many
 * lengths, and with bytes flipped inside the ELF, program and section
 * headers, .symtab, .strtab, .dynsym, the build-id note, .gnu_debuglink,
 * .debug_line, .debug_line_str and .debug_str. Each copy is
 * opened from a memfd, and every lookup kind is run on it. Passing means finishing
 * (best under ASan/UBSan: -DSPROF_SANITIZE=ON); results are not checked
 * beyond the undamaged file resolving its own functions.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/elf/lines.h"
#include "runtime/elf/syms.h"

struct region {
	uint64_t off, size;
	const char *name;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	struct stat st;

	if (!f || fstat(fileno(f), &st) != 0)
		return NULL;
	buf = malloc(st.st_size);
	if (buf && fread(buf, 1, st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = st.st_size;
	return buf;
}

/* File ranges of the sections worth damaging. */
static int find_regions(const char *path, struct region *r, int max)
{
	static const char *names[] = { ".symtab", ".strtab", ".dynsym", ".dynstr",
				       ".note.gnu.build-id", ".gnu_debuglink", ".debug_line",
				       ".debug_line_str", ".debug_str" };
	int fd = open(path, O_RDONLY), n = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) || !gelf_getehdr(elf, &eh))
		return 0;
	r[n++] = (struct region){ 0, sizeof(Elf64_Ehdr), "ELF header" };
	r[n++] = (struct region){ eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize, "phdrs" };
	r[n++] = (struct region){ eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize, "shdrs" };
	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		const char *nm;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		nm = elf_strptr(elf, shstrndx, sh.sh_name);
		for (size_t i = 0; nm && i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(nm, names[i]) == 0)
				r[n++] = (struct region){ sh.sh_offset, sh.sh_size, names[i] };
	}
	elf_end(elf);
	close(fd);
	return n;
}

/* Every lookup on one damaged image (in a memfd); returns how many symbols it found. */
static int exercise(const unsigned char *buf, size_t len)
{
	int fd = memfd_create("sp-corrupt", MFD_CLOEXEC), n;
	struct sp_elf *e;
	const char *file;
	int line;
	uint64_t v;

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	e = sp_elf__open_fd(fd, "/nonexistent/copy", NULL);
	if (!e)
		return 0;
	sp_elf__build_id(e);
	n = sp_elf__nsyms(e);
	for (int i = 0; i < 64; i++) {
		struct sp_elf_sym *s;

		v = rnd() % 0x200000;
		s = sp_elf__find(e, v);
		if (s)
			sp_elf_sym__name(s);
		sp_elf__find_line(e, v, &file, &line);
		sp_elf__foff_to_vaddr(e, v, &v);
	}
	sp_elf__lookup_name(e, "main");
	sp_elf__lookup_name(e, "no_such_symbol");
	sp_elf__destroy(e);
	return n;
}

int main(void)
{
	struct region regs[24];
	unsigned char *orig, *buf;
	size_t len;
	int nreg, runs = 0, failed = 0;
	uint64_t main_addr;
	struct sp_elf *e;
	const char *file = NULL;
	int line = 0, fd;

	orig = read_file("/proc/self/exe", &len);
	if (!orig) {
		printf("skip: cannot read own executable\n");
		return 77;
	}
	nreg = find_regions("/proc/self/exe", regs, 24);
	buf = malloc(len);

	fd = open("/proc/self/exe", O_RDONLY);
	e = sp_elf__open_fd(fd, "/proc/self/exe", NULL);
	main_addr = e ? sp_elf__lookup_name(e, "main") : 0;
	if (main_addr)
		sp_elf__find_line(e, main_addr + 4, &file, &line);
	printf("%s   intact: main at %#" PRIx64 ", %s:%d, %d damageable sections\n",
	       main_addr && file && strstr(file, "test_symbolize_corrupt.c") ? "ok" : "FAIL",
	       main_addr, file ? file : "?", line, nreg);
	failed += !(main_addr && file && strstr(file, "test_symbolize_corrupt.c"));
	sp_elf__destroy(e);

	for (int i = 0; i < 200; i++, runs++) { /* truncations */
		size_t cut = i < 100 ? rnd() % len : len - 1 - rnd() % 4096;

		exercise(orig, cut);
	}
	for (int i = 0; i < 1200 && nreg; i++, runs++) { /* flipped bytes inside one section */
		const struct region *r = &regs[i % nreg];
		int flips = 1 + (int)(rnd() % 16);

		memcpy(buf, orig, len);
		for (int k = 0; k < flips; k++)
			buf[r->off + rnd() % r->size] ^= (unsigned char)(1 + rnd() % 255);
		exercise(buf, len);
	}
	printf("ok   %d damaged copies opened and queried without a crash\n", runs);
	free(buf);
	free(orig);
	printf("%d passed, %d failed\n", 2 - failed, failed);
	return failed ? 1 : 0;
}
