/* runtime/drain.h: aggregations and stacks moved from BPF maps into user-space tables.
 *
 * A BPF map is small (it must be: hash maps are preallocated, and per-CPU
 * values cost a slot per CPU), while a profile of a busy system has far
 * more distinct keys. So every aggregation BPF never reads back (plan
 * sp_plan_map.drain) is emptied into a table here before it fills: its
 * entries are read and deleted in one step (BPF_MAP_LOOKUP_AND_DELETE_BATCH,
 * else per key), per-CPU values merged, and merged into the table, which
 * persists until the end of the run (bounded by --max-keys). Stacks move
 * the same way from sp_stacks into a store keyed by stack id, so a key
 * drained earlier still resolves its stacks. Reports read the tables.
 *
 * A thread started by sp_drain__start() drains a map when half of it is
 * new and everything every 0.5 s; sp_drain_all() is the one "drain
 * everything now" entry point (the end of a run, a periodic report).
 * Every function here may be called while that thread runs.
 */
#ifndef SPROF_RUNTIME_DRAIN_H
#define SPROF_RUNTIME_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/plan.h"

struct bpf_object;
struct sp_drain;

/* NULL with errno set on failure (no memory, no possible CPUs). max_keys
 * 0: nothing is drained. */
struct sp_drain *sp_drain__open(const struct sp_plan *plan, struct bpf_object *obj,
				uint32_t max_keys);
void sp_drain__destroy(struct sp_drain *d); /* accepts NULL */

/* Starts the drain thread (nothing when nothing is drained); stop joins it
 * (destroy stops it too). */
int sp_drain__start(struct sp_drain *d);
void sp_drain__stop(struct sp_drain *d);

/* Drains every drained map, then the stack map. */
int sp_drain_all(struct sp_drain *d);
/* Drains plan map `id` now (nothing when it is not drained). */
int sp_drain_map(struct sp_drain *d, int id);

/* True when plan map `id` is drained into a table. */
bool sp_drain_has(const struct sp_drain *d, int id);
/* Drains map `id`, then returns a copy of its table (free() it): *n rows
 * of *stride bytes, each the BPF key (key_size) then one value in the
 * single-CPU layout (value_size); *dropped: keys the table could not take.
 * NULL with errno set on failure. */
uint8_t *sp_drain_rows(struct sp_drain *d, int id, size_t *n, size_t *stride, uint64_t *dropped);
/* The same copy, and the table emptied (its dropped count too) in the
 * same locked step: nothing drained meanwhile falls between (--continuous). */
uint8_t *sp_drain_take(struct sp_drain *d, int id, size_t *n, size_t *stride, uint64_t *dropped);
/* Ends a period of the store of stacks: stacks not copied out of sp_stacks
 * during this period nor the one before are forgotten (a key drained at
 * the start of a period may hold a stack drained at the end of the last
 * one; BPF stores a stack again when it is sampled again). Returns the
 * number forgotten. */
size_t sp_drain_age_stacks(struct sp_drain *d);
/* clear(): forgets every key; zero(): zeroes every value, keeping keys.
 * Both drain the BPF map first. */
int sp_drain_clear(struct sp_drain *d, int id);
int sp_drain_zero(struct sp_drain *d, int id);

struct sp_drain_stats {
	uint64_t drains;          /* passes that moved at least one entry */
	uint64_t entries;         /* entries moved out of BPF maps */
	uint64_t dropped_keys;    /* drained entries of new keys not kept: a table was at --max-keys */
	uint64_t collisions;      /* stack ids re-used by a different stack */
	uint64_t unsettled;       /* drains that went on with an update still under way after 1 s */
	size_t stacks;            /* distinct stacks held */
};
void sp_drain_stats(struct sp_drain *d, struct sp_drain_stats *st);

/* A stack copied out of sp_stacks: 0, or -ENOENT when never seen. */
int sp_drain_stack(struct sp_drain *d, uint64_t id, struct sp_stack_val *out);

#endif
