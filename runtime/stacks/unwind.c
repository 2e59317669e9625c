/* runtime/stacks/unwind.c: per-file unwind tables and per-process mappings for bpf/unwind.bpf.c.
 *
 * Files are opened the way the symbolizer opens them (/proc/PID/map_files,
 * then /proc/PID/root/PATH) and cached by (device, inode, size, mtime), so
 * libc is parsed once (~3 ms, ~28k rows) however many processes map it.
 * Rows are written into mmapped BPF arrays (abi/unwind_table.h): a base
 * made at load, then pages made as the tables grow: no syscall per row,
 * and no size fixed before load. A
 * file's rows are a slice [first, first + count) of the sequence, pcs stored
 * relative to the file's lowest row so they fit 32 bits; each mapping's
 * bias turns a runtime pc into that relative pc:
 *   pc_vaddr = pc - (start - pgoff + p_offset - p_vaddr)   (the segment the
 *              mapping shows: runtime/elf/segments.h; lld's layouts need it)
 *   bias     = (start - pgoff + p_offset - p_vaddr) + file_base
 * The vDSO is taken from sprof's own image: one kernel, one vDSO.
 *
 * Rows are never freed: the sequence is append-only, within a budget
 * (SPROF_UNWIND_ROWS, 16M rows by default); a file past it has no table,
 * and sprof says so once, naming it. Entries of processes that are gone
 * are deleted from time to time.
 */
#define _GNU_SOURCE
#include "runtime/stacks/unwind.h"

#include "abi/unwind_table.h"
#include "base/clock.h"
#include "base/hash.h"
#include "runtime/elf/ehframe.h"
#include "runtime/elf/file.h"
#include "runtime/elf/objcache.h"
#include "runtime/elf/segments.h"
#include "runtime/elf/syms.h"
#include "runtime/stacks/kofs.h"
#include "runtime/stacks/procmaps.h"
#include "base/vec.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define SWEEP_EVERY 64 /* add_pid calls between sweeps for exited processes */

struct unw_file {
	struct sp_file_id id;
	int nsegs;
	struct sp_segment segs[SP_MAX_SEGMENTS];
	uint64_t base;          /* vaddr of the first row */
	uint32_t first, count;  /* rows in the array; count 0: no table */
	uint32_t pidx, npidx;   /* its bucket index (abi/unwind_table.h); npidx 0: none */
	struct unw_file *next;
};

struct unw_pid {
	pid_t pid;
	uint64_t maps_hash;     /* of the mappings last registered */
	bool too_many_said;     /* more than SP_UNW_MAX_MAPS mappings: said once */
};

/* A sequence of rows or buckets: the base array and the pages made so
 * far, mmapped. */
struct unw_pages {
	const char *name;       /* of the page maps */
	void *base;             /* entries [0, nbase) */
	uint64_t nbase;
	int outer_fd;           /* pages: entries nbase + (i << shift) on */
	uint32_t shift;         /* 1 << shift entries a page */
	size_t esize;
	int npages;
	void *page[SP_UNW_MAX_PAGES];
	uint64_t used, cap;     /* entries taken; the budget */
	int err;                /* the error that stopped page making, once */
};

struct sp_unwind {
	struct bpf_map *rows_map, *pidx_map, *procs_map, *stats_map, *files_map, *kofs_map;
	struct bpf_map *rows_more_map, *pidx_more_map;
	int procs_fd, stats_fd, files_fd;
	struct unw_pages rows, pidx;
	uint32_t max_rows;
	bool ready, failed, warned;
	FILE *warn;                /* where a file past the budget is reported (stderr) */
	bool verbose;              /* -v: also a refused .gopclntab, once per file */
	struct unw_file *files;
	struct sp_objcache *objs;  /* object files, possibly shared with the symbolizer */
	bool own_objs;
	struct unw_pid *pids;      /* registered processes */
	pid_t forks[SP_UNWIND_FORKS][2]; /* (child, parent), the latest forks, a ring */
	unsigned nforks;
	int npids, cap_pids, adds;
	int nfiles, files_with_rows, over_budget;
	int deferred;              /* big files left to a process's first sample */
	double parse_ms;
	uint64_t not_loaded_before; /* SP_UNW_ST_NOT_LOADED at sp_unwind__started() */
};

