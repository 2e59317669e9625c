/* runtime/attach/kprobe.c: kprobe:FUNC[+OFF] and kretprobe:FUNC.
 *
 * Attached through libbpf (perf_event_open of the "kprobe" PMU, or the
 * legacy kprobe_events file). Kernels built without CONFIG_KPROBES have
 * neither; validation notices before load and says so, pointing at
 * tracepoints, instead of letting perf_event_open fail with a bare ENOENT.
 * kprobe:MODULE:FUNC is accepted (the module part is informational: the
 * kernel resolves FUNC across modules). -p is filtered in BPF.
 *
 * Validation makes bpftrace 0.17's checks in bpftrace's order, kernel
 * support or not: a function the kernel does not know is a warning ("not
 * traceable"), a kretprobe on one of bpftrace's banned spin-lock functions
 * is an error, and only then does a kernel without kprobes stop the run,
 * naming CONFIG_KPROBES.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/attach/tracefs.h"
#include "runtime/stacks/kallsyms.h"
#include "base/glob.h"

/* bpftrace's list: a kretprobe on these can lock the machine up. */
static const char *const banned_kretprobes[] = {
	"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore",
	"queued_spin_lock_slowpath",
};

static bool banned_kretprobe(const char *fn)
{
	for (size_t i = 0; i < sizeof(banned_kretprobes) / sizeof(banned_kretprobes[0]); i++)
		if (!strcmp(fn, banned_kretprobes[i]))
			return true;
	return false;
}

/* bpftrace's semantic warning, from /proc/kallsyms (available_filter_functions
 * is not always readable): a name the kernel lacks. */
static void warn_untraceable(const struct sp_plan_probe *p, const char *fn)
{
	uint64_t addr;

	if (strchr(fn, '*') || strchr(fn, '?') || sp_kallsyms_addr_of(NULL, fn, &addr) != -ENOENT)
		return;
	fprintf(stderr, "sprof: warning: probe '%s': %s is not traceable (either non-existing, "
		"inlined, or marked as \"notrace\"); attaching to it will likely fail\n", p->spec, fn);
}

static bool kprobes_available(void)
{
	char root[256], path[300];

	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	if (sp_tracefs_root(root, sizeof(root)))
		return false;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	return access(path, F_OK) == 0;
}

static const char *kprobe_func(const struct sp_plan_probe *p)
{
	return p->func && *p->func ? p->func : p->target;
}

static int kprobe_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *fn = kprobe_func(p);

	if (!fn || !*fn)
		return sp_probe_fail(ctx, p, -EINVAL, "expected %s:FUNCTION", sp_probe_type_name(p->type));
	warn_untraceable(p, fn);
	if (p->type == SP_PROBE_KRETPROBE && banned_kretprobe(fn))
		return sp_probe_fail(ctx, p, -EPERM, "kretprobe:%s can't be used as it might lock up "
				     "your system", fn);
	if (!kprobes_available())
		return sp_probe_fail(ctx, p, -EOPNOTSUPP,
				     "kprobes are not available: this kernel was built without "
				     "CONFIG_KPROBES (try a tracepoint, e.g. "
				     "tracepoint:syscalls:sys_enter_openat)");
	if (p->type == SP_PROBE_KRETPROBE && p->has_offset)
		return sp_probe_fail(ctx, p, -EINVAL, "a kretprobe cannot take an offset");
	if (strchr(fn, '*') || strchr(fn, '?'))
		return sp_probe_fail(ctx, p, -EINVAL,
				     "wildcards are not supported for kprobes (no kprobe_multi here)");
	return 0;
}

static int kprobe_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, struct sp_links *links)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = p->type == SP_PROBE_KRETPROBE,
		    .offset = p->has_offset ? p->offset : 0);
	const char *fn = kprobe_func(p);
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_kprobe_opts(prog, fn, &o);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to kernel function '%s': %s", fn,
				     err == -ENOENT ? "no such function (or it cannot be probed)"
						    : strerror(-err));
	}
	return sp_links_push(links, link);
}

/* Only where the kernel has kprobes: available_filter_functions names them. */
static int list_kprobes(struct sp_lister *l, const char *glob)
{
	char root[256], path[320], buf[512], line[600];
	FILE *f;

	if (sp_tracefs_root(root, sizeof(root)))
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	if (access(path, F_OK) && access("/sys/bus/event_source/devices/kprobe", F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, " \t\n")] = '\0';
		if (!*buf || (glob && !sp_glob_match(glob, buf)))
			continue;
		snprintf(line, sizeof(line), "kprobe:%s", buf);
		sp_lister_emit(l, line);
	}
	fclose(f);
	return 0;
}

static int kprobe_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *a = nf > 1 && *f[1] ? f[1] : NULL, *b = nf > 2 && *f[2] ? f[2] : NULL;

	return list_kprobes(l, b ? b : a);
}

const struct sp_probe_ops sp_probe_kprobe_ops = {
	.type = SP_PROBE_KPROBE,
	.validate = kprobe_validate,
	.attach = kprobe_attach,
	.list = kprobe_list,
};

const struct sp_probe_ops sp_probe_kretprobe_ops = {
	.type = SP_PROBE_KRETPROBE,
	.validate = kprobe_validate,
	.attach = kprobe_attach,
	.list = kprobe_list,
};
