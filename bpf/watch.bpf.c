/* bpf/watch.bpf.c: watchpoint:FUNC+argN and unwatch(), the BPF side.
 *
 * A watchpoint on the address a function receives cannot be set before
 * the call: codegen gives such a probe a second, hidden uprobe program on
 * FUNC that calls sp_watch_arm(). It reads argument N (0 to 5, in
 * registers), stops the process with SIGSTOP
 * (not for asyncwatchpoint: the process runs on, and writes before the
 * breakpoint is in are not seen) and tells user space, which sets the
 * hardware breakpoint, attaches the probe's program to it and sends
 * SIGCONT (runtime/attach/watchpoint.c). The signal is pending when the
 * uprobe returns, so the function's first instruction runs only after
 * the breakpoint is in place.
 */
#include "bpf/sp_bpf.h"

#define SP_SIGSTOP 19

SP_NODEBUG long sp_send_record(const void *rec, __u32 size);
SP_NODEBUG void sp_event_drop(void);
SP_NODEBUG void sp_emit_event(__u32 type, __u32 id, __u64 arg);
__u64 sp_arg(void *ctx, int n); /* bpf/args.bpf.c */

SP_NODEBUG int sp_watch_arm(void *ctx, __u32 probe, __u32 argn, __u32 async)
{
	struct sp_watch_rec rec = {
		.h = { .type = SP_EV_WATCH, .id = probe, .arg = sp_arg(ctx, (int)argn) },
		.cookie = bpf_get_attach_cookie(ctx),
		.pid = bpf_get_current_pid_tgid() >> 32,
	};

	if (!async)
		bpf_send_signal(SP_SIGSTOP);
	if (sp_send_record(&rec, sizeof(rec)))
		sp_event_drop();
	return 0;
}

/* unwatch(addr) */
SP_NODEBUG void sp_unwatch(__u64 addr)
{
	sp_emit_event(SP_EV_UNWATCH, 0, addr);
}
