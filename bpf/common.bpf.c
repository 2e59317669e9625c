/* bpf/common.bpf.c: maps and helpers every generated program may use.
 *
 * Stacks: the .eh_frame unwinder (bpf/unwind.bpf.c) for processes user
 * space made tables for, else bpf_get_stack(), into a per-CPU scratch
 * buffer; a 64-bit hash of the frames as the id, and the frames stored
 * once in sp_stacks under that id (BPF_NOEXIST). Unlike a STACK_TRACE map this costs memory only for the
 * stacks actually seen (no preallocation), never replaces one stack by
 * another on a hash-bucket collision, and a full map is counted in
 * sp_stack_drops instead of dropping silently.
 *
 * Interpreter frames: user stacks of processes user space registered as
 * CPython get the Python frames appended after the native ones
 * (bpf/python.bpf.c, struct sp_stack_val.ninterp); pystack takes only those.
 *
 * The process tree: with -c and -p the target's descendants pass the
 * filter too (sp_follow, filled by the hidden programs sp_follow_fork and
 * sp_follow_exit on sched_process_fork/exit; codegen keeps them only when
 * following).
 *
 * New processes: the first user stack from a process sends SP_EV_NEWPID on
 * the ring buffer, so user space snapshots /proc/PID/maps while the process
 * is alive and can symbolize it after it exits.
 *
 * The license lives here too: bpf_get_stack is GPL-only.
 */
#include "bpf/sp_bpf.h"
#include "abi/unwind_table.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct sp_stack_val);
} sp_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} sp_seen_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_config);
} sp_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sp_stack_drops SEC(".maps");

/* Keys inserted since the last drain: slot 0 sp_stacks, 1 + i plan map i
 * (abi/plan.h; the runtime sizes it); bit 63: the half of a drained map
 * BPF writes (SP_FILL_GEN). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sp_fill SEC(".maps");

/* Samples lost or cut, by enum sp_lost_cause. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_LOST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} sp_lost SEC(".maps");

/* func and probe of wildcard attach points, by bpf cookie (the runtime
 * resizes and fills it). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_probe_name);
} sp_probe_names SEC(".maps");

/* Scratch space for one stack; too big for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sp_stack_val);
} sp_stack_scratch SEC(".maps");

/* Threads of the -p/-c target seen leaving the CPU, so the sched_switch
 * that brings one back (which runs in another task's context) passes the
 * filter too: off-CPU scripts need both halves. Not an sp_* name, so codegen
 * drops the map from programs without a sched_switch probe, and the runtime
 * reads sched_switch's format only when it is there. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} swf_target_tids SEC(".maps");

/* Processes descended from the -c/-p target, by tgid (thread ids of their
 * threads too: a fork record cannot tell a thread from a process; they go
 * when the thread exits). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} sp_follow SEC(".maps");

static __always_inline int is_target(const struct sp_config *c, __u32 tgid)
{
	return tgid == c->target_pid || (c->follow && bpf_map_lookup_elem(&sp_follow, &tgid));
}

/* -p/-c: only the target's events (and its descendants' when following);
 * system wide: everything but sprof. Nothing once the run has stopped (END
 * and the report come before the slow detach). */
SP_NODEBUG int sp_filter(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	if (!c)
		return 1;
	if (c->stopped)
		return 0;
	if (c->target_pid == 0)
		return tgid != c->self_pid || c->self_pid == 0;
	return is_target(c, tgid);
}

/* sched_process_fork, in the parent's context: a child of a followed
 * process is followed from its first instruction. */
SEC("tracepoint/sched/sched_process_fork") int sp_follow_fork(void *ctx)
{
	__u32 zero = 0, child = 0;
	__u8 one = 1;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	if (!c || !c->follow || c->fork_child_off == 0 || c->fork_child_off > 4096 ||
	    !is_target(c, (__u32)(bpf_get_current_pid_tgid() >> 32)))
		return 0;
	if (bpf_probe_read_kernel(&child, sizeof(child), (char *)ctx + c->fork_child_off) == 0)
		bpf_map_update_elem(&sp_follow, &child, &one, BPF_ANY);
	return 0;
}

/* sched_process_exit, in the exiting thread: a thread's entry goes, and
 * the process's with its last thread (group_dead). */
