/* bpf/hotspot.bpf.c: Java frames of the sampled HotSpot JVM thread, for ustack.
 *
 * For processes user space recognised as a HotSpot JVM (runtime/langs/
 * hotspot.c read the code heaps and field offsets from libjvm's
 * gHotSpotVM* tables into hs_procs), this walks the Java frames from the
 * thread's user registers (bpf_task_pt_regs) while the pc is in the code
 * cache. Each pc is looked up in its code heap's segment map (one byte a
 * segment: 0 at a block's first segment, else how far back to step, 0xff
 * for free ones), which gives the CodeBlob holding it; its name says what
 * it is:
 *  - "nmethod" (C1 or C2 code) or "native nmethod" (a JNI wrapper): the
 *    Method* is the nmethod's _method, and the caller's sp is the frame's
 *    sp plus its _frame_size words, with the return address and the saved
 *    rbp just below it (compiled code keeps no frame pointer chain). A leaf
 *    pc before _frame_complete_offset is in the prologue: the return
 *    address is at sp, or above the pushed rbp;
 *  - "Interpreter": the frame is an rbp frame, the Method* a fixed slot
 *    below rbp, the caller's sp its saved sender sp;
 *  - anything else (the call stub that entered Java from the VM, adapters,
 *    runtime stubs) ends the Java frames: native unwinding knows the rest.
 * Each Java frame is one word (abi/hotspot.h): the id of its Method* and
 * the low bits of its return address, which user space matches against
 * the native stack. Each Method* is announced once per process
 * (SP_EV_INTERP_CODE) so user space names it while the process is alive.
 *
 * Every read is bpf_probe_read_user: a bad read ends the walk there
 * (counted in hs_stats), never more. Kernels without bpf_loop and
 * bpf_task_pt_regs (the compat helpers) take no Java frames.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"
#include "abi/hotspot.h"

#include <asm/ptrace.h>

_Static_assert((int)SP_HS_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_HS_ST_READERR == (int)SP_PY_ST_READERR &&
	       (int)SP_HS_ST_FRAMES == (int)SP_PY_ST_FRAMES &&
	       (int)SP_HS_ST_CODE_RETRY == (int)SP_PY_ST_CODE_RETRY &&
	       (int)SP_HS_ST_CODE_SENT == (int)SP_PY_ST_CODE_SENT,
	       "hs_stats and py_stats differ");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_hs_proc);
} hs_procs SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_HS_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} hs_stats SEC(".maps");

/* Preallocated, as py_code_seen (bpf/python.bpf.c says why). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_HS_SEEN_MAX);
	__type(key, struct sp_hs_code_key);
	__type(value, __u32);
} hs_code_seen SEC(".maps");

struct hs_code_event {
	struct sp_event_hdr hdr;
	struct sp_hs_code_rec rec;
};

/* Words above sp looked at for the return address into Java code of a
 * sample taken in native code (a leaf call, System.nanoTime's). */
#define HS_SCAN_WORDS 64

/* Per CPU: the process's layout, a record being built and the registers
 * of the frame the walk is at, off the BPF stack (see nd_cpu in
 * bpf/node.bpf.c: the verifier knows nothing of a map value's contents,
 * so each bpf_loop() round starts from the same state). */
struct hs_cpu {
	struct sp_hs_proc p;
	struct hs_code_event ev;
	__u64 pc, sp, fp;
	__u64 leaf;                  /* the walk starts at the sampled pc */
	__u64 scan[HS_SCAN_WORDS];   /* the stack above a native leaf's sp */
	__u64 found;                 /* 1 + the index of the return address found */
	__u64 found_ra;              /* that word */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_cpu);
} hs_cur SEC(".maps");

struct hs_walk {
	struct sp_iwalk out;
};

