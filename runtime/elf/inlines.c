/* runtime/elf/inlines.c: inline chains from DWARF .debug_info through libdw (see inlines.h).
 *
 * An address is looked up once: its compilation unit by libdw's address
 * ranges (dwarf_addrdie); the unit's functions (DW_TAG_subprogram with code,
 * also inside namespaces and types as Rust and C++ nest them) are indexed
 * by address on the unit's first lookup; the function holding the address
 * is walked down through the entries whose ranges hold it (dwarf_haspc):
 * the DW_TAG_inlined_subroutine entries on the way are the chain. The answer is kept in a per-address
 * table, and names and file names are interned once per file, so a stack
 * seen a million times costs one hash probe per frame.
 *
 * libdw checks every read against its section's bounds and returns errors
 * instead of trusting offsets; a DIE it cannot read ends the chain there,
 * and the walk only goes forward in the section (a corrupt tree may point
 * back into itself), at most 64 levels deep and 4M DIEs far.
 *
 * A dwz file (.gnu_debugaltlink: DIEs and strings several debug files
 * share) libdw would find and open by itself, with a plain open() and a
 * mapping: a FIFO at its name froze sprof. It is found here instead, the
 * way sprof opens every file a target names (sp_file_open, read with
 * pread), checked against the link's build id and handed to libdw with
 * dwarf_setalt(); a file whose dwz file cannot be had so gets no inline
 * frames rather than letting libdw look.
 */
#include "runtime/elf/inlines.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/file.h"
#include "runtime/elf/lines.h"
#include "runtime/elf/syms.h"
#include "base/hash.h"
#include "base/search.h"
#include "base/vec.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct addr_slot {
	uint64_t vaddr;
	int first, n;       /* entries[first .. first+n-1] */
	bool used;
};

/* One range of a function's code and the function's DIE. */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Off die;
};

/* A compilation unit's functions by address, built on the unit's first lookup. */
struct cu_funcs {
	Dwarf_Off cu;
	int n, cap;
	struct fn_range *v;        /* sorted by lo */
	bool used;
};

struct sp_inlines {
	Dwarf *dw;
	Dwarf *alt_dw;             /* the dwz file, when there is one */
	Elf *alt_elf;
	int alt_fd;
	struct cu_funcs *cus;      /* open addressing by unit offset, power-of-two size */
	size_t ncus, usedcus;
	struct addr_slot *slots;   /* open addressing, power-of-two size */
	size_t nslots, used;
	struct sp_inline *entries;
	int nentries, capentries;
	char **strs;               /* interned strings, open addressing */
	size_t nstrs, capstrs;
};

/* --- interning --------------------------------------------------------------------- */

static bool strs_grow(struct sp_inlines *in)
{
	size_t cap = in->capstrs ? in->capstrs * 2 : 256;
	char **v = calloc(cap, sizeof(*v));

	if (!v)
		return false;
	for (size_t i = 0; i < in->capstrs; i++) {
		size_t j;

		if (!in->strs[i])
			continue;
		for (j = sp_hash_str(in->strs[i]) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = in->strs[i];
	}
	free(in->strs);
	in->strs = v;
	in->capstrs = cap;
	return true;
}

/* The one copy of s kept by `in`; NULL for NULL or when memory runs out. */
static const char *intern(struct sp_inlines *in, const char *s)
{
	size_t j;

	if (!s || ((in->nstrs + 1) * 2 > in->capstrs && !strs_grow(in)))
		return NULL;
	for (j = sp_hash_str(s) & (in->capstrs - 1); in->strs[j]; j = (j + 1) & (in->capstrs - 1))
		if (strcmp(in->strs[j], s) == 0)
			return in->strs[j];
	in->strs[j] = strdup(s);
	if (in->strs[j])
		in->nstrs++;
	return in->strs[j];
}

/* --- the per-address table ------------------------------------------------------------ */

static size_t slot_of(const struct sp_inlines *in, uint64_t vaddr)
{
	return (size_t)sp_hash_u64(vaddr) & (in->nslots - 1);
}

static bool slots_grow(struct sp_inlines *in)
{
	size_t cap = in->nslots ? in->nslots * 2 : 1024, old = in->nslots;
	struct addr_slot *prev = in->slots;

	in->slots = calloc(cap, sizeof(*in->slots));
	if (!in->slots) {
		in->slots = prev;
		return false;
	}
	in->nslots = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!prev[i].used)
			continue;
		for (j = slot_of(in, prev[i].vaddr); in->slots[j].used; j = (j + 1) & (cap - 1))
			;
		in->slots[j] = prev[i];
	}
	free(prev);
	return true;
}

