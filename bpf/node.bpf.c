/* bpf/node.bpf.c: JavaScript frames of the sampled Node.js thread, for ustack.
 *
 * For processes user space recognised as node (an executable or libnode
 * exporting V8's v8dbg_* constants; runtime/langs/node.c wrote the offsets
 * into nd_procs), this follows the frame-pointer chain from the thread's
 * user rbp (bpf_task_pt_regs): V8 builds an rbp frame for every JavaScript
 * function, whatever tier runs it, and node's own C++ keeps frame pointers.
 * A frame is a JavaScript one when its context slot and its function slot
 * hold tagged heap pointers and the function's `shared` field points at an
 * object whose map says SHARED_FUNCTION_INFO_TYPE (stub, entry and exit
 * frames keep a SMI frame-type marker in the context slot instead). Each
 * such frame is one word (abi/node.h): the id of its (SFI, name) and the
 * low bits of its return address, which user space matches against the
 * native stack to put the frame where its code ran. Each (SFI, name) is
 * announced once per process (SP_EV_INTERP_CODE) so user space names it
 * while the process is alive.
 *
 * Every read is bpf_probe_read_user: a bad read ends the walk there (counted
 * in nd_stats), never more. Kernels without bpf_loop and bpf_task_pt_regs
 * (the compat helpers) take no JavaScript frames.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"
#include "abi/node.h"

#include <asm/ptrace.h>

_Static_assert((int)SP_ND_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_ND_ST_READERR == (int)SP_PY_ST_READERR &&
	       (int)SP_ND_ST_FRAMES == (int)SP_PY_ST_FRAMES &&
	       (int)SP_ND_ST_CODE_RETRY == (int)SP_PY_ST_CODE_RETRY &&
	       (int)SP_ND_ST_CODE_SENT == (int)SP_PY_ST_CODE_SENT,
	       "nd_stats and py_stats differ");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_nd_proc);
} nd_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} nd_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_ND_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} nd_stats SEC(".maps");

/* Preallocated, as py_code_seen (bpf/python.bpf.c says why). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_ND_SEEN_MAX);
	__type(key, struct sp_nd_code_key);
	__type(value, __u32);
} nd_code_seen SEC(".maps");

struct nd_code_event {
	struct sp_event_hdr hdr;
	struct sp_nd_code_rec rec;
};

/* Per CPU: the offsets of the process being walked, a record being
 * built, kept off the BPF stack, and the frame pointer the walk is at: in
 * a map value, the verifier knows nothing of it, so each bpf_loop() round
 * it checks starts from the same state (on the BPF stack its range grew
 * by one a round, and every round was a new state to check). */
struct nd_cpu {
	struct sp_nd_proc p;
	struct nd_code_event ev;
	__u64 fp;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nd_cpu);
} nd_cur SEC(".maps");

struct nd_walk {
	struct sp_iwalk out;
};

