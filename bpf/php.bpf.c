/* bpf/php.bpf.c: PHP frames of the sampled thread, for ustack.
 *
 * For processes user space recognised as an NTS PHP 8.2 or 8.4
 * (runtime/langs/php.c wrote their offsets into ph_procs), this reads
 * executor_globals.current_execute_data, the frame the VM runs, and
 * follows prev_execute_data to the script's top-level code: each frame of
 * user code (a function, method, closure, included file or eval) is one
 * frame word (abi/php.h) whose line is that of the frame's opline (the
 * function's first line while it is being entered, no opline yet); frames
 * of internal functions are skipped (their C function is a native frame
 * of the stack already). A frame whose call info carries ZEND_CALL_TOP was
 * entered from C and ends the group of one execute_ex activation. Each
 * (function, name) is announced once per process (SP_EV_INTERP_CODE),
 * its names and file copied into the record then, so a closure or eval
 * freed later is still named.
 *
 * NTS PHP runs one request per process and thread, so executor_globals is
 * the sampled thread's. Every read is bpf_probe_read_user: a bad read ends
 * the walk there (counted in ph_stats), never more. Kernels without
 * bpf_loop (the compat helpers) take no PHP frames.
 */
#include "bpf/sp_bpf.h"
#include "bpf/interp_common.bpf.h"
#include "abi/interp.h"
#include "abi/php.h"

_Static_assert((int)SP_PH_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_PH_ST_READERR == (int)SP_PY_ST_READERR &&
	       (int)SP_PH_ST_FRAMES == (int)SP_PY_ST_FRAMES &&
	       (int)SP_PH_ST_CODE_RETRY == (int)SP_PY_ST_CODE_RETRY &&
	       (int)SP_PH_ST_CODE_SENT == (int)SP_PY_ST_CODE_SENT,
	       "ph_stats and py_stats differ");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct sp_ph_proc);
} ph_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ph_live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SP_PH_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} ph_stats SEC(".maps");

/* Preallocated, as py_code_seen (bpf/python.bpf.c says why). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SP_PH_SEEN_MAX);
	__type(key, struct sp_ph_code_key);
	__type(value, __u32);
} ph_code_seen SEC(".maps");

struct ph_code_event {
	struct sp_event_hdr hdr;
	struct sp_ph_code_rec rec;
};

/* Per CPU: the offsets of the process being walked and a record being
 * built, kept off the BPF stack. */
struct ph_cpu {
	struct sp_ph_proc p;
	struct ph_code_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ph_cpu);
} ph_cur SEC(".maps");

struct ph_walk {
	struct sp_iwalk out;
	__u64 ex; /* the zend_execute_data to look at next; 0: done */
};

#ifndef SP_BPF_COMPAT
/* A zend_string's bytes at str (a pointer to one) into dst; "" when none. */
static __always_inline SP_NODEBUG void ph_str(char *dst, __u32 size, __u64 str,
					      const struct sp_ph_proc *p)
{
	dst[0] = 0;
	if (!str || bpf_probe_read_user_str(dst, size, (void *)(str + p->str_val)) <= 0)
		dst[0] = 0;
}

/* The id of (func, name) of this kind in process pid; a new one is
 * announced with its names. 0: unknown. */
static __always_inline SP_NODEBUG __u32 ph_code_id(struct ph_cpu *cpu, __u32 pid, __u64 func,
						 __u64 name, __u32 kind)
{
	const struct sp_ph_proc *p = &cpu->p;
	struct ph_code_event *ev = &cpu->ev;
	struct sp_ph_code_key k; /* field by field: no .rodata copy */
	__u64 scope = 0, cname = 0, file = 0;
	__u32 id, *known;
	int fresh;

	k.func = func;
	k.name = name;
	k.pid = pid;
	k.kind = kind;
	known = bpf_map_lookup_elem(&ph_code_seen, &k);
	if (known)
		return *known;
	id = sp_icode_new(&ph_code_seen, &k, &fresh);
	if (!fresh)
		return id;
	ev->rec.id = id;
	ev->rec.kind = kind;
	ev->rec.magic = SP_PH_REC_MAGIC;
	ph_str(ev->rec.name, sizeof(ev->rec.name), name, p);
	if (sp_urd(&scope, 8, func + p->fn_scope) || !scope || sp_urd(&cname, 8, scope + p->ce_name))
		cname = 0;
	ph_str(ev->rec.scope, sizeof(ev->rec.scope), cname, p);
	if (sp_urd(&file, 8, func + p->fn_filename))
		file = 0;
	ph_str(ev->rec.file, sizeof(ev->rec.file), file, p);
	return sp_icode_send(&ph_code_seen, &ph_stats, &k, ev, sizeof(*ev), pid, func, id);
}