/* The slot for vaddr: used when known, else empty (NULL: out of memory). */
static struct addr_slot *slot_find(struct sp_inlines *in, uint64_t vaddr)
{
	size_t j;

	if ((in->used + 1) * 2 > in->nslots && !slots_grow(in))
		return NULL;
	for (j = slot_of(in, vaddr); in->slots[j].used; j = (j + 1) & (in->nslots - 1))
		if (in->slots[j].vaddr == vaddr)
			break;
	return &in->slots[j];
}

/* --- DWARF ------------------------------------------------------------------------------ */

static const char *die_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &a));
}

static const char *die_linkage(Dwarf_Die *die)
{
	const char *s = die_string(die, DW_AT_linkage_name);

	return s ? s : die_string(die, DW_AT_MIPS_linkage_name);
}

/* Where the inlined call `die` was made: file (from its unit's file table) and line. */
static void call_site(Dwarf_Die *die, Dwarf_Die *cu, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0 && w <= 0x7fffffff)
		*line = (int)w;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

static bool push_entry(struct sp_inlines *in, Dwarf_Die *die, Dwarf_Die *cu)
{
	struct sp_inline *e;
	const char *file;
	char path[4096];

	if (SP_GROW(in->entries, in->capentries, in->nentries + 1, 1024))
		return false;
	e = &in->entries[in->nentries];
	call_site(die, cu, &file, &e->call_line);
	e->call_file = NULL;
	if (file && strlen(file) < sizeof(path)) {
		strcpy(path, file);
		sp_lines__clean_path(path); /* spelled as the line table's files are */
		e->call_file = intern(in, path);
	}
	e->name = intern(in, die_string(die, DW_AT_name));
	e->linkage = intern(in, die_linkage(die));
	e->demangled = NULL;
	if (e->linkage) {
		char *d = sp_demangle(e->linkage);

		e->demangled = intern(in, d);
		free(d);
	}
	if (!e->name && !e->linkage)
		e->name = "??"; /* a static string: never freed */
	in->nentries++;
	return true;
}

/* The walk down one unit's DIE tree to the DIEs holding pc. */
struct walk {
	uint64_t pc;
	Dwarf_Die chain[SP_INLINE_MAX + 1]; /* the function, then its inlined calls, outermost first */
	int n;
	Dwarf_Off last;                      /* offsets only grow: a corrupt tree cannot loop */
	long budget;                         /* DIEs left to look at */
};

/* Code DIEs hold addresses; containers (namespaces, types: Rust and C++
 * nest functions in them) do not but may hold code DIEs. */
static bool is_code(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_entry_point;
}

static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_interface_type;
}

static void walk_push(struct walk *w, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_subprogram)
		w->n = 0; /* a function nested in another starts the chain again */
	if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
	    w->n < SP_INLINE_MAX + 1)
		w->chain[w->n++] = *die;
}

/* Looks among die's children for the code DIE holding w->pc and goes down
 * into it; 1 when found. */
