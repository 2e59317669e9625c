/* bpf/unwind.bpf.c: user stacks by .eh_frame tables, for code without frame pointers.
 *
 * bpf_get_stack(BPF_F_USER_STACK) follows rbp: code built without frame
 * pointers (most distribution libraries) gives garbage, and a frameless
 * leaf (gcc -O1+ omits the frame of leaves) hides its caller. Here user
 * space has compiled each mapped file's .eh_frame into rows (abi/unwind_table.h,
 * runtime/elf/ehframe.c, runtime/stacks/unwind.c), and each step finds the row of the
 * pc and computes the caller's rip/rsp/rbp from it. Pcs without a table
 * (JIT code, files without .eh_frame, FDE gaps) take a frame-pointer step,
 * so the result is never worse than bpf_get_stack's.
 *
 * The user registers come from the task's saved user pt_regs
 * (bpf_task_pt_regs), which is right in every program type: a sample or
 * probe that hit user mode saved exactly these, one in the kernel (syscall,
 * kprobe) has them from its kernel entry. The walk is a bounded loop of
 * calls of the global function sp_unw_frames(), two frames a call; all
 * state is one small struct on the BPF stack.
 *
 * Cost: a helper call costs ~30 ns on these machines (return thunks), the
 * instructions between them ~0.3 ns each, so the hot path makes none a
 * frame: registers are plain loads through the BTF pointer, the stack is
 * read through a window (one bpf_probe_read_user of up to a page, see
 * uread()), a process's mappings and a file's rows are searched with plain
 * loads and inlined array lookups (find_map(), find_row(): a file's
 * bucket index mostly gives the row without a search). ~0.9 us for a
 * 7-frame stack, ~25 ns a frame more, where bpf_get_stack's frame-pointer
 * walk costs ~33 ns a frame (bench/unwind_cost.py).
 *
 * Load time: the verifier checks sp_unw_frames() once, with its state
 * unknown; inside, its paths must still merge: the searches are
 * branch-free, and values a pointer offset or helper size comes from are
 * passed through memory first (forget()), so no state keeps a history.
 *
 * A pc in no mapping of the process's entry (or a process without one:
 * it exec'd a millisecond ago) is looked up in the kernel with
 * bpf_find_vma, and the vma's file (device, inode) in the files map: a
 * file seen in any process before is unwound at once. Its results are
 * cached per CPU by process (vcache_get()): a bpf_find_vma costs ~5 us in
 * a sample, a cached mapping some tens of ns.
 *
 * Kernels before 5.17 (the helpers built with -DSP_BPF_COMPAT, see
 * bpf/sp_bpf.h; Debian bullseye's 5.10) walk the same way, with what they
 * have: the walk is the same bounded C loop (Linux 5.3) of global
 * function calls, whose arguments are scalars there (pointers to memory:
 * 5.12), so sp_unw_frames() looks its state up itself; the registers are
 * read at the top of the task's kernel stack (x86-64's task_pt_regs(),
 * offsets from vmlinux BTF: runtime/stacks/kofs.c) instead of through
 * bpf_task_pt_regs (5.15); and without bpf_find_vma only mappings user
 * space registered are known: a process without an entry, or a first pc
 * in no registered mapping, leaves the sample to bpf_get_stack's
 * frame-pointer walk (counted: SP_UNW_ST_FP_FALLBACK).
 *
 * Output is bpf_get_stack's: ips[0] the pc, then return addresses (user
 * space subtracts 1 when symbolizing callers). A walk that cannot finish
 * ends with SP_UNW_IP_TRUNCATED instead of guessing on: a pc in no known
 * mapping (its tables are not loaded yet; counted, and user space is
 * asked to re-read the mappings), a frame-pointer step whose return
 * address is in no mapping (code without tables and without frame
 * pointers: rbp was no frame pointer), a stack read that fails.
 */
#include "bpf/sp_bpf.h"
#include "abi/unwind_table.h"

#include <asm/ptrace.h>

struct task_struct;
struct vm_area_struct;

/* Rows and buckets (abi/unwind_table.h): the first SP_UNW_BASE_ROWS rows
 * and SP_UNW_BASE_BUCKETS buckets in plain mmapable arrays, made at load
 * and read with lookups the verifier inlines; the rest in pages user space
 * makes as tables grow and puts into the *_more maps of maps, so no budget
 * fixed before load limits how big a program can be. The inner
 * definitions are the pages' shape (sizes, not types: LLVM writes the BTF
 * of an inner map's value struct as a forward declaration, which libbpf
 * cannot size). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SP_UNW_BASE_ROWS);
	__type(key, __u32);
	__type(value, struct sp_unw_row);
} unw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, SP_UNW_BASE_BUCKETS);
	__type(key, __u32);
	__type(value, struct sp_unw_bucket);
} unw_pidx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SP_UNW_MAX_PAGES);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_ARRAY);
		__uint(map_flags, BPF_F_MMAPABLE);
		__uint(max_entries, SP_UNW_PAGE_ROWS);
		__uint(key_size, sizeof(__u32));
		__uint(value_size, sizeof(struct sp_unw_row));
	});
} unw_rows_more SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SP_UNW_MAX_PAGES);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_ARRAY);
		__uint(map_flags, BPF_F_MMAPABLE);
		__uint(max_entries, SP_UNW_PAGE_BUCKETS);
		__uint(key_size, sizeof(__u32));
		__uint(value_size, sizeof(struct sp_unw_bucket));
	});
} unw_pidx_more SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_unw_proc);
} unw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SP_UNW_MAX_FILES);
	__type(key, struct sp_unw_file_key);
	__type(value, struct sp_unw_file);
} unw_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_unw_kofs);
} unw_kofs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_UNW_ST_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} unw_stats SEC(".maps");

/* Keeping a mixed stack's root (SP_UNW_KEEP_BOTTOM, keep_bottom()): not
 * with the helpers for kernels before 5.17, whose verifier (5.10) does not
 * carry a bound checked on one register to its copy that indexes the
 * frames: those stacks stay cut at the limit, as before. */
