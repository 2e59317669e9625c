/* runtime/attach/verbose.h: `-v`, what each probe attached, and where.
 *
 * After a probe's program is attached, the links it left in struct
 * sp_links are read back from the kernel (BPF_OBJ_GET_INFO_BY_FD on each
 * link) and described on one line each:
 *
 *   probe 'uprobe:/app:parse_*' -> program uprobe_0
 *     uprobe_multi /app: 3 offsets 0x1139 0x1160 0x1187
 *   probe 'profile:hz:99' -> program profile_0
 *     2 x perf event software/cpu-clock, sample period 10101010
 *
 * What the kernel reports is what is really attached (file offsets, USDT
 * semaphore reference counters, tracepoint names, perf event types), not
 * what sprof meant to attach. Older kernels report less; the line then
 * says only the link type.
 */
#ifndef SPROF_RUNTIME_ATTACH_VERBOSE_H
#define SPROF_RUNTIME_ATTACH_VERBOSE_H

#include <stdio.h>

#include "abi/plan.h"
#include "runtime/attach/probe.h"

/* Describes links[nlinks_before..] and fds[nfds_before..] of l, attached for p. */
void sp_attach_report(FILE *f, const struct sp_plan_probe *p, const struct sp_links *l,
		      int nlinks_before, int nfds_before);

#endif
