/* tests/fuzz/fuzz_elf.c: libFuzzer entry for the ELF and DWARF readers.
 *
 * The input is an ELF file (the seeds are tiny real binaries, so mutations
 * stay close to real layouts). It is written to a memfd and opened through
 * the same calls the runtime makes on a mapped file: the symbol table
 * (runtime/elf/syms.c, with demangling and the .gnu_debugdata MiniDebugInfo
 * path), .eh_frame/.debug_frame to unwind rows (ehframe.c), .debug_line
 * (lines.c), inline chains from .debug_info (inlines.c, through libdw),
 * USDT notes and their argument specs (usdt_notes.c) and the
 * by-name view attach uses (funcs.c). None may crash, hang or leak on a
 * corrupt file: a profiler reads whatever binaries a system holds.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/elf/ehframe.h"
#include "runtime/elf/funcs.h"
#include "runtime/elf/inlines.h"
#include "runtime/elf/syms.h"
#include "runtime/elf/usdt_notes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int input_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_elf", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

/* Every symbol named (demangled), looked up by address, by name and for a line. */
static void walk_syms(struct sp_elf *e)
{
	int n = sp_elf__nsyms(e);
	uint64_t foff, vaddr;
	const char *file;
	int line;
	struct sp_inline in[SP_INLINE_MAX];

	for (int i = 0; i < n && i < 4096; i++) {
		struct sp_elf_sym *s = sp_elf__sym(e, i);
		const char *name = sp_elf_sym__name(s);

		if (i < 64) {
			sp_elf__find(e, s->addr + s->size / 2);
			sp_elf__find_line(e, s->addr, &file, &line);
			for (uint64_t a = 0; i < 8 && a < s->size && a < 64; a++)
				sp_elf__find_inlines(e, s->addr + a, in, SP_INLINE_MAX);
			sp_elf__lookup_name(e, name);
			sp_elf__vaddr_to_foff(e, s->addr, true, &foff);
			sp_elf__foff_to_vaddr(e, s->addr, &vaddr);
		}
	}
	sp_elf__find(e, 0x1000);
	sp_elf__find_line(e, 0x1139, &file, &line);
	sp_elf__find_inlines(e, 0x1139, in, SP_INLINE_MAX);
	sp_elf__symbol_vaddr(e, "main", &vaddr);
	sp_elf__build_id(e);
}

static void unwind_rows(struct sp_elf *e)
{
	struct sp_eh_table t;
	struct Elf *elf = sp_elf__libelf(e);

	if (elf && sp_eh_table__from_elf(&t, (Elf *)elf) == 0) {
		for (int i = 0; i < t.n && i < 64; i++)
			sp_eh_table__find(&t, t.rows[i].pc + 1);
		sp_eh_table__free(&t);
	}
}

static void usdt(const char *path)
{
	struct sp_usdt_notes u;
	struct sp_usdt_spec spec;
	char bad[64];

	if (sp_usdt_notes__load(&u, path))
		return;
	for (int i = 0; i < u.n && i < 64; i++)
		sp_usdt_spec_parse(u.v[i].args, path, u.v[i].pc, &spec, bad, sizeof(bad));
	sp_usdt_notes__free(&u);
}

static void funcs(const char *path)
{
	struct sp_funcs f;

	if (sp_funcs__load(&f, path))
		return;
	for (int i = 0; i < f.n && i < 64; i++)
		sp_func_matches(&f.v[i], "*a*");
	sp_funcs__find(&f, "main");
	sp_funcs__free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = input_fd(data, size);
	char path[64];
	struct sp_elf *e;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	e = sp_elf__open_fd(dup(fd), path, NULL);
	if (e) {
		walk_syms(e);
		unwind_rows(e);
		sp_elf__destroy(e);
	}
	usdt(path);
	funcs(path);
	close(fd);
	return 0;
}