#ifdef SP_BPF_COMPAT
#define KEEP_RING 0
#else
#define KEEP_RING 1
#endif

#define ROW_SEARCH_STEPS 24 /* files up to 16M rows */
#define MAP_SEARCH_STEPS 9  /* SP_UNW_MAX_MAPS = 256 */
#define SIGFRAME_MCONTEXT 40 /* offsetof(struct ucontext, uc_mcontext) */

/* The walk's state. Scalars only: it is an argument of the global
 * function sp_unw_frames() (the verifier takes a pointer argument of a
 * global function only to a struct of scalars). */
struct unw_state {
	__u64 ip, sp, bp;
	__u64 win_lo, win_hi;        /* user addresses the window holds */
	__u32 n, max;
	__u32 nmaps;
	__u32 how;    /* what ip is: HOW_RA, HOW_EXACT, HOW_GUESS */
	__u32 cut;    /* the walk stopped early: append the truncation mark */
	__u32 exiting; /* ... because the task has left its address space */
	__u32 vma_ok; /* kernel field offsets known: vma lookups possible */
	__u32 fallback; /* leave the sample to bpf_get_stack (SP_BPF_COMPAT) */
	__u32 keep;   /* SP_UNW_KEEP_BOTTOM: past lead, the last frames in a ring */
	__u32 lead;   /* the first slot of the ring (see keep_bottom()) */
	struct sp_unw_map m;         /* the mapping of the current pc */
};

/* A window of the user stack, copied by one bpf_probe_read_user: the
 * frames above a pc are read from it, not one helper call each (a helper
 * call costs ~30 ns here, the copy of a page ~40 ns more than 8 bytes). */
#define WIN_SIZE 4096
struct unw_win {
	__u8 b[WIN_SIZE + 16];
	__u64 tmp; /* see forget() */
	/* the walk's state lives here, not on the BPF stack: kernels before
	 * 6.13 count the frames of the program, sp_unwind_global(),
	 * sp_unw_frames() and vma_cb() against one 512-byte limit */
	struct unw_state st;
	/* SP_BPF_COMPAT: a page's row or bucket, out of sp_unw_row_page() and
	 * sp_unw_bucket_page() (their arguments are scalars there) */
	struct sp_unw_row pg_row;
	struct sp_unw_bucket pg_bucket;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_win);
} unw_win SEC(".maps");

/* v, with no history for the verifier: a scalar added to a pointer is made
 * precise, and so is every value it was computed from. An index computed
 * from the stack pointers or the pc, which change every frame, would make
 * them precise, and the states of the walk's searches would never merge
 * (1M instructions). A value loaded from memory has no past: passing it
 * through the window's scratch word ends the chain there. */
static __always_inline SP_NODEBUG __u64 forget(struct unw_win *w, __u64 v)
{
	*(volatile __u64 *)&w->tmp = v;
	return *(volatile __u64 *)&w->tmp;
}


static __always_inline SP_NODEBUG void stat_add(__u32 idx, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&unw_stats, &idx);

	if (c)
		*c += v;
}

/* Kernel memory at plain addresses (the vma fields, see vma_cb(); the
 * task's registers, see user_regs()): a pointer's value as a scalar, and
 * 8 bytes at an address. */
#ifndef SP_BPF_COMPAT
static __always_inline SP_NODEBUG __u64 addr_of(void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}
#endif

static __always_inline SP_NODEBUG __u64 read_k64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

/* After a failed stack read: has the task left its address space? do_exit
 * clears task->mm (exit_mm) before it frees the mappings, which takes
 * milliseconds for a big process, and its samples still carry the user
 * registers of its last syscall (perf's callchain gives them no user stack
 * at all). 1 only when the kernel's offset is known. */
static __always_inline SP_NODEBUG __u32 task_left_mm(void)
{
	__u32 zero = 0;
	struct sp_unw_kofs *k = bpf_map_lookup_elem(&unw_kofs, &zero);

	return k && k->task_mm && !read_k64(bpf_get_current_task() + k->task_mm);
}

/* The mapping holding pc, copied into s->m; false when none. A binary
 * search over the entry's sorted mappings with plain loads through the map
 * value, branch-free: a branch on each probe would give the verifier two
 * states a step whose ranges never merge (~1M instructions); arithmetic
 * leaves one path. */
static __always_inline SP_NODEBUG bool find_map(struct unw_state *s, struct unw_win *w,
						struct sp_unw_proc *p, __u64 pc)
{
	__u64 base = 0, n = s->nmaps, half, le;

	if (n == 0)
		return false;
	for (int k = 0; k < MAP_SEARCH_STEPS; k++) {
		half = n >> 1;
		/* 1 when that mapping starts at or below pc (addresses < 2^63) */
		le = (p->maps[(base + half) & (SP_UNW_MAX_MAPS - 1)].start - pc - 1) >> 63;
		base += forget(w, le) * half;
		n -= half;
	}
	base = forget(w, base) & (SP_UNW_MAX_MAPS - 1);
	if (p->maps[base].start > pc)
		return false;
	__builtin_memcpy(&s->m, &p->maps[base], sizeof(s->m));
	return pc < s->m.end;
}

/* Rows and buckets past the base arrays: the page from the outer map,
 * then the entry, copied into *out; 0, or -1 when there is none. Global
 * functions: the verifier checks each once, and the search that calls
 * them keeps one path per step (an inlined page lookup would be a second
 * path, its map value another type, and the states of the search would
 * double at every step). */
static __always_inline SP_NODEBUG int row_page(__u32 g, struct sp_unw_row *out)
{
	__u32 page = (g - SP_UNW_BASE_ROWS) >> SP_UNW_PAGE_ROWS_SHIFT;
	__u32 i = (g - SP_UNW_BASE_ROWS) & (SP_UNW_PAGE_ROWS - 1);
	struct sp_unw_row *r;
	void *m;

	m = bpf_map_lookup_elem(&unw_rows_more, &page);
	if (!m)
		return -1;
	r = bpf_map_lookup_elem(m, &i);
	if (!r)
		return -1;
	*out = *r;
	return 0;
}