SEC("tracepoint/sched/sched_process_exit") int sp_follow_exit(void *ctx)
{
	__u32 zero = 0;
	__u8 dead = 0;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = (__u32)(id >> 32);
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	if (!c || !c->follow)
		return 0;
	if (tid != tgid)
		bpf_map_delete_elem(&sp_follow, &tid);
	if (c->exit_group_dead_off == 0 || c->exit_group_dead_off > 4096)
		dead = tid == tgid; /* an older kernel: the leader's exit ends it */
	else if (bpf_probe_read_kernel(&dead, sizeof(dead), (char *)ctx + c->exit_group_dead_off))
		dead = tid == tgid;
	if (dead)
		bpf_map_delete_elem(&sp_follow, &tgid);
	return 0;
}

/* The event belongs to the target when current is one of its threads
 * (remembered in swf_target_tids) or when the thread id at byte `off` of
 * the tracepoint record is one seen before. */
static __always_inline int filter_tid_field(void *ctx, struct sp_config *c, __u32 off)
{
	__u32 other = 0;
	__u8 one = 1;
	__u64 id = bpf_get_current_pid_tgid();

	if (is_target(c, (__u32)(id >> 32))) {
		__u32 tid = (__u32)id;
		bpf_map_update_elem(&swf_target_tids, &tid, &one, BPF_ANY);
		return 1;
	}
	if (off == 0 || off > 4096)
		return 0;
	if (bpf_probe_read_kernel(&other, sizeof(other), (char *)ctx + off))
		return 0;
	return bpf_map_lookup_elem(&swf_target_tids, &other) != 0;
}

/* The filter of tracepoint:sched:sched_switch programs: the task leaving
 * the CPU (current) or the one coming in (next_pid) is the target's. */
SP_NODEBUG int sp_filter_switch(void *ctx)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	if (!c || c->target_pid == 0 || c->stopped)
		return sp_filter();
	return filter_tid_field(ctx, c, c->switch_next_pid_off);
}

/* The filter of sched_wakeup/sched_wakeup_new programs: the waker
 * (current) or the woken thread (pid) is the target's. A wakeup runs in
 * the waker's context, often an interrupt in some other task, so run-queue
 * and waker scripts need the second half. */
SP_NODEBUG int sp_filter_wakeup(void *ctx)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	if (!c || c->target_pid == 0 || c->stopped)
		return sp_filter();
	return filter_tid_field(ctx, c, c->wakeup_pid_off);
}

SP_NODEBUG __u64 sp_elapsed(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);
	__u64 now = bpf_ktime_get_ns();

	return c && c->start_ns && now > c->start_ns ? now - c->start_ns : 0;
}

/* The wall clock in ns for tseries(): boot time (counting suspend) plus
 * CLOCK_REALTIME - CLOCK_BOOTTIME at start, as bpftrace's tseries does. */
SP_NODEBUG __u64 sp_wall_ns(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	return bpf_ktime_get_boot_ns() + (c ? c->wall_delta_ns : 0);
}

SP_NODEBUG __u64 sp_cpid(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	return c ? c->cpid : 0;
}

/* exit(): no probe runs its actions after this one (user space detaches
 * later; until then filtered programs and interval timers return at once),
 * so the maps printed at the end hold exactly what ran before exit(). */
SP_NODEBUG void sp_emit_exit(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	if (c)
		c->stopped = 1;
	sp_emit_event(SP_EV_EXIT, 0, 0);
}

/* interval timers are not events of a process: only the stop flag. */
SP_NODEBUG int sp_running(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);

	return !c || !c->stopped;
}

SP_NODEBUG void sp_count_lost(__u32 cause)
{
	__u64 *d = bpf_map_lookup_elem(&sp_lost, &cause);

	if (d)
		*d += 1;
}

