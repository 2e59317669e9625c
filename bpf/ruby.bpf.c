/* bpf/ruby.bpf.c: Ruby frames of the sampled thread, for ustack and rbstack.
 *
 * For processes user space recognised as Ruby 3.1 or 3.3 (runtime/langs/ruby.c
 * wrote their offsets into rb_procs), this reads the sampled thread's
 * execution context (ruby_current_ec, at a fixed offset below the FS base
 * user space found; else the main ractor's running context), keeps it
 * only when its thread is the sampled one (the pthread_t of the rb_thread_t,
 * or in 3.3 of its native thread, equals the task's FS base: never
 * someone else's frames), and walks its
 * control frames from ec->cfp towards the end of the VM stack: one word
 * per iseq frame (id of the iseq, instruction index) and per C method
 * frame (id of its method entry, ep[-2]), in abi/interp.h's word format, the
 * group end bit on frames flagged VM_FRAME_FLAG_FINISH (abi/ruby.h). Dummy
 * and C-block frames (no pc) are skipped. Each (iseq, body, label) or
 * (method entry, definition, name) is announced once per process
 * (SP_EV_INTERP_CODE) so user space reads its names while the process is
 * alive.
 *
 * Every read is bpf_probe_read_user: a bad read cuts the walk there
 * (counted in rb_stats), never more.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"
#include "abi/ruby.h"

/* rb_stats is counted by bpf/interp_common.bpf.h with py_stats' indices */
_Static_assert((int)SP_RB_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_RB_ST_READERR == (int)SP_PY_ST_READERR &&
	       (int)SP_RB_ST_FRAMES == (int)SP_PY_ST_FRAMES &&
	       (int)SP_RB_ST_CODE_RETRY == (int)SP_PY_ST_CODE_RETRY &&
	       (int)SP_RB_ST_CODE_SENT == (int)SP_PY_ST_CODE_SENT,
	       "rb_stats and py_stats differ");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_rb_proc);
} rb_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rb_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_RB_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} rb_stats SEC(".maps");

/* Preallocated, as py_code_seen (bpf/python.bpf.c says why). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_RB_SEEN_MAX);
	__type(key, struct sp_rb_code_key);
	__type(value, __u32);
} rb_code_seen SEC(".maps");

struct rb_code_event {
	struct sp_event_hdr hdr;
	struct sp_rb_code_rec rec;
};

struct rb_walk {
	struct sp_rb_proc p;
	struct sp_iwalk out;
	__u64 cfp, last; /* last: the last control frame to look at */
};