static int walk_down(struct walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Off off = dwarf_dieoffset(&c);

		if (--w->budget < 0 || off <= w->last)
			return 0;
		w->last = off;
		if (is_code(tag) && dwarf_haspc(&c, w->pc) == 1) {
			walk_push(w, &c);
			walk_down(w, &c, depth + 1);
			return 1;
		}
		if (is_container(tag) && walk_down(w, &c, depth + 1))
			return 1;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* --- functions of a unit by address --------------------------------------------------------- */

#define MAX_RANGES 4096 /* of one function: a corrupt list ends there */

static void add_ranges(struct cu_funcs *f, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	for (int k = 0; k < MAX_RANGES && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0; k++) {
		if (lo >= hi || SP_GROW(f->v, f->cap, f->n + 1, 256))
			continue;
		f->v[f->n++] = (struct fn_range){ lo, hi, dwarf_dieoffset(die) };
	}
}

/* Every function with code under die (through namespaces and types), in
 * section order; *last and *budget as for walk_down. */
static void collect_funcs(struct cu_funcs *f, Dwarf_Die *die, int depth, Dwarf_Off *last,
			  long *budget)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(die, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Off off = dwarf_dieoffset(&c);

		if (--*budget < 0 || off <= *last)
			return;
		*last = off;
		if (tag == DW_TAG_subprogram)
			add_ranges(f, &c);
		else if (is_container(tag))
			collect_funcs(f, &c, depth + 1, last, budget);
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct fn_range *a = pa, *b = pb;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

static bool cus_grow(struct sp_inlines *in)
{
	size_t cap = in->ncus ? in->ncus * 2 : 64, old = in->ncus;
	struct cu_funcs *prev = in->cus;

	in->cus = calloc(cap, sizeof(*in->cus));
	if (!in->cus) {
		in->cus = prev;
		return false;
	}
	in->ncus = cap;
	for (size_t i = 0; i < old; i++) {
		size_t j;

		if (!prev[i].used)
			continue;
		for (j = sp_hash_u64(prev[i].cu) & (cap - 1); in->cus[j].used; j = (j + 1) & (cap - 1))
			;
		in->cus[j] = prev[i];
	}
	free(prev);
	return true;
}

/* The functions of unit `cu`, indexed on first use; NULL when memory runs out. */
static struct cu_funcs *unit_funcs(struct sp_inlines *in, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu), last = off;
	long budget = 1L << 22;
	struct cu_funcs *f;
	size_t j;

	if ((in->usedcus + 1) * 2 > in->ncus && !cus_grow(in))
		return NULL;
	for (j = sp_hash_u64(off) & (in->ncus - 1); in->cus[j].used; j = (j + 1) & (in->ncus - 1))
		if (in->cus[j].cu == off)
			return &in->cus[j];
	f = &in->cus[j];
	*f = (struct cu_funcs){ .cu = off, .used = true };
	in->usedcus++;
	collect_funcs(f, cu, 0, &last, &budget);
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), range_cmp);
	return f;
}

/* Append the chain at vaddr to entries, innermost first; returns its length.
 * The unit's function holding vaddr comes from the unit's index, then its
 * subtree is walked by hand (not with dwarf_getscopes(), which goes on into
 * an inlined function's abstract definition and, in elfutils 0.188, leaks
 * its array when a corrupt unit makes its second pass fail). */
static int read_chain(struct sp_inlines *in, uint64_t vaddr)
{
	Dwarf_Die cu_mem, *cu = dwarf_addrdie(in->dw, vaddr, &cu_mem), fn;
	struct cu_funcs *f = cu ? unit_funcs(in, cu) : NULL;
	long i = f && f->n ? SP_FLOOR(f->v, f->n, lo, vaddr) : -1;
	struct walk *w;
	int n = 0;

	/* ranges of functions seldom overlap; when they do, an earlier one may hold vaddr */
	for (long k = i; i >= 0 && vaddr >= f->v[i].hi && k - i < 8; )
		i--;
	if (i < 0 || vaddr >= f->v[i].hi || !dwarf_offdie(in->dw, f->v[i].die, &fn) ||
	    !(w = malloc(sizeof(*w))))
		return 0;
	w->pc = vaddr;
	w->n = 0;
	w->last = f->v[i].die;
	w->budget = 1L << 22;
	walk_push(w, &fn);
	walk_down(w, &fn, 0);
	/* chain[0] is the function, chain[1..] its inlined calls */
	for (int k = w->n - 1; k >= 0 && n < SP_INLINE_MAX; k--) {
		if (dwarf_tag(&w->chain[k]) != DW_TAG_inlined_subroutine)
			break;
		if (!push_entry(in, &w->chain[k], cu))
			break;
		n++;
	}
	free(w);
	return n;
}

/* --- opening DWARF ------------------------------------------------------------------------ */

/* Whether every DWARF string section ends in a NUL. libdw 0.188 takes
 * them as C strings and reads past the end of one that does not (a heap
 * overflow since files are read into memory, not mapped: fuzz_elf found
 * it); such a file gets no inline frames. A compressed section is
 * decompressed first, as libdw would. */