/* Wakes runtime/drain.c's thread when a map needs draining: one record
 * (the fill slot) per drain cycle. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} sp_drain_ring SEC(".maps");

/* A new id of an interpreter walker's code object (bpf/interp_common.bpf.h):
 * each CPU counts its own, the CPU in the low 10 bits (ids are unique, not
 * dense; user space takes them as given). 0 when none can be had. One
 * counter for every walker, not a map each: a program may use at most 64
 * maps, and every walker's maps are in every program that takes a user
 * stack (stdlib/offwake.sp was at 63). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sp_icode_ctr SEC(".maps");

SP_NODEBUG __u32 sp_icode_next(void)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&sp_icode_ctr, &zero);

	if (!c)
		return 0;
	*c += 1;
	return (__u32)(*c << 10) | (bpf_get_smp_processor_id() & 1023);
}

/* bpf_loop() body of sp_note_insert(): its branches stay inside the
 * callback, so a probe with map updates in a loop costs the verifier no
 * more paths than without drains. */
static long note_insert_cb(__u64 i, void *ctx)
{
	__u32 slot = *(__u32 *)ctx, zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);
	__u64 *n = bpf_map_lookup_elem(&sp_fill, &slot);
	__u64 at, old, s = slot;

	if (!c || !n)
		return 1;
	at = slot ? c->drain_at : c->stack_drain_at;
#ifdef SP_BPF_COMPAT
	/* no fetching atomics before 5.12: a racing insert may make both CPUs
	 * miss the mark, and user space's poll drains then */
	__sync_fetch_and_add(n, 1);
	old = *n - 1;
#else
	old = __sync_fetch_and_add(n, 1);
#endif
	old &= ~SP_FILL_GEN;
	if (at && old + 1 == at) /* lost when full: the thread polls too */
		bpf_ringbuf_output(&sp_drain_ring, &s, sizeof(s), BPF_RB_FORCE_WAKEUP);
	return 1;
}

/* A key was inserted into fill slot `slot`: once the count since the last
 * drain reaches the mark, wake user space (it resets the count when it
 * drains). */
SP_NODEBUG void sp_note_insert(__u32 slot)
{
	sp_loop(1, note_insert_cb, &slot, 1);
}

/* An update of a drained map begins: counted in slot SP_DROPS_INFLIGHT of
 * the map's drops counters, then fill slot `slot`'s SP_FILL_GEN bit read
 * (set: the map's other half takes the update; bpf/maps.bpf.c
 * sp_map_upsert). The count is a locked add, a full barrier on x86: either
 * user space sees it after flipping the bit, and waits, or this read sees
 * the flip (abi/plan.h). */
SP_NODEBUG __u64 sp_map_enter(void *drops, __u32 slot)
{
	__u32 one = SP_DROPS_INFLIGHT;
	__u64 *n = bpf_map_lookup_elem(drops, &one), *fill;

	if (n)
		__sync_fetch_and_add(n, 1);
	fill = bpf_map_lookup_elem(&sp_fill, &slot);
	return fill ? *fill & SP_FILL_GEN : 0;
}

/* The update sp_map_enter() began is done: no pointer into the map is
 * used after this. */
SP_NODEBUG void sp_map_leave(void *drops)
{
	__u32 one = SP_DROPS_INFLIGHT;
	__u64 *n = bpf_map_lookup_elem(drops, &one);

	if (n)
		__sync_fetch_and_add(n, -1);
}

