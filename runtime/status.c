/* runtime/status.c: "0:07  1386 samples  0 lost  212 stacks  Ctrl-C to stop".
 *
 * Losses are shown by cause once there are any:
 * "12 lost (map full 10, ring buffer 2)".
 *
 * Drawn once a second on stderr, only when stderr is a terminal and the
 * driver asked for it; erased (carriage return, clear to end of line)
 * before anything else is printed. Samples are the run counts of the
 * sampling programs, which the kernel keeps while BPF run statistics are
 * enabled (bpf_enable_stats), so counting costs BPF nothing extra.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "runtime/status.h"

static bool is_sampling(enum sp_probe_type t)
{
	return t == SP_PROBE_PROFILE || t == SP_PROBE_SOFTWARE || t == SP_PROBE_HARDWARE;
}

void sp_status__want_costs(struct sp_status *s)
{
	s->costs = true;
}

/* Probe i is the first the plan attaches its program to (one program
 * serves the attach points of a block whose code is the same). */
static bool first_of_prog(const struct sp_plan *plan, int i)
{
	for (int j = 0; j < i; j++)
		if (plan->probes[j].prog && !strcmp(plan->probes[j].prog, plan->probes[i].prog))
			return false;
	return true;
}

/* The other attach points served by probe i's program, for --stats. */
static int others_of_prog(const struct sp_plan *plan, int i)
{
	int n = 0;

	for (int j = i + 1; j < plan->nprobes; j++)
		n += plan->probes[j].prog && !strcmp(plan->probes[j].prog, plan->probes[i].prog);
	return n;
}

/* --stats: every probe's program, and statistics on. */
static void init_costs(struct sp_status *s, struct bpf_object *obj, const struct sp_plan *plan)
{
	s->probe_fds = calloc((size_t)plan->nprobes + 1, sizeof(int));
	for (int i = 0; s->probe_fds && i < plan->nprobes; i++) {
		struct bpf_program *p = plan->probes[i].prog ?
			bpf_object__find_program_by_name(obj, plan->probes[i].prog) : NULL;

		s->probe_fds[i] = p ? bpf_program__fd(p) : -1;
	}
	if (s->stats_fd < 0)
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
}

void sp_status__init(struct sp_status *s, bool want, struct bpf_object *obj,
		     const struct sp_plan *plan)
{
	s->enabled = want && isatty(STDERR_FILENO);
	s->shown = false;
	s->stats_fd = -1;
	s->prog_fds = NULL;
	s->probe_fds = NULL;
	s->nprogs = 0;
	if (s->costs)
		init_costs(s, obj, plan);
	if (!s->enabled)
		return;
	s->prog_fds = calloc((size_t)plan->nprobes + 1, sizeof(int));
	for (int i = 0; s->prog_fds && i < plan->nprobes; i++) {
		struct bpf_program *p;

		if (!is_sampling(plan->probes[i].type) || !plan->probes[i].prog)
			continue;
		p = bpf_object__find_program_by_name(obj, plan->probes[i].prog);
		if (p && first_of_prog(plan, i)) /* a program may serve several points */
			s->prog_fds[s->nprogs++] = bpf_program__fd(p);
	}
	if (s->nprogs && s->stats_fd < 0)
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
}

void sp_status__print_costs(const struct sp_status *s, const struct sp_plan *plan, FILE *f)
{
	if (!s->costs)
		return;
	if (s->stats_fd < 0 || !s->probe_fds) {
		fprintf(f, "stats: no BPF run times: the kernel keeps none (BPF_ENABLE_STATS, "
			"Linux 5.8)\n");
		return;
	}
	for (int i = 0; i < plan->nprobes; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		int more;

		if (s->probe_fds[i] < 0 || !first_of_prog(plan, i) ||
		    bpf_obj_get_info_by_fd(s->probe_fds[i], &info, &len))
			continue;
		more = others_of_prog(plan, i);
		fprintf(f, "stats: probe '%s'%s%.0d%s (%s): %llu runs, %.2f us a run, %.1f ms in all\n",
			plan->probes[i].spec ? plan->probes[i].spec : "?", more ? " and " : "",
			more, more ? " more" : "", plan->probes[i].prog,
			(unsigned long long)info.run_cnt,
			info.run_cnt ? (double)info.run_time_ns / (double)info.run_cnt / 1e3 : 0.0,
			(double)info.run_time_ns / 1e6);
	}
}

static int64_t samples(const struct sp_status *s)
{
	uint64_t n = 0;

	if (s->stats_fd < 0)
		return -1;
	for (int i = 0; i < s->nprogs; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(s->prog_fds[i], &info, &len) == 0)
			n += info.run_cnt;
	}
	return (int64_t)n;
}

static void draw_lost(const struct sp_lost *l)
{
	const struct { const char *name; uint64_t n; } why[] = {
		{ "map full", l->map_full },       { "table full", l->table_full },
		{ "ring buffer", l->ring },        { "stack map full", l->stack_full },
		{ "collisions", l->collision },
	};
	const char *sep = " (";

	fprintf(stderr, "  %llu lost", (unsigned long long)sp_lost_total(l));
	for (size_t i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		if (!why[i].n)
			continue;
		fprintf(stderr, "%s%s %llu", sep, why[i].name, (unsigned long long)why[i].n);
		sep = ", ";
	}
	if (sep[0] == ',')
		fputc(')', stderr);
}

void sp_status__draw(struct sp_status *s, uint64_t elapsed_ns, uint64_t stacks,
		     const struct sp_lost *lost)
{
	uint64_t sec = elapsed_ns / 1000000000ull;
	int64_t n;

	if (!s->enabled)
		return;
	n = samples(s);
	fprintf(stderr, "\r\033[K%llu:%02llu", (unsigned long long)(sec / 60),
		(unsigned long long)(sec % 60));
	if (n >= 0)
		fprintf(stderr, "  %lld samples", (long long)n);
	draw_lost(lost);
	fprintf(stderr, "  %llu stacks  Ctrl-C to stop", (unsigned long long)stacks);
	fflush(stderr);
	s->shown = true;
}

void sp_status__clear(struct sp_status *s)
{
	if (!s->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	s->shown = false;
}

void sp_status__destroy(struct sp_status *s)
{
	sp_status__clear(s);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	free(s->prog_fds);
	free(s->probe_fds);
	s->prog_fds = s->probe_fds = NULL;
	s->stats_fd = -1;
}
