/* runtime/langs/interp_usdt.h: frames of --interp usdt named and placed in stacks.
 *
 * The stacks' interpreter words come from the per-thread frame stacks the
 * hidden USDT programs keep (abi/interp_usdt.h). Names are read from the
 * iu_names map by id (BPF copied the strings at the first entry) and
 * cached for the run. sp_iusdt__splice() puts a stack's interpreter frames,
 * innermost first, where its innermost eval-loop function
 * (_PyEval_EvalFrameDefault, Ruby's vm_exec_core/rb_vm_exec) runs, or at
 * the root end when the native stack shows none (pystack: only them).
 */
#ifndef SPROF_RUNTIME_LANGS_INTERP_USDT_H
#define SPROF_RUNTIME_LANGS_INTERP_USDT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_iusdt;

/* NULL with errno ENOENT when the object has no USDT frame stacks (the
 * program takes no user stacks, or another --interp mode). */
struct sp_iusdt *sp_iusdt__open(struct bpf_object *obj);
void sp_iusdt__destroy(struct sp_iusdt *iu); /* accepts NULL */

/* frames[0..nnative) are a stack's native frames, leaf first; words its
 * ninterp interpreter words. Rewrites frames (room for nnative + ninterp)
 * into the mixed stack and returns its length. */
int sp_iusdt__splice(struct sp_iusdt *iu, const uint64_t *words, int ninterp,
		     struct sp_frame *frames, int nnative);

/* While running (every second): the warning that the probes are not
 * enabled in the program, on f, once it is certain; true when given now. */
bool sp_iusdt__check(struct sp_iusdt *iu, bool attached, FILE *f);
/* What the run's probes did, on f: the warning when they barely fired
 * (with how to enable them; once a run), frames not kept. `attached`:
 * some interpreter's probes were attached. */
void sp_iusdt__warn(struct sp_iusdt *iu, bool attached, bool verbose, FILE *f);

#endif