struct sp_unwind *sp_unwind__open(struct bpf_object *obj, uint32_t max_rows)
{
	struct sp_unwind *u;

	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->objs = sp_objcache__new();
	u->own_objs = true;
	if (!u->objs) {
		sp_unwind__destroy(u);
		return NULL;
	}
	elf_version(EV_CURRENT);
	u->rows_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_ROWS);
	u->pidx_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_PIDX);
	u->rows_more_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_ROWS_MORE);
	u->pidx_more_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_PIDX_MORE);
	u->procs_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_PROCS);
	u->stats_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_STATS);
	/* none in the helpers for kernels without bpf_find_vma: nothing reads it */
	u->files_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_FILES);
	u->kofs_map = bpf_object__find_map_by_name(obj, SP_UNW_MAP_KOFS);
	if (!u->rows_map || !u->pidx_map || !u->procs_map || !u->stats_map ||
	    !u->kofs_map || !u->rows_more_map || !u->pidx_more_map) {
		sp_unwind__destroy(u);
		errno = ENOENT;
		return NULL;
	}
	u->max_rows = max_rows ? max_rows : SP_UNWIND_DEFAULT_ROWS;
	if (u->max_rows > (uint64_t)SP_UNW_MAX_PAGES << SP_UNW_PAGE_ROWS_SHIFT)
		u->max_rows = (uint32_t)((uint64_t)SP_UNW_MAX_PAGES << SP_UNW_PAGE_ROWS_SHIFT);
	u->warn = stderr;
	u->rows = (struct unw_pages){ .name = "unw_rows_page", .shift = SP_UNW_PAGE_ROWS_SHIFT,
				      .esize = sizeof(struct sp_unw_row), .cap = u->max_rows,
				      .nbase = SP_UNW_BASE_ROWS, .outer_fd = -1 };
	/* a bucket per 2 rows at most (128 bytes of code hold ~3 rows in
	 * libc); files past that budget are searched whole */
	u->pidx = (struct unw_pages){ .name = "unw_pidx_page", .shift = SP_UNW_PAGE_BUCKETS_SHIFT,
				      .esize = sizeof(struct sp_unw_bucket),
				      .cap = u->max_rows / 2 ? u->max_rows / 2 : 1,
				      .nbase = SP_UNW_BASE_BUCKETS, .outer_fd = -1 };
	if (bpf_map__set_max_entries(u->procs_map, SP_UNWIND_DEFAULT_PROCS)) {
		sp_unwind__destroy(u);
		errno = EINVAL;
		return NULL;
	}
	return u;
}

int sp_unwind__share_objcache(struct sp_unwind *u, struct sp_objcache *objs)
{
	if (!u || !objs)
		return 0;
	if (u->files)
		return -EBUSY; /* files were met already: they belong to the own cache */
	if (u->own_objs)
		sp_objcache__destroy(u->objs);
	u->objs = objs;
	u->own_objs = false;
	return 0;
}

/* The kernel field offsets for bpf_find_vma lookups; without BTF, none. */
static void publish_kofs(struct sp_unwind *u)
{
	struct sp_unw_kofs k;
	uint32_t zero = 0;

	if (sp_kofs__read(&k) == 0 || k.regs_ok)
		bpf_map_update_elem(bpf_map__fd(u->kofs_map), &zero, &k, BPF_ANY);
}

/* The entry BPF walks processes without one of their own with (their
 * mappings all from the kernel's vmas): key 0, no mappings. pid 0 is the
 * idle task, never a user stack. */
static void publish_empty_proc(struct sp_unwind *u)
{
	struct sp_unw_proc *p = calloc(1, sizeof(*p));
	uint32_t zero = 0;

	if (!p)
		return;
	bpf_map_update_elem(u->procs_fd, &zero, p, BPF_ANY);
	free(p);
}

/* --- pages ------------------------------------------------------------------------ */

static size_t page_bytes(const struct unw_pages *pg)
{
	return ((size_t)1 << pg->shift) * pg->esize;
}

/* One more page: an mmapable array like the outer map's template, mapped
 * here and put into the outer map; 0 or -errno. */
