/* runtime/elf/syms.c: function symbols, PT_LOAD segments and build ids of ELF files.
 *
 * Where symbols come from, in bcc's order: the file's own .symtab and
 * .dynsym; for a stripped file (no .symtab, the Debian norm for system
 * libraries) a separate debug file found by build id
 * (/usr/lib/debug/.build-id/xx/rest.debug) or by .gnu_debuglink (next to the
 * file, in .debug/, under /usr/lib/debug/), accepted only when its build id
 * matches (or, for files without one, the debug link's CRC-32); else the
 * MiniDebugInfo some distributions embed (.gnu_debugdata, xz). The debug file is located and opened at open time, while the
 * process (and so its /proc/PID/root) may still exist.
 *
 * The table is a sorted array of functions (FUNC and IFUNC, defined, nonzero
 * address); aliases at one address collapse to the most public name
 * (global over weak over local, fewer leading underscores), so libc's
 * `__clock_nanosleep`/`clock_nanosleep` prints as the latter. For names
 * only (never attached to, never found by name), as perf does: untyped
 * symbols in code sections (assembly entry points such as ld.so's `_start`
 * and `_dl_start_user`, where every program's first samples land) and
 * the PLT stubs, `memcpy@plt`, one per PLT relocation (an IRELATIVE one is
 * named after the IFUNC its resolver belongs to). A Go binary without
 * .symtab (-ldflags=-s) is named from its .gopclntab, as Go's own
 * tracebacks and `go tool addr2line` name it, file:line and the functions
 * the Go compiler inlined included.
 */
#include "runtime/elf/syms.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/file.h"
#include "runtime/elf/gopclntab.h"
#include "runtime/elf/inlines.h"
#include "runtime/elf/lines.h"
#include "base/search.h"
#include "base/vec.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>


struct sp_load {
	uint64_t off, filesz, memsz, vaddr;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};

struct sp_elf {
	int fd;
	Elf *elf;
	void *mem;              /* in-memory image (vDSO), owned */
	int dbg_fd;
	Elf *dbg;               /* separate debug file, when used */
	char *dbg_path;
	char *path;             /* as the process named it (a dwz file may be named relative to it) */
	void *mini_buf;         /* MiniDebugInfo: the inflated .gnu_debugdata ELF */
	Elf *mini;
	char *build_id;
	int nloads;
	struct sp_load *loads;
	bool loaded;
	int nsyms;
	struct sp_elf_sym *syms;
	char *plt_names;        /* the "name@plt" strings, one block */
	struct sp_lines *lines;
	bool lines_tried;
	struct sp_inlines *inlines;
	bool inlines_tried;
	struct sp_gopcln go;    /* a stripped Go binary's .gopclntab (names, lines) */
	bool has_go;
};

/* --- section helpers -------------------------------------------------------------- */

static Elf_Scn *find_section(Elf *elf, const char *name, Elf64_Word type)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (type && sh.sh_type != type)
			continue;
		n = name ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || (n && strcmp(n, name) == 0))
			return scn;
	}
	return NULL;
}

static int read_loads(struct sp_elf *e)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n) != 0)
		return 0;
	e->loads = calloc(n ? n : 1, sizeof(*e->loads));
	if (!e->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->loads[e->nloads++] = (struct sp_load){ ph.p_offset, ph.p_filesz, ph.p_memsz,
							  ph.p_vaddr, ph.p_flags };
	}
	return 0;
}

/* --- separate debug files ------------------------------------------------------ */

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* CRC-32 of the whole file, as .gnu_debuglink records it (zlib's
 * polynomial), read in pieces: the file is at most SP_FILE_CRC_MAX bytes
 * (sp_file_open), and one that shrinks while read does not match. */