static bool dwarf_strings_ok(Elf *elf)
{
	static const char *const names[] = { ".debug_str", ".debug_line_str", ".zdebug_str",
					     ".zdebug_line_str" };
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		bool str = false;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			str |= strcmp(name, names[i]) == 0;
		if (!str || sh.sh_type == SHT_NOBITS)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return false;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size && (!d->d_buf || ((const char *)d->d_buf)[d->d_size - 1] != '\0'))
			return false;
	}
	return true;
}

static Dwarf *dwarf_open(Elf *elf)
{
	return sp_elf_inflate_ok(elf) && dwarf_strings_ok(elf) ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
}

/* --- the dwz file ------------------------------------------------------------------------ */

/* `path` as the dwz file when its build id is want (hex). */
static bool try_alt(struct sp_inlines *in, const char *path, const char *want)
{
	int fd = sp_file_open(path, SP_FILE_ELF_MAX);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	char *bid = elf ? sp_elf_read_build_id(elf) : NULL;
	Dwarf *dw = bid && strcmp(bid, want) == 0 ? dwarf_open(elf) : NULL;

	free(bid);
	if (!dw) {
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		return false;
	}
	in->alt_fd = fd;
	in->alt_elf = elf;
	in->alt_dw = dw;
	dwarf_setalt(in->dw, dw);
	return true;
}

/* .gnu_debugaltlink: a file name, NUL, the file's build id. Tried as
 * named (relative to `path`'s folder) and under /usr/lib/debug/.build-id.
 * true when there is none, or it was found. */
static bool find_alt(struct sp_inlines *in, Elf *elf, const char *path)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_section(elf, ".gnu_debugaltlink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name, *nul, *slash;
	char want[2 * 64 + 1], buf[4096];
	size_t idlen;

	if (!scn)
		return true;
	if (!d || !d->d_buf || !(nul = memchr(d->d_buf, '\0', d->d_size)))
		return false;
	name = d->d_buf;
	idlen = d->d_size - (size_t)(nul + 1 - name);
	if (idlen < 2 || idlen > 64)
		return false;
	for (size_t i = 0; i < idlen; i++)
		snprintf(want + 2 * i, 3, "%02x", (unsigned char)nul[1 + i]);
	if (name[0] == '/' && try_alt(in, name, want))
		return true;
	slash = path ? strrchr(path, '/') : NULL;
	if (name[0] != '/' && slash &&
	    snprintf(buf, sizeof(buf), "%.*s/%s", (int)(slash - path), path, name) < (int)sizeof(buf) &&
	    try_alt(in, buf, want))
		return true;
	snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%.2s/%s.debug", want, want + 2);
	return try_alt(in, buf, want);
}

/* --- public -------------------------------------------------------------------------------- */

struct sp_inlines *sp_inlines__load(Elf *elf, const char *path)
{
	struct sp_inlines *in;
	Dwarf *dw;

	if (!elf)
		return NULL;
	dw = dwarf_open(elf);
	if (!dw)
		return NULL;
	in = calloc(1, sizeof(*in));
	if (!in) {
		dwarf_end(dw);
		return NULL;
	}
	in->dw = dw;
	in->alt_fd = -1;
	if (!find_alt(in, elf, path)) {
		sp_inlines__free(in);
		return NULL;
	}
	return in;
}

int sp_inlines__find(struct sp_inlines *in, uint64_t vaddr, struct sp_inline *out, int max)
{
	struct addr_slot *s = slot_find(in, vaddr);
	int n;

	if (!s)
		return 0;
	if (!s->used) {
		int first = in->nentries;

		n = read_chain(in, vaddr);
		s = slot_find(in, vaddr); /* no growth happened in between: same slot */
		*s = (struct addr_slot){ vaddr, first, n, true };
		in->used++;
	}
	n = s->n < max ? s->n : max;
	if (n > 0) /* entries may still be NULL */
		memcpy(out, &in->entries[s->first], (size_t)n * sizeof(*out));
	return n > 0 ? n : 0;
}

void sp_inlines__free(struct sp_inlines *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->capstrs; i++)
		free(in->strs[i]);
	free(in->strs);
	for (size_t i = 0; i < in->ncus; i++)
		free(in->cus[i].v);
	free(in->cus);
	free(in->slots);
	free(in->entries);
	dwarf_end(in->dw);
	dwarf_end(in->alt_dw);
	if (in->alt_elf)
		elf_end(in->alt_elf);
	if (in->alt_fd >= 0)
		close(in->alt_fd);
	free(in);
}
