/* bpf/perl.bpf.c: Perl frames of the sampled thread, for ustack.
 *
 * For processes user space recognised as a threaded perl 5.36, 5.40 or 5.42
 * (runtime/langs/perl.c wrote their offsets into pl_procs), this takes
 * the sampled thread's interpreter, my_perl = pthread_getspecific
 * (PL_thr_key): glibc keeps the first 32 keys' values in the thread
 * descriptor at the FS base, so it is one read there (the main thread's
 * must be PL_curinterp, which checks the layout). From PL_curcop and
 * PL_curstackinfo it walks the context stack downwards, stackinfo by
 * stackinfo (si_prev): each sub, format or eval context is one frame word
 * (abi/perl.h) whose line is that of the COP the frame stands at; the
 * program's file scope is the last. Each (CV, GV, file) is announced once
 * per process (SP_EV_INTERP_CODE) so user space reads its name while the
 * process is alive; the GV is the effective one (gp_egv), as caller()
 * names a sub.
 *
 * Every read is bpf_probe_read_user: a bad read cuts the walk there
 * (counted in pl_stats), never more.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"
#include "abi/perl.h"

/* pl_stats is counted by bpf/interp_common.bpf.h with py_stats' indices */
_Static_assert((int)SP_PL_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_PL_ST_READERR == (int)SP_PY_ST_READERR &&
	       (int)SP_PL_ST_FRAMES == (int)SP_PY_ST_FRAMES &&
	       (int)SP_PL_ST_CODE_RETRY == (int)SP_PY_ST_CODE_RETRY &&
	       (int)SP_PL_ST_CODE_SENT == (int)SP_PY_ST_CODE_SENT,
	       "pl_stats and py_stats differ");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_pl_proc);
} pl_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} pl_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_PL_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} pl_stats SEC(".maps");

/* Preallocated, as py_code_seen (bpf/python.bpf.c says why). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_PL_SEEN_MAX);
	__type(key, struct sp_pl_code_key);
	__type(value, __u32);
} pl_code_seen SEC(".maps");

struct pl_code_event {
	struct sp_event_hdr hdr;
	struct sp_pl_code_rec rec;
};

/* Per CPU: the offsets of the process being walked and a record being
 * built, kept off the BPF stack (a program and the chain of functions it
 * calls share 512 bytes before 6.13). */
struct pl_cpu {
	struct sp_pl_proc p;
	struct pl_code_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_cpu);
} pl_cur SEC(".maps");

struct pl_walk {
	struct sp_iwalk out;
	__u64 si, cxstack, cop; /* the stackinfo walked, its contexts, the COP of the frame to come */
	__s32 ix;               /* the next context to look at; < 0: the stackinfo's bottom */
};

#ifdef SP_BPF_COMPAT
/* The walk's state where global functions take no pointers (SP_ILOOP). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pl_walk);
} pl_state SEC(".maps");

static __always_inline SP_NODEBUG struct pl_walk *pl_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&pl_state, &zero);
}
#endif

/* The id of (cv, gv, file) of this kind in this process; a new one is
 * announced. 0: unknown. */