static bool crc_matches(int fd, uint32_t want)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = malloc(CHUNK);
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t n = -1;

	while (buf && (n = pread(fd, buf, CHUNK, off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		crc = crc32(crc, buf, (uInt)n);
		off += n;
	}
	free(buf);
	return n == 0 && (uint32_t)crc == want;
}

/* Open `path` as the debug file of `e` when it has a .symtab and a matching
 * build id; files without one are checked against the debug link's CRC
 * (`crc` NULL: no check possible), and so must be smaller. */
static bool try_debug_file(struct sp_elf *e, const char *path, const uint32_t *crc)
{
	int fd = sp_file_open(path, !e->build_id && crc ? SP_FILE_CRC_MAX : SP_FILE_ELF_MAX);
	Elf *elf;
	char *bid;
	bool ok;

	if (fd < 0)
		return false;
	if (e->fd >= 0 && same_file(fd, e->fd)) {
		close(fd);
		return false;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF && find_section(elf, NULL, SHT_SYMTAB);
	if (ok && e->build_id) {
		bid = sp_elf_read_build_id(elf);
		ok = bid && strcmp(bid, e->build_id) == 0;
		free(bid);
	} else if (ok && crc) {
		ok = crc_matches(fd, *crc);
	}
	if (!ok) {
		elf_end(elf);
		close(fd);
		return false;
	}
	e->dbg_fd = fd;
	e->dbg = elf;
	e->dbg_path = strdup(path);
	return true;
}

/* a + b + c + d into buf; false when it does not fit. */
static bool join4(char *buf, size_t size, const char *a, const char *b, const char *c,
		  const char *d)
{
	int n = snprintf(buf, size, "%s%s%s%s", a, b, c, d);

	return n >= 0 && (size_t)n < size;
}

static bool try_rooted(struct sp_elf *e, const char *root, const char *path, const uint32_t *crc)
{
	char buf[4096];

	if (root && join4(buf, sizeof(buf), root, path, "", "") && try_debug_file(e, buf, crc))
		return true;
	return try_debug_file(e, path, crc);
}

/* .gnu_debuglink: a file name, NUL, padding to 4, then the file's CRC-32. */
static const char *debuglink_name(Elf *elf, uint32_t *crc, bool *has_crc)
{
	Elf_Scn *scn = find_section(elf, ".gnu_debuglink", 0);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *nul;
	size_t crc_off;

	*has_crc = false;
	if (!d || !d->d_buf || d->d_size < 2 || !(nul = memchr(d->d_buf, '\0', d->d_size)))
		return NULL;
	crc_off = ((size_t)(nul - (const char *)d->d_buf) + 4) & ~(size_t)3;
	if (crc_off + 4 <= d->d_size) {
		memcpy(crc, (const char *)d->d_buf + crc_off, 4);
		*has_crc = true; /* same byte order as the host: x86-64 reads x86-64 files */
	}
	return d->d_buf;
}

static void find_debug_file(struct sp_elf *e, const char *path, const char *root)
{
	char buf[4096], dir[4096], idpath[512];
	const char *link, *slash;
	uint32_t crc_val;
	const uint32_t *crc;
	bool has_crc;

	if (e->build_id && strlen(e->build_id) > 2 && strlen(e->build_id) < 200) {
		snprintf(idpath, sizeof(idpath), "/usr/lib/debug/.build-id/%.2s/%s.debug",
			 e->build_id, e->build_id + 2);
		if (try_rooted(e, root, idpath, NULL))
			return;
	}
	link = debuglink_name(e->elf, &crc_val, &has_crc);
	crc = has_crc ? &crc_val : NULL;
	if (!link || !path || !(slash = strrchr(path, '/')) || (size_t)(slash - path) >= sizeof(dir))
		return;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	if (join4(buf, sizeof(buf), dir, "/", link, "") && try_rooted(e, root, buf, crc))
		return;
	if (join4(buf, sizeof(buf), dir, "/.debug/", link, "") && try_rooted(e, root, buf, crc))
		return;
	if (join4(buf, sizeof(buf), "/usr/lib/debug", dir, "/", link))
		try_rooted(e, root, buf, crc);
}

/* --- MiniDebugInfo ----------------------------------------------------------------------- */

/* liblzma's one-shot decoder, declared by hand: liblzma is opened on demand
 * (only Fedora-style binaries carry .gnu_debugdata), so sprof neither links
 * it nor needs its headers to build. */
typedef int (*lzma_buffer_decode_fn)(uint64_t *memlimit, uint32_t flags, const void *allocator,
				     const uint8_t *in, size_t *in_pos, size_t in_size, uint8_t *out,
				     size_t *out_pos, size_t out_size);
#define SP_LZMA_OK 0
#define SP_LZMA_BUF_ERROR 10
#define SP_MINI_MAX (256u << 20)

static lzma_buffer_decode_fn lzma_decoder(void)
{
	static lzma_buffer_decode_fn fn;
	static bool tried;
	void *h;

	if (!tried) {
		tried = true;
		h = dlopen("liblzma.so.5", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			fn = (lzma_buffer_decode_fn)dlsym(h, "lzma_stream_buffer_decode");
	}
	return fn;
}

/* xz data -> malloc'd bytes; the output size is unknown, so grow and retry. */
static void *unxz(const uint8_t *in, size_t in_size, size_t *out_len)
{
	lzma_buffer_decode_fn fn = lzma_decoder();
	size_t cap = in_size * 8 + 4096;

	while (fn && cap <= SP_MINI_MAX) {
		uint64_t memlimit = UINT64_MAX;
		size_t in_pos = 0, out_pos = 0;
		uint8_t *out = malloc(cap);
		int ret;

		if (!out)
			return NULL;
		ret = fn(&memlimit, 0, NULL, in, &in_pos, in_size, out, &out_pos, cap);
		if (ret == SP_LZMA_OK) {
			*out_len = out_pos;
			return out;
		}
		free(out);
		if (ret != SP_LZMA_BUF_ERROR)
			return NULL;
		cap *= 2;
	}
	return NULL;
}

/* .gnu_debugdata: an xz-compressed ELF holding the .symtab of functions the
 * .dynsym lacks (Fedora, RHEL; not Debian). */
static void open_minidebuginfo(struct sp_elf *e)
{
	Elf_Scn *scn = find_section(e->elf, ".gnu_debugdata", SHT_PROGBITS);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t len;

	if (!d || !d->d_buf || !d->d_size)
		return;
	e->mini_buf = unxz(d->d_buf, d->d_size, &len);
	if (!e->mini_buf)
		return;
	e->mini = elf_memory(e->mini_buf, len);
	if (!e->mini || elf_kind(e->mini) != ELF_K_ELF) {
		if (e->mini)
			elf_end(e->mini);
		e->mini = NULL;
		free(e->mini_buf);
		e->mini_buf = NULL;
	}
}

/* --- open / destroy ---------------------------------------------------------------- */

static struct sp_elf *elf_new(void)
{
	struct sp_elf *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->fd = -1;
	e->dbg_fd = -1;
	elf_version(EV_CURRENT);
	return e;
}

static int elf_setup(struct sp_elf *e)
{
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF)
		return -ENOEXEC;
	e->build_id = sp_elf_read_build_id(e->elf);
	return read_loads(e);
}

struct sp_elf *sp_elf__open_fd(int fd, const char *path, const char *root)
{
	struct sp_elf *e = elf_new();
	bool symtab;
	int err;

	fd = sp_file_check(fd, SP_FILE_ELF_MAX);
	if (fd < 0) {
		free(e);
		errno = fd == -EINVAL ? ENOEXEC : -fd;
		return NULL;
	}
	if (!e) {
		close(fd);
		return NULL;
	}
	e->fd = fd;
	e->path = path ? strdup(path) : NULL;
	e->elf = elf_begin(fd, ELF_C_READ, NULL); /* pread, not mmap: no SIGBUS */
	err = elf_setup(e);
	if (err) {
		sp_elf__destroy(e);
		errno = -err;
		return NULL;
	}
	/* a debug file for symbols, or for DWARF only (strip -g kept .symtab) */
	symtab = find_section(e->elf, NULL, SHT_SYMTAB) != NULL;
	if (!symtab || !find_section(e->elf, ".debug_info", 0))
		find_debug_file(e, path, root);
	if (!e->dbg && !symtab)
		open_minidebuginfo(e);
	return e;
}

struct sp_elf *sp_elf__open_path(const char *path)
{
	int fd = sp_file_open(path, SP_FILE_ELF_MAX);

	if (fd < 0) {
		errno = fd == -EINVAL ? ENOEXEC : -fd;
		return NULL;
	}
	return sp_elf__open_fd(fd, path, NULL);
}

struct sp_elf *sp_elf__open_mem(const void *image, size_t size, const char *name)
{
	struct sp_elf *e = elf_new();
	int err;

	if (!e)
		return NULL;
	e->mem = malloc(size);
	if (!e->mem) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(e->mem, image, size);
	e->elf = elf_memory(e->mem, size);
	err = elf_setup(e);
	if (err) {
		sp_elf__destroy(e);
		errno = -err;
		return NULL;
	}
	return e;
}

void sp_elf__destroy(struct sp_elf *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nsyms; i++)
		free(e->syms[i].demangled);
	free(e->syms);
	free(e->plt_names);
	sp_lines__free(e->lines);
	sp_inlines__free(e->inlines);
	free(e->loads);
	free(e->build_id);
	free(e->dbg_path);
	free(e->path);
	if (e->dbg)
		elf_end(e->dbg);
	if (e->mini)
		elf_end(e->mini);
	free(e->mini_buf);
	if (e->dbg_fd >= 0)
		close(e->dbg_fd);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e);
}