#ifdef SP_BPF_COMPAT
/* The walk's state where global functions take no pointers (SP_ILOOP). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rb_walk);
} rb_state SEC(".maps");

static __always_inline SP_NODEBUG struct rb_walk *rb_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&rb_state, &zero);
}
#endif

/* The id of (addr, aux) in this process; a new one is announced. 0: unknown. */
static __always_inline SP_NODEBUG __u32 rb_code_id(__u32 pid, __u64 addr, __u64 aux, __u64 gen,
						 __u32 kind)
{
	struct sp_rb_code_key k; /* field by field: no .rodata copy */
	struct rb_code_event ev;
	__u32 id, *known;
	int fresh;

	k.addr = addr;
	k.aux = aux;
	k.gen = gen;
	k.pid = pid;
	k.pad = 0;
	known = bpf_map_lookup_elem(&rb_code_seen, &k);
	if (known)
		return *known;
	id = sp_icode_new(&rb_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev.rec.id = id;
	ev.rec.kind = kind;
	ev.rec.aux = aux;
	ev.rec.magic = SP_RB_REC_MAGIC;
	return sp_icode_send(&rb_code_seen, &rb_stats, &k, &ev, sizeof(ev), pid, addr, id);
}

/* The word of one control frame of process pid (p: its offsets); 0 for a
 * frame without a Ruby function (dummy frames, C blocks), ~0 when a read
 * failed. With bpf_loop, a global function (codegen/codegen.c
 * SP_GLOBAL_HELPERS): the verifier checks it once, not on every path of
 * every bpf_loop() round that reaches it; before 5.17 it stays inline (no
 * pointer arguments to global functions before 5.12). */
#ifdef SP_BPF_COMPAT
static __always_inline SP_NODEBUG __u64 rb_word(const struct sp_rb_proc *p, __u64 cfp, __u32 pid)
#else
#define rb_word sp_rb_word
__attribute__((noinline)) __u64 sp_rb_word(const struct sp_rb_proc *p, __u64 cfp, __u32 pid)
#endif
{
	__u64 pc = 0, iseq = 0, ep = 0, flags = 0, aux = 0, gen = 0, enc = 0, off = SP_PY_OFF_NONE;
	__u64 word;
	__u32 kind = SP_RB_ISEQ;

	if (!p || sp_urd(&pc, 8, cfp + p->cfp_pc) || sp_urd(&iseq, 8, cfp + p->cfp_iseq) ||
	    sp_urd(&ep, 8, cfp + p->cfp_ep))
		return ~0ull;
	if (!ep || sp_urd(&flags, 8, ep))
		return 0;
	if ((flags & SP_RB_MAGIC_MASK) == SP_RB_MAGIC_CFUNC) {
		/* a C method's frame has no iseq; its method entry is ep[-2]
		 * (VM_ENV_DATA_INDEX_ME_CREF) */
		kind = SP_RB_CFUNC;
		if (sp_urd(&iseq, 8, ep - 16) || !iseq || sp_urd(&aux, 8, iseq + p->me_def) ||
		    sp_urd(&gen, 8, iseq + p->me_called_id))
			return ~0ull;
	} else {
		if (!pc || !iseq)
			return 0;
		if (sp_urd(&aux, 8, iseq + p->iseq_body) || !aux ||
		    sp_urd(&enc, 8, aux + p->body_encoded) || sp_urd(&gen, 8, aux + p->body_label))
			return ~0ull;
		if (pc >= enc && (pc - enc) / 8 < SP_PY_OFF_NONE)
			off = (pc - enc) / 8;
	}
	word = (__u64)rb_code_id(pid, iseq, aux, gen, kind) << SP_PY_ID_SHIFT |
	       off << SP_PY_OFF_SHIFT;
	if (flags & SP_RB_FLAG_FINISH)
		word |= SP_PY_GROUP_END;
	return word;
}

/* bpf_loop() body: one control frame. */
static long rb_frame(__u64 i, void *c)
{
	struct rb_walk *w = c;
	__u64 word;
	__u32 pos = w->out.pos;

	if (w->cfp > w->last)
		return 1;
	word = rb_word(&w->p, w->cfp, w->out.pid);
	if (word == ~0ull) {
		w->out.err = 1;
		return 1;
	}
	w->cfp += w->p.cfp_size;
	if (!word)
		return 0;
	if (!sp_iwalk_room(&w->out, pos))
		return 1;
	sp_iwalk_put(&w->out, pos, word);
	return 0;
}

#ifdef SP_BPF_COMPAT
__attribute__((noinline)) int sp_rb_cfps(void)
{
	struct rb_walk *w = rb_state_get();

	SP_ILOOP_BODY(rb_frame, w);
}
#endif

/* Whether ec is the context of the thread whose FS base is fsbase. */
static __always_inline SP_NODEBUG int rb_ec_mine(const struct sp_rb_proc *p, __u64 ec, __u64 fsbase)
{
	__u64 th = 0, ptid = 0;

	if (!ec || sp_urd(&th, 8, ec + p->ec_thread) || !th ||
	    (p->thread_nt && (sp_urd(&th, 8, th + p->thread_nt) || !th)))
		return 0;
	return !sp_urd(&ptid, 8, th + p->thread_id) && ptid == fsbase;
}

/* The sampled thread's execution context: its ruby_current_ec, or (TLS
 * offset unknown) the main ractor's running context when it is this
 * thread's. 0 when the thread runs no Ruby code. */
static __always_inline SP_NODEBUG __u64 rb_thread_ec(const struct sp_rb_proc *p)
{
	__u64 ractor = 0, ec = 0, fsbase = 0;
	void *task = (void *)bpf_get_current_task();

	if (bpf_probe_read_kernel(&fsbase, 8, task + p->task_fsbase) || !fsbase)
		return 0;
	if (p->ec_tls && !sp_urd(&ec, 8, fsbase - p->ec_tls) && rb_ec_mine(p, ec, fsbase))
		return ec;
	if (sp_urd(&ractor, 8, p->main_ractor) || !ractor ||
	    sp_urd(&ec, 8, ractor + p->ractor_running_ec) || !rb_ec_mine(p, ec, fsbase))
		return 0;
	return ec;
}

/* Whether the sampled process is a registered one (see sp_interp_has()). */
SP_NODEBUG int sp_rb_known(void)
{
	return sp_interp_has(&rb_procs, &rb_live);
}

/* Native frames a mixed stack keeps in a Ruby process (see
 * sp_interp_native_limit in bpf/python.bpf.c). */
SP_NODEBUG int sp_rb_native_limit(int limit)
{
	return sp_interp_limit(&rb_procs, &rb_live, limit);
}

/* Appends the sampled thread's Ruby frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known Ruby or the thread runs no Ruby code. */
SP_NODEBUG __u32 sp_rb_frames(__u64 *ips, __u32 start, __u32 end)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_rb_proc *p = sp_interp_live(&rb_live) ? bpf_map_lookup_elem(&rb_procs, &pid) : NULL;
	__u64 ec, stack = 0, size = 0;
#ifdef SP_BPF_COMPAT
	struct rb_walk *w = rb_state_get();
#else
	struct rb_walk wl, *w = &wl;
#endif

	if (!p || !w || start >= SP_MAX_FRAMES)
		return 0;
	sp_istat(&rb_stats, SP_RB_ST_WALKS, 1);
	__builtin_memcpy(&w->p, p, sizeof(w->p));
	ec = rb_thread_ec(&w->p);
	w->cfp = 0;
	if (!ec || sp_urd(&stack, 8, ec + w->p.ec_vm_stack) ||
	    sp_urd(&size, 8, ec + w->p.ec_vm_stack_size) || sp_urd(&w->cfp, 8, ec + w->p.ec_cfp) ||
	    !w->cfp || !w->p.cfp_size) {
		sp_istat(&rb_stats, SP_RB_ST_NOTHREAD, 1);
		return 0;
	}
	/* control frames grow down from the end of the VM stack; the last
	 * one is the VM's own dummy top frame */
	w->last = stack + size * 8 - 2 * (__u64)w->p.cfp_size;
	sp_iwalk_init(&w->out, ips, start, end, pid);
	SP_ILOOP(SP_MAX_FRAMES * 2, rb_frame, w, sp_rb_cfps);
	return sp_iwalk_end(&w->out, &rb_stats, w->out.full || (w->cfp <= w->last && !w->out.err));
}
