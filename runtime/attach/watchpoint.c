/* runtime/attach/watchpoint.c: watchpoint:ADDR:LEN:MODE, watchpoint:FUNC+argN:LEN:MODE, asyncwatchpoint.
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
 * The second form, watchpoint:FUNC+argN:LEN:MODE, watches the address a
 * function of the -p/-c target receives: what is attached at start is the
 * probe's hidden uprobe program NAME_arm on FUNC (codegen; a glob gives
 * one per function, attached by the uprobe type's own code). Each call
 * sends SP_EV_WATCH; sp_watches_arm() then sets the breakpoint on every
 * CPU with the probe's program and, for watchpoint (not asyncwatchpoint,
 * whose process never stopped), sends the SIGCONT the arm program's
 * SIGSTOP waits for. As in bpftrace, a probe's repeat of the address it
 * watches last is ignored, breakpoints set stay until unwatch(ADDR) or
 * the end, and a call finding all debug registers taken is reported
 * ("You are out of watchpoint registers") and counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "base/log.h"
#include "base/vec.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/watchpoint.h"

extern const struct sp_probe_ops sp_probe_uprobe_ops;

static int watch_attr(const struct sp_plan_probe *p, struct perf_event_attr *a,
		      struct sp_attach_ctx *ctx)
{
	const char *m = p->unit ? p->unit : "";

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->sample_period = 1;
	a->bp_addr = p->func ? 0 : p->offset; /* FUNC+argN: set per call */
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

/* FUNC+argN: the arm program's uprobe on FUNC in the target's program,
 * as a plan probe of the uprobe type's code (its `probe` names say
 * watchpoint:PATH:FUNC:LEN:MODE). Made once per plan probe and kept in
 * the run's memo: the uprobe code memoizes what it resolves by the plan
 * probe's address, so each watchpoint needs an arm probe of its own. */
struct arm {
	struct sp_plan_probe u;
	char path[PATH_MAX], prog[128];
};

#define ARM_MEMO_PID (-2) /* the memo key of a watchpoint's arm probe */

static int arm_probe(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, struct arm **out)
{
	struct arm *a = sp_resolved_find(ctx, p, ARM_MEMO_PID);
	char exe[64];
	ssize_t n;

	*out = a;
	if (a)
		return 0;
	if (ctx->pid <= 0 && !ctx->cmd_path)
		return sp_probe_fail(ctx, p, -EINVAL, "a watchpoint on a function argument needs "
				     "the process: -p PID or -c CMD");
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	if (ctx->cmd_path) {
		snprintf(a->path, sizeof(a->path), "%s", ctx->cmd_path);
	} else {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)ctx->pid);
		n = readlink(exe, a->path, sizeof(a->path) - 1);
		if (n <= 0) {
			free(a);
			return sp_probe_fail(ctx, p, -errno, "cannot read %s: %s", exe,
					     strerror(errno));
		}
		a->path[n] = '\0';
	}
	snprintf(a->prog, sizeof(a->prog), "%s_arm", p->prog);
	a->u = *p;
	a->u.target = a->path;
	a->u.prog = a->prog;
	a->u.offset = 0;
	a->u.has_offset = a->u.is_addr = false;
	*out = sp_resolved_keep(ctx, p, ARM_MEMO_PID, a, free);
	return *out ? 0 : -ENOMEM;
}

/* Without a memo the arm probe was the caller's. */
static void arm_put(struct sp_attach_ctx *ctx, struct arm *a)
{
	if (!ctx->resolved)
		free(a);
}

static int func_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct arm *a;
	int err = arm_probe(p, ctx, &a);

	if (!err) {
		err = sp_probe_uprobe_ops.validate(&a->u, ctx);
		arm_put(ctx, a);
	}
	return err;
}

static int watch_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct arm *a;
	int err;

	if (!p->func)
		return 1;
	err = arm_probe(p, ctx, &a);
	if (!err) {
		err = sp_probe_uprobe_ops.count(&a->u, ctx);
		arm_put(ctx, a);
	}
	return err;
}

static int func_attach(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		       struct sp_links *links)
{
	struct bpf_program *prog;
	struct arm *a;
	int err = arm_probe(p, ctx, &a);

	if (err)
		return err;
	prog = bpf_object__find_program_by_name(ctx->obj, a->prog);
	err = prog ? sp_probe_uprobe_ops.attach(&a->u, prog, ctx, links)
		   : sp_probe_fail(ctx, p, -ENOENT, "no program '%s' in the BPF object", a->prog);
	arm_put(ctx, a);
	return err;
}

/* Opening one breakpoint disabled tells before load whether the kernel
 * takes this address, length and mode. */
static int watch_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;
	int fd, err = watch_attr(p, &a, ctx);

	if (err)
		return err;
	if (p->func)
		return func_validate(p, ctx);
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

	if (!err && p->func)
		return func_attach(p, ctx, links);
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
	.count = watch_count,
};
const struct sp_probe_ops sp_probe_asyncwatchpoint_ops = {
	.type = SP_PROBE_ASYNCWATCHPOINT, .validate = watch_validate, .attach = watch_attach,
	.count = watch_count,
};

/* --- breakpoints set as the functions are called --------------------------------------- */

