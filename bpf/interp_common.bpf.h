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

/* Where a walk stores its words: ips[start..pos), at most up to end. */
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

/* A code object not in seen (key -> id) yet: the next id of ids (the last
 * given out) goes in, *fresh set (the caller announces it). When another
 * CPU was first, its id; 0 when none could be had. */
static __always_inline SP_NODEBUG __u32 sp_icode_new(void *seen, void *ids, const void *key,
						     int *fresh)
{
	__u32 zero = 0, id, *known;
	__u64 *last = bpf_map_lookup_elem(ids, &zero);

	*fresh = 0;
	if (!last)
		return 0;
	id = (__u32)(__sync_fetch_and_add(last, 1) + 1);
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
	o->ips = ips;
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

/* Stores word at pos (sp_iwalk_room() said it fits). */
static __always_inline SP_NODEBUG void sp_iwalk_put(struct sp_iwalk *o, __u32 pos, __u64 word)
{
	o->ips[pos] = word;
	o->pos = pos + 1;
}

/* The last word stored ends its activation's group. */
static __always_inline SP_NODEBUG void sp_iwalk_mark(struct sp_iwalk *o)
{
	__u32 last = o->pos - 1;

	if (o->pos > o->start && last < SP_MAX_FRAMES)
		o->ips[last] |= SP_PY_GROUP_END;
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