static __always_inline SP_NODEBUG int bucket_page(__u32 g, struct sp_unw_bucket *out)
{
	__u32 page = (g - SP_UNW_BASE_BUCKETS) >> SP_UNW_PAGE_BUCKETS_SHIFT;
	__u32 i = (g - SP_UNW_BASE_BUCKETS) & (SP_UNW_PAGE_BUCKETS - 1);
	struct sp_unw_bucket *e;
	void *m;

	m = bpf_map_lookup_elem(&unw_pidx_more, &page);
	if (!m)
		return -1;
	e = bpf_map_lookup_elem(m, &i);
	if (!e)
		return -1;
	*out = *e;
	return 0;
}

#ifdef SP_BPF_COMPAT
/* Linux 5.10 takes only scalars as a global function's arguments
 * (pointers to memory: 5.12): the entry goes out through the window. */
__attribute__((noinline)) int sp_unw_row_page(__u32 g)
{
	__u32 zero = 0;
	struct unw_win *w = bpf_map_lookup_elem(&unw_win, &zero);

	return w ? row_page(g, &w->pg_row) : -1;
}

__attribute__((noinline)) int sp_unw_bucket_page(__u32 g)
{
	__u32 zero = 0;
	struct unw_win *w = bpf_map_lookup_elem(&unw_win, &zero);

	return w ? bucket_page(g, &w->pg_bucket) : -1;
}

static __always_inline SP_NODEBUG int row_more(__u32 g, struct sp_unw_row *out)
{
	__u32 zero = 0;
	struct unw_win *w;

	if (sp_unw_row_page(g))
		return -1;
	w = bpf_map_lookup_elem(&unw_win, &zero);
	if (!w)
		return -1;
	*out = w->pg_row;
	return 0;
}

static __always_inline SP_NODEBUG int bucket_more(__u32 g, struct sp_unw_bucket *out)
{
	__u32 zero = 0;
	struct unw_win *w;

	if (sp_unw_bucket_page(g))
		return -1;
	w = bpf_map_lookup_elem(&unw_win, &zero);
	if (!w)
		return -1;
	*out = w->pg_bucket;
	return 0;
}
#else
__attribute__((noinline)) int sp_unw_row_page(__u32 g, struct sp_unw_row *out)
{
	return out ? row_page(g, out) : -1;
}

__attribute__((noinline)) int sp_unw_bucket_page(__u32 g, struct sp_unw_bucket *out)
{
	return out ? bucket_page(g, out) : -1;
}

#define row_more sp_unw_row_page
#define bucket_more sp_unw_bucket_page
#endif

/* Row g and bucket g, copied into *out: the base arrays' entries with
 * lookups the verifier inlines, the pages' through the functions above;
 * 0, or -1 when g has none. Indexes go in stack keys: no pointer
 * arithmetic, so they stay imprecise. */
static __always_inline SP_NODEBUG int row_get(__u32 g, struct sp_unw_row *out)
{
	struct sp_unw_row *r;

	if (g >= SP_UNW_BASE_ROWS)
		return row_more(g, out);
	r = bpf_map_lookup_elem(&unw_rows, &g);
	if (!r)
		return -1;
	*out = *r;
	return 0;
}

static __always_inline SP_NODEBUG int bucket_get(__u32 g, struct sp_unw_bucket *out)
{
	struct sp_unw_bucket *e;

	if (g >= SP_UNW_BASE_BUCKETS)
		return bucket_more(g, out);
	e = bpf_map_lookup_elem(&unw_pidx, &g);
	if (!e)
		return -1;
	*out = *e;
	return 0;
}

/* The last row of the mapping's slice with row.pc <= pc, copied into *out. */
static __always_inline SP_NODEBUG bool find_row(struct unw_state *s, __u64 pc,
						struct sp_unw_row *out)
{
	__u32 lo = s->m.first, hi = s->m.first + s->m.count, key;
	__u64 rel = pc - s->m.bias, le, b, o;
	struct sp_unw_row r;
	struct sp_unw_bucket e;

	if (pc < s->m.bias || rel > 0xffffffffull)
		return false;
	/* the row from the file's bucket index (abi/unwind_table.h) */
	b = rel >> SP_UNW_PIDX_SHIFT;
	if (b < s->m.npidx && bucket_get(s->m.pidx + (__u32)b, &e) == 0 && e.lo <= e.hi &&
	    e.hi < s->m.count) {
		o = sp_unw_bucket_row(&e, rel);
		if (o <= e.hi) { /* -1: too many rows for the offsets */
			key = s->m.first + (__u32)o;
			goto found;
		}
		lo = s->m.first + e.lo;
		hi = s->m.first + e.hi + 1;
	}
	/* branch-free halving: one verifier state an iteration, whichever
	 * half the pc is in (two would not merge: their ranges differ) */
	for (int k = 0; k < ROW_SEARCH_STEPS && lo < hi; k++) {
		key = lo + (hi - lo) / 2;
		if (row_get(key, &r))
			return false;
		le = 1 - (((__u64)rel - (__u64)r.pc) >> 63); /* r.pc <= rel */
		asm volatile("" : "+r"(le)); /* or clang makes it a branch again */
		lo += (__u32)le * (key + 1 - lo);
		hi = key + (__u32)le * (hi - key);
	}
	if (lo <= s->m.first)
		return false;
	key = lo - 1;
found:
	return row_get(key, out) == 0;
}

/* --- mappings user space has not registered: the kernel's vma ------------------------ */

#define VM_EXEC_FLAG 0x4
/* sp_unw_map.first of a vma whose file has no tables yet (vma_cb()) */
#define VMA_NOT_LOADED 0xffffffffu

/* unw_state.how: what the current ip is */
#define HOW_RA 0    /* a return address from a table rule (look up ip - 1) */
#define HOW_EXACT 1 /* the interrupted pc itself (leaf, signal frame) */
#define HOW_GUESS 2 /* a return address from a frame-pointer step */

#ifndef SP_BPF_COMPAT
/* Fields of the vma (offsets from vmlinux BTF); false without offsets or file. */
static __always_inline SP_NODEBUG bool vma_file(__u64 vma, const struct sp_unw_kofs *k,
						struct sp_unw_file_key *key)
{
	__u64 file = read_k64(vma + k->vm_file), inode, sb;
	__u32 dev = 0;