#ifndef SP_BPF_COMPAT
/* The id of method in process pid; a new one is announced. 0: unknown. */
static __always_inline SP_NODEBUG __u32 hs_code_id(struct hs_code_event *ev, __u32 pid,
						 __u64 method)
{
	struct sp_hs_code_key k;
	__u32 id, *known;
	int fresh;

	k.method = method;
	k.pid = pid;
	k.pad = 0;
	known = bpf_map_lookup_elem(&hs_code_seen, &k);
	if (known)
		return *known;
	id = sp_icode_new(&hs_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev->rec.id = id;
	ev->rec.pad = 0;
	ev->rec.method = method;
	ev->rec.magic = SP_HS_REC_MAGIC;
	return sp_icode_send(&hs_code_seen, &hs_stats, &k, ev, sizeof(*ev), pid, method, id);
}

/* The heap holding pc, SP_HS_MAX_HEAPS when none. */
static __always_inline SP_NODEBUG __u32 hs_heap(const struct sp_hs_proc *p, __u64 pc)
{
	for (__u32 i = 0; i < SP_HS_MAX_HEAPS; i++)
		if (i < p->nheaps && pc >= p->heap[i].low && pc < p->heap[i].high)
			return i;
	return SP_HS_MAX_HEAPS;
}

/* The CodeBlob holding pc in heap h: the block whose first segment the
 * segment map leads back to, past its header. 0 when pc is in a free
 * block or the map could not be read. */
static __always_inline SP_NODEBUG __u64 hs_blob(const struct sp_hs_heap *h, __u32 hdr, __u64 pc)
{
	__u32 shift = h->log2_seg & 31;
	__u64 idx = (pc - h->low) >> shift;
	__u8 b = 0xff;

	for (int i = 0; i < SP_HS_SEG_HOPS; i++) {
		if (sp_urd(&b, 1, h->segmap + idx) || b == 0xff)
			return 0;
		if (b == 0)
			return h->low + (idx << shift) + hdr;
		if (b > idx)
			return 0;
		idx -= b;
	}
	return 0;
}

/* The value of the signed field of size (2 or 4) bytes at addr; 0 unread. */
static __always_inline SP_NODEBUG __s64 hs_int(__u64 addr, __u32 size)
{
	__s32 v4 = 0;
	__s16 v2 = 0;

	if (size == 2)
		return sp_urd(&v2, 2, addr) ? 0 : v2;
	return sp_urd(&v4, 4, addr) ? 0 : v4;
}

/* The interpreter frame's slots read at once: fp-32 .. fp+8. */
#define HS_IBELOW 32
#define HS_IWIN (HS_IBELOW / 8 + 2)

/* The slot fp + words * 8 (-4 <= words < 0) of the window w. */
static __always_inline SP_NODEBUG __u64 hs_below(const __u64 *w, __s8 words)
{
	return words == -1 ? w[3] : words == -2 ? w[2] : words == -3 ? w[1] : w[0];
}

/* A leaf compiled frame caught in its prologue (prologue set) or its
 * epilogue, where sp is not yet or no longer frame-size words below the
 * caller's: cpu moved to the caller and 1, or 0 when the frame is whole.
 * Told by the instruction at pc. The prologue of C1 and C2 code on x86-64
 * is `mov %eax,-n(%rsp)` (the stack bang), `push %rbp`, `sub $n,%rsp`,
 * then the nmethod entry barrier; the epilogue `add $n,%rsp; pop %rbp;
 * [cmp poll,%rsp; ja stub;] ret`. Before the push and after the pop the
 * return address is at sp; between them it is above the saved rbp. */
static __always_inline SP_NODEBUG int hs_torn(const struct sp_hs_proc *p, struct hs_cpu *cpu,
					     int prologue)
{
	__u8 op[3] = { 0 };
	__u64 w[2] = { 0 };
	int at_sp;

	if (sp_urd(op, sizeof(op), cpu->pc) || sp_urd(w, sizeof(w), cpu->sp))
		return 0;
	if (prologue && ((op[0] == 0x89 && op[1] == 0x84 && op[2] == 0x24) || op[0] == 0x55))
		at_sp = 1; /* the stack bang, push %rbp */
	else if (prologue && op[0] == 0x48 && (op[1] == 0x83 || op[1] == 0x81) && op[2] == 0xec)
		at_sp = 0; /* sub $n,%rsp */
	else if (prologue)
		return 0; /* the frame is made: the nmethod entry barrier */
	else if (op[0] == 0x5d) /* pop %rbp */
		at_sp = 0;
	else if (op[0] == 0xc3 || (op[0] == 0x49 && op[1] == 0x3b) || (op[0] == 0x0f && op[1] == 0x87) ||
		 (op[0] == 0xc5 && op[1] == 0xf8 && op[2] == 0x77)) /* ret, cmp, ja, vzeroupper */
		at_sp = 1;
	else
		return 0;
	if (at_sp) {
		cpu->pc = w[0];
		cpu->sp += 8;
	} else {
		cpu->pc = w[1];
		cpu->fp = w[0];
		cpu->sp += 16;
	}
	return 1;
}

/* One Java frame at cpu's pc, sp, fp: its Method* into *method, the
 * registers moved to its caller's (*method 0: a leaf interpreter frame
 * not built yet). 1 when the pc is in no Java frame, -1
 * when a read failed. */
static __always_inline SP_NODEBUG int hs_step(struct hs_cpu *cpu, __u64 first, __u64 *method)
{
	const struct sp_hs_proc *p = &cpu->p;
	__u32 h = hs_heap(p, cpu->pc);
	__u64 cb, name = 0, nameptr = 0, w[HS_IWIN] = { 0 }, code = 0, ssp;
	__s64 fs, complete;

	if (h >= SP_HS_MAX_HEAPS)
		return 1;
	cb = hs_blob(&p->heap[h], p->block_hdr, cpu->pc);
	if (!cb || sp_urd(&nameptr, 8, cb + p->cb_name) || sp_urd(&name, 8, nameptr))
		return cb ? -1 : 1;
	if (name == SP_HS_INTERP) {
		if (cpu->fp < 4096 || sp_urd(w, sizeof(w), cpu->fp - HS_IBELOW))
			return -1;
		*method = hs_below(w, p->i_method);
		ssp = hs_below(w, p->i_sender_sp);
		/* a leaf frame being built (its Method* slot not pushed yet):
		 * no method to name; its caller is there */
		if (first && cpu->sp > cpu->fp + p->i_method * 8) {
			*method = 0;
			ssp = cpu->fp + 16;
		}
		cpu->pc = w[HS_IWIN - 1];
		cpu->fp = w[HS_IWIN - 2];
		cpu->sp = ssp;
		return 0;
	}
	if (name != SP_HS_NMETHOD && name != SP_HS_NATIVE)
		return 1;
	if (sp_urd(method, 8, cb + p->nm_method))
		return -1;
	fs = hs_int(cb + p->cb_frame_size, 4);
	complete = hs_int(cb + p->cb_complete, p->complete_size);
	if (p->code_is_ptr)
		sp_urd(&code, 8, cb + p->cb_code);
	else
		code = cb + hs_int(cb + p->cb_code, 4);
	if (first && hs_torn(p, cpu, cpu->pc - code < (__u64)complete))
		return 0;
	if (fs <= 0 || fs > (1 << 16))
		return -1;
	ssp = cpu->sp + (__u64)fs * 8;
	if (sp_urd(w, 16, ssp - 16))
		return -1;
	/* every Java frame is called from the code cache (the call stub,
	 * Java code, an adapter): a return address elsewhere is no caller */
	if (hs_heap(p, w[1]) >= SP_HS_MAX_HEAPS)
		return -1;
	cpu->fp = w[0];
	cpu->pc = w[1];
	cpu->sp = ssp;
	return 0;
}

/* Whether ra, read from the stack at slot, is the return address into
 * compiled Java code of a call that code made: it points past the header
 * of an nmethod (a pointer to the blob is no return address), and the
 * return address of that frame (its sp being slot + 8) points into the
 * code cache too. */
static __always_inline SP_NODEBUG int hs_called_from(const struct sp_hs_proc *p, __u64 ra,
						    __u64 slot)
{
	__u32 h = hs_heap(p, ra);
	__u64 cb, nameptr = 0, name = 0, up = 0;
	__s64 fs;

	if (h >= SP_HS_MAX_HEAPS)
		return 0;
	cb = hs_blob(&p->heap[h], p->block_hdr, ra);
	if (!cb || ra < cb + 64 || sp_urd(&nameptr, 8, cb + p->cb_name) || sp_urd(&name, 8, nameptr) ||
	    (name != SP_HS_NMETHOD && name != SP_HS_NATIVE))
		return 0;
	fs = hs_int(cb + p->cb_frame_size, 4);
	if (fs <= 0 || fs > (1 << 16) || sp_urd(&up, 8, slot + (__u64)fs * 8))
		return 0;
	return hs_heap(p, up) < SP_HS_MAX_HEAPS;
}

/* bpf_loop() body: whether scan word i is such a return address. */
static long hs_scan_word(__u64 i, void *c)
{
	__u32 zero = 0;
	struct hs_cpu *cpu = bpf_map_lookup_elem(&hs_cur, &zero);

	(void)c;
	if (!cpu || i >= HS_SCAN_WORDS)
		return 1;
	if (hs_called_from(&cpu->p, cpu->scan[i], cpu->sp + i * 8)) {
		cpu->found = i + 1;
		cpu->found_ra = cpu->scan[i]; /* indexed here, where i is known small */
		return 1;
	}
	return 0;
}

/* A sample in native code (the VM, libc, the vdso) called from compiled
 * Java code without a frame of its own in the code cache (a leaf call:
 * System.nanoTime's, a math intrinsic's): the first of the words above sp
 * that is a return address into compiled code (hs_called_from) leads to
 * the Java frame that made the call. cpu moved to that frame (not a
 * leaf); 0 when there is none. Native code called from the interpreter
 * goes through the VM's call_VM (its frame anchor), not seen here. */
static __always_inline SP_NODEBUG int hs_from_native(struct hs_cpu *cpu)
{
	__u32 h = 0;
	__u64 at;

	cpu->found = 0;
	if (sp_urd(cpu->scan, sizeof(cpu->scan), cpu->sp))
		return 0;
	bpf_loop(HS_SCAN_WORDS, hs_scan_word, &h, 0); /* its context must be on the stack */
	if (!cpu->found || cpu->found > HS_SCAN_WORDS)
		return 0;
	at = cpu->sp + (cpu->found - 1) * 8;
	cpu->pc = cpu->found_ra;
	cpu->sp = at + 8;
	cpu->leaf = 0;
	return 1;
}

/* sp_hs_word's answers besides a frame's word (whose bit 0 is clear). */
#define HS_WORD_NONE 1ull  /* a frame without its method yet: no word, go on */
#define HS_WORD_END 3ull   /* the pc is in no Java frame: the walk is done */
#define HS_WORD_ERR ~0ull  /* a read failed */

/* One Java frame at the registers in hs_cur (first: the walk's first
 * frame), cpu moved to its caller: the frame's word (abi/hotspot.h), or
 * one of the HS_WORD_ answers. A global function (codegen/codegen.c
 * SP_GLOBAL_HELPERS): the verifier checks hs_step's many paths once, not
 * on every path of every bpf_loop() round that reaches them. */
__attribute__((noinline)) __u64 sp_hs_word(__u32 first, __u32 pid)
{
	__u32 zero = 0, id;
	struct hs_cpu *cpu = bpf_map_lookup_elem(&hs_cur, &zero);
	__u64 method = 0;
	int r;

	if (!cpu)
		return HS_WORD_ERR;
	r = hs_step(cpu, first && cpu->leaf, &method);
	if (r < 0 || (r == 0 && method && method < 4096))
		return HS_WORD_ERR;
	if (r > 0)
		return HS_WORD_END;
	if (!method)
		return HS_WORD_NONE;
	id = hs_code_id(&cpu->ev, pid, method);
	return (__u64)id << SP_PY_ID_SHIFT | (cpu->pc & SP_HS_RA_MASK) << SP_HS_RA_SHIFT;
}

/* bpf_loop() body: one frame. */
static long hs_frame(__u64 i, void *c)
{
	struct hs_walk *w = c;
	__u32 zero = 0, pos = w->out.pos;
	struct hs_cpu *cpu = bpf_map_lookup_elem(&hs_cur, &zero);
	__u64 sp, word;

	if (!cpu)
		return 1;
	sp = cpu->sp;
	word = sp_hs_word(i == 0, w->out.pid);
	if (word == HS_WORD_ERR) {
		w->out.err = 1;
		return 1;
	}
	if (word == HS_WORD_END)
		return 1;
	if (word != HS_WORD_NONE) {
		/* checked right before the store: 6.1's verifier forgets a
		 * bound across a call */
		if (!sp_iwalk_room(&w->out, pos))
			return 1;
		sp_iwalk_put(&w->out, pos, word);
	}
	/* the caller's frame is above this one on the stack, not far */
	return cpu->sp <= sp || cpu->sp - sp > (1u << 20);
}
#endif

/* Native frames a mixed stack keeps in a JVM process (see
 * sp_interp_native_limit in bpf/python.bpf.c). */
SP_NODEBUG int sp_hs_native_limit(int limit)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	if (limit > SP_MAX_FRAMES - SP_PY_RESERVED && bpf_map_lookup_elem(&hs_procs, &pid))
		return SP_MAX_FRAMES - SP_PY_RESERVED;
	return limit;
}