struct Elf *sp_elf__libelf(const struct sp_elf *e)
{
	return e ? e->elf : NULL;
}

const char *sp_elf__build_id(const struct sp_elf *e)
{
	return e->build_id;
}

bool sp_elf__foff_to_vaddr(const struct sp_elf *e, uint64_t foff, uint64_t *vaddr)
{
	for (int i = 0; i < e->nloads; i++) {
		const struct sp_load *l = &e->loads[i];

		if (foff >= l->off && foff - l->off < l->filesz) {
			*vaddr = foff - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

/* --- the symbol table ---------------------------------------------------------------- */

struct symvec {
	int n, cap;
	struct sp_elf_sym *v;
};

static int symvec_push(struct symvec *sv, const struct sp_elf_sym *s)
{
	if (SP_GROW(sv->v, sv->cap, sv->n + 1, 1024))
		return -ENOMEM;
	sv->v[sv->n++] = *s;
	return 0;
}

/* FUNC/IFUNC, or an untyped symbol in an executable section (an assembly
 * label; not compilers' local labels `.L…`, ARM's mapping symbols `$x`,
 * or annobin's markers): its kind, -1 when not wanted. */
static int wanted(Elf *elf, const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (sym->st_shndx == SHN_UNDEF || sym->st_value == 0 || !name || !name[0])
		return -1;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return SP_SYM_FUNC;
	if (type != STT_NOTYPE || sym->st_shndx >= SHN_LORESERVE || name[0] == '.' ||
	    name[0] == '$' || strncmp(name, "_end", 4) == 0 ||
	    strncmp(name, "__start_", 8) == 0 || strncmp(name, "__stop_", 7) == 0)
		return -1;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
		return -1;
	return SP_SYM_LABEL;
}

static int add_symtab(struct symvec *sv, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;

	if (!gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	for (size_t i = 0, n = d->d_size / sh.sh_entsize; i < n; i++) {
		struct sp_elf_sym s = { 0 };
		int kind;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		s.name = elf_strptr(elf, sh.sh_link, sym.st_name);
		kind = wanted(elf, &sym, s.name);
		if (kind < 0)
			continue;
		s.kind = (uint8_t)kind;
		s.addr = sym.st_value;
		s.size = sym.st_size;
		s.bind = GELF_ST_BIND(sym.st_info);
		if (symvec_push(sv, &s))
			return -ENOMEM;
	}
	return 0;
}

static int add_symtabs(struct symvec *sv, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		err = add_symtab(sv, elf, scn);
		if (err)
			return err;
	}
	return 0;
}

static int bind_rank(uint8_t bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address; at one address the preferred name first. */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct sp_elf_sym *a = pa, *b = pb;
	int d;

	if (a->addr != b->addr)
		return (a->addr > b->addr) - (a->addr < b->addr);
	d = (int)a->kind - (int)b->kind; /* a function's name before a label's */
	if (d)
		return d;
	d = bind_rank(a->bind) - bind_rank(b->bind);
	if (d)
		return d;
	d = underscores(a->name) - underscores(b->name);
	if (d)
		return d;
	return strcmp(a->name, b->name);
}

/* Aliases stay (lookup by name needs them); the first of a group, the
 * preferred name, gets the group's largest size and is what lookups return. */
static void merge_aliases(struct sp_elf_sym *v, int n)
{
	for (int i = 0, g = 0; i < n; i++) {
		if (v[g].addr != v[i].addr)
			g = i;
		else if (v[i].size > v[g].size)
			v[g].size = v[i].size;
	}
}

/* A label inside a sized function's range (an assembly function's inner
 * entry) would take over the function's later addresses: dropped. */
static void drop_inner_labels(struct symvec *sv)
{
	uint64_t end = 0;
	int j = 0;

	for (int i = 0; i < sv->n; i++) {
		struct sp_elf_sym *s = &sv->v[i];

		if (s->kind == SP_SYM_LABEL && s->addr < end && (j == 0 || sv->v[j - 1].addr != s->addr))
			continue;
		if (s->kind == SP_SYM_FUNC && s->size && s->addr + s->size > end)
			end = s->addr + s->size;
		sv->v[j++] = *s;
	}
	sv->n = j;
}

/* The IFUNC whose resolver is at `resolver` (an IRELATIVE relocation's addend). */
static const char *ifunc_named(const struct symvec *sv, uint64_t resolver)
{
	long i = SP_FLOOR(sv->v, sv->n, addr, resolver);

	for (; i >= 0 && sv->v[i].addr == resolver; i--)
		if (sv->v[i].kind == SP_SYM_FUNC && (i == 0 || sv->v[i - 1].addr != resolver))
			return sv->v[i].name;
	return NULL;
}

/* One "name@plt" symbol per PLT stub (x86-64 and AArch64): 16-byte stubs
 * after a 16- (x86-64) or 32-byte (AArch64) header in .plt, or without
 * one in .plt.sec where the file has it (IBT). Stub k jumps through
 * .got.plt slot 3+k (three slots are ld.so's), and the relocation whose
 * offset is that slot names it: its symbol, or for an IRELATIVE one the
 * IFUNC its resolver (the addend) belongs to. sv is sorted; so is it after. */
static int add_plt(struct sp_elf *e, struct symvec *sv)
{
	Elf_Scn *rela = find_section(e->elf, ".rela.plt", SHT_RELA);
	Elf_Scn *plt = find_section(e->elf, ".plt.sec", SHT_PROGBITS);
	Elf_Scn *got = find_section(e->elf, ".got.plt", SHT_PROGBITS), *dynsym;
	GElf_Shdr rsh, psh, gsh, dsh;
	GElf_Ehdr eh;
	Elf_Data *d, *dsyms;
	uint64_t header = 0, nstubs;
	size_t n, len = 0, at = 0;
	int base = sv->n;
	unsigned jump, irel;

	if (!rela || !got || !gelf_getehdr(e->elf, &eh))
		return 0;
	if (eh.e_machine == EM_X86_64)
		jump = R_X86_64_JUMP_SLOT, irel = R_X86_64_IRELATIVE;
	else if (eh.e_machine == EM_AARCH64)
		jump = R_AARCH64_JUMP_SLOT, irel = R_AARCH64_IRELATIVE;
	else
		return 0;
	if (!plt) {
		plt = find_section(e->elf, ".plt", SHT_PROGBITS);
		header = eh.e_machine == EM_X86_64 ? 16 : 32;
	}
	if (!plt || !gelf_getshdr(plt, &psh) || !gelf_getshdr(got, &gsh) ||
	    !gelf_getshdr(rela, &rsh) || rsh.sh_entsize == 0 || psh.sh_size < header ||
	    !(d = elf_getdata(rela, NULL)) || !(dynsym = elf_getscn(e->elf, rsh.sh_link)) ||
	    !gelf_getshdr(dynsym, &dsh) || !(dsyms = elf_getdata(dynsym, NULL)))
		return 0;
	n = d->d_size / rsh.sh_entsize;
	nstubs = (psh.sh_size - header) / 16;
	/* names first, into one block (sizes, then the strings) */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			struct sp_elf_sym s = { .kind = SP_SYM_PLT, .size = 16, .bind = STB_LOCAL };
			const char *name = NULL;
			uint64_t slot;
			GElf_Rela r;
			GElf_Sym sym;
			unsigned type;

			if (!gelf_getrela(d, (int)i, &r) || r.r_offset < gsh.sh_addr + 24 ||
			    (r.r_offset - gsh.sh_addr) % 8)
				continue;
			slot = (r.r_offset - gsh.sh_addr) / 8 - 3;
			if (slot >= nstubs)
				continue;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if (type == jump && GELF_R_SYM(r.r_info) &&
			    gelf_getsym(dsyms, (int)GELF_R_SYM(r.r_info), &sym))
				name = elf_strptr(e->elf, dsh.sh_link, sym.st_name);
			else if (type == irel)
				name = ifunc_named(sv, (uint64_t)r.r_addend);
			if (!name || !name[0])
				continue;
			if (pass == 0) {
				len += strlen(name) + sizeof("@plt");
				continue;
			}
			s.addr = psh.sh_addr + header + 16 * slot;
			s.name = e->plt_names + at;
			at += (size_t)sprintf(e->plt_names + at, "%s@plt", name) + 1;
			if (symvec_push(sv, &s))
				return -ENOMEM;
		}
		if (pass == 0 && (len == 0 || !(e->plt_names = malloc(len))))
			return len ? -ENOMEM : 0;
	}
	if (sv->n > base)
		qsort(sv->v, sv->n, sizeof(*sv->v), sym_cmp);
	return 0;
}

/* Every function of a stripped Go binary's .gopclntab. */
static int add_gopclntab(struct sp_elf *e, struct symvec *sv)
{
	struct sp_gofunc f;

	if (sp_gopcln__from_elf(&e->go, e->elf))
		return 0;
	e->has_go = true;
	for (uint64_t i = 0; i < e->go.nfunc; i++) {
		struct sp_elf_sym s = { .bind = STB_GLOBAL, .kind = SP_SYM_FUNC };

		if (!sp_gopcln_func(&e->go, i, &f) || !f.name[0])
			continue;
		s.addr = f.entry;
		s.size = f.end - f.entry;
		s.name = f.name;
		s.tried_demangle = 1; /* Go names are plain */
		if (symvec_push(sv, &s))
			return -ENOMEM;
	}
	return 0;
}

static int load_syms(struct sp_elf *e)
{
	struct symvec sv = { 0 };
	int err;

	e->loaded = true;
	err = add_symtabs(&sv, e->elf);
	if (!err && !e->dbg && !e->mini && !find_section(e->elf, NULL, SHT_SYMTAB))
		err = add_gopclntab(e, &sv);
	if (!err && e->dbg && !find_section(e->elf, NULL, SHT_SYMTAB))
		err = add_symtabs(&sv, e->dbg);
	if (!err && e->mini)
		err = add_symtabs(&sv, e->mini);
	if (err) {
		free(sv.v);
		return err;
	}
	if (sv.n)
		qsort(sv.v, sv.n, sizeof(*sv.v), sym_cmp);
	drop_inner_labels(&sv);
	if (add_plt(e, &sv)) {
		free(sv.v);
		return -ENOMEM;
	}
	merge_aliases(sv.v, sv.n);
	e->nsyms = sv.n;
	e->syms = sv.v;
	return 0;
}

int sp_elf__nsyms(struct sp_elf *e)
{
	if (!e->loaded)
		load_syms(e);
	return e->nsyms;
}

/* The first (preferred) entry of the alias group holding index i. */
static struct sp_elf_sym *first_alias(struct sp_elf *e, int i)
{
	int lo = 0, hi = i;
	uint64_t addr = e->syms[i].addr;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &e->syms[lo];
}

struct sp_elf_sym *sp_elf__find(struct sp_elf *e, uint64_t vaddr)
{
	struct sp_elf_sym *s;
	long i;

	if (!e->loaded)
		load_syms(e);
	i = SP_FLOOR(e->syms, e->nsyms, addr, vaddr);
	if (i < 0)
		return NULL;
	s = first_alias(e, (int)i);
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	return s;
}

const char *sp_elf_sym__name(struct sp_elf_sym *s)
{
	if (!s->tried_demangle) {
		s->tried_demangle = 1;
		s->demangled = sp_demangle(s->name);
	}
	return s->demangled ? s->demangled : s->name;
}

uint64_t sp_elf__lookup_name(struct sp_elf *e, const char *name)
{
	if (!e->loaded)
		load_syms(e);
	for (int i = 0; i < e->nsyms; i++)
		if (e->syms[i].kind == SP_SYM_FUNC && strcmp(e->syms[i].name, name) == 0)
			return e->syms[i].addr;
	for (int i = 0; i < e->nsyms; i++)
		if (e->syms[i].kind == SP_SYM_FUNC && strcmp(sp_elf_sym__name(&e->syms[i]), name) == 0)
			return e->syms[i].addr;
	return 0;
}

struct sp_elf_sym *sp_elf__sym(struct sp_elf *e, int i)
{
	if (!e->loaded)
		load_syms(e);
	return i >= 0 && i < e->nsyms ? &e->syms[i] : NULL;
}

bool sp_elf__is_exec(const struct sp_elf *e)
{
	GElf_Ehdr eh;

	return gelf_getehdr(e->elf, &eh) && eh.e_type == ET_EXEC;
}

int sp_elf__vaddr_to_foff(const struct sp_elf *e, uint64_t vaddr, bool code, uint64_t *foff)
{
	for (int i = 0; i < e->nloads; i++) {
		const struct sp_load *l = &e->loads[i];

		if (code && !(l->flags & PF_X))
			continue;
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->memsz) {
			*foff = vaddr - l->vaddr + l->off;
			return 0;
		}
	}
	return -ENOENT;
}