static __always_inline SP_NODEBUG __u64 mix64(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

struct hash_ctx {
	struct sp_stack_val *buf;
	__u64 h;
	__u32 nr;
};

/* bpf_loop() body: one frame into the hash. A callback instead of a C loop
 * keeps loops out of the generated module, which saves a third of the
 * compile time of a stack-taking program. */
static long hash_frame(__u64 i, void *c)
{
	struct hash_ctx *x = c;

	if (i >= x->nr || i >= SP_MAX_FRAMES)
		return 1;
	x->h = mix64(x->h ^ x->buf->ip[i]) + i;
	return 0;
}

struct cmp_ctx {
	struct sp_stack_val *a, *b;
	__u32 nr;
	int diff;
};

static long cmp_frame(__u64 i, void *c)
{
	struct cmp_ctx *x = c;

	if (i >= x->nr || i >= SP_MAX_FRAMES)
		return 1;
	if (x->a->ip[i] != x->b->ip[i]) {
		x->diff = 1;
		return 1;
	}
	return 0;
}

/* Whether stored stack s is buf. With all 64 bits of hash in the key, equal
 * depths and leaves are enough (two stacks agreeing there by chance: about
 * 2^-64 per pair); a test's shortened hash (sp_config.test_hash_bits)
 * compares every frame. */
static __always_inline SP_NODEBUG int same_stack(struct sp_stack_val *s, struct sp_stack_val *buf,
						 int all)
{
	struct cmp_ctx cc;

	if (s->nr != buf->nr || s->ninterp != buf->ninterp || s->ip[0] != buf->ip[0])
		return 0;
	if (!all)
		return 1;
	cc.a = s;
	cc.b = buf;
	cc.nr = buf->nr + buf->ninterp; /* native frames, then interpreter frames */
	cc.diff = 0;
	sp_loop(cc.nr, cmp_frame, &cc, SP_MAX_FRAMES);
	return !cc.diff;
}

/* 1: the stack is stored under h (now or before), 0: h holds another
 * stack, -1: the map is full. */
static __always_inline SP_NODEBUG int store_stack(__u64 h, struct sp_stack_val *buf, int all)
{
	struct sp_stack_val *s = bpf_map_lookup_elem(&sp_stacks, &h);
	long r;

	if (s) /* lockless: most samples repeat a known stack */
		return same_stack(s, buf, all);
	r = bpf_map_update_elem(&sp_stacks, &h, buf, BPF_NOEXIST);
	if (r == 0) {
		sp_note_insert(0);
		return 1;
	}
	if (r != -17 /* EEXIST: another CPU stored it meanwhile */)
		return -1;
	s = bpf_map_lookup_elem(&sp_stacks, &h);
	return s ? same_stack(s, buf, all) : 1;
}

/* All 64 bits of a stack hash, or the low sp_config.test_hash_bits (the
 * drain tier forces collisions with it). */
static __always_inline SP_NODEBUG __u64 hash_mask(void)
{
	__u32 zero = 0;
	struct sp_config *c = bpf_map_lookup_elem(&sp_config, &zero);
	__u32 bits = c ? c->test_hash_bits : 0;

	return bits && bits < 64 ? (1ULL << bits) - 1 : ~0ULL;
}

/* What take_stack() adds to a user stack: interpreter frames
 * (bpf/python.bpf.c, bpf/ruby.bpf.c, bpf/perl.bpf.c) after the native ones, or only those
 * (pystack: Python's, rbstack with INTERP_RUBY: Ruby's). */
enum { INTERP_NONE, INTERP_MIXED, INTERP_ONLY };
enum { INTERP_PYTHON, INTERP_RUBY };

/* Where a stack's frames are made: global BPF functions, each called by
 * take_stack() in turn, never one inside another. The verifier checks a
 * global function once per program, not at every stack a program takes;
 * and its locals (the walkers' state, the bpf_loop contexts) stay out of
 * the calling program's frame. Kernels before 6.13 (no private stacks)
 * count a program's frame and those of the functions and callbacks it
 * calls, down any one chain, against one 512-byte limit ("combined stack
 * size of 3 calls is 608. Too large"): each chain below is the program's
 * frame plus at most ~320 bytes (tests/tier_kernels.py loads them on
 * 6.1). The scratch stack (sp_stack_scratch) carries the frames between
 * them. */

/* The user-stack unwinder as a global BPF function: the verifier checks
 * it once per program instead of at every user stack the program takes
 * (each inlined copy costs ~100k verified instructions; four stacks in one
 * probe went over the million-instruction limit). It fills the per-CPU
 * scratch stack that take_stack() reads; codegen keeps it out of line
 * (codegen/codegen.c: SP_GLOBAL_HELPERS). */
__attribute__((noinline)) int sp_unwind_global(int max)
{
	__u32 zero = 0;
	struct sp_stack_val *buf = bpf_map_lookup_elem(&sp_stack_scratch, &zero);

	if (!buf)
		return -1;
	return sp_unwind_user(buf, max);
}

/* The scratch stack (bpf/unwind.bpf.c's walk on kernels whose global
 * functions take no pointers, SP_BPF_COMPAT). */
SP_NODEBUG struct sp_stack_val *sp_stack_scratch_buf(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sp_stack_scratch, &zero);
}

/* The scratch stack's frames from n on, when n and end (the last slot the
 * language's frames may take) are in range; NULL otherwise. */