static int add_page(struct unw_pages *pg)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_MMAPABLE);
	uint32_t idx = (uint32_t)pg->npages;
	int fd, err = 0;
	void *p;

	if (pg->npages >= SP_UNW_MAX_PAGES)
		return -E2BIG;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, pg->name, sizeof(uint32_t), (uint32_t)pg->esize,
			    1u << pg->shift, &o);
	if (fd < 0)
		return -errno;
	p = mmap(NULL, page_bytes(pg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		err = -errno;
	else if (bpf_map_update_elem(pg->outer_fd, &idx, &fd, BPF_ANY))
		err = -errno;
	close(fd); /* the outer map and the mapping hold the page */
	if (err) {
		if (p != MAP_FAILED)
			munmap(p, page_bytes(pg));
		return err;
	}
	pg->page[pg->npages++] = p;
	return 0;
}

/* n entries at the end of the sequence, pages made as needed: the first
 * one's index, or -errno (-ENOSPC: past the budget). */
static int64_t take(struct unw_pages *pg, uint64_t n)
{
	uint64_t first = pg->used;

	if (first + n > pg->cap)
		return -ENOSPC;
	while (pg->nbase + ((uint64_t)pg->npages << pg->shift) < first + n) {
		int err = add_page(pg);

		if (err) {
			pg->err = pg->err ? pg->err : err;
			return err;
		}
	}
	pg->used += n;
	return (int64_t)first;
}

/* Copies n entries from src to entry g on. */
static void put(struct unw_pages *pg, uint64_t g, const void *src, uint64_t n)
{
	const char *b = src;

	while (n && g < pg->nbase) {
		uint64_t k = pg->nbase - g < n ? pg->nbase - g : n;

		memcpy((char *)pg->base + g * pg->esize, b, k * pg->esize);
		b += k * pg->esize;
		g += k;
		n -= k;
	}
	while (n) {
		uint64_t p = g - pg->nbase, in = p & ((1ull << pg->shift) - 1);
		uint64_t k = (1ull << pg->shift) - in;

		k = k < n ? k : n;
		memcpy((char *)pg->page[p >> pg->shift] + in * pg->esize, b, k * pg->esize);
		b += k * pg->esize;
		g += k;
		n -= k;
	}
}

static void pages_free(struct unw_pages *pg)
{
	if (pg->base)
		munmap(pg->base, pg->nbase * pg->esize);
	pg->base = NULL;
	for (int i = 0; i < pg->npages; i++)
		munmap(pg->page[i], page_bytes(pg));
	pg->npages = 0;
}

/* The base array of a sequence, mapped; 0 or -errno. */
static int map_base(struct unw_pages *pg, const struct bpf_map *m)
{
	int fd = bpf_map__fd(m);
	void *p;

	if (fd < 0)
		return -EBADF;
	p = mmap(NULL, pg->nbase * pg->esize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	pg->base = p;
	return 0;
}

/* After load: the map descriptors and the base arrays mapped. */
static int lazy_init(struct sp_unwind *u)
{
	if (u->ready || u->failed)
		return u->failed ? -ENODEV : 0;
	u->procs_fd = bpf_map__fd(u->procs_map);
	u->stats_fd = bpf_map__fd(u->stats_map);
	u->files_fd = u->files_map ? bpf_map__fd(u->files_map) : -1;
	publish_kofs(u);
	publish_empty_proc(u);
	u->rows.outer_fd = bpf_map__fd(u->rows_more_map);
	u->pidx.outer_fd = bpf_map__fd(u->pidx_more_map);
	if (u->procs_fd < 0 || u->rows.outer_fd < 0 || u->pidx.outer_fd < 0 ||
	    map_base(&u->rows, u->rows_map) || map_base(&u->pidx, u->pidx_map)) {
		u->failed = true; /* sp_unwind__destroy() unmaps what was mapped */
		return -ENODEV;
	}
	u->ready = true;
	return 0;
}

/* --- files ------------------------------------------------------------------------- */

uint64_t sp_unw_index_size(const struct sp_unw_row *rows, uint32_t n)
{
	return n ? ((uint64_t)rows[n - 1].pc >> SP_UNW_PIDX_SHIFT) + 1 : 0;
}

void sp_unw_index_build(const struct sp_unw_row *rows, uint32_t n, struct sp_unw_bucket *out)
{
	uint64_t nb = sp_unw_index_size(rows, n);
	uint32_t r = 0;

	for (uint64_t b = 0; b < nb; b++) {
		struct sp_unw_bucket *e = &out[b];
		uint64_t start = b << SP_UNW_PIDX_SHIFT, end = start + (1u << SP_UNW_PIDX_SHIFT);

		while (r + 1 < n && rows[r + 1].pc <= start)
			r++;
		e->lo = r;
		e->offs = 0x8080808080808080ull; /* 0x80: no row */
		while (r + 1 < n && rows[r + 1].pc < end) {
			uint32_t k = r - e->lo;

			r++;
			if (k < SP_UNW_BUCKET_OFFS) {
				e->offs &= ~(0xffull << (8 * k));
				e->offs |= (uint64_t)(rows[r].pc - start) << (8 * k);
			}
		}
		e->hi = r; /* the next bucket's lo is this row or the next */
	}
}

/* The file's bucket index, when it fits: without one, BPF searches all of
 * the file's rows. */
static void build_index(struct sp_unwind *u, struct unw_file *f, const struct sp_unw_row *rows)
{
	uint64_t nb = sp_unw_index_size(rows, f->count);
	struct sp_unw_bucket *b;
	int64_t g;

	if (nb == 0 || nb > UINT32_MAX || !(b = malloc(nb * sizeof(*b))))
		return;
	g = take(&u->pidx, nb);
	if (g >= 0) {
		sp_unw_index_build(rows, f->count, b);
		put(&u->pidx, (uint64_t)g, b, nb);
		f->pidx = (uint32_t)g;
		f->npidx = (uint32_t)nb;
	}
	free(b);
}

/* Once: a file left without a table, named, with the limit and the way past it. */
static void warn_no_table(struct sp_unwind *u, const char *path, uint64_t n, int err)
{
	if (u->warned || !u->warn)
		return;
	u->warned = true;
	if (err == -ENOSPC)
		fprintf(u->warn, "sprof: warning: %s needs %" PRIu64 " unwind rows, past the budget "
			"of %u (%" PRIu64 " taken; SPROF_UNWIND_ROWS raises it, 8 bytes a row): its "
			"frames end stacks short\n", path, n, u->max_rows, u->rows.used);
	else
		fprintf(u->warn, "sprof: warning: no memory for the unwind rows of %s (%" PRIu64
			" rows, %" PRIu64 " taken): %s; its frames end stacks short\n", path, n,
			u->rows.used, strerror(-err));
}

/* Parse the file's table into the row pages (when it fits). */

/* The BPF side's row of r (abi/unwind_table.h): an rsp offset past 16 bits
 * (ehframe.c let only those CFA_RSP_BIG holds through) as CFA_RSP_BIG. */
static struct sp_unw_row unw_row(const struct sp_eh_row *r, uint64_t base)
{
	struct sp_unw_row u = {
		.pc = (uint32_t)(r->pc - base),
		.cfa_off = (int16_t)r->cfa_off,
		.kind = r->kind,
		.rbp_off8 = (int8_t)(r->rbp_off / 8),
	};
	uint32_t off8 = (uint32_t)r->cfa_off / 8;

	if (r->kind == SP_UNW_CFA_RSP && r->cfa_off > INT16_MAX) {
		u.kind = SP_UNW_CFA_RSP_BIG;
		u.cfa_off = (int16_t)(uint16_t)(off8 & 0xffff);
		u.rbp_off8 = (int8_t)(uint8_t)(((off8 >> 16) << 4) | ((uint32_t)(r->rbp_off / 8) & 15));
	}
	return u;
}
static void load_table(struct sp_unwind *u, struct unw_file *f, Elf *elf, const char *path)
{
	struct sp_eh_table t;
	struct sp_unw_row *rows;
	double t0 = (sp_mono_s() * 1e3);
	int err = sp_eh_table__from_elf(&t, elf);
	int64_t g;

	u->parse_ms += (sp_mono_s() * 1e3) - t0;
	if (t.go_err && u->verbose)
		fprintf(u->warn, "sprof: %s: .gopclntab %s, not used: its Go functions unwind by frame "
			"pointers\n", path, t.go_err == -ENOTSUP ? "of a Go version sprof does not know" :
			"is corrupt");
	if (err)
		return;
	if (t.rows[t.n - 1].pc - t.rows[0].pc > 0xffffffffull ||
	    !(rows = malloc((size_t)t.n * sizeof(*rows)))) {
		sp_eh_table__free(&t);
		return;
	}
	g = take(&u->rows, (uint64_t)t.n);
	if (g < 0) {
		u->over_budget++;
		warn_no_table(u, path, (uint64_t)t.n, (int)g);
		goto out;
	}
	f->base = t.rows[0].pc;
	f->first = (uint32_t)g;
	f->count = (uint32_t)t.n;
	for (int i = 0; i < t.n; i++) {
		const struct sp_eh_row *r = &t.rows[i];

		rows[i] = unw_row(r, f->base);
	}
	put(&u->rows, (uint64_t)g, rows, (uint64_t)t.n);
	u->files_with_rows++;
	build_index(u, f, rows);
out:
	free(rows);
	sp_eh_table__free(&t);
}

static struct unw_file *file_from_elf(struct sp_unwind *u, Elf *elf, const char *path)
{
	struct unw_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		f->nsegs = sp_segments__read(elf, f->segs, SP_MAX_SEGMENTS);
		load_table(u, f, elf, path);
	}
	u->nfiles++;
	return f;
}

/* Bytes of call frame information (.eh_frame, .debug_frame, .gopclntab): the parse cost. */
static uint64_t cfi_size(Elf *elf)
{
	static const char *const names[] = { ".eh_frame", ".debug_frame", ".gopclntab" };
	uint64_t n = 0;

	for (int i = 0; i < 3; i++) {
		GElf_Shdr sh;

		if (sp_elf_section(elf, names[i], &sh))
			n += sh.sh_size;
	}
	return n;
}

/* The file's entry in the files map, for mappings BPF finds by itself. */
static void publish_file(struct sp_unwind *u, const struct unw_file *f)
{
	struct sp_unw_file_key key = {
		.dev = ((uint64_t)major(f->id.dev) << 20) | minor(f->id.dev), /* the kernel's MKDEV */
		.ino = f->id.ino,
	};
	struct sp_unw_file v = { .first = f->first, .count = f->count, .base = f->base,
				 .pidx = f->pidx, .npidx = f->npidx };

	for (int i = 0; i < f->nsegs && v.nsegs < SP_UNW_FILE_SEGS; i++) {
		if (!(f->segs[i].flags & PF_X))
			continue;
		v.segs[v.nsegs].off = f->segs[i].off;
		v.segs[v.nsegs].vaddr = f->segs[i].vaddr;
		v.segs[v.nsegs++].filesz = f->segs[i].filesz;
	}
	if (u->files_fd >= 0)
		bpf_map_update_elem(u->files_fd, &key, &v, BPF_ANY);
}

/* The unwinder's entry for an object file of the shared cache (opened
 * once for the symbolizer and the unwinder, runtime/elf/objcache.h).
 * `early`: NULL for a file not parsed yet whose tables are big (a later
 * call parses it). */
static struct unw_file *file_for(struct sp_unwind *u, const struct sp_objfile *of, bool early,
				 const char *path)
{
	struct unw_file *f;
	Elf *elf;

	if (!of)
		return NULL;
	for (f = u->files; f; f = f->next)
		if (sp_file_id__eq(&f->id, &of->id))
			return f;
	elf = of->elf ? (Elf *)sp_elf__libelf(of->elf) : NULL;
	if (early && elf && elf_kind(elf) == ELF_K_ELF && cfi_size(elf) > SP_UNWIND_EARLY_MAX_CFI) {
		u->deferred++;
		return NULL;
	}
	f = file_from_elf(u, elf, path);
	if (!f)
		return NULL;
	f->id = of->id;
	f->next = u->files;
	u->files = f;
	if (f->id.ino) /* not the vDSO: BPF finds only file mappings by inode */
		publish_file(u, f);
	return f;
}

/* sprof's own vDSO image (one for every process). */
static struct unw_file *vdso_file(struct sp_unwind *u)
{
	const void *image;
	size_t size;

	if (!sp_procmaps__self_vdso(&image, &size))
		return NULL;
	return file_for(u, sp_objcache__vdso(u->objs, image, size), false, "[vdso]");
}

/* --- processes ----------------------------------------------------------------------- */

/* The mapping's entry (without rows when the file has none or no
 * segment for it). Mappings here are executable: the text segment's. */
static void fill_map(const struct unw_file *f, const struct sp_procmap *m, struct sp_unw_map *out)
{
	const struct sp_segment *seg;

	out->start = m->start;
	out->end = m->end;
	out->first = out->count = 0;
	out->pidx = out->npidx = 0;
	out->bias = 0;
	if (!f || f->count == 0)
		return;
	seg = sp_segments__for_map(f->segs, f->nsegs, m->pgoff, true);
	if (!seg)
		return;
	out->bias = sp_segment__bias(seg, m->start, m->pgoff) + f->base;
	out->first = f->first;
	out->count = f->count;
	out->pidx = f->pidx;
	out->npidx = f->npidx;
}

static struct unw_pid *find_pid(struct sp_unwind *u, pid_t pid)
{
	for (int i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return &u->pids[i];
	return NULL;
}

static struct unw_pid *add_pid_entry(struct sp_unwind *u, pid_t pid)
{
	if (SP_GROW(u->pids, u->cap_pids, u->npids + 1, 64))
		return NULL;
	u->pids[u->npids] = (struct unw_pid){ .pid = pid };
	return &u->pids[u->npids++];
}

static uint64_t maps_hash(const struct sp_unw_proc *p)
{
	uint64_t h = SP_HASH_INIT;

	for (uint32_t i = 0; i < p->n; i++) {
		uint64_t m[3] = { p->maps[i].start, p->maps[i].end,
				  p->maps[i].bias ^ p->maps[i].count };

		h = sp_hash_bytes(h, m, sizeof(m));
	}
	return h;
}

/* Forget processes that are gone (their pid may come back as another). */
static void sweep(struct sp_unwind *u)
{
	int k = 0;

	for (int i = 0; i < u->npids; i++) {
		uint32_t key = (uint32_t)u->pids[i].pid;

		if (kill(u->pids[i].pid, 0) != 0 && errno == ESRCH)
			bpf_map_delete_elem(u->procs_fd, &key);
		else
			u->pids[k++] = u->pids[i];
	}
	u->npids = k;
}

int sp_unwind__sweep(struct sp_unwind *u)
{
	int before;

	if (!u || !u->ready)
		return 0;
	before = u->npids;
	sweep(u);
	return before - u->npids;
}

/* Store p (consumed) as pid's entry; 1 when its mappings changed. */
static int register_proc(struct sp_unwind *u, pid_t pid, struct sp_unw_proc *p)
{
	struct unw_pid *e = find_pid(u, pid);
	uint32_t key = (uint32_t)pid;
	uint64_t h = maps_hash(p);
	int err;

	if (e && e->maps_hash == h) {
		free(p); /* BPF stamped refresh_ns when it asked */
		return 0;
	}
	/* a first read may precede the dynamic loader's work: allow a refresh
	 * request at once; after that at most every SP_UNW_REFRESH_NS */
	p->refresh_ns = e ? sp_mono_ns() : 0;
	err = bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY) ? -errno : 0;
	free(p);
	if (err)
		return err;
	if (!e)
		e = add_pid_entry(u, pid);
	if (e)
		e->maps_hash = h;
	return 1;
}

/* The file of mapping m (NULL: none, or not readable). *deferred: an
 * early call left a big file for later; the mapping is then left out, so
 * BPF finds it unknown, cuts its stacks short and asks for a full read. */
static struct unw_file *file_of(struct sp_unwind *u, const struct sp_procmap *m, pid_t pid,
				bool early, bool *deferred)
{
	int before = u->deferred, fd;
	struct unw_file *f;

	*deferred = false;
	if (m->kind == SP_MAP_VDSO)
		return vdso_file(u);
	if (m->kind != SP_MAP_FILE)
		return NULL;
	fd = sp_procmap__open(m, pid, false);
	if (fd >= 0) {
		char root[64];

		struct sp_objfile *of;

		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		of = sp_objcache__get_fd(u->objs, fd, m->path, root);
		f = file_for(u, of, early, m->path); /* keeps what it needs: rows, segments */
		sp_objcache__put(u->objs, of);
	} else {
		f = NULL;
	}
	*deferred = !f && u->deferred != before;
	return f;
}

/* --- incremental: side-band exec and mmap records ------------------------------------ */

/* Drops p's mappings that overlap [start, end) (a MAP_FIXED over them). */
static void drop_overlaps(struct sp_unw_proc *p, uint64_t start, uint64_t end)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < p->n && i < SP_UNW_MAX_MAPS; i++)
		if (p->maps[i].end <= start || p->maps[i].start >= end)
			p->maps[k++] = p->maps[i];
	p->n = k;
}