/* Any defined symbol (objects too: USDT semaphores, uaddr of a variable). */
static int find_any(Elf *elf, const char *name, uint64_t *vaddr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0, n = d->d_size / sh.sh_entsize; i < n; i++) {
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && strcmp(s, name) == 0) {
				*vaddr = sym.st_value;
				*size = sym.st_size;
				return 0;
			}
		}
	}
	return -ENOENT;
}

int sp_elf__symbol(struct sp_elf *e, const char *name, uint64_t *vaddr, uint64_t *size)
{
	if (!find_any(e->elf, name, vaddr, size) || !find_any(e->dbg, name, vaddr, size) ||
	    !find_any(e->mini, name, vaddr, size))
		return 0;
	return -ENOENT;
}

int sp_elf__symbol_vaddr(struct sp_elf *e, const char *name, uint64_t *vaddr)
{
	uint64_t size;

	return sp_elf__symbol(e, name, vaddr, &size);
}

static bool go_line(struct sp_elf *e, uint64_t vaddr, const char **file, int *line)
{
	struct sp_gofunc f;

	return sp_gopcln_find(&e->go, vaddr, &f) && sp_gopcln_line(&e->go, &f, vaddr, file, line);
}

bool sp_elf__find_line(struct sp_elf *e, uint64_t vaddr, const char **file, int *line)
{
	if (!e->lines_tried) {
		e->lines_tried = true;
		e->lines = sp_lines__load(e->dbg ? e->dbg : e->elf);
		if (!e->lines && e->dbg)
			e->lines = sp_lines__load(e->elf);
	}
	if (e->lines)
		return sp_lines__find(e->lines, vaddr, file, line);
	if (!e->loaded)
		load_syms(e);
	return e->has_go && go_line(e, vaddr, file, line);
}