struct sp_watch {
	uint32_t probe;
	uint64_t addr;
	int nlinks;
	struct bpf_link **links; /* one per CPU; each owns its perf event */
};

struct sp_watches {
	struct bpf_object *obj;
	const struct sp_plan *plan;
	const int *cpus;
	int ncpus;
	uint64_t *last;         /* per plan probe: the address it watches last */
	struct sp_watch *v;
	int n, cap;
	unsigned long no_room;  /* calls whose address found no free debug register */
};

struct sp_watches *sp_watches_new(struct bpf_object *obj, const struct sp_plan *plan,
				  const int *cpus, int ncpus)
{
	struct sp_watches *w;
	bool any = false;

	for (int i = 0; i < plan->nprobes; i++)
		any |= (plan->probes[i].type == SP_PROBE_WATCHPOINT ||
			plan->probes[i].type == SP_PROBE_ASYNCWATCHPOINT) && plan->probes[i].func;
	if (!any || !(w = calloc(1, sizeof(*w))))
		return NULL;
	w->last = calloc((size_t)plan->nprobes, sizeof(*w->last));
	if (!w->last) {
		free(w);
		return NULL;
	}
	*w = (struct sp_watches){ .obj = obj, .plan = plan, .cpus = cpus, .ncpus = ncpus,
				  .last = w->last };
	return w;
}

static void watch_drop(struct sp_watch *x)
{
	for (int i = 0; i < x->nlinks; i++)
		bpf_link__destroy(x->links[i]);
	free(x->links);
}

/* The breakpoint on every CPU, each running the probe's program with the
 * uprobe's cookie (its `probe`/`func` name); -ENOSPC when a debug
 * register is missing somewhere (none is kept then). */
static int watch_set(struct sp_watches *w, const struct sp_plan_probe *p, uint32_t idx,
		     uint64_t addr, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_perf_event_opts, o, .bpf_cookie = cookie);
	struct bpf_program *prog = bpf_object__find_program_by_name(w->obj, p->prog);
	struct sp_watch x = { .probe = idx, .addr = addr };
	struct perf_event_attr a;
	struct sp_attach_ctx ctx = { 0 };
	int err = prog ? watch_attr(p, &a, &ctx) : -ENOENT;

	a.bp_addr = addr;
	x.links = calloc((size_t)w->ncpus, sizeof(*x.links));
	if (!x.links)
		err = -ENOMEM;
	for (int i = 0; i < w->ncpus && !err; i++) {
		int fd = open_bp(&a, w->cpus[i]);

		if (fd < 0) {
			err = fd;
			break;
		}
		x.links[x.nlinks] = bpf_program__attach_perf_event_opts(prog, fd, &o);
		if (!x.links[x.nlinks]) {
			err = -errno;
			close(fd);
			break;
		}
		x.nlinks++;
	}
	if (!err && SP_GROW(w->v, w->cap, w->n + 1, 8))
		err = -ENOMEM;
	if (err) {
		watch_drop(&x);
		return err;
	}
	w->v[w->n++] = x;
	return 0;
}

int sp_watches_arm(struct sp_watches *w, const struct sp_event_hdr *h, const void *data,
		   size_t len)
{
	const struct sp_plan_probe *p;
	uint64_t rec[2] = { 0, 0 }; /* cookie, pid */
	int err = 0;

	if (!w || h->id >= (uint32_t)w->plan->nprobes)
		return -EINVAL;
	memcpy(rec, data, len < sizeof(rec) ? len : sizeof(rec));
	p = &w->plan->probes[h->id];
	if (w->last[h->id] != h->arg || h->arg == 0) {
		err = watch_set(w, p, h->id, h->arg, rec[0]);
		if (err == -ENOSPC) {
			w->no_room++;
			sp_warn("probe '%s': 0x%llx not watched. You are out "
				"of watchpoint registers (x86 has four)\n", p->spec,
				(unsigned long long)h->arg);
		} else if (err) {
			sp_warn("probe '%s': cannot watch 0x%llx: %s\n",
				p->spec, (unsigned long long)h->arg, strerror(-err));
		} else {
			w->last[h->id] = h->arg;
		}
	}
	/* the arm program stopped it: on, breakpoint set or not */
	if (p->type == SP_PROBE_WATCHPOINT && rec[1] > 0 && kill((pid_t)rec[1], SIGCONT))
		sp_warn("cannot continue process %llu: %s\n",
			(unsigned long long)rec[1], strerror(errno));
	return err;
}

void sp_watches_unwatch(struct sp_watches *w, uint64_t addr)
{
	int k = 0;

	if (!w)
		return;
	for (int i = 0; i < w->n; i++) {
		if (w->v[i].addr == addr) {
			if (w->last[w->v[i].probe] == addr)
				w->last[w->v[i].probe] = 0;
			watch_drop(&w->v[i]);
		} else {
			w->v[k++] = w->v[i];
		}
	}
	w->n = k;
}

unsigned long sp_watches_missed(const struct sp_watches *w)
{
	return w ? w->no_room : 0;
}

void sp_watches_free(struct sp_watches *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++)
		watch_drop(&w->v[i]);
	free(w->v);
	free(w->last);
	free(w);
}
