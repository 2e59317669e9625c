/* runtime/attach/perf.c: probes served by perf events.
 *
 *   profile:hz:N / s|ms|us:N   cpu-clock on every online CPU (sampling)
 *   interval:s|ms|us|hz:N      cpu-clock on one CPU (a timer)
 *   software:EVENT[:COUNT]     a software event on every online CPU
 *   hardware:EVENT[:COUNT]     a PMU event on every online CPU
 *
 * Events are opened system wide (pid -1); a -p/-c target is filtered in
 * BPF through sp_config, which counts every thread of the process,
 * including ones created later. Names, aliases and default periods follow
 * bpftrace. libbpf's perf link owns the event fd once attached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "abi/perf_events.h"
#include "runtime/attach/probe.h"
#include "base/glob.h"

#define MAX_HZ 100000

struct perf_event_name {
	const char *name, *alias;
	uint64_t config;
	uint64_t period; /* default sample period */
};

static const struct perf_event_name sw_events[] = {
#define X(name, alias, config, period) { name, alias, config, period },
	SP_SOFTWARE_EVENTS(X)
#undef X
};

static const struct perf_event_name hw_events[] = {
#define X(name, alias, config, period) { name, alias, config, period },
	SP_HARDWARE_EVENTS(X)
#undef X
};

static int perf_open(struct perf_event_attr *a, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static long max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Unit and value -> attr's period or frequency (cpu-clock counts ns). */
static int set_rate(const struct sp_plan_probe *p, struct perf_event_attr *a,
		    struct sp_attach_ctx *ctx)
{
	const char *u = p->unit ? p->unit : "hz";
	uint64_t mult;

	if (!p->has_value || p->value == 0)
		return sp_probe_fail(ctx, p, -EINVAL, "the %s must be a positive number",
				     strcmp(u, "hz") ? "period" : "frequency");
	if (strcmp(u, "hz") == 0) {
		if (p->value > MAX_HZ)
			return sp_probe_fail(ctx, p, -EINVAL,
					     "frequency %llu Hz is above the maximum of %d Hz",
					     (unsigned long long)p->value, MAX_HZ);
		a->freq = 1;
		a->sample_freq = p->value;
		return 0;
	}
	if (strcmp(u, "s") == 0)
		mult = 1000000000ull;
	else if (strcmp(u, "ms") == 0)
		mult = 1000000ull;
	else if (strcmp(u, "us") == 0)
		mult = 1000ull;
	else if (strcmp(u, "ns") == 0)
		mult = 1;
	else
		return sp_probe_fail(ctx, p, -EINVAL, "unknown unit '%s' (hz, s, ms, us)", u);
	if (p->value > UINT64_MAX / mult)
		return sp_probe_fail(ctx, p, -ERANGE, "period too long");
	a->sample_period = p->value * mult;
	if (a->sample_period < 10000)
		return sp_probe_fail(ctx, p, -EINVAL, "period below 10us is not supported");
	return 0;
}

static void clock_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
}

static int open_fail(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, int err,
		     const struct perf_event_attr *a)
{
	long max;

	if (a->type == PERF_TYPE_HARDWARE && (err == -ENOENT || err == -EOPNOTSUPP ||
					      err == -ENODEV))
		return sp_probe_fail(ctx, p, err, "cannot attach: this machine has no hardware "
				     "performance counters (perf_event_open: %s)", strerror(-err));
	if (err == -EINVAL && a->freq && (max = max_sample_rate()) > 0 &&
	    a->sample_freq > (uint64_t)max)
		return sp_probe_fail(ctx, p, err, "frequency %llu Hz is above the kernel's limit "
				     "of %ld Hz (sysctl kernel.perf_event_max_sample_rate)",
				     (unsigned long long)a->sample_freq, max);
	if (err == -EACCES || err == -EPERM)
		return sp_probe_fail(ctx, p, err, "cannot attach: perf_event_open: %s "
				     "(check kernel.perf_event_paranoid)", strerror(-err));
	return sp_probe_fail(ctx, p, err, "cannot attach: perf_event_open: %s", strerror(-err));
}

static int attach_cpus(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct perf_event_attr *a, const int *cpus, int ncpus,
		       struct sp_attach_ctx *ctx, struct sp_links *links)
{
	for (int i = 0; i < ncpus; i++) {
		struct bpf_link *link;
		int fd = perf_open(a, cpus[i]);
		int err;

		if (fd < 0)
			return open_fail(ctx, p, fd, a);
		link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			err = -errno;
			close(fd);
			return sp_probe_fail(ctx, p, err, "cannot attach to cpu %d: %s", cpus[i],
					     strerror(-err));
		}
		err = sp_links_push(links, link);
		if (err)
			return sp_probe_fail(ctx, p, err, "out of memory");
	}
	return 0;
}

static int profile_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;

	clock_attr(&a);
	return set_rate(p, &a, ctx);
}

static int profile_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			  struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct perf_event_attr a;
	int err;

	clock_attr(&a);
	err = set_rate(p, &a, ctx);
	if (err)
		return err;
	return attach_cpus(p, prog, &a, ctx->cpus, ctx->ncpus, ctx, links);
}

/* interval: a period even when written in hz, on the first online CPU. */
static int interval_attr(const struct sp_plan_probe *p, struct perf_event_attr *a,
			 struct sp_attach_ctx *ctx)
{
	int err;

