/* runtime/attach/watchpoint.c: watchpoint:ADDR:LEN:MODE and asyncwatchpoint.
 *
 * A hardware breakpoint (perf_event_open with PERF_TYPE_BREAKPOINT) on LEN
 * bytes at ADDR fires the probe's perf_event program after each matching
 * access: w (a write), rw (a read or write) or x (an instruction fetch; LEN
 * must then be the size of a long). The front end checks the fields
 * (parser/attach.c).
 *
 * Like the other perf-event probes (perf.c) the breakpoint is installed on
 * every online CPU, for whatever runs there, and a -p/-c target is
 * filtered in BPF: a user address then means the target's memory, and a
 * held -c child needs no breakpoint of its own before it execs. Without a
 * target the address is watched in every process and in the kernel (a
 * kernel address, as in bpftrace). x86 has four debug registers per CPU, so
 * at most four watchpoints can be live at once.
 *
 * bpftrace's second form, watchpoint:FUNC+argN:LEN:MODE (watch the address
 * a function receives, stopping the process until the breakpoint is set),
 * is refused by the front end; asyncwatchpoint differs from watchpoint only
 * there, so both attach the same way here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"

static int watch_attr(const struct sp_plan_probe *p, struct perf_event_attr *a,
		      struct sp_attach_ctx *ctx)
{
	const char *m = p->unit ? p->unit : "";

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->sample_period = 1;
	a->bp_addr = p->offset;
	a->bp_len = p->value;
	if (!strcmp(m, "w"))
		a->bp_type = HW_BREAKPOINT_W;
	else if (!strcmp(m, "rw"))
		a->bp_type = HW_BREAKPOINT_RW;
	else if (!strcmp(m, "x"))
		a->bp_type = HW_BREAKPOINT_X;
	else
		return sp_probe_fail(ctx, p, -EINVAL, "invalid watchpoint mode '%s'", m);
	if (p->value != 1 && p->value != 2 && p->value != 4 && p->value != 8)
		return sp_probe_fail(ctx, p, -EINVAL, "watchpoint length must be 1, 2, 4 or 8");
	return 0;
}

static int open_bp(struct perf_event_attr *a, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int bp_fail(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, int err, int cpu)
{
	if (err == -ENOSPC)
		return sp_probe_fail(ctx, p, err, "cannot attach: no free debug register on cpu %d "
				     "(x86 has four per CPU)", cpu);
	if (err == -EINVAL)
		return sp_probe_fail(ctx, p, err, "cannot attach: the kernel refuses a %llu-byte "
				     "'%s' watchpoint at 0x%llx (an x watchpoint needs length 8; "
				     "the address must be aligned to the length)",
				     (unsigned long long)p->value, p->unit ? p->unit : "",
				     (unsigned long long)p->offset);
	return sp_probe_fail(ctx, p, err, "cannot attach a hardware breakpoint on cpu %d: %s",
			     cpu, strerror(-err));
}

/* Opening one breakpoint disabled tells before load whether the kernel
 * takes this address, length and mode. */
static int watch_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;
	int fd, err = watch_attr(p, &a, ctx);

	if (err)
		return err;
	a.disabled = 1;
	fd = open_bp(&a, ctx->cpus ? ctx->cpus[0] : 0);
	if (fd < 0)
		return bp_fail(p, ctx, fd, ctx->cpus ? ctx->cpus[0] : 0);
	close(fd);
	return 0;
}

static int watch_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct perf_event_attr a;
	int err = watch_attr(p, &a, ctx);

	for (int i = 0; i < ctx->ncpus && !err; i++) {
		struct bpf_link *link;
		int fd = open_bp(&a, ctx->cpus[i]);

		if (fd < 0)
			return bp_fail(p, ctx, fd, ctx->cpus[i]);
		link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			err = -errno;
			close(fd);
			return sp_probe_fail(ctx, p, err, "cannot attach to cpu %d: %s",
					     ctx->cpus[i], strerror(-err));
		}
		err = sp_links_push(links, link);
	}
	return err;
}

const struct sp_probe_ops sp_probe_watchpoint_ops = {
	.type = SP_PROBE_WATCHPOINT, .validate = watch_validate, .attach = watch_attach,
};
const struct sp_probe_ops sp_probe_asyncwatchpoint_ops = {
	.type = SP_PROBE_ASYNCWATCHPOINT, .validate = watch_validate, .attach = watch_attach,
};
