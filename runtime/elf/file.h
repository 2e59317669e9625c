/* runtime/elf/file.h: opening files a traced process names; bounds-checked
 * reading of ELF section bytes.
 *
 * sprof runs as root and opens files any local user controls: the binaries
 * and libraries processes map (by /proc/PID/map_files or /proc/PID/root),
 * their debug files (build id, .gnu_debuglink), perf maps, USDT and uprobe
 * targets. sp_file_open() is the one way to open them: it never blocks (a
 * FIFO or a device at the name; O_NONBLOCK|O_NOCTTY), accepts regular files
 * only, and refuses files larger than the caller's cap, so a sparse 50 GB
 * file costs nothing. The files are then read with pread (libelf's
 * ELF_C_READ), never mapped: a file truncated under sprof fails a read, it
 * cannot raise SIGBUS.
 *
 * The DWARF readers (.eh_frame/.debug_frame in ehframe.c, .debug_line in
 * elf_lines.c) walk section bytes through one cursor: every read checks the
 * bytes left first, and a short read marks the cursor bad and yields 0, so
 * a parser can read a whole record and test `bad` once. Little-endian only
 * (x86-64).
 */
#ifndef SPROF_RUNTIME_ELF_FILE_H
#define SPROF_RUNTIME_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Caps on files read on a target's behalf (documented in docs/output.md,
 * "Files sprof reads"): an ELF file (binary, library, debug file), and a
 * debug file without a build id, whose whole content is checksummed. */
#define SP_FILE_ELF_MAX ((uint64_t)4 << 30)
#define SP_FILE_CRC_MAX ((uint64_t)1 << 30)
/* A compressed section (SHF_COMPRESSED or GNU .zdebug_*) inflating past
 * 1 GiB, or past 1 MiB at more than 100 times its size (debug info packs
 * 3-15 times; a 6 MB zlib bomb claimed 2 GB and got it): the file's DWARF
 * is not read. */
#define SP_FILE_INFLATE_MAX ((uint64_t)1 << 30)
#define SP_FILE_INFLATE_RATIO 100
/* How long an open (and the read of a file's first and last bytes) may
 * take before the file is given up as not answering (a hung FUSE or NFS
 * mount): said once on stderr, and every later file on its device fails
 * at once. */
#define SP_FILE_ANSWER_NS 2000000000ull

/* `path` opened read-only, close-on-exec, without blocking and without
 * becoming a controlling terminal: the fd, or -errno: -EINVAL when it is
 * not a regular file, -EFBIG when it is larger than max_size bytes,
 * -ETIMEDOUT when it did not answer within SP_FILE_ANSWER_NS (opened by a
 * worker thread; the caller's thread never waits longer). */
int sp_file_open(const char *path, uint64_t max_size);
/* The same checks on an fd opened elsewhere; closes it when they fail. */
int sp_file_check(int fd, uint64_t max_size);

struct sp_cursor {
	const uint8_t *p, *end;
	bool bad;
};

/* The section called `name` with its header in *sh, skipping SHT_NOBITS
 * ones (a separate debug file keeps those as empty placeholders); NULL when
 * there is none. */
Elf_Scn *sp_elf_section(Elf *elf, const char *name, GElf_Shdr *sh);

/* false when a compressed section of elf would inflate past the caps above
 * (libdw inflates every debug section when it opens a file). */
bool sp_elf_inflate_ok(Elf *elf);

/* true when n more bytes can be read; otherwise marks the cursor bad. */
static inline bool cur_need(struct sp_cursor *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return false;
	}
	return true;
}

/* An n-byte little-endian unsigned number (n <= 8). */
static inline uint64_t cur_uN(struct sp_cursor *c, int n)
{
	uint64_t v = 0;

	if (!cur_need(c, n))
		return 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static inline uint64_t cur_uleb(struct sp_cursor *c)
{
	uint64_t v = 0;
	int shift = 0;

	while (cur_need(c, 1)) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Built unsigned: the sign extension of a 10-byte value would otherwise
 * negate INT64_MIN (the elf fuzzer found it). */
static inline int64_t cur_sleb(struct sp_cursor *c)
{
	uint64_t v = 0;
	int shift = 0;
	uint8_t b = 0;

	while (cur_need(c, 1)) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A NUL-terminated string in place; NULL (and bad) when it is not terminated. */
static inline const char *cur_cstr(struct sp_cursor *c)
{
	const char *s = (const char *)c->p;
	const uint8_t *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* The GNU build id of a libelf handle as hex (malloc'd), NULL when none. */
char *sp_elf_read_build_id(Elf *elf);

#endif