static __always_inline SP_NODEBUG __u64 *lang_ips(int n, int end)
{
	__u32 zero = 0;
	struct sp_stack_val *buf = bpf_map_lookup_elem(&sp_stack_scratch, &zero);

	if (!buf || n < 0 || n > SP_MAX_FRAMES || end < 0 || end > SP_MAX_FRAMES)
		return NULL;
	return buf->ip;
}

/* A language's frames after the n native ones of the scratch stack; how
 * many. */
__attribute__((noinline)) int sp_stack_py(int n, int end)
{
	__u64 *ips = lang_ips(n, end);

	return ips ? (int)sp_interp_frames(ips, (__u32)n, (__u32)end) : 0;
}

/* The same for each runtime of abi/langs.h: sp_stack_rb, sp_stack_pl, ...
 * A walker that needs newer kernels (compat 0) is neither defined nor
 * called in the helpers built for kernels before 5.17 (SP_BPF_COMPAT): a
 * stub that ignored its arguments would reach the verifier with them
 * undefined ("Caller passes invalid args into func"). */
#define SP_STACK_LANG_1(id)                                                     \
	__attribute__((noinline)) int sp_stack_##id(int n, int end)               \
	{                                                                       \
		__u64 *ips = lang_ips(n, end);                                  \
                                                                                \
		return ips ? (int)sp_##id##_frames(ips, (__u32)n, (__u32)end) : 0; \
	}
#ifdef SP_BPF_COMPAT
#define SP_STACK_LANG_0(id)
#define SP_LANG_IN_OBJ_0 0
#else
#define SP_STACK_LANG_0(id) SP_STACK_LANG_1(id)
#define SP_LANG_IN_OBJ_0 1
#endif
#define SP_LANG_IN_OBJ_1 1
#define SP_STACK_LANG_DECL(id, compat, only) int sp_stack_##id(int n, int end);
SP_BPF_LANGS(SP_STACK_LANG_DECL)
#undef SP_STACK_LANG_DECL
/* A runtime whose file defines no sp_<id>_known() is asked every sample,
 * as before: this weak one gives way to the file's (llvm-link). */
#define SP_LANG_KNOWN_ANY(id, compat, only)                                     \
	__attribute__((weak)) SP_NODEBUG int sp_##id##_known(void)              \
	{                                                                       \
		return 1;                                                       \
	}
SP_BPF_LANGS(SP_LANG_KNOWN_ANY)
#undef SP_LANG_KNOWN_ANY
#define SP_STACK_LANG(id, compat, only) SP_STACK_LANG_##compat(id)
SP_BPF_LANGS(SP_STACK_LANG)
#undef SP_STACK_LANG

/* Hashes the scratch buffer's stack and stores it in sp_stacks; its id,
 * 0 when it is lost. */
__attribute__((noinline)) __u64 sp_stack_store(void)
{
	__u32 zero = 0;
	struct sp_stack_val *buf = bpf_map_lookup_elem(&sp_stack_scratch, &zero);
	struct hash_ctx hc; /* set field by field: an initializer would be copied
			     * from .rodata, an extra map for libbpf to create */
	__u64 h, mask;
	long r;
	__u32 nr;

	if (!buf)
		return 0;
	nr = buf->nr;
	hc.buf = buf;
	hc.h = 0x9e3779b97f4a7c15ULL;
	hc.nr = nr + buf->ninterp;
	sp_loop(hc.nr, hash_frame, &hc, SP_MAX_FRAMES);
	mask = hash_mask();
	h = (mix64(hc.h ^ nr ^ ((__u64)buf->ninterp << 32)) & mask) | 1;
	if (nr >= SP_MAX_FRAMES) /* deeper than a stack can hold (not a limit asked for) */
		sp_count_lost(SP_LOST_STACK_TRUNCATED);
	/* a different stack under the same hash (a stored stack is compared
	 * frame by frame) takes a second hash; two collisions lose the stack */
	r = store_stack(h, buf, mask != ~0ULL);
	if (r == 0) {
		h = (mix64(h ^ 0x5851f42d4c957f2dULL) & mask) | 1;
		r = store_stack(h, buf, mask != ~0ULL);
	}
	if (r == 0) {
		sp_count_lost(SP_LOST_STACK_COLLISION);
		return 0;
	}
	if (r < 0) {
		__u64 *d = bpf_map_lookup_elem(&sp_stack_drops, &zero);

		if (d)
			*d += 1;
	}
	return h;
}

