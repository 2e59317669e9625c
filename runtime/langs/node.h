/* runtime/langs/node.h: node processes for the BPF frame walker, and their JS frames named.
 *
 * The Node.js counterpart of runtime/langs/perl.h. sp_node__add_maps() is
 * called with every snapshot of a process's mappings: a process whose
 * executable or libnode exports V8's postmortem constants (v8dbg_*) gets
 * the frame and object offsets they give into nd_procs, and
 * bpf/node.bpf.c appends its JavaScript frames to its stacks (abi/node.h).
 * A V8 without a constant the walk needs gets one warning naming node's
 * V8 version and the missing constant; its native stacks work.
 *
 * BPF numbers the (SharedFunctionInfo, name) of the frames it sees and
 * announces each (SP_EV_INTERP_CODE, struct sp_nd_code_rec);
 * sp_node__note_code() reads the function's name and its script's name
 * from the process at once, cached by (pid, id). sp_node__splice() puts
 * each JS frame in place of the native frame its code ran as (JIT code,
 * an interpreter trampoline or handler), found by its return address.
 */
#ifndef SPROF_RUNTIME_LANGS_NODE_H
#define SPROF_RUNTIME_LANGS_NODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmaps;
struct sp_node;

/* NULL with errno ENOENT when the object has no node walker. */
struct sp_node *sp_node__open(struct bpf_object *obj);

/* Registers pid when the snapshot shows a node whose constants the walk
 * has: 1 when registered (now or before), 0 when not, -errno on failure.
 * nd may be NULL. */
int sp_node__add_maps(struct sp_node *nd, pid_t pid, const struct sp_procmaps *pm);
/* Whether pid is or was a registered node process (its stacks carry JS words). */
bool sp_node__owns(const struct sp_node *nd, pid_t pid);
/* SP_EV_INTERP_CODE of a node process: the function at addr (its SFI). */
void sp_node__note_code(struct sp_node *nd, pid_t pid, uint64_t addr, const void *rec, size_t len);

/* frames[0..nnative) native, leaf first (room for nnative + ninterp);
 * words the ninterp JS words. Returns the mixed stack's length. */
int sp_node__splice(struct sp_node *nd, pid_t pid, const uint64_t *words, int ninterp,
		    struct sp_frame *frames, int nnative);

/* Its walker's struct sp_iwalker comes first: the rest of its life cycle
 * (destroy, warnings, --continuous eviction, the count of processes) is
 * interp_walker.h's, through lang.c's table. */

#endif