static void insert_map(struct sp_unw_proc *p, const struct unw_file *f, const struct sp_procmap *m)
{
	uint32_t at = 0;

	drop_overlaps(p, m->start, m->end);
	if (p->n >= SP_UNW_MAX_MAPS)
		return;
	while (at < p->n && p->maps[at].start < m->start)
		at++;
	memmove(&p->maps[at + 1], &p->maps[at], (p->n - at) * sizeof(p->maps[0]));
	fill_map(f, m, &p->maps[at]);
	p->n++;
}

static int store_proc(struct sp_unwind *u, struct unw_pid *e, const struct sp_unw_proc *p)
{
	uint32_t key = (uint32_t)e->pid;

	e->maps_hash = maps_hash(p);
	return bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY) ? -errno : 0;
}

int sp_unwind__exec(struct sp_unwind *u, pid_t pid)
{
	struct sp_unw_proc *p;
	struct unw_pid *e;
	int err;

	for (unsigned k = 0; u && k < SP_UNWIND_FORKS; k++) /* another program now */
		if (u->forks[k][0] == pid)
			u->forks[k][0] = 0;
	if (!u || pid <= 0 || pid == getpid())
		return 0;
	err = lazy_init(u);
	if (err)
		return err;
	e = find_pid(u, pid);
	if (!e && !(e = add_pid_entry(u, pid)))
		return -ENOMEM;
	p = calloc(1, sizeof(*p)); /* no mappings, refresh_ns 0: ask at once */
	if (!p)
		return -ENOMEM;
	err = store_proc(u, e, p);
	free(p);
	return err;
}