	inode = file ? read_k64(file + k->f_inode) : 0;
	sb = inode ? read_k64(inode + k->i_sb) : 0;
	if (!sb || bpf_probe_read_kernel(&dev, sizeof(dev), (void *)(sb + k->s_dev)))
		return false;
	key->dev = dev;
	key->ino = read_k64(inode + k->i_ino);
	return true;
}

/* The segment of f a mapping at file offset pgoff shows: its entry in m. */
static __always_inline SP_NODEBUG void place(struct sp_unw_map *m, const struct sp_unw_file *f,
					     __u64 pgoff)
{
	for (int i = 0; i < SP_UNW_FILE_SEGS && i < (int)f->nsegs; i++) {
		if (pgoff < (f->segs[i].off & ~0xfffull) || pgoff >= f->segs[i].off + f->segs[i].filesz)
			continue;
		m->bias = m->start - pgoff + f->segs[i].off - f->segs[i].vaddr + f->base;
		m->first = f->first;
		m->count = f->count;
		m->pidx = f->pidx;
		m->npidx = f->npidx;
		break;
	}
}

/* bpf_find_vma callback, ctx a struct sp_unw_map on vma_map()'s stack: the
 * executable vma holding the pc becomes that mapping, with the rows of its
 * file when the files map has them, without (frame-pointer steps) for
 * anonymous code. A file whose tables are not loaded yet, or a vma that is
 * not code, leaves it empty. */
static long vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *c)
{
	struct sp_unw_map *out = c;
	struct sp_unw_map m = {};
	struct sp_unw_file_key key = {};
	struct sp_unw_file *f = NULL;
	__u32 zero = 0;
	struct sp_unw_kofs *k = bpf_map_lookup_elem(&unw_kofs, &zero);
	__u64 a = addr_of(vma), pgoff;
	bool has_file;

	if (k && (read_k64(a + k->vm_flags) & VM_EXEC_FLAG)) {
		m.start = read_k64(a + k->vm_start);
		m.end = read_k64(a + k->vm_end);
		pgoff = read_k64(a + k->vm_pgoff) << 12;
		has_file = vma_file(a, k, &key);
		f = has_file ? bpf_map_lookup_elem(&unw_files, &key) : NULL;
		if (f)
			place(&m, f, pgoff);
		else if (has_file)
			m.first = VMA_NOT_LOADED; /* tables not loaded yet */
	}
	bpf_probe_read_kernel(out, sizeof(*out), &m);
	return 0;
}

/* The mappings bpf_find_vma found last on this CPU, by process: a
 * bpf_find_vma costs ~5 us here (in a sample's interrupt the mm lock is
 * released through an irq_work, a self-IPI: a VM exit), and a second one
 * in the same sample fails (-EBUSY), cutting the stack. A process user
 * space has not registered yet (a compiler, a shell loop's commands,
 * each alive for some milliseconds) is sampled again and again in the
 * same few mappings: from the cache, the samples after the first cost
 * what a registered process's do and keep their callers. A file without
 * tables yet is cached too, for SP_UNW_VCACHE_NEG_NS (its stacks are cut
 * there either way; user space is loading them). An entry is the
 * process (tgid) and its exec (self_exec_id: exec replaces the mappings
 * under the same pid), and lives SP_UNW_VCACHE_NS: a mapping replaced
 * meanwhile (munmap, then mmap at the same place) is wrong for that long
 * at most. */
#define SP_UNW_VCACHE 8 /* a power of 2 */
#define SP_UNW_VCACHE_NS 100000000ull
#define SP_UNW_VCACHE_NEG_NS 20000000ull

struct unw_vcache {
	struct {
		__u64 exec_id, ns;
		__u32 tgid, pad;
		struct sp_unw_map m;
	} e[SP_UNW_VCACHE];
	__u32 next;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_vcache);
} unw_vcache SEC(".maps");

/* The calling process's identity in the cache: its tgid and exec. */
static __always_inline SP_NODEBUG __u64 vcache_exec(__u32 *tgid)
{
	__u32 zero = 0;
	struct sp_unw_kofs *k = bpf_map_lookup_elem(&unw_kofs, &zero);

	*tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	return k && k->task_exec_id ? read_k64(bpf_get_current_task() + k->task_exec_id) : 0;
}

/* The cached mapping of pc into *out: 1; -1 for a vma whose file has no
 * tables yet, 0 when the cache has none. (Inlined: ~2300 more
 * instructions for the verifier, 6 %.) */
static __always_inline SP_NODEBUG int vcache_get(__u64 pc, struct sp_unw_map *out)
{
	__u32 zero = 0, tgid;
	struct unw_vcache *c = bpf_map_lookup_elem(&unw_vcache, &zero);
	__u64 now, exec;

	if (!c)
		return 0;
	exec = vcache_exec(&tgid);
	now = bpf_ktime_get_ns();
	for (int i = 0; i < SP_UNW_VCACHE; i++) {
		if (c->e[i].tgid != tgid || c->e[i].exec_id != exec || pc < c->e[i].m.start ||
		    pc >= c->e[i].m.end || now - c->e[i].ns > SP_UNW_VCACHE_NS)
			continue;
		if (c->e[i].m.first == VMA_NOT_LOADED)
			return now - c->e[i].ns > SP_UNW_VCACHE_NEG_NS ? 0 : -1;
		*out = c->e[i].m;
		return 1;
	}
	return 0;
}

/* *m, which bpf_find_vma just found, into the cache (the oldest entry). */
static __always_inline SP_NODEBUG void vcache_put(const struct sp_unw_map *m)
{
	__u32 zero = 0, tgid, i;
	struct unw_vcache *c = bpf_map_lookup_elem(&unw_vcache, &zero);

	if (!c)
		return;
	i = c->next++ & (SP_UNW_VCACHE - 1);
	c->e[i].exec_id = vcache_exec(&tgid);
	c->e[i].tgid = tgid;
	c->e[i].ns = bpf_ktime_get_ns();
	c->e[i].m = *m;
}

