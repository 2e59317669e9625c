/* runtime/stacks/walkstats.c: per-CPU counters of the stack walkers (walkstats.h). */
#include "runtime/stacks/walkstats.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdlib.h>

#include "abi/plan.h"

uint64_t sp_percpu_sum(int fd, uint32_t idx)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v, sum = 0;

	if (fd < 0 || ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (bpf_map_lookup_elem(fd, &idx, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

void sp_walk_warn(FILE *f, const char *lang, uint64_t walks, uint64_t trunc, uint64_t err,
		  uint64_t unknown, const char *unknown_frame, const char *what)
{
	if (trunc || err)
		fprintf(f, "sprof: %s stacks: %" PRIu64 " of %" PRIu64 " samples truncated "
			"(more than %d frames), %" PRIu64 " cut at an unreadable frame\n",
			lang, trunc, walks, SP_MAX_FRAMES, err);
	if (unknown)
		fprintf(f, "sprof: %s stacks: %" PRIu64 " frames of distinct stacks shown as %s (%s)\n",
			lang, unknown, unknown_frame, what);
}