/* Takes a stack into the scratch buffer and stores it in sp_stacks;
 * returns its id, 0 for an empty stack. Inlined where a program asks:
 * only the frame-pointer fallback needs the program's context. */
static __always_inline SP_NODEBUG __u64 take_stack(void *ctx, int limit, __u64 flags, int interp,
						   int lang)
{
	__u32 zero = 0;
	struct sp_stack_val *buf = bpf_map_lookup_elem(&sp_stack_scratch, &zero);
	__u32 nr, end;
	long n;
	int ni, keep;

	if (!buf)
		return 0;
	if (limit < 1)
		limit = 1;
	if (limit > SP_MAX_FRAMES)
		limit = SP_MAX_FRAMES;
	/* the room kept for interpreter frames is no limit of the program's:
	 * the unwinder keeps the native root and marks the gap */
	keep = limit;
	if (interp == INTERP_MIXED) { /* each walker's room, abi/langs.h's in turn */
		limit = sp_interp_native_limit(limit);
#define SP_LANG_LIMIT(id, compat, only) limit = sp_##id##_native_limit(limit);
		SP_BPF_LANGS(SP_LANG_LIMIT)
#undef SP_LANG_LIMIT
	}
	keep = limit < keep ? SP_UNW_KEEP_BOTTOM : 0;
	/* user stacks: the .eh_frame unwinder when user space gave it tables
	 * for this process (bpf/unwind.bpf.c), else the kernel's frame-pointer
	 * walk */
	n = -1;
	if (interp == INTERP_ONLY)
		n = 0;
	else if (flags & BPF_F_USER_STACK)
		n = sp_unwind_global(limit | keep);
	if (n < 0) {
		n = bpf_get_stack(ctx, buf->ip, (__u32)limit * sizeof(__u64), flags);
		n = n > 0 ? n / (long)sizeof(__u64) : 0;
	}
	if (n < 0 || (n == 0 && interp != INTERP_ONLY))
		return 0;
	nr = (__u32)n;
	if (nr > SP_MAX_FRAMES)
		nr = SP_MAX_FRAMES;
	end = interp == INTERP_ONLY ? (__u32)limit : SP_MAX_FRAMES;
	ni = 0;
	if (!sp_interp_walk_on())
		interp = INTERP_NONE;
	/* a process is CPython, Ruby or perl (or none): the frames of its walker;
	 * INTERP_ONLY takes those of one language */
	if ((interp == INTERP_MIXED || (interp == INTERP_ONLY && lang == INTERP_PYTHON)) &&
	    sp_interp_known())
		ni = sp_stack_py((int)nr, (int)end);
	/* then each of abi/langs.h in turn; a walker not built into this
	 * object (SP_LANG_IN_OBJ_0 under SP_BPF_COMPAT) is not called, nor
	 * one whose processes this is not (sp_<id>_known(), inlined: no call) */
#define SP_LANG_TRY(id, compat, only)                                                   \
	if (SP_LANG_IN_OBJ_##compat &&                                                  \
	    ((interp == INTERP_MIXED && ni == 0) || (interp == INTERP_ONLY && lang == (only))) && \
	    sp_##id##_known())                                                          \
		ni = sp_stack_##id((int)nr, (int)end);
	SP_BPF_LANGS(SP_LANG_TRY)
#undef SP_LANG_TRY
	if (ni < 0 || ni > SP_MAX_FRAMES)
		ni = 0;
	buf->nr = nr;
	buf->ninterp = (__u32)ni;
	if (nr + (__u32)ni == 0)
		return 0;
	return sp_stack_store();
}

static __always_inline SP_NODEBUG void note_pid(__u32 pid)
{
	__u8 one = 1;

	if (pid == 0 || bpf_map_lookup_elem(&sp_seen_pids, &pid))
		return;
	if (bpf_map_update_elem(&sp_seen_pids, &pid, &one, BPF_NOEXIST) != 0)
		return;
	/* Not delivered: forget the pid so the next sample tries again. */
	if (sp_send_event(SP_EV_NEWPID, 0, pid) != 0)
		bpf_map_delete_elem(&sp_seen_pids, &pid);
}

/* For user addresses kept without a stack (usym): make sure user space
 * snapshots the process's mappings. */
SP_NODEBUG void sp_note_pid(void)
{
	note_pid((__u32)(bpf_get_current_pid_tgid() >> 32));
}

SP_NODEBUG void sp_ustack(void *ctx, struct sp_ustack_key *out, int limit)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	out->stack_id = take_stack(ctx, limit, BPF_F_USER_STACK, INTERP_MIXED, INTERP_PYTHON);
	out->pid = pid;
	out->pad = 0;
	if (out->stack_id) /* kernel threads have no user frames to symbolize */
		note_pid(pid);
}

