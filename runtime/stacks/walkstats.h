/* runtime/stacks/walkstats.h: the BPF stack walkers' per-CPU counters, read
 * and reported the same way for every walker (Python, Ruby, --interp usdt). */
#ifndef SPROF_RUNTIME_STACKS_WALKSTATS_H
#define SPROF_RUNTIME_STACKS_WALKSTATS_H

#include <stdint.h>
#include <stdio.h>

/* Counter idx of a per-CPU array of u64 (fd), summed over the CPUs; 0 when
 * fd < 0 or it cannot be read. */
uint64_t sp_percpu_sum(int fd, uint32_t idx);

/* The end-of-run lines of a walker: "LANG stacks: T of W samples truncated
 * ..., E cut at an unreadable frame" when any, and the frames shown as
 * `unknown` (WHAT: what could not be read). */
void sp_walk_warn(FILE *f, const char *lang, uint64_t walks, uint64_t trunc, uint64_t err,
		  uint64_t unknown, const char *unknown_frame, const char *what);

#endif
