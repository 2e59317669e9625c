/* runtime/status.h: the live status line on stderr. */
#ifndef SPROF_RUNTIME_STATUS_H
#define SPROF_RUNTIME_STATUS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "abi/plan.h"
#include "runtime/collect.h"

struct bpf_object;

struct sp_status {
	bool enabled;   /* asked for and stderr is a terminal */
	bool shown;     /* a line is on screen and must be erased before output */
	int stats_fd;   /* keeps BPF run statistics on while held */
	int *prog_fds;  /* sampling programs: their run counts are the samples */
	int nprogs;
	bool costs;     /* --stats: every program's run count and time at the end */
	int *probe_fds; /* by probe of the plan (-1: none) */
};

/* Enables the line when `want` and stderr is a tty. Never fails: without
 * run statistics the sample count is left out. */
void sp_status__init(struct sp_status *s, bool want, struct bpf_object *obj,
		     const struct sp_plan *plan);
/* --stats: keeps run statistics on for every probe's program, whether or
 * not the line is drawn. Call before sp_status__init. */
void sp_status__want_costs(struct sp_status *s);
/* --stats, at the end: per probe, its program's runs, the BPF time of one
 * run and in all (the kernel's run_time_ns and run_cnt); a line saying
 * why when the kernel keeps no statistics. */
void sp_status__print_costs(const struct sp_status *s, const struct sp_plan *plan, FILE *f);
/* lost: by cause; the line shows the total and, when not 0, the causes. */
void sp_status__draw(struct sp_status *s, uint64_t elapsed_ns, uint64_t stacks,
		     const struct sp_lost *lost);
/* Erases the line (call before printing anything). */
void sp_status__clear(struct sp_status *s);
void sp_status__destroy(struct sp_status *s);

#endif
