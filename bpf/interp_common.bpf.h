/* bpf/interp_common.bpf.h: what the CPython and Ruby frame walkers share, written once.
 *
 * bpf/python.bpf.c and bpf/ruby.bpf.c keep the same kinds of maps (the
 * registered processes by pid, per-CPU counters, the code objects already
 * announced and the last code id given out) and do the same with them:
 * count, read user memory, give a code object its id and announce it once
 * per process (SP_EV_INTERP_CODE), keep room for interpreter frames in a
 * known process's stacks, store frame words and close a walk. The helpers
 * here take the walker's maps as arguments; they are static and always
 * inlined, so each walker gets its own copy on its own maps (a map
 * argument is a constant once inlined).
 * Counter indices are abi/interp.h's (enum sp_py_stat); ruby.bpf.c checks
 * that abi/ruby.h's are the same.
 */
#ifndef SPROF_BPF_INTERP_COMMON_BPF_H
#define SPROF_BPF_INTERP_COMMON_BPF_H

#include "bpf/sp_bpf.h"
#include "abi/interp.h"

/* Where a walk stores its words: ips[start..pos), at most up to end.
 *
 * Kernels without bpf_loop (SP_BPF_COMPAT): a walk is a bounded C loop of
 * calls of a global function that walks SP_ILOOP_CHUNK steps (the
 * verifier checks it once); global functions take only scalars there
 * (pointers to memory: 5.12), so the walk's state is in a per-CPU map the
 * function looks up, and its words go to the scratch stack
 * (sp_stack_scratch_buf(), which ips always is), not through ips: a
 * pointer stored in a map reads back as a number. */
#define SP_ILOOP_CHUNK 4
#ifdef SP_BPF_COMPAT
/* at most N steps of fn's walk: calls of glob(), a chunk each, until it says done */
#define SP_ILOOP(n, fn, ctx, glob)                                           \
	for (int sp_c_ = 0; sp_c_ < ((n) + SP_ILOOP_CHUNK - 1) / SP_ILOOP_CHUNK; sp_c_++) \
		if (glob())                                                   \
			break
/* the body of glob(): SP_ILOOP_CHUNK steps of fn on ctx; 1 when done */
#define SP_ILOOP_BODY(fn, ctx)                                              \
	do {                                                                 \
		if (!(ctx))                                                  \
			return 1;                                            \
		for (int sp_k_ = 0; sp_k_ < SP_ILOOP_CHUNK; sp_k_++)        \
			if (fn(0, ctx))                                      \
				return 1;                                    \
		return 0;                                                    \
	} while (0)
#else
#define SP_ILOOP(n, fn, ctx, glob) bpf_loop(n, fn, ctx, 0)
#endif

struct sp_iwalk {
	__u64 *ips;
	__u32 start, pos, end;
	__u32 pid;
	__u32 err;  /* a read failed */
	__u32 full; /* no room left */
};

static __always_inline SP_NODEBUG void sp_istat(void *stats, __u32 idx, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(stats, &idx);

	if (c)
		*c += v;
}

static __always_inline SP_NODEBUG int sp_urd(void *dst, __u32 size, __u64 addr)
{
	return (int)bpf_probe_read_user(dst, size, (const void *)addr);
}

/* Whether user space has registered any process of this interpreter
 * (live: its one-entry ARRAY, abi/interp.h SP_PY_MAP_LIVE): an inlined
 * array load, where a lookup in procs is a hash lookup. */
static __always_inline SP_NODEBUG int sp_interp_live(void *live)
{
	__u32 zero = 0;
	__u32 *v = bpf_map_lookup_elem(live, &zero);

	return v && *v;
}

/* Whether the sampled process is one user space registered in procs (a
 * map by pid): a walker has frames only there. take_stack() asks before
 * calling a walker (sp_<id>_known() of each), so a sample of any other
 * process makes no call of the walkers: a call of a global function costs
 * ~25 ns here (return thunks), and five of them were a tenth of a
 * C program's sample. */
static __always_inline SP_NODEBUG int sp_interp_has(void *procs, void *live)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	return sp_interp_live(live) && bpf_map_lookup_elem(procs, &pid) != NULL;
}

/* Native frames a mixed stack keeps in a process of procs (a map by pid):
 * at most SP_MAX_FRAMES - SP_PY_RESERVED, so deep C recursion leaves room
 * for the interpreter's frames. */
static __always_inline SP_NODEBUG int sp_interp_limit(void *procs, void *live, int limit)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	if (limit > SP_MAX_FRAMES - SP_PY_RESERVED && sp_interp_live(live) &&
	    bpf_map_lookup_elem(procs, &pid))
		return SP_MAX_FRAMES - SP_PY_RESERVED;
	return limit;
}

/* A code object not in seen (key -> id) yet: a new id (sp_icode_next,
 * bpf/common.bpf.c: one counter for every walker, not a map each) goes
 * in, *fresh set (the caller announces it). When another CPU was first,
 * its id; 0 when none could be had. */