/* s->m from the kernel's vma of pc (see vma_cb), or the cache of those;
 * false when it has none. */
static __always_inline SP_NODEBUG bool vma_map(struct unw_state *s, __u64 pc)
{
	struct sp_unw_map m = {};
	int hit;

	if (!s->vma_ok)
		return false;
	hit = vcache_get(pc, &s->m);
	if (hit) {
		stat_add(SP_UNW_ST_VMA_CACHED, 1);
		return hit > 0;
	}
	stat_add(SP_UNW_ST_VMA, 1);
	/* the callback's context must be on the stack: s is not */
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_cb, &m, 0))
		return false;
	s->m = m;
	if (pc < m.start || pc >= m.end)
		return false;
	vcache_put(&s->m);
	if (m.first == VMA_NOT_LOADED) {
		s->m.start = s->m.end = 0;
		return false;
	}
	return true;
}
#else
/* No bpf_find_vma: a mapping user space has not registered is unknown. */
static __always_inline SP_NODEBUG bool vma_map(struct unw_state *s, __u64 pc)
{
	(void)s;
	(void)pc;
	return false;
}
#endif

/* 8 bytes of the user stack at addr, from the window; a miss copies the
 * stack from addr (8-aligned) to the end of its page, at most WIN_SIZE
 * bytes, into the window: the page of addr is mapped if addr is, the next
 * one need not be (the stack's top). Frames go up the stack, so the
 * callers' words are mostly in the window by then. 0 or -EFAULT. */
static __always_inline SP_NODEBUG int uread(struct unw_state *s, struct unw_win *w, __u64 *dst,
					     __u64 addr)
{
	__u64 base, len;

	if (addr < s->win_lo || addr + 8 > s->win_hi) {
		base = addr & ~7ull;
		len = 4096 - (base & 4095);
		if (len > WIN_SIZE)
			len = WIN_SIZE;
		if (addr + 8 > base + len) /* crosses into the next page */
			return bpf_probe_read_user(dst, 8, (void *)addr) ? -1 : 0;
		/* a helper's size argument is made precise too */
		len = forget(w, len);
		if (len > WIN_SIZE)
			len = WIN_SIZE;
		/* len dead after the call, so held in no register clang
		 * spills: kernels before 5.14 keep no bounds of a spilled
		 * scalar ("R2 min value is negative" on 5.10) */
		s->win_lo = base;
		s->win_hi = base + len;
		if (bpf_probe_read_user(w->b, len, (void *)base)) {
			s->win_lo = s->win_hi = 0;
			return -1;
		}
	}
	*dst = *(__u64 *)&w->b[forget(w, addr - s->win_lo) & (WIN_SIZE - 1)];
	return 0;
}

/* One frame-pointer step: the fallback where no table has a rule. rbp 0
 * ends the chain (_start clears it). The return address is checked by
 * the next step: in no mapping, it was a guess from a register that held
 * no frame pointer. */
static __always_inline SP_NODEBUG int fp_step(struct unw_state *s, struct unw_win *w)
{
	__u64 ra = 0, bp = 0;

	if (s->bp == 0)
		return 1;
	if (s->bp < s->sp || uread(s, w, &bp, s->bp) || uread(s, w, &ra, s->bp + 8))
		return -1;
	s->sp = s->bp + 16;
	s->bp = bp;
	s->ip = ra;
	s->how = HOW_GUESS;
	stat_add(SP_UNW_ST_FP_FRAMES, 1);
	return 0;
}

/* glibc's __restore_rt: rsp points at the ucontext of the interrupted code. */
static __always_inline SP_NODEBUG int signal_step(struct unw_state *s, struct unw_win *w)
{
	__u64 g = s->sp + SIGFRAME_MCONTEXT;

	__u64 bp, ip, sp;

	if (uread(s, w, &bp, g + 10 * 8) || uread(s, w, &sp, g + 15 * 8) ||
	    uread(s, w, &ip, g + 16 * 8))
		return -1;
	s->bp = bp;
	s->sp = sp;
	s->ip = ip;
	s->how = HOW_EXACT;
	return 0;
}

/* 8 bytes of user memory at addr, 0 when they cannot be read. */
static __always_inline SP_NODEBUG __u64 uget(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* The m of the task's current g (Go's TLS word at fs - 8; g0, gsignal
 * and the goroutines of one thread share it; goff: its offset in
 * runtime.g); 0 without the task's fsbase offset or a g. */
static __always_inline SP_NODEBUG __u64 go_m(__u64 goff)
{
	__u32 zero = 0;
	struct sp_unw_kofs *k = bpf_map_lookup_elem(&unw_kofs, &zero);
	__u64 g;

	if (!k || !k->task_fsbase)
		return 0;
	g = uget(read_k64(bpf_get_current_task() + k->task_fsbase) - 8);
	return g ? uget(g + goff) : 0;
}

/* sp inside the stack of g (g.stack {lo, hi} at offset 0). */
static __always_inline SP_NODEBUG bool go_on_stack(__u64 g, __u64 sp)
{
	return g && sp >= uget(g) && sp < uget(g + 8);
}

/* A GO_SWITCH row (abi/unwind_table.h): ip is in runtime.systemstack,
 * mcall or morestack, mostly a return address on the thread's g0 stack; the
 * goroutine the switch came from is m.curg, and its frames go on at the
 * registers the switch saved in curg.sched (gogo zeroes sched.sp when the
 * goroutine runs again, so a nonzero sp is a saved context). mcall and
 * morestack saved a return address into their caller as sched.pc;
 * systemstack saved the sp of its own frame, whose return address into
 * its caller is at sched.sp (as Go's traceback takes it: sched.pc names
 * systemstack_switch, at whose entry, not after a call, on Go 1.19).
 * The interrupted pc itself may lie in the switcher: before the switch
 * or after the switch back, sp is on the goroutine's stack and the
 * function's frame is empty. Which stack sp is on is told by the stacks'
 * bounds, not by the g in the TLS: a signal handler's walk comes back
 * through the restorer to g0's frames while the TLS names gsignal (was:
 * those stacks cut there). mcall's and morestack's goroutine may have been
 * dropped (the scheduler runs on g0: preemption, parking): the stack ends
 * there, unmarked, as Go's traceback ends. 1 to stop: without the task's
 * fsbase offset, or on neither stack (a binary whose g is not at fs - 8:
 * cgo's external linking), the walk is cut as before. */
