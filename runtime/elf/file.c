/* runtime/elf/file.c: the one way to open a file a target names, and section
 * lookup by name for the DWARF readers (see file.h). */
#include "runtime/elf/file.h"

#include <errno.h>
#include <fcntl.h>
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
