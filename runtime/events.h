/* runtime/events.h: the "sp_events" ring buffer (exit, new pid, printf). */
#ifndef SPROF_RUNTIME_EVENTS_H
#define SPROF_RUNTIME_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "abi/plan.h"

struct bpf_object;
struct sp_events;

/* Called for each record in order; `data` follows the header. A negative
 * return stops the current drain and is passed up. */
typedef int (*sp_event_fn)(void *ctx, const struct sp_event_hdr *h, const void *data,
			   size_t len);

/* NULL with errno set on failure; an object without the ring buffer gives
 * an empty reader (fd -1). */
struct sp_events *sp_events__open(struct bpf_object *obj, sp_event_fn fn, void *ctx);
/* An fd that becomes readable when records are waiting, or -1. */
int sp_events__fd(const struct sp_events *e);
/* Handles the records available now, at most `budget` of them and for at
 * most max_ns (<= 0 and 0: all, for when nothing produces any more); a
 * count or -errno. */
int sp_events__drain(struct sp_events *e, long budget, uint64_t max_ns);
void sp_events__destroy(struct sp_events *e); /* accepts NULL */

#endif