int sp_unwind__map_added(struct sp_unwind *u, pid_t pid, const struct sp_procmap *m, bool early)
{
	struct unw_pid *e = u ? find_pid(u, pid) : NULL;
	uint32_t key = (uint32_t)pid;
	struct unw_file *f;
	struct sp_unw_proc *p;
	bool deferred;
	int err;

	if (!e)
		return -ENOENT;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (bpf_map_lookup_elem(u->procs_fd, &key, p)) {
		err = -errno;
		goto out_free;
	}
	f = file_of(u, m, pid, early, &deferred);
	if (deferred) {
		err = 0;
		goto out_free;
	}
	insert_map(p, f, m);
	err = store_proc(u, e, p);
out_free:
	free(p);
	return err;
}

static int add_pid(struct sp_unwind *u, pid_t pid, bool early);

void sp_unwind__forked(struct sp_unwind *u, pid_t child, pid_t parent)
{
	if (!u)
		return;
	u->forks[u->nforks % SP_UNWIND_FORKS][0] = child;
	u->forks[u->nforks % SP_UNWIND_FORKS][1] = parent;
	u->nforks++;
}

pid_t sp_unwind__parent(const struct sp_unwind *u, pid_t child)
{
	unsigned n = u && u->nforks < SP_UNWIND_FORKS ? u->nforks : SP_UNWIND_FORKS;

	for (unsigned i = 0; u && i < n; i++) { /* the latest first: a pid reused later wins */
		unsigned k = (u->nforks - 1 - i) % SP_UNWIND_FORKS;

		if (u->forks[k][0] == child)
			return u->forks[k][1];
	}
	return 0;
}

