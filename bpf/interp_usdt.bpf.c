/* bpf/interp_usdt.bpf.c: interpreter frames from the interpreters' USDT entry/return probes.
 *
 * --interp usdt (abi/interp_usdt.h): the hidden programs below are attached
 * by user space (runtime/langs/interp_usdt.c) to CPython's
 * python:function__entry/__return and Ruby's ruby:method__entry/__return
 * and cmethod__entry/__return. They keep a stack of frames per thread in
 * iu_threads: an entry pushes its frame word, a return pops the frame on
 * top when it names the same function (CPython 3.11 also fires returns for
 * frames whose entry it never reported: a profile hook's own calls, code
 * running before the probes fired; those are counted and left alone).
 * sp_iu_frames() copies the sampled thread's stack into the stack being
 * taken; codegen calls it in place of the memory walk in this mode
 * (codegen/codegen.c), and sp_iu_no_frames() in --interp off.
 *
 * A thread's first event marks its stack base unknown: it ran code before
 * (the frame that enabled the probes, at least); samples show that as one
 * SP_IU_ID_BASE word below the frames seen, never as invented frames.
 */
#include "bpf/sp_bpf.h"
#include "abi/interp_usdt.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_iu_thread);
} iu_threads SEC(".maps");

/* What a name is known by in a process: the string addresses the probe
 * passed (stable: they point into code objects and interned names), and
 * for Ruby the class name's text (rb_class_path may build a new string). */
struct iu_key {
	__u32 pid, lang;
	__u64 fn, file;
	char cls[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct iu_key);
	__type(value, __u32);
} iu_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sp_iu_name);
} iu_names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} iu_next_id SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_IU_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} iu_stats SEC(".maps");

/* A name record and a new thread are built here: too big for the stack. */
struct iu_scratch {
	struct sp_iu_name name;
	struct sp_iu_thread thread;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iu_scratch);
} iu_scratch SEC(".maps");

static __always_inline SP_NODEBUG void iu_stat(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&iu_stats, &idx);

	if (c)
		*c += 1;
}

static __always_inline SP_NODEBUG void iu_key_fill(struct iu_key *k, __u32 lang, __u64 cls,
						   __u64 fn, __u64 file)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	k->lang = lang;
	k->fn = fn;
	k->file = file;
	if (cls)
		bpf_probe_read_user_str(k->cls, sizeof(k->cls), (const void *)cls);
}

/* The strings of a new id, copied now: the process may be gone when user
 * space names the frame. */
static __always_inline SP_NODEBUG void iu_name_store(__u32 id, const struct iu_key *k, __u64 cls)
{
	__u32 zero = 0;
	struct iu_scratch *s = bpf_map_lookup_elem(&iu_scratch, &zero);
	struct sp_iu_name *n;

	if (!s) {
		iu_stat(SP_IU_ST_NONAME);
		return;
	}
	n = &s->name;
	n->lang = k->lang;
	n->pid = k->pid;
	n->cls[0] = n->fn[0] = n->file[0] = 0;
	if (cls)
		bpf_probe_read_user_str(n->cls, sizeof(n->cls), (const void *)cls);
	if (k->fn)
		bpf_probe_read_user_str(n->fn, sizeof(n->fn), (const void *)k->fn);
	if (k->file)
		bpf_probe_read_user_str(n->file, sizeof(n->file), (const void *)k->file);
	if (bpf_map_update_elem(&iu_names, &id, n, BPF_NOEXIST))
		iu_stat(SP_IU_ST_NONAME);
}

/* The id of a name; a new one (its strings stored) when `add`. 0: unknown. */
static __always_inline SP_NODEBUG __u32 iu_intern(__u32 lang, __u64 cls, __u64 fn, __u64 file,
						  int add)
{
	struct iu_key k;
	__u32 zero = 0, id, *known;
	__u64 *last;

	iu_key_fill(&k, lang, cls, fn, file);
	known = bpf_map_lookup_elem(&iu_ids, &k);
	if (known)
		return *known;
	last = add ? bpf_map_lookup_elem(&iu_next_id, &zero) : 0;
	if (!last)
		return 0;
	id = (__u32)(__sync_fetch_and_add(last, 1) + 1);
	if (id > SP_IU_ID_MAX)
		return 0;
	if (bpf_map_update_elem(&iu_ids, &k, &id, BPF_NOEXIST)) {
		known = bpf_map_lookup_elem(&iu_ids, &k); /* another CPU was first, or full */
		if (!known)
			iu_stat(SP_IU_ST_NONAME);
		return known ? *known : 0;
	}
	iu_name_store(id, &k, cls);
	return id;
}