static __always_inline SP_NODEBUG __u32 pl_code_id(struct pl_code_event *ev, __u32 pid, __u64 cv,
						 __u64 gv, __u64 file, __u32 kind, __u32 named)
{
	struct sp_pl_code_key k; /* field by field: no .rodata copy */
	__u32 id, *known;
	int fresh;

	k.cv = cv;
	k.gv = gv;
	k.file = file;
	k.fhead = 0;
	k.pid = pid;
	k.kind = kind;
	if (sp_urd(&k.fhead, 8, file)) /* near the end of a mapping: a shorter read */
		sp_urd(&k.fhead, 1, file);
	known = bpf_map_lookup_elem(&pl_code_seen, &k);
	if (known)
		return *known;
	id = sp_icode_new(&pl_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev->rec.id = id;
	ev->rec.kind = kind;
	ev->rec.gv = gv;
	ev->rec.file = file;
	ev->rec.named = named;
	ev->rec.pad = 0;
	ev->rec.magic = SP_PL_REC_MAGIC;
	if (bpf_probe_read_user_str(ev->rec.file_name, sizeof(ev->rec.file_name), (void *)file) <= 0)
		ev->rec.file_name[0] = 0;
	return sp_icode_send(&pl_code_seen, &pl_stats, &k, ev, sizeof(*ev), pid, cv, id);
}

/* No frame: the file scope of an interpreter that has no program yet (its
 * COP is PL_compiling, whose file perl_parse sets: perl_construct runs). */
#define PL_WORD_NONE (~1ull)

/* The word of a frame of kind (cv: a sub's CV) standing at the COP cop of
 * process pid (entered: a sub whose first statement has not run, cop its
 * caller's: no line, the sub's own file); ~0 when a read failed,
 * PL_WORD_NONE when there is no frame. A global function (codegen keeps it
 * out of line, codegen/codegen.c SP_GLOBAL_HELPERS): the verifier checks
 * it once, not on every path of the context walk that reaches it. */
__attribute__((noinline)) __u64 sp_pl_word(__u32 kind, __u64 cv, __u64 cop, __u32 pid,
					   __u32 entered)
{
	__u32 zero = 0, ln = 0, flags = 0, named = 0;
	struct pl_cpu *cpu = bpf_map_lookup_elem(&pl_cur, &zero);
	struct sp_pl_proc *p = cpu ? &cpu->p : NULL;
	__u64 file = 0, body = 0, gv = 0, gp = 0, egv = 0, line;

	if (!cpu || !p || sp_urd(&file, 8, cop + p->cop_file) || sp_urd(&ln, 4, cop + p->cop_line))
		return ~0ull;
	if (kind == SP_PL_SUB) {
		if (!cv || sp_urd(&body, 8, cv) || !body || sp_urd(&flags, 4, body + p->cv_flags) ||
		    sp_urd(&gv, 8, body + p->cv_gv))
			return ~0ull;
		named = (flags & p->cvf_named) != 0;
		/* the effective GV (an imported or aliased glob's), as caller() */
		if (!named && gv && !sp_urd(&gp, 8, gv + p->gv_gp) && gp &&
		    !sp_urd(&egv, 8, gp + p->gp_egv) && egv)
			gv = egv;
		if (entered && (sp_urd(&file, 8, body + p->cv_file) || !file))
			return ~0ull;
		if (entered)
			ln = 0;
	} else {
		cv = 0;
	}
	if (kind == SP_PL_MAIN && !file)
		return PL_WORD_NONE;
	line = ln && ln < SP_PY_OFF_NONE ? ln : SP_PY_OFF_NONE;
	return (__u64)pl_code_id(&cpu->ev, pid, cv, gv, file, kind, named) << SP_PY_ID_SHIFT |
	       line << SP_PY_OFF_SHIFT;
}

/* The bottom of a stackinfo: 0 when the walk goes on in the one below
 * it, 1 at the bottom of the last (the file scope's frame comes), -1 when
 * a read failed. */
static __always_inline SP_NODEBUG int pl_si_bottom(struct pl_walk *w, const struct sp_pl_proc *p)
{
	__u64 prev = 0;

	if (sp_urd(&prev, 8, w->si + p->si_prev))
		return -1;
	if (!prev)
		return 1;
	/* a nested runops ran the contexts of this stackinfo */
	sp_iwalk_mark(&w->out);
	w->si = prev;
	if (sp_urd(&w->cxstack, 8, prev + p->si_cxstack) || sp_urd(&w->ix, 4, prev + p->si_cxix))
		return -1;
	return 0;
}

/* bpf_loop() body: one context, or the bottom of a stackinfo. One place
 * asks for a word. */
static long pl_context(__u64 i, void *c)
{
	struct pl_walk *w = c;
	__u64 cx, next = 0, retop = 1, cv = 0, word;
	__u32 kind = SP_PL_MAIN, pos = w->out.pos, zero = 0, entered;
	struct pl_cpu *cpu = bpf_map_lookup_elem(&pl_cur, &zero);
	const struct sp_pl_proc *p = cpu ? &cpu->p : NULL;
	__u8 type = 0;
	int r;

	if (!cpu || !p)
		goto err;
	if (w->ix < 0) {
		r = pl_si_bottom(w, p);
		if (r < 0)
			goto err;
		if (r == 0)
			return 0;
		retop = 0; /* the file scope ends the outermost activation */
	} else {
		cx = w->cxstack + (__u64)(__u32)w->ix * p->cx_size;
		w->ix--;
		if (sp_urd(&type, 1, cx))
			goto err;
		type &= SP_PL_CXT_MASK;
		if (type != SP_PL_CXT_SUB && type != SP_PL_CXT_FORMAT && type != SP_PL_CXT_EVAL)
			return 0;
		kind = type == SP_PL_CXT_EVAL ? SP_PL_EVAL : SP_PL_SUB;
		if (sp_urd(&next, 8, cx + p->cx_oldcop) || sp_urd(&retop, 8, cx + p->cx_retop) ||
		    (kind == SP_PL_SUB && sp_urd(&cv, 8, cx + p->cx_sub_cv)))
			goto err;
		/* a sub being entered or left (cx_pushsub() not done yet, or
		 * cx_popsub() done): no frame, and the COP is its caller's */
		if (kind == SP_PL_SUB && !cv) {
			w->cop = next;
			return !next;
		}
	}
	/* the innermost sub, entered, its first statement not run yet */
	entered = kind == SP_PL_SUB && pos == w->out.start && next == w->cop;
	word = sp_pl_word(kind, cv, w->cop, w->out.pid, entered);
	if (word == ~0ull)
		goto err;
	if (word == PL_WORD_NONE) {
		w->si = 0; /* done: the file scope is the last */
		return 1;
	}
	if (!sp_iwalk_room(&w->out, pos))
		return 1;
	/* retop NULL: entered from C (call_sv, eval_sv), its runops' first frame */
	sp_iwalk_put(&w->out, pos, word | (retop ? 0 : SP_PY_GROUP_END));
	w->cop = next;
	if (kind == SP_PL_MAIN)
		w->si = 0; /* done */
	return !next;
err:
	w->out.err = 1;
	return 1;
}

#ifdef SP_BPF_COMPAT
__attribute__((noinline)) int sp_pl_contexts(void)
{
	struct pl_walk *w = pl_state_get();

	SP_ILOOP_BODY(pl_context, w);
}
#endif

/* The sampled thread's interpreter: its PL_thr_key value; 0 when none,
 * or when the main thread's is not PL_curinterp (a glibc whose thread
 * descriptor is laid out otherwise). */
static __always_inline SP_NODEBUG __u64 pl_thread_interp(const struct sp_pl_proc *p)
{
	__u64 id = bpf_get_current_pid_tgid(), fsbase = 0, my_perl = 0, main = 0;
	void *task = (void *)bpf_get_current_task();
	__u32 key = 0;

	if (bpf_probe_read_kernel(&fsbase, 8, task + p->task_fsbase) || !fsbase ||
	    sp_urd(&key, 4, p->thr_key) || key >= 32 ||
	    sp_urd(&my_perl, 8, fsbase + p->tsd_data + 16 * (__u64)key) || !my_perl)
		return 0;
	if ((__u32)id == (__u32)(id >> 32) &&
	    (sp_urd(&main, 8, p->curinterp) || main != my_perl))
		return 0;
	return my_perl;
}

/* Whether the sampled process is a registered one (see sp_interp_has()). */
SP_NODEBUG int sp_pl_known(void)
{
	return sp_interp_has(&pl_procs, &pl_live);
}

/* Native frames a mixed stack keeps in a perl process (see
 * sp_interp_native_limit in bpf/python.bpf.c). */
SP_NODEBUG int sp_pl_native_limit(int limit)
{
	return sp_interp_limit(&pl_procs, &pl_live, limit);
}

/* Appends the sampled thread's Perl frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known perl or the thread runs no interpreter. */
SP_NODEBUG __u32 sp_pl_frames(__u64 *ips, __u32 start, __u32 end)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_pl_proc *p = sp_interp_live(&pl_live) ? bpf_map_lookup_elem(&pl_procs, &pid) : NULL;
	struct pl_cpu *cpu;
	__u64 my_perl;
#ifdef SP_BPF_COMPAT
	struct pl_walk *w = pl_state_get();
#else
	struct pl_walk wl, *w = &wl;
#endif
	__u32 zero = 0;

	if (!p || !w || start >= SP_MAX_FRAMES || !(cpu = bpf_map_lookup_elem(&pl_cur, &zero)))
		return 0;
	sp_istat(&pl_stats, SP_PL_ST_WALKS, 1);
	__builtin_memcpy(&cpu->p, p, sizeof(cpu->p));
	p = &cpu->p; /* the process's entry may go while it is walked */
	my_perl = pl_thread_interp(p);
	w->cop = w->si = w->cxstack = 0;
	w->ix = -1;
	if (!my_perl || sp_urd(&w->cop, 8, my_perl + p->interp_curcop) ||
	    sp_urd(&w->si, 8, my_perl + p->interp_curstackinfo) || !w->cop || !w->si ||
	    sp_urd(&w->cxstack, 8, w->si + p->si_cxstack) || sp_urd(&w->ix, 4, w->si + p->si_cxix) ||
	    !p->cx_size) {
		sp_istat(&pl_stats, SP_PL_ST_NOTHREAD, 1);
		return 0;
	}
	sp_iwalk_init(&w->out, ips, start, end, pid);
	SP_ILOOP(SP_MAX_FRAMES * 4, pl_context, w, sp_pl_contexts);
	return sp_iwalk_end(&w->out, &pl_stats, w->out.full || (w->si && !w->out.err));
}