/* A stripped Go binary's inlined functions at vaddr, from its pclntab. */
static int go_inlines(struct sp_elf *e, uint64_t vaddr, struct sp_inline *out, int max)
{
	struct sp_goinline in[SP_INLINE_MAX];
	struct sp_gofunc f;
	int n;

	if (!sp_gopcln_find(&e->go, vaddr, &f))
		return 0;
	n = sp_gopcln_inlines(&e->go, &f, vaddr, in, max < SP_INLINE_MAX ? max : SP_INLINE_MAX);
	for (int i = 0; i < n; i++)
		out[i] = (struct sp_inline){ .name = in[i].name, .call_file = in[i].call_file,
					     .call_line = in[i].call_line };
	return n;
}

int sp_elf__find_inlines(struct sp_elf *e, uint64_t vaddr, struct sp_inline *out, int max)
{
	if (!e->inlines_tried) {
		e->inlines_tried = true;
		e->inlines = sp_inlines__load(e->dbg ? e->dbg : e->elf, e->dbg ? e->dbg_path : e->path);
		if (!e->inlines && e->dbg)
			e->inlines = sp_inlines__load(e->elf, e->path);
	}
	if (e->inlines)
		return sp_inlines__find(e->inlines, vaddr, out, max);
	if (!e->loaded)
		load_syms(e);
	return e->has_go ? go_inlines(e, vaddr, out, max) : 0;
}
