/* runtime/usdt_notes.c: read .note.stapsdt (see usdt_notes.h).
 *
 * Note layout (SystemTap SDT v3, note type 3, owner "stapsdt"):
 *     u64 pc, u64 base, u64 semaphore, "provider\0name\0args\0"
 * When the file was prelinked, .stapsdt.base moved and every pc and
 * semaphore moves by the same amount: pc += sh_addr(.stapsdt.base) - base.
 */
#include "usdt_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAPSDT_NOTE_TYPE 3

static void note_free(struct sp_usdt_note *n)
{
	free(n->provider);
	free(n->name);
	free(n->args);
}

static int count_args(const char *s)
{
	int n = 0;

	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		n++;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

int sp_usdt_note_parse(const void *desc, uint32_t len, struct sp_usdt_note *out)
{
	const char *p = desc, *end = p + len, *prov, *name, *args;

	memset(out, 0, sizeof(*out));
	if (len < 24 + 3)
		return -EINVAL;
	memcpy(&out->pc, p, 8);
	memcpy(&out->semaphore, p + 16, 8);
	prov = p + 24;
	name = memchr(prov, 0, end - prov);
	if (!name++ || name >= end)
		return -EINVAL;
	args = memchr(name, 0, end - name);
	if (!args++)
		return -EINVAL;
	if (args >= end || !memchr(args, 0, end - args))
		args = "";
	out->provider = strdup(prov);
	out->name = strdup(name);
	out->args = strdup(args);
	if (!out->provider || !out->name || !out->args) {
		note_free(out);
		return -ENOMEM;
	}
	out->nargs = count_args(out->args);
	return 0;
}

static int notes_push(struct sp_usdt_notes *u, const struct sp_usdt_note *n)
{
	struct sp_usdt_note *nv = realloc(u->v, (u->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	u->v = nv;
	nv[u->n++] = *n;
	return 0;
}

static int read_notes(struct sp_usdt_notes *u, Elf_Scn *scn, int64_t adjust)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	int err = 0;

	if (!d)
		return 0;
	while (!err && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		struct sp_usdt_note n;
		const char *owner = (const char *)d->d_buf + name_off;

		if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_namesz != 8 ||
		    memcmp(owner, "stapsdt", 8) != 0)
			continue;
		if (sp_usdt_note_parse((const char *)d->d_buf + desc_off, nh.n_descsz, &n))
			continue;
		n.pc += adjust;
		if (n.semaphore)
			n.semaphore += adjust;
		err = notes_push(u, &n);
		if (err)
			note_free(&n);
	}
	return err;
}

/* sh_addr(.stapsdt.base) - the base recorded in the notes (read from the first note). */
static int64_t base_adjust(Elf_Scn *notes, uint64_t base_addr)
{
	Elf_Data *d = elf_getdata(notes, NULL);
	size_t name_off, desc_off;
	GElf_Nhdr nh;
	uint64_t base;

	if (!d || !base_addr || gelf_getnote(d, 0, &nh, &name_off, &desc_off) == 0 ||
	    nh.n_descsz < 16)
		return 0;
	memcpy(&base, (const char *)d->d_buf + desc_off + 8, 8);
	return (int64_t)(base_addr - base);
}

static int load_from_elf(struct sp_usdt_notes *u, Elf *elf)
{
	Elf_Scn *scn = NULL, *notes = NULL;
	uint64_t base_addr = 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (sh.sh_type == SHT_NOTE && strcmp(name, ".note.stapsdt") == 0)
			notes = scn;
		else if (strcmp(name, ".stapsdt.base") == 0)
			base_addr = sh.sh_addr;
	}
	if (!notes)
		return 0;
	return read_notes(u, notes, base_adjust(notes, base_addr));
}

int sp_usdt_notes__load(struct sp_usdt_notes *u, const char *path)
{
	Elf *elf;
	int fd, err;

	memset(u, 0, sizeof(*u));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	else
		err = load_from_elf(u, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		sp_usdt_notes__free(u);
	return err;
}

void sp_usdt_notes__free(struct sp_usdt_notes *u)
{
	int i;

	for (i = 0; i < u->n; i++)
		note_free(&u->v[i]);
	free(u->v);
	memset(u, 0, sizeof(*u));
}
