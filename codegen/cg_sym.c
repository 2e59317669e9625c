/* codegen/cg_sym.c: kaddr("sym") and uaddr("sym"), resolved while compiling.
 *
 * Like bpftrace, the address is a constant in the program: kaddr reads
 * /proc/kallsyms, uaddr the ELF symbol tables (.symtab, then .dynsym) of
 * the binary the uprobe is attached to. uaddr gives the symbol's link-time
 * address, which is the run-time one for non-PIE binaries (bpftrace has the
 * same limit). The ELF reader is deliberately minimal (64-bit,
 * little-endian, bounds-checked) so codegen needs no libelf.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/cg.h"

/* 0 and *addr, or -ENOENT / -errno. */
static int kallsyms_lookup(const char *name, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long a;
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || strcmp(sym, name) != 0)
			continue;
		*addr = a;
		err = a ? 0 : -EPERM; /* zeros: kptr_restrict hides addresses */
		break;
	}
	fclose(f);
	return err;
}

static bool in_file(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* Looks `name` up in the symbol table of section `sh` (its strings in sh_link). */
static int symtab_lookup(const uint8_t *m, size_t size, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
			 const char *name, uint64_t *addr)
{
	const Elf64_Shdr *shdrs = (const Elf64_Shdr *)(m + eh->e_shoff);
	const Elf64_Shdr *strs;
	size_t nsyms;

	if (sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_file(size, sh->sh_offset, sh->sh_size))
		return -ENOENT;
	strs = &shdrs[sh->sh_link];
	if (!in_file(size, strs->sh_offset, strs->sh_size))
		return -ENOENT;
	nsyms = sh->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < nsyms; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(m + sh->sh_offset) + i;

		if (s->st_name >= strs->sh_size || s->st_value == 0 || s->st_shndx == SHN_UNDEF)
			continue;
		if (strncmp((const char *)m + strs->sh_offset + s->st_name, name,
			    strs->sh_size - s->st_name) == 0) {
			*addr = s->st_value;
			return 0;
		}
	}
	return -ENOENT;
}

static int elf_lookup(const uint8_t *m, size_t size, const char *name, uint64_t *addr)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	const Elf64_Shdr *shdrs;
	static const uint32_t kinds[2] = { SHT_SYMTAB, SHT_DYNSYM };

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	shdrs = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < eh->e_shnum; i++)
			if (shdrs[i].sh_type == kinds[k] &&
			    symtab_lookup(m, size, eh, &shdrs[i], name, addr) == 0)
				return 0;
	return -ENOENT;
}

static int uaddr_lookup(const char *path, const char *name, uint64_t *addr)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	err = elf_lookup(m, (size_t)st.st_size, name, addr);
	munmap(m, (size_t)st.st_size);
	return err;
}

/* kaddr("sym") / uaddr("sym") as a constant; an error at the call when the
 * symbol cannot be found. */
LLVMValueRef cg_addr_call(struct cg *g, const struct sp_node *n, bool kernel)
{
	const struct sp_node *a = n->list.len == 1 ? n->list.items[0] : NULL;
	const char *bin = g->attach ? g->attach->target : NULL;
	uint64_t addr = 0;
	int err;

	if (!a || a->kind != SP_N_STR) {
		cg_error(g, n->span, "%s() needs a symbol name as a string literal", n->name);
		return cg_u64(g, 0);
	}
	if (!kernel && (!bin || (g->ptype != SP_PROBE_UPROBE && g->ptype != SP_PROBE_URETPROBE &&
				 g->ptype != SP_PROBE_USDT))) {
		cg_error(g, n->span, "uaddr() needs a uprobe or usdt probe to know the binary");
		return cg_u64(g, 0);
	}
	err = kernel ? kallsyms_lookup(a->str, &addr) : uaddr_lookup(bin, a->str, &addr);
	if (err == -EPERM)
		cg_error(g, a->span, "kaddr(): kernel addresses are hidden (kptr_restrict); run as root");
	else if (err)
		cg_error(g, a->span, "no %s symbol '%s'%s%s: %s", kernel ? "kernel" : "user", a->str,
			 kernel ? "" : " in ", kernel ? "" : bin,
			 err == -ENOENT ? "not found" : strerror(-err));
	return cg_u64(g, addr);
}
