/* bpf/unwind.bpf.c: user stacks by .eh_frame tables, for code without frame pointers.
 *
 * bpf_get_stack(BPF_F_USER_STACK) follows rbp: code built without frame
 * pointers (most distribution libraries) gives garbage, and a frameless
 * leaf (gcc -O1+ omits the frame of leaves) hides its caller. Here user
 * space has compiled each mapped file's .eh_frame into rows (bpf/unwind.h,
 * runtime/ehframe.c, runtime/unwind.c), and each step finds the row of the
 * pc and computes the caller's rip/rsp/rbp from it. Pcs without a table
 * (JIT code, files without .eh_frame, FDE gaps) take a frame-pointer step,
 * so the result is never worse than bpf_get_stack's.
 *
 * The user registers come from the task's saved user pt_regs
 * (bpf_task_pt_regs), which is right in every program type: a sample or
 * probe that hit user mode saved exactly these, one in the kernel (syscall,
 * kprobe) has them from its kernel entry. The walk is one bpf_loop with
 * bounded binary searches inside (~21k instructions verified, ~30 ms); all
 * state is one small struct on the BPF stack. Cost on this VM: ~0.5 us
 * plus ~40 ns a frame (5.4 us for 115 frames; bpf_get_stack ~0.8 us).
 *
 * Output is bpf_get_stack's: ips[0] the pc, then return addresses (user
 * space subtracts 1 when symbolizing callers).
 */
#include "bpf/sp_bpf.h"
#include "abi/unwind_table.h"

#include <asm/ptrace.h>

/* Sizes are placeholders: runtime/unwind.c sets them before load. Unused,
 * they cost a few bytes. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_unw_row);
} unw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_unw_proc);
} unw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_UNW_ST_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} unw_stats SEC(".maps");

#define ROW_SEARCH_STEPS 24 /* files up to 16M rows */
#define MAP_SEARCH_STEPS 9  /* SP_UNW_MAX_MAPS = 256 */
#define SIGFRAME_MCONTEXT 40 /* offsetof(struct ucontext, uc_mcontext) */

struct unw_state {
	__u64 ip, sp, bp;
	__u64 *ips;
	struct sp_unw_proc *proc;
	__u64 proc_addr;             /* the same as a plain number (see addr_of) */
	__u32 n, max;
	__u32 nmaps;
	__u32 exact;  /* ip is not a return address (leaf, signal frame) */
	struct sp_unw_map m;         /* the mapping of the current pc */
};

static __always_inline SP_NODEBUG void stat_add(__u32 idx, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&unw_stats, &idx);

	if (c)
		*c += v;
}

/* A process's mappings are read with bpf_probe_read_kernel at plain
 * addresses, not through the map-value pointer: pointer arithmetic makes the
 * verifier track every search index exactly, and the search would fork into
 * thousands of paths (1M instructions). As scalars, all iterations merge.
 * Rows use array lookups (an index in a stack key is not tracked either). */
static __always_inline SP_NODEBUG __u64 addr_of(void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}

static __always_inline SP_NODEBUG __u64 read_k64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

