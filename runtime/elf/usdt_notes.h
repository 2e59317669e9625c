/* runtime/elf/usdt_notes.h: the USDT probes an ELF file declares.
 *
 * Each <sys/sdt.h> probe site leaves one note in .note.stapsdt: its
 * address, the .stapsdt.base address it was linked against (for prelink
 * adjustment), the semaphore address (0 = none), and three strings:
 * provider, name and the argument specs ("-4@%eax 8@16(%rbp)"). Used for
 * listing and for validating/expanding usdt attach points; attaching itself
 * goes through libbpf, which decodes the specs again into its spec map.
 */
#ifndef SPROF_RUNTIME_ELF_USDT_NOTES_H
#define SPROF_RUNTIME_ELF_USDT_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/usdt_spec.h"

struct sp_usdt_note {
	char *provider;
	char *name;
	char *args;        /* argument specs as written, "" when none */
	uint64_t pc;       /* ELF virtual address of the site (base-adjusted) */
	uint64_t semaphore;/* ELF virtual address of the semaphore, 0 = none */
	int nargs;
};

struct sp_usdt_notes {
	struct sp_usdt_note *v; /* in file order: one per site */
	int n;
};

/* 0 (possibly with n == 0), -ENOENT, or -ENOEXEC when not an ELF. */
int sp_usdt_notes__load(struct sp_usdt_notes *u, const char *path);
void sp_usdt_notes__free(struct sp_usdt_notes *u);
/* Parse one note's descriptor (for tests). 0 or -EINVAL. */
int sp_usdt_note_parse(const void *desc, uint32_t len, struct sp_usdt_note *out);

/* Decode a site's argument specs ("-4@%edi 8@16(%rsp) -4@4+arr(%rip)") into
 * what sp_usdt_arg() reads. `path` is the file (for symbol operands), `pc`
 * the site's ELF address. 0, or -EINVAL/-ENOENT (unknown symbol)/-E2BIG
 * with the offending token copied into `bad`. */
int sp_usdt_spec_parse(const char *args, const char *path, uint64_t pc,
		       struct sp_usdt_spec *out, char *bad, size_t badlen);

#endif