static __always_inline SP_NODEBUG int go_switch_step(struct unw_state *s, const struct sp_unw_row *r)
{
	__u64 goff = (__u64)(r->rbp_off8 < 0 ? -r->rbp_off8 : r->rbp_off8) * 8;
	__u64 coff = (__u64)(r->cfa_off < 0 ? -r->cfa_off : r->cfa_off);
	__u64 m, curg, sp;

	s->cut = 1;
	m = go_m(goff);
	if (!m)
		return 1;
	curg = uget(m + coff);
	if (!go_on_stack(uget(m), s->sp)) { /* not on g0 (m.g0, at 0) */
		if (!go_on_stack(curg, s->sp))
			return 1;
		s->ip = uget(s->sp);
		s->sp += 8;
		s->how = HOW_RA;
		s->cut = 0;
		return 0;
	}
	if (!curg) {
		s->cut = r->cfa_off < 0; /* systemstack's goroutine never goes */
		return 1;
	}
	sp = uget(curg + goff + 8); /* sched.sp */
	if (!sp)
		return 1;
	s->bp = uget(curg + goff + 8 + 48); /* sched.bp */
	if (r->cfa_off < 0) { /* systemstack */
		s->ip = uget(sp);
		s->sp = sp + 8;
	} else {
		s->ip = uget(curg + goff + 16); /* sched.pc */
		s->sp = sp;
	}
	s->how = HOW_RA;
	s->cut = 0;
	stat_add(SP_UNW_ST_GO_SWITCH, 1);
	return 0;
}

/* A GO_VDSO row (abi/unwind_table.h): ip is in runtime.nanotime1 or
 * time.now, which call the vDSO on g0's stack with their caller's sp and
 * pc in m.vdsoSP and m.vdsoPC (as Go's SIGPROF traceback reads them); the
 * caller's rbp is the word the callee's prologue saved below its return
 * address. vdsoSP 0: before it is set or after it is cleared, where rsp
 * is the function's own but no row says how far its frame is: cut. */
static __always_inline SP_NODEBUG int go_vdso_step(struct unw_state *s, const struct sp_unw_row *r)
{
	__u64 m = go_m((__u64)(r->rbp_off8 < 0 ? -r->rbp_off8 : r->rbp_off8) * 8);
	__u64 at = (__u64)(r->cfa_off < 0 ? -r->cfa_off : r->cfa_off), sp;

	s->cut = 1;
	sp = m ? uget(m + at) : 0;
	if (!sp)
		return 1;
	s->ip = uget(m + at + 8);
	s->bp = uget(sp - 16);
	s->sp = sp;
	s->how = HOW_RA;
	s->cut = 0;
	return 0;
}

static __always_inline SP_NODEBUG int row_step(struct unw_state *s, struct unw_win *w,
						const struct sp_unw_row *r)
{
	__u64 cfa, ra = 0, bp = 0, old_sp = s->sp;
	__s64 rb = r->rbp_off8;

	switch (r->kind) {
	case SP_UNW_CFA_RSP: cfa = s->sp + r->cfa_off; break;
	case SP_UNW_CFA_RSP_BIG:
		cfa = s->sp + 8 * ((__u64)(__u16)r->cfa_off | (__u64)((__u8)r->rbp_off8 >> 4) << 16);
		rb = (__s8)((__u8)r->rbp_off8 << 4) >> 4;
		break;
	case SP_UNW_CFA_RBP: cfa = s->bp + r->cfa_off; break;
	case SP_UNW_PLT: cfa = s->sp + 8 + ((s->ip & 15) >= (__u64)r->cfa_off ? 8 : 0); break;
	case SP_UNW_SIGNAL: return signal_step(s, w);
	case SP_UNW_STOP: return 1;
	case SP_UNW_CUT: s->cut = 1; return 1;
	case SP_UNW_GO_SWITCH: return go_switch_step(s, r);
	case SP_UNW_GO_VDSO: return go_vdso_step(s, r);
	default: return fp_step(s, w);
	}
	/* the saved rbp (below the return address) first: the window is
	 * copied from the lowest address read */
	if (rb && uread(s, w, &bp, cfa + rb * 8))
		return -1;
	if (uread(s, w, &ra, cfa - 8))
		return -1;
	if (rb)
		s->bp = bp;
	s->sp = cfa;
	s->ip = ra;
	return s->sp > old_sp ? 0 : -1;
}

/* The process's entry is looked up again here (a rare path): a map-value
 * pointer in the loop state would split the verifier's states too. */
static __always_inline SP_NODEBUG void ask_refresh(void)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_unw_proc *p = bpf_map_lookup_elem(&unw_procs, &pid);
	__u64 now = bpf_ktime_get_ns();

	if (!p || now - p->refresh_ns < SP_UNW_REFRESH_NS)
		return;
	p->refresh_ns = now;
	stat_add(SP_UNW_ST_REFRESH, 1);
	sp_emit_event(SP_EV_NEWPID, 0, bpf_get_current_pid_tgid() >> 32);
}

/* One frame: record it in buf, then step to its caller. Returns 1 to stop.
 * The frame number is s->n, the state untracked memory (see
 * sp_unw_frames()). A pc in no known mapping ends the walk: a table's
 * return address is a real frame whose file has no table yet (kept,
 * counted, a re-read asked for), a frame-pointer guess is dropped. Either
 * way, and after a failed read, sp_unwind_user() appends the truncation
 * mark (s->cut). */
static __always_inline SP_NODEBUG int unw_frame(struct unw_state *s, struct unw_win *w,
						 struct sp_unw_proc *p, struct sp_stack_val *buf)
{
	struct sp_unw_row r;
	__u32 i = s->n, slot = i;
	bool have_map;
	__u64 key;
	int err;