	clock_attr(a);
	err = set_rate(p, a, ctx);
	if (err || !a->freq)
		return err;
	a->freq = 0;
	a->sample_period = 1000000000ull / a->sample_freq;
	return 0;
}

static int interval_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;

	return interval_attr(p, &a, ctx);
}

static int interval_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			   struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct perf_event_attr a;
	int err = interval_attr(p, &a, ctx);

	if (err)
		return err;
	return attach_cpus(p, prog, &a, ctx->cpus, 1, ctx, links);
}

static const struct perf_event_name *find_event(const struct perf_event_name *t, size_t n,
						const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(t[i].name, name) == 0 || (t[i].alias && strcmp(t[i].alias, name) == 0))
			return &t[i];
	return NULL;
}

/* software:EVENT[:COUNT] and hardware:EVENT[:COUNT]: the event name is the
 * probe's target (or func, whichever the front end filled). */
static int event_attr(const struct sp_plan_probe *p, uint32_t type,
		      struct perf_event_attr *a, struct sp_attach_ctx *ctx)
{
	bool hw = type == PERF_TYPE_HARDWARE;
	const char *name = p->target ? p->target : p->func;
	const struct perf_event_name *e = hw ?
		find_event(hw_events, sizeof(hw_events) / sizeof(hw_events[0]), name) :
		find_event(sw_events, sizeof(sw_events) / sizeof(sw_events[0]), name);

	if (!e)
		return sp_probe_fail(ctx, p, -EINVAL, "unknown %s event '%s'",
				     hw ? "hardware" : "software", name ? name : "");
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = e->config;
	a->sample_period = p->has_value ? p->value : e->period;
	if (a->sample_period == 0)
		return sp_probe_fail(ctx, p, -EINVAL, "the count must be a positive number");
	return 0;
}

static int software_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;

	return event_attr(p, PERF_TYPE_SOFTWARE, &a, ctx);
}

static int software_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			   struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct perf_event_attr a;
	int err = event_attr(p, PERF_TYPE_SOFTWARE, &a, ctx);

	return err ? err : attach_cpus(p, prog, &a, ctx->cpus, ctx->ncpus, ctx, links);
}

/* Opening one disabled counter tells, before anything is loaded, whether
 * the machine has a PMU at all. */
static int hardware_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct perf_event_attr a;
	int err = event_attr(p, PERF_TYPE_HARDWARE, &a, ctx);
	int fd;

	if (err)
		return err;
	a.disabled = 1;
	fd = perf_open(&a, ctx->cpus ? ctx->cpus[0] : 0);
	if (fd < 0)
		return open_fail(ctx, p, fd, &a);
	close(fd);
	return 0;
}

static int hardware_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			   struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct perf_event_attr a;
	int err = event_attr(p, PERF_TYPE_HARDWARE, &a, ctx);

	return err ? err : attach_cpus(p, prog, &a, ctx->cpus, ctx->ncpus, ctx, links);
}

static void list_events(struct sp_lister *l, const char *prov, const struct perf_event_name *t,
			size_t n, const char *glob)
{
	char line[128];

	for (size_t i = 0; i < n; i++) {
		/* each event, then its alias, as bpftrace 0.27 lists them */
		const char *names[2] = { t[i].name, t[i].alias };

		for (int k = 0; k < 2; k++) {
			if (!names[k] || !*names[k] || (glob && !sp_glob_match(glob, names[k])))
				continue;
			snprintf(line, sizeof(line), "%s:%s:", prov, names[k]);
			sp_lister_emit(l, line);
		}
	}
}

/* profile and interval: their units (bpftrace 0.27 lists `interval:hz:` ...) */
static int units_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	static const char *const units[] = { "hz", "us", "ms", "s" };
	const char *glob = nf > 1 && *f[1] ? f[1] : NULL;
	char line[64];

	(void)wild;
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		if (glob && !sp_glob_match(glob, units[i]))
			continue;
		snprintf(line, sizeof(line), "%s:%s:", prov, units[i]);
		sp_lister_emit(l, line);
	}
	return 0;
}

static int sw_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	list_events(l, prov, sw_events, sizeof(sw_events) / sizeof(*sw_events),
		    nf > 1 && *f[1] ? f[1] : NULL);
	return 0;
}

static int hw_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	list_events(l, prov, hw_events, sizeof(hw_events) / sizeof(*hw_events),
		    nf > 1 && *f[1] ? f[1] : NULL);
	return 0;
}

const struct sp_probe_ops sp_probe_profile_ops = {
	.type = SP_PROBE_PROFILE, .validate = profile_validate, .attach = profile_attach,
	.list = units_list,
};
const struct sp_probe_ops sp_probe_interval_ops = {
	.type = SP_PROBE_INTERVAL, .validate = interval_validate, .attach = interval_attach,
	.list = units_list,
};
const struct sp_probe_ops sp_probe_software_ops = {
	.type = SP_PROBE_SOFTWARE, .validate = software_validate, .attach = software_attach,
	.list = sw_list,
};
const struct sp_probe_ops sp_probe_hardware_ops = {
	.type = SP_PROBE_HARDWARE, .validate = hardware_validate, .attach = hardware_attach,
	.list = hw_list,
};
