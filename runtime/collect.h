/* runtime/collect.h: BPF maps -> struct sp_profile. */
#ifndef SPROF_RUNTIME_COLLECT_H
#define SPROF_RUNTIME_COLLECT_H

#include <stdint.h>

#include "abi/plan.h"
#include "runtime/report/profile.h"

struct bpf_object;
struct sp_symbolizer;
struct sp_collector;
struct sp_python;

struct sp_collector *sp_collector__open(const struct sp_plan *plan, struct bpf_object *obj,
					struct sp_symbolizer *sym);
/* Everything the collector returned (profiles, decoded keys, strings) lives
 * until destroy. Accepts NULL. */
void sp_collector__destroy(struct sp_collector *c);

/* Interpreter frames of user stacks are spliced in by py (may be NULL). */
void sp_collector__set_python(struct sp_collector *c, struct sp_python *py);
/* Reads every plan map and the drop counters. */
int sp_collect(struct sp_collector *c, struct sp_profile *out);
/* "@m: N updates dropped, map full at K keys", lost events and stacks, on
 * stderr (after the report, so they are the last thing seen). */
void sp_profile_warn(const struct sp_profile *p);
/* Reads one map (print() while running); the result lives until
 * sp_collector__reset_scratch(). */
int sp_collect_map(struct sp_collector *c, const struct sp_plan_map *m, struct sp_mapdata *out);
/* clear(@m): deletes every key. zero(@m): zeroes every value, keeping keys. */
int sp_collect_clear(struct sp_collector *c, const struct sp_plan_map *m);
int sp_collect_zero(struct sp_collector *c, const struct sp_plan_map *m);
/* Decodes one field laid out at `data` (printf arguments). `pid` is used
 * for USYM when the data carries no user stack. */
int sp_collect_decode(struct sp_collector *c, const struct sp_plan_field *f, const void *data,
		      uint32_t pid, struct sp_kval *out);
/* Frees what decoding printf arguments allocated (call after each event). */
void sp_collector__reset_scratch(struct sp_collector *c);

/* Live counters for the status line: distinct stacks stored and updates
 * dropped (full maps + full stack map). */
void sp_collect_counters(struct sp_collector *c, uint64_t *stacks, uint64_t *lost);

#endif