/* The calling thread's frame stack; a new one (base unknown) when `add`. */
static __always_inline SP_NODEBUG struct sp_iu_thread *iu_thread(int add)
{
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt, pid = (__u32)(pt >> 32), zero = 0;
	struct sp_iu_thread *t = bpf_map_lookup_elem(&iu_threads, &tid);
	struct iu_scratch *s;

	if (t && t->pid == pid)
		return t;
	if (!add)
		return 0;
	if (t) { /* a thread id used again by another process */
		t->pid = pid;
		t->depth = 0;
		t->flags = SP_IU_F_BASE_UNKNOWN;
		return t;
	}
	s = bpf_map_lookup_elem(&iu_scratch, &zero);
	if (!s)
		return 0;
	s->thread.pid = pid;
	s->thread.depth = 0;
	s->thread.flags = SP_IU_F_BASE_UNKNOWN;
	s->thread.pad = 0;
	bpf_map_update_elem(&iu_threads, &tid, &s->thread, BPF_NOEXIST);
	return bpf_map_lookup_elem(&iu_threads, &tid);
}

static __always_inline SP_NODEBUG void iu_enter(__u32 lang, __u64 cls, __u64 fn, __u64 file,
						__s64 line)
{
	struct sp_iu_thread *t = iu_thread(1);
	__u32 id = iu_intern(lang, cls, fn, file, 1), d;

	if (!t)
		return;
	d = t->depth;
	if (d < SP_IU_DEPTH)
		t->frames[d] = (__u64)id | ((__u64)line & SP_IU_LINE_MASK) << SP_IU_LINE_SHIFT |
			       (__u64)lang << SP_IU_LANG_SHIFT;
	else
		iu_stat(SP_IU_ST_DEEP);
	t->depth = d + 1;
	iu_stat(SP_IU_ST_ENTRIES);
	if (lang == SP_IU_LANG_RUBY_C)
		iu_stat(SP_IU_ST_ENTRIES_C);
}

/* How deep a return looks for the frame it names. */
#define IU_RETURN_SEARCH 8

static __always_inline SP_NODEBUG void iu_return(__u32 lang, __u64 cls, __u64 fn, __u64 file)
{
	struct sp_iu_thread *t = iu_thread(0);
	__u32 id = iu_intern(lang, cls, fn, file, 0), d;

	/* a name never entered (a profile hook's lambda, code from before the
	 * probes fired) pops nothing */
	if (!t || !id || t->depth == 0) {
		iu_stat(SP_IU_ST_UNMATCHED);
		return;
	}
	d = t->depth;
	if (d > SP_IU_DEPTH) {
		t->depth = d - 1;
		iu_stat(SP_IU_ST_RETURNS);
		return;
	}
	/* the frame on top, or one a little deeper: the frames above it
	 * missed their returns (Ruby fires no return for some C methods) */
	for (__u32 k = 1; k <= IU_RETURN_SEARCH; k++) {
		if (k > d || d - k >= SP_IU_DEPTH)
			break;
		if ((__u32)t->frames[d - k] == id) {
			t->depth = d - k;
			iu_stat(SP_IU_ST_RETURNS);
			return;
		}
	}
	iu_stat(SP_IU_ST_UNMATCHED);
}

/* python:function__entry/__return(filename, funcname, lineno) */
SEC("usdt") int sp_iu_prog_py_entry(void *ctx)
{
	iu_enter(SP_IU_LANG_PYTHON, 0, (__u64)sp_usdt_arg(ctx, 1), (__u64)sp_usdt_arg(ctx, 0),
		 sp_usdt_arg(ctx, 2));
	return 0;
}

SEC("usdt") int sp_iu_prog_py_return(void *ctx)
{
	iu_return(SP_IU_LANG_PYTHON, 0, (__u64)sp_usdt_arg(ctx, 1), (__u64)sp_usdt_arg(ctx, 0));
	return 0;
}

/* ruby:method__entry/__return and cmethod__*(classname, methodname, filename, lineno) */
SEC("usdt") int sp_iu_prog_rb_entry(void *ctx)
{
	iu_enter(SP_IU_LANG_RUBY, (__u64)sp_usdt_arg(ctx, 0), (__u64)sp_usdt_arg(ctx, 1),
		 (__u64)sp_usdt_arg(ctx, 2), sp_usdt_arg(ctx, 3));
	return 0;
}

SEC("usdt") int sp_iu_prog_rb_centry(void *ctx)
{
	iu_enter(SP_IU_LANG_RUBY_C, (__u64)sp_usdt_arg(ctx, 0), (__u64)sp_usdt_arg(ctx, 1),
		 (__u64)sp_usdt_arg(ctx, 2), sp_usdt_arg(ctx, 3));
	return 0;
}