int sp_unwind__add_pid(struct sp_unwind *u, pid_t pid)
{
	return add_pid(u, pid, false);
}

int sp_unwind__add_pid_early(struct sp_unwind *u, pid_t pid)
{
	return add_pid(u, pid, true);
}

bool sp_unwind__wants(const struct sp_unwind *u, pid_t pid)
{
	/* sprof itself: its static LLVM alone is ~450k rows */
	return u && pid > 0 && pid != getpid();
}

static int add_maps(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm, bool early);

static int add_pid(struct sp_unwind *u, pid_t pid, bool early)
{
	struct sp_procmaps pm;
	int err;

	if (!sp_unwind__wants(u, pid))
		return 0;
	err = sp_procmaps__read(&pm, pid, NULL);
	if (!err)
		err = add_maps(u, pid, &pm, early);
	sp_procmaps__free(&pm);
	return err;
}

int sp_unwind__add_maps(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm)
{
	return sp_unwind__wants(u, pid) ? add_maps(u, pid, pm, false) : 0;
}

/* A process with more executable mappings than BPF's table holds: those
 * from index `from` on get no rows, their stacks end short, and BPF counts
 * them as "tables not loaded yet"; said once per process, naming it. */
static void say_too_many(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm, int from)
{
	struct unw_pid *e = find_pid(u, pid);
	char path[64], comm[32] = "?";
	FILE *f;

	if (!e || e->too_many_said)
		return;
	e->too_many_said = true;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	for (char *c = comm; *c; c++) /* a process names itself: no terminal escapes */
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	fprintf(u->warn, "sprof: warning: process %d (%s) has %d executable mappings, more than the %d "
		"the unwinder holds: stacks through the %d from %#" PRIx64 " on end short\n", (int)pid,
		comm, pm->n, SP_UNW_MAX_MAPS, pm->n - from,
		pm->maps[from].start);
}