/* pystack: the interpreter frames alone. The pid is noted even while the
 * stack is empty: user space recognises interpreters from that. */
SP_NODEBUG void sp_pystack(void *ctx, struct sp_ustack_key *out, int limit)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	out->stack_id = take_stack(ctx, limit, BPF_F_USER_STACK, INTERP_ONLY, INTERP_PYTHON);
	out->pid = pid;
	out->pad = 0;
	note_pid(pid);
}

/* rbstack: the Ruby frames alone, likewise. */
SP_NODEBUG void sp_rbstack(void *ctx, struct sp_ustack_key *out, int limit)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	out->stack_id = take_stack(ctx, limit, BPF_F_USER_STACK, INTERP_ONLY, INTERP_RUBY);
	out->pid = pid;
	out->pad = 0;
	note_pid(pid);
}

SP_NODEBUG __u64 sp_kstack(void *ctx, int limit)
{
	return take_stack(ctx, limit, 0, INTERP_NONE, INTERP_PYTHON);
}

/* `func` (which 0) or `probe` (which 1) of the attach point that fired,
 * when one program serves several (wildcards). */
SP_NODEBUG void sp_probe_name(void *ctx, int which, char *dst, __u32 size)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct sp_probe_name *n = bpf_map_lookup_elem(&sp_probe_names, &idx);

	if (!n) {
		dst[0] = 0;
		return;
	}
	bpf_probe_read_kernel_str(dst, size, which ? n->probe : n->func);
}

/* Reads from an address that may be kernel or user memory (a pointer in a
 * tracepoint record or a kprobe argument): kernel first, then user. In
 * uprobes (user 1) only user memory is tried. */
SP_NODEBUG long sp_read_str(char *dst, __u32 size, const void *src, int user)
{
	long r = -1;

	if (!user)
		r = bpf_probe_read_kernel_str(dst, size, src);
	if (r < 0)
		r = bpf_probe_read_user_str(dst, size, src);
	return r;
}

/* str() in a sleepable uprobe (abi/plan.h's `sleepable`): a string on a
 * page the process never touched (a constant in .rodata read for the first
 * time by the traced function's callee) fails bpf_probe_read_user_str with
 * -EFAULT, since BPF cannot take page faults; bpf_copy_from_user can,
 * sleeping while the page is read in. Its first page is faulted in, up to
 * the page end, then the string is read again. */
SP_NODEBUG long sp_read_str_sleepable(char *dst, __u32 size, const void *src)
{
	long r = bpf_probe_read_user_str(dst, size, src);
	__u32 n = 4096 - ((__u64)src & 4095);

	if (r != -14 /* EFAULT */ || size == 0)
		return r;
	if (n > size)
		n = size;
	if (bpf_copy_from_user(dst, n, src) < 0)
		return r;
	return bpf_probe_read_user_str(dst, size, src);
}

/* buf() in a sleepable uprobe: the same, for raw bytes. */
SP_NODEBUG long sp_read_sleepable(void *dst, __u32 size, const void *src)
{
	long r = bpf_probe_read_user(dst, size, src);

	if (r != -14 /* EFAULT */)
		return r;
	return bpf_copy_from_user(dst, size, src);
}

SP_NODEBUG long sp_read(void *dst, __u32 size, const void *src, int user)
{
	long r = -1;

	if (!user)
		r = bpf_probe_read_kernel(dst, size, src);
	if (r < 0)
		r = bpf_probe_read_user(dst, size, src);
	return r;
}