static __always_inline SP_NODEBUG __u32 sp_icode_new(void *seen, const void *key, int *fresh)
{
	__u32 id, *known;

	*fresh = 0;
	id = sp_icode_next();
	if (!id)
		return 0;
	if (bpf_map_update_elem(seen, key, &id, BPF_NOEXIST) != 0) {
		known = bpf_map_lookup_elem(seen, key); /* another CPU was first */
		return known ? *known : 0;
	}
	*fresh = 1;
	return id;
}

/* Announces the code object at addr of pid with the record ev (size bytes,
 * struct sp_event_hdr first, the rest filled). When the ring buffer refuses
 * it, key leaves seen (it is announced again at its next sight) and the
 * frame gets id 0. id, or 0. */
static __always_inline SP_NODEBUG __u32 sp_icode_send(void *seen, void *stats, const void *key,
						      void *ev, __u32 size, __u32 pid, __u64 addr,
						      __u32 id)
{
	struct sp_event_hdr *hdr = ev;

	hdr->type = SP_EV_INTERP_CODE;
	hdr->id = pid;
	hdr->arg = addr;
	if (sp_send_record(ev, size) != 0) {
		bpf_map_delete_elem(seen, key);
		sp_istat(stats, SP_PY_ST_CODE_RETRY, 1);
		return 0;
	}
	sp_istat(stats, SP_PY_ST_CODE_SENT, 1);
	return id;
}

static __always_inline SP_NODEBUG void sp_iwalk_init(struct sp_iwalk *o, __u64 *ips, __u32 start,
						     __u32 end, __u32 pid)
{
#ifdef SP_BPF_COMPAT
	(void)ips;
	o->ips = NULL;
#else
	o->ips = ips;
#endif
	o->start = start;
	o->pos = start;
	o->end = end;
	o->pid = pid;
	o->err = 0;
	o->full = 0;
}

/* Whether a word fits at pos; `full` set when not. */
static __always_inline SP_NODEBUG int sp_iwalk_room(struct sp_iwalk *o, __u32 pos)
{
	if (pos >= o->end || pos >= SP_MAX_FRAMES) {
		o->full = 1;
		return 0;
	}
	return 1;
}

#ifdef SP_BPF_COMPAT
_Static_assert(__builtin_offsetof(struct sp_stack_val, ip) == 8 &&
		       sizeof(struct sp_stack_val) == 8 * (SP_MAX_FRAMES + 1) &&
		       ((SP_MAX_FRAMES + 1) & SP_MAX_FRAMES) == 0,
	       "sp_iwalk_slot() indexes the scratch stack as 2^n words, ip from the second");

/* Word pos of the words' array (see SP_ILOOP), pos < SP_MAX_FRAMES; NULL
 * when there is none. The index is masked where the address is made:
 * 5.10 forgets the bounds of a spilled scalar, and clang, which knows
 * pos < SP_MAX_FRAMES, would drop a mask it can see through. */
static __always_inline SP_NODEBUG __u64 *sp_iwalk_slot(__u32 pos)
{
	struct sp_stack_val *b = sp_stack_scratch_buf();
	__u64 i = (__u64)pos + 1;

	if (!b || pos >= SP_MAX_FRAMES)
		return NULL;
	asm volatile("" : "+r"(i));
	return &((__u64 *)b)[i & SP_MAX_FRAMES];
}
#endif

/* Stores word at pos (sp_iwalk_room() said it fits). */
static __always_inline SP_NODEBUG void sp_iwalk_put(struct sp_iwalk *o, __u32 pos, __u64 word)
{
#ifdef SP_BPF_COMPAT
	__u64 *slot = sp_iwalk_slot(pos);

	if (slot)
		*slot = word;
#else
	o->ips[pos] = word;
#endif
	o->pos = pos + 1;
}

/* The last word stored ends its activation's group. */
static __always_inline SP_NODEBUG void sp_iwalk_mark(struct sp_iwalk *o)
{
	__u32 last = o->pos - 1;
#ifdef SP_BPF_COMPAT
	__u64 *slot = o->pos > o->start ? sp_iwalk_slot(last) : NULL;

	if (slot)
		*slot |= SP_PY_GROUP_END;
#else
	if (o->pos > o->start && last < SP_MAX_FRAMES)
		o->ips[last] |= SP_PY_GROUP_END;
#endif
}

/* The end of a walk (more: frames were left unwalked): the outermost
 * activation ends where it stopped; counted in stats. The words stored. */
static __always_inline SP_NODEBUG __u32 sp_iwalk_end(struct sp_iwalk *o, void *stats, int more)
{
	sp_iwalk_mark(o);
	/* a limit the script gave (pystack(N), rbstack(N)) is no loss */
	if (more && o->end >= SP_MAX_FRAMES)
		sp_istat(stats, SP_PY_ST_TRUNCATED, 1);
	if (o->err)
		sp_istat(stats, SP_PY_ST_READERR, 1);
	sp_istat(stats, SP_PY_ST_FRAMES, o->pos - o->start);
	return o->pos - o->start;
}

#endif
