/* runtime/verifier.h: `-d verifier`, what the kernel's verifier says
 * about every program of a script.
 *
 * Loads the object exactly as a run would (maps sized, probes prepared, the
 * unwinder set up) but with a verifier log requested for every program,
 * prints each program's log (level 2: every instruction of every path it
 * walked with the register states, and the "; source @ file:line" lines of
 * the script; level 1 would keep only the log of a failing path), and
 * unloads without attaching anything. Needs root.
 */
#ifndef SPROF_RUNTIME_VERIFIER_H
#define SPROF_RUNTIME_VERIFIER_H

#include <stddef.h>
#include <stdio.h>

#include "abi/plan.h"
#include "runtime/runtime.h"

/* 0 when every program loaded, else the load error (logs printed either
 * way). src: the script's text, put into the log's line info lines. */
int sp_verifier_dump(const struct sp_plan *plan, const void *obj, size_t len, const char *src,
		     const struct sp_run_opts *o, FILE *out);

#endif