	if (s->ip == 0)
		return 1;
	if (KEEP_RING && s->keep && i >= s->lead)
		slot = s->lead + ((i - s->lead) & (SP_UNW_KEEP - 1));
	if (KEEP_RING)
		asm volatile("" : "+r"(slot)); /* one register checked and used */
	if (i >= (s->keep ? SP_UNW_WALK_MAX : s->max) || slot >= SP_MAX_FRAMES) {
		stat_add(SP_UNW_ST_TRUNCATED, 1);
		s->cut = s->keep; /* the limit was not the program's */
		return 1;
	}
	key = s->how == HOW_EXACT ? s->ip : s->ip - 1;
	/* callers are mostly in the mapping of the frame before */
	have_map = (key >= s->m.start && key < s->m.end) || find_map(s, w, p, key) || vma_map(s, key);
	if (!have_map && s->how == HOW_GUESS) {
		stat_add(SP_UNW_ST_BAD_GUESS, 1);
		s->cut = 1;
		return 1;
	}
#ifdef SP_BPF_COMPAT
	if (!have_map && i == 0) { /* bpf_get_stack does better than one frame */
		ask_refresh();
		s->fallback = 1;
		return 1;
	}
#endif
	buf->ip[slot] = s->ip;
	s->n = i + 1;
	s->how = HOW_RA;
	if (!have_map) {
		ask_refresh();
		stat_add(SP_UNW_ST_NOT_LOADED, 1);
		s->cut = 1;
		return 1;
	}
	err = find_row(s, key, &r) ? row_step(s, w, &r) : fp_step(s, w);
	if (err < 0) {
		s->exiting = task_left_mm();
		stat_add(s->exiting ? SP_UNW_ST_EXITING : SP_UNW_ST_READ_ERR, 1);
		s->cut = 1;
	}
	return err != 0;
}

/* A process's entry as the verifier may see it: a global function takes a
 * pointer argument only to a struct of scalars and arrays of scalars. */
struct unw_proc_words {
	__u64 w[sizeof(struct sp_unw_proc) / 8];
};

#define UNW_CHUNK 2

/* Up to UNW_CHUNK frames of the walk; 1 when it is over. A global
 * function, so the verifier checks it once, with its arguments unknown:
 * the state is untracked memory and every frame starts from the same
 * register state, so the unrolled frames' paths merge at each frame's
 * start instead of multiplying (the walk inlined in a bpf_loop body had
 * ~150 states per instruction: ~800k instructions, 1.5 s to load; now
 * ~24k, 40 ms). No bpf_loop: its callback is a call a frame. Two frames a
 * call: more unrolled frames cost more than the calls they save (a frame
 * is ~1200 instructions of code, the instruction cache fills). */
#ifdef SP_BPF_COMPAT
/* Linux 5.10: scalar arguments only, so the state, the process's entry
 * and the frames' buffer are looked up here, a hash lookup more every
 * UNW_CHUNK frames (~30 ns). */