#ifndef SP_BPF_COMPAT
/* The id of (sfi, name) in process pid; a new one is announced. 0: unknown. */
static __always_inline SP_NODEBUG __u32 nd_code_id(struct nd_code_event *ev, __u32 pid,
						 __u64 sfi, __u64 name)
{
	struct sp_nd_code_key k;
	__u32 id, *known;
	int fresh;

	k.sfi = sfi;
	k.name = name;
	k.pid = pid;
	k.pad = 0;
	known = bpf_map_lookup_elem(&nd_code_seen, &k);
	if (known)
		return *known;
	id = sp_icode_new(&nd_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev->rec.id = id;
	ev->rec.pad = 0;
	ev->rec.sfi = sfi;
	ev->rec.name = name;
	ev->rec.magic = SP_ND_REC_MAGIC;
	return sp_icode_send(&nd_code_seen, &nd_stats, &k, ev, sizeof(*ev), pid, sfi, id);
}

/* Whether v is a tagged heap object pointer. */
static __always_inline SP_NODEBUG int nd_heap(const struct sp_nd_proc *p, __u64 v)
{
	return v > 4096 && (v & p->heap_tag_mask) == p->heap_tag;
}

/* The SFI of the JSFunction fn, 0 when fn is none. */
static __always_inline SP_NODEBUG __u64 nd_sfi(const struct sp_nd_proc *p, __u64 fn)
{
	__u64 sfi = 0, map = 0;
	__u16 type = 0;

	if (!nd_heap(p, fn) || sp_urd(&sfi, 8, fn - p->heap_tag + p->fn_shared) || !nd_heap(p, sfi) ||
	    sp_urd(&map, 8, sfi - p->heap_tag + p->obj_map) || !nd_heap(p, map) ||
	    sp_urd(&type, 2, map - p->heap_tag + p->map_type) || type != p->sfi_type)
		return 0;
	return sfi;
}

/* The window of a frame read at once: ND_BELOW bytes under fp (where the
 * function and context slots are), the caller's fp and the return address. */
#define ND_BELOW 32
#define ND_WIN (ND_BELOW / 8 + 2)

/* The slot at fp + off (off < 0, a multiple of 8) of the window; 0 when
 * outside it. */
static __always_inline SP_NODEBUG __u64 nd_slot(const __u64 *slots, __s16 off)
{
	__u32 i = (__u32)(off + ND_BELOW) / 8;

	return off < 0 && off >= -ND_BELOW && i < ND_WIN ? slots[i] : 0;
}

/* No JavaScript function in the frame (a node word never has bit 0). */
#define ND_WORD_NONE 1ull

/* The word of the frame whose function and context slots hold fn and ctx
 * and whose return address is ra, in process pid: ND_WORD_NONE when it is
 * no JavaScript function's, ~0 when a read failed. A global function
 * (codegen/codegen.c SP_GLOBAL_HELPERS): the verifier checks it once, not
 * on every path of every bpf_loop() round that reaches it. */
__attribute__((noinline)) __u64 sp_nd_word(__u64 fn, __u64 ctx, __u64 ra, __u32 pid)
{
	__u32 zero = 0, id;
	struct nd_cpu *cpu = bpf_map_lookup_elem(&nd_cur, &zero);
	const struct sp_nd_proc *p = cpu ? &cpu->p : NULL;
	__u64 sfi, name = 0;

	if (!cpu || !p || !nd_heap(p, ctx) || !(sfi = nd_sfi(p, fn)))
		return ND_WORD_NONE;
	if (sp_urd(&name, 8, sfi - p->heap_tag + p->sfi_name))
		return ~0ull;
	id = nd_code_id(&cpu->ev, pid, sfi, name);
	return (__u64)id << SP_PY_ID_SHIFT | (ra & SP_ND_RA_MASK) << SP_ND_RA_SHIFT;
}

/* bpf_loop() body: one frame of the chain. */
static long nd_frame(__u64 i, void *c)
{
	struct nd_walk *w = c;
	__u64 slots[ND_WIN] = { 0 }; /* fp-32 .. fp+8: the slots, caller's fp, return */
	__u64 word;
	__u32 zero = 0, pos = w->out.pos;
	struct nd_cpu *cpu = bpf_map_lookup_elem(&nd_cur, &zero);
	const struct sp_nd_proc *p = cpu ? &cpu->p : NULL;

	if (!cpu || !p || cpu->fp < 4096 || sp_urd(slots, sizeof(slots), cpu->fp - ND_BELOW))
		return 1;
	word = sp_nd_word(nd_slot(slots, p->fp_function), nd_slot(slots, p->fp_context),
			  slots[ND_WIN - 1], w->out.pid);
	if (word == ~0ull) {
		w->out.err = 1;
		return 1;
	}
	if (word != ND_WORD_NONE) {
		if (!sp_iwalk_room(&w->out, pos))
			return 1;
		sp_iwalk_put(&w->out, pos, word);
	}
	/* the caller's frame is above this one on the stack, not far */
	if (slots[ND_WIN - 2] <= cpu->fp || slots[ND_WIN - 2] - cpu->fp > (1u << 20))
		return 1;
	cpu->fp = slots[ND_WIN - 2];
	return 0;
}
#endif

/* Whether the sampled process is a registered one (see sp_interp_has()). */
SP_NODEBUG int sp_nd_known(void)
{
	return sp_interp_has(&nd_procs, &nd_live);
}

/* Native frames a mixed stack keeps in a node process (see
 * sp_interp_native_limit in bpf/python.bpf.c). */
SP_NODEBUG int sp_nd_native_limit(int limit)
{
	return sp_interp_limit(&nd_procs, &nd_live, limit);
}

/* Appends the sampled thread's JS frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known node or the thread runs no JavaScript. */
SP_NODEBUG __u32 sp_nd_frames(__u64 *ips, __u32 start, __u32 end)
{
#ifndef SP_BPF_COMPAT
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_nd_proc *p = sp_interp_live(&nd_live) ? bpf_map_lookup_elem(&nd_procs, &pid) : NULL;
	struct pt_regs *regs;
	struct nd_cpu *cpu;
	struct nd_walk w;
	__u32 zero = 0, n;

	if (!p || start >= SP_MAX_FRAMES || !(cpu = bpf_map_lookup_elem(&nd_cur, &zero)))
		return 0;
	sp_istat(&nd_stats, SP_ND_ST_WALKS, 1);
	__builtin_memcpy(&cpu->p, p, sizeof(cpu->p));
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || (regs->cs & 3) != 3) {
		sp_istat(&nd_stats, SP_ND_ST_NOTHREAD, 1);
		return 0;
	}
	cpu->fp = regs->rbp;
	sp_iwalk_init(&w.out, ips, start, end, pid);
	bpf_loop(SP_ND_MAX_FP, nd_frame, &w, 0);
	n = sp_iwalk_end(&w.out, &nd_stats, w.out.full);
	if (!n)
		sp_istat(&nd_stats, SP_ND_ST_NOTHREAD, 1);
	return n;
#else
	(void)ips, (void)start, (void)end;
	return 0;
#endif
}