SEC("usdt") int sp_iu_prog_rb_return(void *ctx)
{
	iu_return(SP_IU_LANG_RUBY, (__u64)sp_usdt_arg(ctx, 0), (__u64)sp_usdt_arg(ctx, 1),
		  (__u64)sp_usdt_arg(ctx, 2));
	return 0;
}

SEC("usdt") int sp_iu_prog_rb_creturn(void *ctx)
{
	iu_return(SP_IU_LANG_RUBY_C, (__u64)sp_usdt_arg(ctx, 0), (__u64)sp_usdt_arg(ctx, 1),
		  (__u64)sp_usdt_arg(ctx, 2));
	return 0;
}

/* A thread that exits leaves its stack behind. */
SEC("tracepoint/sched/sched_process_exit") int sp_iu_prog_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	(void)ctx;
	bpf_map_delete_elem(&iu_threads, &tid);
	return 0;
}

/* --- samples ------------------------------------------------------------------ */

/* The copy's bounds are computed before the loop from the thread's depth
 * (a map value, unknown to the verifier) and the body writes nothing back:
 * a position counted up in the loop would be a different known constant
 * after each iteration, and the verifier would check the rest of the
 * program once per value. */
struct iu_copy {
	struct sp_iu_thread *t;
	__u64 *ips;
	__u32 start, n, top;
};

/* bpf_loop() body: frame top - 1 - i to ips[start + i], innermost first. */
static long iu_copy_frame(__u64 i, void *c)
{
	struct iu_copy *s = c;
	__u32 src = s->top - 1 - (__u32)i, dst = s->start + (__u32)i;

	if (i >= s->n || src >= SP_IU_DEPTH || dst >= SP_MAX_FRAMES)
		return 1;
	s->ips[dst] = s->t->frames[src];
	return 0;
}

/* The sampled thread's interpreter frames (innermost first) into ips from
 * index start, at most up to end; returns how many. */
SP_NODEBUG __u32 sp_iu_frames(__u64 *ips, __u32 start, __u32 end)
{
	struct sp_iu_thread *t = iu_thread(0);
	struct iu_copy s;
	__u32 depth, pos = start, top, n;

	if (!t || start >= SP_MAX_FRAMES || end > SP_MAX_FRAMES || start >= end) {
		iu_stat(SP_IU_ST_NOSTACK);
		return 0;
	}
	iu_stat(SP_IU_ST_SAMPLES);
	depth = t->depth;
	top = depth > SP_IU_DEPTH ? SP_IU_DEPTH : depth;
	if (depth > SP_IU_DEPTH && pos < end && pos < SP_MAX_FRAMES)
		ips[pos++] = SP_IU_ID_DEEP;
	n = end - pos < top ? end - pos : top;
	if (n < top && end >= SP_MAX_FRAMES)
		iu_stat(SP_IU_ST_CUT);
	s.t = t;
	s.ips = ips;
	s.start = pos;
	s.n = n;
	s.top = top;
	if (n)
		sp_loop(n, iu_copy_frame, &s, SP_MAX_FRAMES);
	pos += n;
	if ((t->flags & SP_IU_F_BASE_UNKNOWN) && pos < end && pos < SP_MAX_FRAMES)
		ips[pos++] = SP_IU_ID_BASE;
	return pos - start;
}

/* Native frames a mixed stack keeps: room for the interpreter frames of a
 * thread that has some (as sp_interp_native_limit does). */
SP_NODEBUG int sp_iu_native_limit(int limit)
{
	if (limit > SP_MAX_FRAMES - SP_IU_DEPTH / 2 && iu_thread(0))
		return SP_MAX_FRAMES - SP_IU_DEPTH / 2;
	return limit;
}

/* --interp off: no interpreter frames. */
SP_NODEBUG __u32 sp_iu_no_frames(__u64 *ips, __u32 start, __u32 end)
{
	(void)ips;
	(void)start;
	(void)end;
	return 0;
}

/* Whether stacks take interpreter frames at all (take_stack() in
 * bpf/common.bpf.c asks): --interp off puts sp_iu_walk_off() in its place
 * (codegen/cg_interp.c), so no call of the walkers is left, rather than
 * calls of walkers that ignore their arguments (LLVM then leaves the
 * argument registers unset, which the verifier refuses at a global
 * function's call). Defined here, not beside its caller: clang would fold
 * its answer into the caller before codegen could replace it. */
SP_NODEBUG int sp_interp_walk_on(void)
{
	return 1;
}

SP_NODEBUG int sp_iu_walk_off(void)
{
	return 0;
}

SP_NODEBUG int sp_iu_no_limit(int limit)
{
	return limit;
}
