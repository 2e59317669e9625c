/* runtime/langs/hotspot.h: HotSpot JVM processes for the BPF frame walker, their Java frames named.
 *
 * The JVM counterpart of runtime/langs/node.h. sp_hotspot__add_maps() is
 * called with every snapshot of a process's mappings: a process mapping a
 * libjvm.so whose gHotSpotVM* tables are filled (the JVM has started) and
 * give every field the walk needs gets the code heaps and offsets into
 * hs_procs, and bpf/hotspot.bpf.c appends its Java frames to its stacks
 * (abi/hotspot.h). A JVM without one of them gets one warning naming its
 * version and the missing entry; its native stacks work.
 *
 * BPF numbers the Method* of the frames it sees and announces each
 * (SP_EV_INTERP_CODE, struct sp_hs_code_rec); sp_hotspot__note_code()
 * reads the class and method name from the process at once, cached by
 * (pid, id). sp_hotspot__splice() puts each Java frame in place of the
 * native frame its code ran as (the interpreter, compiled code), found by
 * its return address.
 */
#ifndef SPROF_RUNTIME_LANGS_HOTSPOT_H
#define SPROF_RUNTIME_LANGS_HOTSPOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmaps;
struct sp_hotspot;

/* NULL with errno ENOENT when the object has no HotSpot walker. */
struct sp_hotspot *sp_hotspot__open(struct bpf_object *obj);

/* Registers pid when the snapshot shows a started JVM whose tables the
 * walk has: 1 when registered (now or before), 0 when not, -errno on
 * failure. hs may be NULL. */
int sp_hotspot__add_maps(struct sp_hotspot *hs, pid_t pid, const struct sp_procmaps *pm);
/* Whether pid is or was a registered JVM process (its stacks carry Java words). */
bool sp_hotspot__owns(const struct sp_hotspot *hs, pid_t pid);
/* SP_EV_INTERP_CODE of a JVM process: the method at addr (its Method*). */
void sp_hotspot__note_code(struct sp_hotspot *hs, pid_t pid, uint64_t addr, const void *rec,
			   size_t len);

/* frames[0..nnative) native, leaf first (room for nnative + ninterp);
 * words the ninterp Java words. Returns the mixed stack's length. */
int sp_hotspot__splice(struct sp_hotspot *hs, pid_t pid, const uint64_t *words, int ninterp,
		       struct sp_frame *frames, int nnative);

/* Its walker's struct sp_iwalker comes first: the rest of its life cycle
 * is interp_walker.h's, through lang.c's table. */

#endif