/* The word of the frame of user code ex runs (func, of type type; top:
 * entered from C) in process pid; ~0 when a read failed. A global
 * function (codegen/codegen.c SP_GLOBAL_HELPERS): the verifier checks it
 * once, not on every path of every bpf_loop() round that reaches it. */
__attribute__((noinline)) __u64 sp_ph_word(__u64 ex, __u64 func, __u32 type, __u32 top, __u32 pid)
{
	__u32 zero = 0, ln = 0, kind, id;
	struct ph_cpu *cpu = bpf_map_lookup_elem(&ph_cur, &zero);
	const struct sp_ph_proc *p = cpu ? &cpu->p : NULL;
	__u64 opline = 0, name = 0, line;

	if (!cpu || !p || sp_urd(&name, 8, func + p->fn_name))
		return ~0ull;
	kind = type == SP_PH_EVAL_CODE ? SP_PH_EVAL : name ? SP_PH_FUNC : top ? SP_PH_MAIN : SP_PH_INCLUDE;
	if (sp_urd(&opline, 8, ex + p->ex_opline) || !opline ||
	    sp_urd(&ln, 4, opline + p->op_lineno))
		ln = 0;
	/* a function being entered has no opline yet: its first line */
	if (!ln && sp_urd(&ln, 4, func + p->fn_line_start))
		ln = 0;
	id = ph_code_id(cpu, pid, func, name, kind);
	line = ln && ln < SP_PY_OFF_NONE ? ln : SP_PY_OFF_NONE;
	return (__u64)id << SP_PY_ID_SHIFT | line << SP_PY_OFF_SHIFT | (top ? SP_PY_GROUP_END : 0);
}

/* bpf_loop() body: one zend_execute_data. */
static long ph_frame(__u64 i, void *c)
{
	struct ph_walk *w = c;
	__u64 ex = w->ex, func = 0, prev = 0, word;
	__u32 zero = 0, info = 0, pos = w->out.pos;
	struct ph_cpu *cpu = bpf_map_lookup_elem(&ph_cur, &zero);
	const struct sp_ph_proc *p = cpu ? &cpu->p : NULL;
	__u8 type = 0;

	if (!cpu || !p || !ex)
		return 1;
	if (sp_urd(&func, 8, ex + p->ex_func) || sp_urd(&prev, 8, ex + p->ex_prev) ||
	    sp_urd(&info, 4, ex + p->ex_call_info) || !func || sp_urd(&type, 1, func + p->fn_type))
		goto err;
	w->ex = prev;
	if (type != SP_PH_USER_FUNCTION && type != SP_PH_EVAL_CODE)
		return !prev; /* an internal function: its C frame is native */
	word = sp_ph_word(ex, func, type, (info & p->call_top) != 0, w->out.pid);
	if (word == ~0ull)
		goto err;
	if (!sp_iwalk_room(&w->out, pos))
		return 1;
	sp_iwalk_put(&w->out, pos, word);
	return !prev;
err:
	w->out.err = 1;
	return 1;
}
#endif

/* Whether the sampled process is a registered one (see sp_interp_has()). */
SP_NODEBUG int sp_ph_known(void)
{
	return sp_interp_has(&ph_procs, &ph_live);
}

/* Native frames a mixed stack keeps in a php process (see
 * sp_interp_native_limit in bpf/python.bpf.c). */
SP_NODEBUG int sp_ph_native_limit(int limit)
{
	return sp_interp_limit(&ph_procs, &ph_live, limit);
}

/* Appends the sampled thread's PHP frames (innermost first) to ips from
 * index start, at most up to index end; returns how many. 0 when the
 * process is no known php or runs no PHP code now. */
SP_NODEBUG __u32 sp_ph_frames(__u64 *ips, __u32 start, __u32 end)
{
#ifndef SP_BPF_COMPAT
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct sp_ph_proc *p = sp_interp_live(&ph_live) ? bpf_map_lookup_elem(&ph_procs, &pid) : NULL;
	struct ph_cpu *cpu;
	struct ph_walk w;
	__u32 zero = 0;

	if (!p || start >= SP_MAX_FRAMES || !(cpu = bpf_map_lookup_elem(&ph_cur, &zero)))
		return 0;
	sp_istat(&ph_stats, SP_PH_ST_WALKS, 1);
	__builtin_memcpy(&cpu->p, p, sizeof(cpu->p));
	w.ex = 0;
	if (sp_urd(&w.ex, 8, cpu->p.eg + cpu->p.eg_current_ex) || !w.ex) {
		sp_istat(&ph_stats, SP_PH_ST_NOTHREAD, 1);
		return 0;
	}
	sp_iwalk_init(&w.out, ips, start, end, pid);
	bpf_loop(SP_MAX_FRAMES * 2, ph_frame, &w, 0);
	return sp_iwalk_end(&w.out, &ph_stats, w.out.full || (w.ex && !w.out.err));
#else
	(void)ips, (void)start, (void)end;
	return 0;
#endif
}