/* Appends the sampled thread's Java frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known JVM or the thread runs no Java code. */
SP_NODEBUG __u32 sp_hs_frames(__u64 *ips, __u32 start, __u32 end)
{
#ifndef SP_BPF_COMPAT
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	/* no live flag before the lookup, as the other walkers have: a map
	 * fewer in every program (the 64-map limit, see sp_icode_next) */
	struct sp_hs_proc *p = bpf_map_lookup_elem(&hs_procs, &pid);
	struct pt_regs *regs;
	struct hs_cpu *cpu;
	struct hs_walk w;
	__u32 zero = 0, n;

	if (!p || start >= SP_MAX_FRAMES || !(cpu = bpf_map_lookup_elem(&hs_cur, &zero)))
		return 0;
	sp_istat(&hs_stats, SP_HS_ST_WALKS, 1);
	__builtin_memcpy(&cpu->p, p, sizeof(cpu->p));
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || (regs->cs & 3) != 3) {
		sp_istat(&hs_stats, SP_HS_ST_NOTHREAD, 1);
		return 0;
	}
	cpu->pc = regs->rip;
	cpu->sp = regs->rsp;
	cpu->fp = regs->rbp;
	cpu->leaf = 1;
	if (hs_heap(&cpu->p, cpu->pc) >= SP_HS_MAX_HEAPS && !hs_from_native(cpu)) {
		sp_istat(&hs_stats, SP_HS_ST_NOTHREAD, 1);
		return 0;
	}
	sp_iwalk_init(&w.out, ips, start, end, pid);
	bpf_loop(SP_HS_MAX_FRAMES, hs_frame, &w, 0);
	n = sp_iwalk_end(&w.out, &hs_stats, w.out.full);
	if (!n)
		sp_istat(&hs_stats, SP_HS_ST_NOTHREAD, 1);
	return n;
#else
	(void)ips, (void)start, (void)end;
	return 0;
#endif
}
