/* runtime/attach/watchpoint.h: watchpoint:FUNC+argN's breakpoints, set as FUNC is called.
 *
 * The arm programs (bpf/watch.bpf.c) report each call's address
 * (SP_EV_WATCH) and unwatch() an address to give up (SP_EV_UNWATCH); the
 * run loop hands both here. See watchpoint.c.
 */
#ifndef SPROF_RUNTIME_ATTACH_WATCHPOINT_H
#define SPROF_RUNTIME_ATTACH_WATCHPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "abi/plan.h"

struct bpf_object;
struct sp_watches;

/* NULL when the plan has no FUNC+argN watchpoint (the calls below accept NULL). */
struct sp_watches *sp_watches_new(struct bpf_object *obj, const struct sp_plan *plan,
				  const int *cpus, int ncpus);
/* An SP_EV_WATCH record (header, then the payload of struct sp_watch_rec):
 * sets the breakpoint, continues a stopped process. 0 or -errno (reported). */
int sp_watches_arm(struct sp_watches *w, const struct sp_event_hdr *h, const void *data,
		   size_t len);
/* unwatch(addr): every breakpoint on addr goes; an address not watched is no error. */
void sp_watches_unwatch(struct sp_watches *w, uint64_t addr);
/* Calls whose address got no breakpoint: no debug register was free. */
unsigned long sp_watches_missed(const struct sp_watches *w);
void sp_watches_free(struct sp_watches *w);

#endif