static int add_maps(struct sp_unwind *u, pid_t pid, const struct sp_procmaps *pm, bool early)
{
	struct sp_unw_proc *p;
	int err, i;

	err = lazy_init(u);
	if (err)
		return err;
	if (++u->adds % SWEEP_EVERY == 0)
		sweep(u);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < pm->n && p->n < SP_UNW_MAX_MAPS; i++) {
		const struct sp_procmap *m = &pm->maps[i];
		bool deferred;
		struct unw_file *f = file_of(u, m, pid, early, &deferred);

		if (!deferred)
			fill_map(f, m, &p->maps[p->n++]);
	}
	err = register_proc(u, pid, p);
	if (i < pm->n)
		say_too_many(u, pid, pm, i);
	return err;
}

void sp_unwind__set_verbose(struct sp_unwind *u, bool verbose)
{
	if (u)
		u->verbose = verbose;
}

int sp_unwind__start(struct sp_unwind *u)
{
	return u ? lazy_init(u) : 0;
}

bool sp_unwind__knows(struct sp_unwind *u, pid_t pid)
{
	return u && find_pid(u, pid) != NULL;
}

void sp_unwind__stats(struct sp_unwind *u, struct sp_unwind_stats *st)
{
	int ncpu = libbpf_num_possible_cpus();

	memset(st, 0, sizeof(*st));
	if (!u)
		return;
	st->procs = u->npids;
	st->files = u->nfiles;
	st->files_with_rows = u->files_with_rows;
	st->rows = (uint32_t)u->rows.used;
	st->max_rows = u->max_rows;
	st->files_over_budget = u->over_budget;
	st->parse_ms = u->parse_ms;
	if (!u->ready || ncpu <= 0)
		return;
	for (uint32_t i = 0; i < SP_UNW_ST_NSTATS && i < 16; i++) {
		uint64_t *v = calloc(ncpu, sizeof(*v));

		if (v && bpf_map_lookup_elem(u->stats_fd, &i, v) == 0)
			for (int c = 0; c < ncpu; c++)
				st->bpf[i] += v[c];
		free(v);
	}
}

