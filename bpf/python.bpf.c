/* bpf/python.bpf.c: CPython frames of the sampled thread, for ustack and pystack.
 *
 * A native stack of a Python program shows only the interpreter's C
 * functions. For processes user space recognised as CPython 3.8 and later
 * (runtime/langs/python.c wrote their offsets into py_procs), this walks
 * the thread's frame chain: _PyRuntime -> interpreter -> thread state of
 * the sampled thread (3.11+: the one whose native_thread_id is the tid;
 * 3.8-3.10: the one whose thread_id is the thread's pthread_t, its FS
 * base, so a thread without the GIL has its frames too; the GIL holder
 * when the kernel's BTF gives no FS base) -> current frame -> previous ... and appends one
 * word per frame to the stack being taken (abi/interp.h): an id of the code
 * object, the bytecode offset, and whether the frame is the first one its
 * _PyEval_EvalFrameDefault activation ran, so user space can splice each
 * activation's frames in place of its C frame. Names and lines are read
 * later, in user space: each code object is announced once per process
 * (SP_EV_INTERP_CODE) so it is read while the process is alive.
 *
 * Every read is bpf_probe_read_user: a process that exits, a frame being
 * built or a bad offset cuts the walk there (counted in py_stats), never
 * more.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} py_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_PY_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} py_stats SEC(".maps");

/* Code objects announced to user space. Preallocated: with
 * BPF_F_NO_PREALLOC, lookups from the sampling interrupt were seen to find
 * keys no record was sent for (their frames then stayed unknown). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct sp_py_code_key);
	__type(value, __u32);
} py_code_seen SEC(".maps");

/* The last code id given out. */

/* An SP_EV_INTERP_CODE record is built here: too big for the BPF stack. */
struct py_code_event {
	struct sp_event_hdr hdr;
	struct sp_py_code_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_code_event);
} py_code_scratch SEC(".maps");

#define MAX_THREADS 256

struct py_walk {
	struct sp_py_proc p;
	struct sp_iwalk out;
	__u64 frame;
};

struct py_find {
	__u64 t;
	__u64 found;
	__u64 tid;        /* native thread id, or the FS base (wide) */
	__u16 next_off, tid_off;
	__u32 wide;       /* the id is 8 bytes: pthread_t */
};

#ifdef SP_BPF_COMPAT
/* The walk's state where global functions take no pointers (SP_ILOOP). */
struct py_state {
	struct py_walk w;
	struct py_find f;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_state);
} py_state SEC(".maps");

static __always_inline SP_NODEBUG struct py_state *py_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&py_state, &zero);
}
#endif

/* A compact ASCII str into dst (max bytes, a power of two); its length,
 * 0 when it is something else or does not fit. */
static __always_inline SP_NODEBUG __u16 read_ascii(char *dst, __u32 max, __u64 str, __u16 data_off)
{
	__u64 len = 0;
	__u32 state = 0;

	if (!str || sp_urd(&len, sizeof(len), str + 16) || sp_urd(&state, sizeof(state), str + 32) ||
	    (state & 0x60) != 0x60 || len == 0 || len >= max)
		return 0;
	if (sp_urd(dst, len & (max - 1), str + data_off))
		return 0;
	return (__u16)len;
}

/* What the record can hold of the code object (abi/interp.h). */
static __always_inline SP_NODEBUG void fill_code(struct py_code_event *ev, const struct sp_py_proc *p,
						 __u64 code)
{
	struct sp_py_code_rec *r = &ev->rec;
	__u64 name = 0, file = 0, lt = 0, n = 0;

	r->firstlineno = 0;
	r->name_len = r->file_len = r->lt_len = r->pad = 0;
	if (sp_urd(&r->firstlineno, sizeof(r->firstlineno), code + p->code_firstlineno) ||
	    sp_urd(&name, sizeof(name), code + p->code_qualname) ||
	    sp_urd(&file, sizeof(file), code + p->code_filename) ||
	    sp_urd(&lt, sizeof(lt), code + p->code_linetable))
		return;
	r->name_len = read_ascii(r->name, SP_PY_NAME_MAX, name, p->str_ascii_data);
	r->file_len = read_ascii(r->file, SP_PY_FILE_MAX, file, p->str_ascii_data);
	if (!lt || sp_urd(&n, sizeof(n), lt + 16) || n == 0 || n > SP_PY_LT_MAX)
		return;
	if (sp_urd(r->linetable, (__u32)n, lt + 32) == 0)
		r->lt_len = (__u16)n;
}

