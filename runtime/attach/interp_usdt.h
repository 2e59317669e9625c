/* runtime/attach/interp_usdt.h: --interp usdt's hidden programs attached to a process's interpreters.
 *
 * The programs of bpf/interp_usdt.bpf.c are in the object only in that
 * mode (codegen); they are not in the plan. sp_iusdt_attach() finds the
 * interpreters the process runs (its executable and libraries named
 * *python* or *ruby*), attaches the entry/return programs to their probes
 * through the usdt probe type (semaphores included) and the thread-exit
 * cleanup to sched:sched_process_exit. A file of an interpreter without
 * the probes gets one message naming it.
 */
#ifndef SPROF_RUNTIME_ATTACH_INTERP_USDT_H
#define SPROF_RUNTIME_ATTACH_INTERP_USDT_H

#include <sys/types.h>

#include "runtime/attach/probe.h"

/* Number of interpreter files attached (0: none could be: messages said
 * why), or -errno after a message. ctx->obj is the loaded object. */
int sp_iusdt_attach(const struct sp_attach_ctx *ctx, pid_t pid, struct sp_links *links);

#endif