/* The mapping holding pc, copied into s->m; false when none. */
static __always_inline SP_NODEBUG bool find_map(struct unw_state *s, __u64 pc)
{
	__u64 maps = s->proc_addr + __builtin_offsetof(struct sp_unw_proc, maps);
	__u32 lo = 0, hi = s->nmaps;

	for (int k = 0; k < MAP_SEARCH_STEPS && lo < hi; k++) {
		__u32 mid = (lo + hi) / 2;

		if (read_k64(maps + (__u64)mid * sizeof(struct sp_unw_map)) <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || bpf_probe_read_kernel(&s->m, sizeof(s->m),
					     (void *)(maps + (__u64)(lo - 1) * sizeof(s->m))))
		return false;
	return pc < s->m.end;
}

/* The last row of the mapping's slice with row.pc <= pc, copied into *out.
 * Array lookups (inlined by the verifier) with the index in a stack key:
 * no pointer arithmetic, so the index stays imprecise. */
static __always_inline SP_NODEBUG bool find_row(struct unw_state *s, __u64 pc,
						struct sp_unw_row *out)
{
	__u32 lo = s->m.first, hi = s->m.first + s->m.count, key;
	__u64 rel = pc - s->m.bias;
	struct sp_unw_row *r;

	if (pc < s->m.bias || rel > 0xffffffffull)
		return false;
	for (int k = 0; k < ROW_SEARCH_STEPS && lo < hi; k++) {
		key = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(&unw_rows, &key);
		if (!r)
			return false;
		if (r->pc <= (__u32)rel)
			lo = key + 1;
		else
			hi = key;
	}
	if (lo <= s->m.first)
		return false;
	key = lo - 1;
	r = bpf_map_lookup_elem(&unw_rows, &key);
	if (!r)
		return false;
	*out = *r;
	return true;
}

static __always_inline SP_NODEBUG int read_u64(__u64 *dst, __u64 addr)
{
	return bpf_probe_read_user(dst, sizeof(*dst), (void *)addr);
}

/* One frame-pointer step: the fallback where no table has a rule. */
static __always_inline SP_NODEBUG int fp_step(struct unw_state *s)
{
	__u64 ra = 0, bp = 0;

	if (s->bp < s->sp || read_u64(&ra, s->bp + 8) || read_u64(&bp, s->bp))
		return -1;
	s->sp = s->bp + 16;
	s->bp = bp;
	s->ip = ra;
	stat_add(SP_UNW_ST_FP_FRAMES, 1);
	return 0;
}

/* glibc's __restore_rt: rsp points at the ucontext of the interrupted code. */
static __always_inline SP_NODEBUG int signal_step(struct unw_state *s)
{
	__u64 g = s->sp + SIGFRAME_MCONTEXT;

	if (read_u64(&s->bp, g + 10 * 8) || read_u64(&s->ip, g + 16 * 8) ||
	    read_u64(&s->sp, g + 15 * 8))
		return -1;
	s->exact = 1;
	return 0;
}

static __always_inline SP_NODEBUG int row_step(struct unw_state *s, const struct sp_unw_row *r)
{
	__u64 cfa, ra = 0, old_sp = s->sp;

	switch (r->kind) {
	case SP_UNW_CFA_RSP: cfa = s->sp + r->cfa_off; break;
	case SP_UNW_CFA_RBP: cfa = s->bp + r->cfa_off; break;
	case SP_UNW_PLT: cfa = s->sp + 8 + ((s->ip & 15) >= (__u64)r->cfa_off ? 8 : 0); break;
	case SP_UNW_SIGNAL: return signal_step(s);
	case SP_UNW_STOP: return 1;
	default: return fp_step(s);
	}
	if (read_u64(&ra, cfa - 8))
		return -1;
	if (r->rbp_off8 && read_u64(&s->bp, cfa + (__s64)r->rbp_off8 * 8))
		return -1;
	s->sp = cfa;
	s->ip = ra;
	stat_add(SP_UNW_ST_FRAMES, 1);
	return s->sp > old_sp ? 0 : -1;
}

static __always_inline SP_NODEBUG void ask_refresh(struct sp_unw_proc *p)
{
	__u64 now = bpf_ktime_get_ns();

	if (now - p->refresh_ns < SP_UNW_REFRESH_NS)
		return;
	p->refresh_ns = now;
	stat_add(SP_UNW_ST_REFRESH, 1);
	sp_emit_event(SP_EV_NEWPID, 0, bpf_get_current_pid_tgid() >> 32);
}

/* bpf_loop body: record the current frame, then step to its caller.
 * Returns 1 to stop. Keeps debug info: it stays a BPF subprogram. */
static long unw_step(__u64 i, void *c)
{
	struct unw_state *s = c;
	struct sp_unw_row r;
	bool have_map, have_row = false;
	__u64 key;
	int err;

	/* the frame number is the loop index, never a counter in *s: the
	 * verifier would track its exact value and walk the body 127 times */
	if (s->ip == 0)
		return 1;
	if (i >= s->max || i >= SP_MAX_FRAMES) {
		stat_add(SP_UNW_ST_TRUNCATED, 1);
		return 1;
	}
	s->ips[i] = s->ip;
	s->n = (__u32)i + 1;
	key = s->exact ? s->ip : s->ip - 1;
	s->exact = 0;
	/* callers are mostly in the mapping of the frame before */
	have_map = (key >= s->m.start && key < s->m.end) || find_map(s, key);
	if (have_map)
		have_row = find_row(s, key, &r);
	else
		ask_refresh(s->proc);
	err = have_row ? row_step(s, &r) : fp_step(s);
	if (err < 0)
		stat_add(SP_UNW_ST_READ_ERR, 1);
	return err != 0;
}

SP_NODEBUG int sp_unwind_user(void *ctx, __u64 *ips, int max)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct unw_state s = { .ips = ips, .exact = 1 };
	struct pt_regs *regs;
	__u64 cs = 0;

	s.proc = bpf_map_lookup_elem(&unw_procs, &pid);
	if (!s.proc) {
		stat_add(SP_UNW_ST_NO_PROC, 1);
		return -1;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || bpf_probe_read_kernel(&cs, sizeof(cs), &regs->cs) || (cs & 3) != 3 ||
	    bpf_probe_read_kernel(&s.ip, sizeof(s.ip), &regs->rip) ||
	    bpf_probe_read_kernel(&s.sp, sizeof(s.sp), &regs->rsp) ||
	    bpf_probe_read_kernel(&s.bp, sizeof(s.bp), &regs->rbp))
		return -1;
	s.proc_addr = addr_of(s.proc);
	s.nmaps = s.proc->n < SP_UNW_MAX_MAPS ? s.proc->n : SP_UNW_MAX_MAPS;
	s.max = max < 1 ? 1 : max > SP_MAX_FRAMES ? SP_MAX_FRAMES : (__u32)max;
	bpf_loop(SP_MAX_FRAMES, unw_step, &s, 0);
	stat_add(SP_UNW_ST_SAMPLES, 1);
	return (int)s.n;
}