__attribute__((noinline)) int sp_unw_frames(__u32 pid)
{
	__u32 zero = 0;
	struct unw_win *w = bpf_map_lookup_elem(&unw_win, &zero);
	struct sp_unw_proc *p = bpf_map_lookup_elem(&unw_procs, &pid);
	struct sp_stack_val *buf = sp_stack_scratch_buf();
	struct unw_state *s;

	if (!w || !p || !buf)
		return 1;
	s = &w->st;
#else
__attribute__((noinline)) int sp_unw_frames(struct unw_state *s, struct unw_proc_words *pw,
					     struct sp_stack_val *buf)
{
	struct sp_unw_proc *p = (struct sp_unw_proc *)pw;
	__u32 zero = 0;
	struct unw_win *w = bpf_map_lookup_elem(&unw_win, &zero); /* once, not a read */

	if (!s || !pw || !buf || !w)
		return 1;
#endif
#pragma unroll
	for (int k = 0; k < UNW_CHUNK; k++)
		if (unw_frame(s, w, p, buf))
			return 1;
	return 0;
}

/* The interrupted user registers into s (ip, sp, bp); false when the task
 * has none (a kernel thread) or they cannot be read. */
#ifdef SP_BPF_COMPAT
/* No bpf_task_pt_regs (5.15), no bpf_get_current_task_btf (5.11): where
 * x86-64's task_pt_regs() finds them, the top of the task's kernel stack
 * (runtime/stacks/kofs.c), read into the window (its contents are not
 * the stack's yet: win_lo = win_hi = 0). For a sample that interrupted
 * user mode these are the registers it interrupted, as with the helper. */
static __always_inline SP_NODEBUG bool user_regs(struct unw_state *s, struct unw_win *w,
						 const struct sp_unw_kofs *k)
{
	struct pt_regs *regs = (struct pt_regs *)w->b;
	__u64 stack;

	if (!k->regs_ok)
		return false;
	stack = read_k64(bpf_get_current_task() + k->task_stack);
	if (!stack || bpf_probe_read_kernel(regs, sizeof(*regs), (void *)(stack + k->regs_top)))
		return false;
	if ((regs->cs & 3) != 3)
		return false;
	s->ip = regs->rip;
	s->sp = regs->rsp;
	s->bp = regs->rbp;
	return true;
}
#else
static __always_inline SP_NODEBUG bool user_regs(struct unw_state *s, struct unw_win *w,
						 const struct sp_unw_kofs *k)
{
	/* plain loads (PTR_TO_BTF_ID): no helper call a register */
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	(void)w;
	(void)k;
	if (!regs || (regs->cs & 3) != 3)
		return false;
	s->ip = regs->rip;
	s->sp = regs->rsp;
	s->bp = regs->rbp;
	return true;
}
#endif

#ifndef SP_BPF_COMPAT
/* A forked child user space has not registered yet (it registers a
 * process on its first sample, too late for a child that lives a few
 * milliseconds): its mappings are its parent's while neither has exec'd
 * since the fork (exec bumps self_exec_id, which fork copies), so the
 * parent's entry serves. Without it, every one of the child's pcs took a
 * bpf_find_vma, and the second of a sample fails (-EBUSY: its irq_work
 * is still pending), cutting the stack. */
static __always_inline SP_NODEBUG struct sp_unw_proc *parent_proc(const struct sp_unw_kofs *k)
{
	__u64 task = bpf_get_current_task(), parent;
	__u32 ppid = 0;
	struct sp_unw_proc *p;

	if (!k->task_parent)
		return NULL;
	parent = read_k64(task + k->task_parent);
	if (!parent || read_k64(task + k->task_exec_id) != read_k64(parent + k->task_exec_id) ||
	    bpf_probe_read_kernel(&ppid, sizeof(ppid), (void *)(parent + k->task_tgid)) || !ppid)
		return NULL;
	p = bpf_map_lookup_elem(&unw_procs, &ppid);
	if (p)
		stat_add(SP_UNW_ST_PARENT, 1);
	return p;
}
#endif

/* A mixed stack's native frames past its limit (SP_UNW_KEEP_BOTTOM): the
 * walk went on to the root with the frames from slot lead on in a ring of
 * SP_UNW_KEEP; when it wrapped, the ring becomes the truncation mark and
 * the last SP_UNW_KEEP - 1 frames in order, so the stack keeps its root
 * (main, _start: the interpreter's first activations) and says where
 * frames are missing. The window's bytes serve as scratch: the walk is
 * over. */
static __always_inline SP_NODEBUG __u32 keep_bottom(struct unw_state *s, struct unw_win *w,
						    struct sp_stack_val *buf)
{
	__u64 *tmp = (__u64 *)w->b;
	__u32 start = (s->n - s->lead) & (SP_UNW_KEEP - 1), at;

	for (int j = 0; j < SP_UNW_KEEP; j++) {
		at = s->lead + (__u32)j;
		asm volatile("" : "+r"(at)); /* one register checked and used */
		if (at >= SP_MAX_FRAMES)
			return s->lead;
		tmp[j] = buf->ip[at];
	}
	at = s->lead;
	asm volatile("" : "+r"(at));
	if (at >= SP_MAX_FRAMES)
		return at;
	buf->ip[at] = SP_UNW_IP_TRUNCATED;
	for (int j = 0; j < SP_UNW_KEEP - 1; j++) {
		at = s->lead + 1 + (__u32)j;
		asm volatile("" : "+r"(at));
		if (at >= SP_MAX_FRAMES)
			return at;
		buf->ip[at] = tmp[(start + 1 + (__u32)j) & (SP_UNW_KEEP - 1)];
	}
	return s->lead + SP_UNW_KEEP;
}

SP_NODEBUG int sp_unwind_user(struct sp_stack_val *buf, int max)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_unw_proc *proc;
	struct unw_state *s;
	struct unw_win *w;
	struct sp_unw_kofs *kofs;
	__u32 zero = 0;
	__u32 n;
	int keep;

	/* a process without an entry yet: a forked child its parent's (see
	 * parent_proc()), else every mapping from the kernel,
	 * through the empty entry user space keeps under key 0 (without
	 * bpf_find_vma, bpf_get_stack's walk); with no unwinder set up
	 * (SPROF_NO_DWARF, no BTF), bpf_get_stack's walk */
	kofs = bpf_map_lookup_elem(&unw_kofs, &zero);
	proc = bpf_map_lookup_elem(&unw_procs, &pid);
	w = bpf_map_lookup_elem(&unw_win, &zero);
	if (!kofs || !w)
		return -1;
	s = &w->st;
	if (!proc) {
		stat_add(SP_UNW_ST_NO_PROC, 1);
#ifdef SP_BPF_COMPAT
		stat_add(SP_UNW_ST_FP_FALLBACK, 1);
		return -1;
#else
		if (!kofs->ok)
			return -1;
		proc = parent_proc(kofs);
		if (!proc)
			proc = bpf_map_lookup_elem(&unw_procs, &zero);
		if (!proc)
			return -1;
#endif
	}
	__builtin_memset(s, 0, sizeof(*s));
	if (!user_regs(s, w, kofs))
		return -1;
	keep = max & SP_UNW_KEEP_BOTTOM;
	max &= SP_UNW_KEEP_BOTTOM - 1;
	s->vma_ok = kofs->ok;
	s->how = HOW_EXACT;
	s->nmaps = proc->n < SP_UNW_MAX_MAPS ? proc->n : SP_UNW_MAX_MAPS;
	s->max = max < 1 ? 1 : max > SP_MAX_FRAMES ? SP_MAX_FRAMES : (__u32)max;
	if (KEEP_RING && keep && s->max >= SP_UNW_KEEP + 16) {
		s->keep = 1;
		s->lead = s->max - SP_UNW_KEEP;
	}
	for (int c = 0; c < (SP_UNW_WALK_MAX + UNW_CHUNK - 1) / UNW_CHUNK; c++)
#ifdef SP_BPF_COMPAT
		if (sp_unw_frames(pid))
#else
		if (sp_unw_frames(s, (struct unw_proc_words *)proc, buf))
#endif
			break;
	if (s->fallback) {
		stat_add(SP_UNW_ST_FP_FALLBACK, 1);
		return -1;
	}
	stat_add(SP_UNW_ST_SAMPLES, 1);
	stat_add(SP_UNW_ST_FRAMES, s->n); /* once, not a map update a frame */
	n = s->n;
	if (KEEP_RING && s->keep && n > s->lead + SP_UNW_KEEP)
		n = keep_bottom(s, w, buf);
	if (s->cut && n < s->max && n < SP_MAX_FRAMES) {
		buf->ip[n++] = s->exiting ? SP_UNW_IP_EXITING : SP_UNW_IP_TRUNCATED;
	} else if (KEEP_RING && s->cut && s->keep && n > 0) {
		__u32 last = n - 1; /* full: the mark ends it all the same */

		asm volatile("" : "+r"(last)); /* one register checked and used (6.1) */
		if (last < SP_MAX_FRAMES)
			buf->ip[last] = s->exiting ? SP_UNW_IP_EXITING : SP_UNW_IP_TRUNCATED;
	}
	return (int)n;
}