void sp_unwind__print_stats(struct sp_unwind *u, FILE *f)
{
	struct sp_unwind_stats st;

	if (!u)
		return;
	sp_unwind__stats(u, &st);
	fprintf(f, "unwind: %d processes, %d files (%d with tables, %d over budget), "
		"%u/%u rows, parse %.1f ms\n", st.procs, st.files, st.files_with_rows,
		st.files_over_budget, st.rows, st.max_rows, st.parse_ms);
	fprintf(f, "unwind: %" PRIu64 " stacks, %" PRIu64 " frames (%" PRIu64
		" of them by frame pointers), %" PRIu64 " without an entry, %" PRIu64 " read errors, %" PRIu64
		" truncated, %" PRIu64 " refreshes\n", st.bpf[SP_UNW_ST_SAMPLES],
		st.bpf[SP_UNW_ST_FRAMES], st.bpf[SP_UNW_ST_FP_FRAMES], st.bpf[SP_UNW_ST_NO_PROC],
		st.bpf[SP_UNW_ST_READ_ERR], st.bpf[SP_UNW_ST_TRUNCATED], st.bpf[SP_UNW_ST_REFRESH]);
	fprintf(f, "unwind: %" PRIu64 " cut short (tables not loaded yet), %" PRIu64
		" cut short (frame-pointer guess in no mapping), %" PRIu64
		" cut short (task exiting, its memory gone), %" PRIu64 " mappings by "
		"bpf_find_vma (%" PRIu64 " more from its cache), %" PRIu64
		" left to frame pointers (not registered yet)\n",
		st.bpf[SP_UNW_ST_NOT_LOADED], st.bpf[SP_UNW_ST_BAD_GUESS], st.bpf[SP_UNW_ST_EXITING],
		st.bpf[SP_UNW_ST_VMA],
		st.bpf[SP_UNW_ST_VMA_CACHED], st.bpf[SP_UNW_ST_FP_FALLBACK]);
	fprintf(f, "unwind: %" PRIu64 " Go stack switches followed (g0 to the goroutine), %" PRIu64
		" stacks of forked children by their parent's mappings\n",
		st.bpf[SP_UNW_ST_GO_SWITCH], st.bpf[SP_UNW_ST_PARENT]);
}

void sp_unwind__started(struct sp_unwind *u)
{
	struct sp_unwind_stats st;

	if (!u)
		return;
	sp_unwind__stats(u, &st);
	u->not_loaded_before = st.bpf[SP_UNW_ST_NOT_LOADED];
}

void sp_unwind__print_summary(struct sp_unwind *u, FILE *f)
{
	struct sp_unwind_stats st;
	uint64_t n;

	if (!u)
		return;
	sp_unwind__stats(u, &st);
	n = st.bpf[SP_UNW_ST_NOT_LOADED] - u->not_loaded_before;
	if (st.bpf[SP_UNW_ST_NOT_LOADED] > u->not_loaded_before)
		fprintf(f, "sprof: %" PRIu64 " stacks cut short: unwind tables not loaded yet\n", n);
}

void sp_unwind__destroy(struct sp_unwind *u)
{
	if (!u)
		return;
	pages_free(&u->rows);
	pages_free(&u->pidx);
	while (u->files) {
		struct unw_file *f = u->files;

		u->files = f->next;
		free(f);
	}
	if (u->own_objs)
		sp_objcache__destroy(u->objs);
	free(u->pids);
	free(u);
}