/* The code id of a frame's code object; at first sight in this process
 * a new id, announced to user space with what BPF can copy of the code
 * object now (it may be freed before user space looks). 0 when unknown.
 * With bpf_loop, a global function (codegen/codegen.c SP_GLOBAL_HELPERS):
 * the verifier checks it once, not on every path of every bpf_loop()
 * round that reaches it; before 5.17 it stays inline (no pointer
 * arguments to global functions before 5.12). */
#ifdef SP_BPF_COMPAT
static __always_inline SP_NODEBUG __u32 code_id(const struct sp_py_proc *p, __u32 pid, __u64 code)
#else
#define code_id sp_py_code_id
__attribute__((noinline)) __u32 sp_py_code_id(const struct sp_py_proc *p, __u32 pid, __u64 code)
#endif
{
	struct sp_py_code_key k;
	struct py_code_event *ev;
	__u32 zero = 0, id, *known;
	int fresh;

	if (!p)
		return 0;
	k.code = code;
	k.name = 0;
	k.pid = pid;
	k.pad = 0;
	if (sp_urd(&k.name, sizeof(k.name), code + p->code_qualname))
		return 0;
	known = bpf_map_lookup_elem(&py_code_seen, &k);
	if (known)
		return *known;
	ev = bpf_map_lookup_elem(&py_code_scratch, &zero);
	if (!ev)
		return 0;
	id = sp_icode_new(&py_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev->rec.id = id;
	fill_code(ev, p, code);
	return sp_icode_send(&py_code_seen, &py_stats, &k, ev, sizeof(*ev), pid, code, id);
}

/* bpf_loop() body: one thread state of the list. */
static long py_thread(__u64 i, void *c)
{
	struct py_find *s = c;
	__u64 ntid = 0;

	if (!s->t || sp_urd(&ntid, s->wide ? 8 : 4, s->t + s->tid_off))
		return 1;
	if (ntid == s->tid) {
		s->found = s->t;
		return 1;
	}
	if (sp_urd(&s->t, sizeof(s->t), s->t + s->next_off))
		return 1;
	return 0;
}

#ifdef SP_BPF_COMPAT
__attribute__((noinline)) int sp_py_threads(void)
{
	struct py_state *st = py_state_get();

	SP_ILOOP_BODY(py_thread, st ? &st->f : NULL);
}
#endif

static __always_inline SP_NODEBUG __u64 find_tstate(const struct sp_py_proc *p, __u32 tid)
{
#ifdef SP_BPF_COMPAT
	struct py_state *st = py_state_get();
	struct py_find *s = st ? &st->f : NULL;
#else
	struct py_find sl, *s = &sl;
#endif
	__u64 interp = 0;

	if (!s)
		return 0;
	s->t = 0;
	s->found = 0;
	if (p->tstate_how == SP_PY_TS_GIL) {
		sp_urd(&s->found, sizeof(s->found), p->runtime + p->tstate_current);
		return s->found;
	}
	if (sp_urd(&interp, sizeof(interp), p->runtime + p->interp_head) || !interp ||
	    sp_urd(&s->t, sizeof(s->t), interp + p->interp_tstate_head))
		return 0;
	s->tid = tid;
	s->wide = 0;
	if (p->tstate_how == SP_PY_TS_PTHREAD) {
		/* pthread_self() of the sampled thread: its FS base */
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();

		s->wide = 1;
		s->tid = 0;
		if (bpf_probe_read_kernel(&s->tid, 8, (char *)task + p->task_fsbase) || !s->tid)
			return 0;
	}
	s->next_off = p->tstate_next;
	s->tid_off = p->tstate_native_tid;
	SP_ILOOP(MAX_THREADS, py_thread, s, sp_py_threads);
	return s->found;
}

/* The bytecode offset of a frame in code units, SP_PY_OFF_NONE when unknown. */
static __always_inline SP_NODEBUG __u64 frame_offset(const struct py_walk *w, __u64 f, __u64 code)
{
	__u64 instr = 0, base = code + w->p.code_start;
	__s32 lasti = -1;

	if (w->p.instr == SP_PY_IN_LASTI || w->p.instr == SP_PY_IN_LASTI_BYTES) {
		if (sp_urd(&lasti, sizeof(lasti), f + w->p.frame_instr) || lasti < 0)
			return SP_PY_OFF_NONE;
		if (w->p.instr == SP_PY_IN_LASTI_BYTES)
			lasti /= 2;
		return lasti < (__s32)SP_PY_OFF_NONE ? (__u64)lasti : SP_PY_OFF_NONE;
	}
	if (sp_urd(&instr, sizeof(instr), f + w->p.frame_instr) || instr < base ||
	    (instr - base) / 2 >= SP_PY_OFF_NONE)
		return SP_PY_OFF_NONE;
	return (instr - base) / 2;
}

/* bpf_loop() body: one frame. */
static long py_frame(__u64 i, void *c)
{
	struct py_walk *w = c;
	__u64 f = w->frame, code = 0, word;
	__u8 mark = 0;
	__u32 pos = w->out.pos;

	if (!f)
		return 1;
	if (sp_urd(&code, sizeof(code), f + w->p.frame_code) ||
	    sp_urd(&w->frame, sizeof(w->frame), f + w->p.frame_back) ||
	    (w->p.marker != SP_PY_MK_NONE && sp_urd(&mark, 1, f + w->p.frame_marker))) {
		w->out.err = 1;
		return 1;
	}
	code &= ~(__u64)w->p.code_tags;
	if (w->p.marker == SP_PY_MK_SHIM && mark >= 3) {
		sp_iwalk_mark(&w->out);
		return 0;
	}
	if (!sp_iwalk_room(&w->out, pos))
		return 1;
	word = (__u64)code_id(&w->p, w->out.pid, code) << SP_PY_ID_SHIFT |
	       frame_offset(w, f, code) << SP_PY_OFF_SHIFT;
	if (w->p.marker == SP_PY_MK_NONE || (w->p.marker == SP_PY_MK_ENTRY && mark))
		word |= SP_PY_GROUP_END;
	sp_iwalk_put(&w->out, pos, word);
	return 0;
}

#ifdef SP_BPF_COMPAT
__attribute__((noinline)) int sp_py_frames(void)
{
	struct py_state *st = py_state_get();

	SP_ILOOP_BODY(py_frame, st ? &st->w : NULL);
}
#endif

/* Whether the sampled process is a registered CPython (see sp_interp_has()). */
SP_NODEBUG int sp_interp_known(void)
{
	return sp_interp_has(&py_procs, &py_live);
}

/* Native frames a mixed stack keeps: in a known interpreter at most
 * SP_MAX_FRAMES - SP_PY_RESERVED, so deep C recursion (3.8-3.10 run each
 * Python call in its own C activation) leaves room for the Python frames. */
SP_NODEBUG int sp_interp_native_limit(int limit)
{
	return sp_interp_limit(&py_procs, &py_live, limit);
}

/* Appends the sampled thread's Python frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known interpreter or the thread runs no Python code. */
SP_NODEBUG __u32 sp_interp_frames(__u64 *ips, __u32 start, __u32 end)
{
	__u64 id = bpf_get_current_pid_tgid(), ts, top = 0;
	__u32 pid = (__u32)(id >> 32);
	struct sp_py_proc *p = sp_interp_live(&py_live) ? bpf_map_lookup_elem(&py_procs, &pid) : NULL;
#ifdef SP_BPF_COMPAT
	struct py_state *st = py_state_get();
	struct py_walk *w = st ? &st->w : NULL;
#else
	struct py_walk wl, *w = &wl;
#endif

	if (!p || !w || start >= SP_MAX_FRAMES)
		return 0;
	sp_istat(&py_stats, SP_PY_ST_WALKS, 1);
	__builtin_memcpy(&w->p, p, sizeof(w->p));
	ts = find_tstate(&w->p, (__u32)id);
	if (!ts || sp_urd(&top, sizeof(top), ts + w->p.tstate_frame) ||
	    (w->p.cframe_frame >= 0 && top &&
	     sp_urd(&top, sizeof(top), top + (__u64)w->p.cframe_frame))) {
		sp_istat(&py_stats, SP_PY_ST_NOTHREAD, 1);
		return 0;
	}
	w->frame = top;
	sp_iwalk_init(&w->out, ips, start, end, pid);
	SP_ILOOP(SP_MAX_FRAMES, py_frame, w, sp_py_frames);
	return sp_iwalk_end(&w->out, &py_stats, w->out.full || (w->frame && !w->out.err));
}
