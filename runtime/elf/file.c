/* runtime/elf/file.c: the one way to open a file a target names, section
 * lookup by name for the DWARF readers, a file's build id (see file.h). */
#include "runtime/elf/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int sp_file_check(int fd, uint64_t max_size)
{
	struct stat st;
	int err = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0)
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size > max_size)
		err = -EFBIG;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* stat() first: a symlink to a device (a tape that rewinds when opened) is
 * not even opened; fstat() after: the name may change in between. */
int sp_file_open(const char *path, uint64_t max_size)
{
	struct stat st;
	int fd;

	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return sp_file_check(fd < 0 ? -errno : fd, max_size);
}

Elf_Scn *sp_elf_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

#define NT_GNU_BUILD_ID_TYPE 3 /* NT_GNU_BUILD_ID */

static char *hex_string(const unsigned char *b, size_t n)
{
	char *s = malloc(n * 2 + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	s[n * 2] = '\0';
	return s;
}

char *sp_elf_read_build_id(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID_TYPE && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 && nh.n_descsz > 0 &&
			    doff + nh.n_descsz <= d->d_size)
				return hex_string((unsigned char *)d->d_buf + doff, nh.n_descsz);
		}
	}
	return NULL;
}

/* The size a compressed section says it inflates to: SHF_COMPRESSED's
 * header, or a GNU .zdebug_* section's "ZLIB" and big-endian size. */
static bool inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, uint64_t *size)
{
	GElf_Chdr ch;
	Elf_Data *raw;
	const uint8_t *p;

	if (sh->sh_flags & SHF_COMPRESSED) {
		if (!gelf_getchdr(scn, &ch))
			return false;
		*size = ch.ch_size;
		return true;
	}
	if (strncmp(name, ".zdebug", 7) != 0)
		return false;
	raw = elf_rawdata(scn, NULL);
	if (!raw || !raw->d_buf || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4) != 0)
		return false;
	p = (const uint8_t *)raw->d_buf + 4;
	*size = 0;
	for (int i = 0; i < 8; i++)
		*size = *size << 8 | p[i];
	return true;
}

bool sp_elf_inflate_ok(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || !inflated_size(scn, &sh, name, &size))
			continue;
		if (size > SP_FILE_INFLATE_MAX || (size > (1u << 20) && size / SP_FILE_INFLATE_RATIO > sh.sh_size))
			return false;
	}
	return true;
}
