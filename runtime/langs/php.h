/* runtime/langs/php.h: php processes for the BPF frame walker, and their frames named.
 *
 * The PHP counterpart of runtime/langs/perl.h. sp_php__add_maps() is
 * called with every snapshot of a process's mappings: a process whose
 * executable or libphp exports executor_globals and execute_ex and runs a
 * PHP whose layouts are known (8.2, 8.4) gets its offsets into ph_procs,
 * and bpf/php.bpf.c appends its PHP frames to its stacks (abi/php.h).
 * Another version gets one warning naming php, its version and what is
 * missing; its native stacks work.
 *
 * BPF numbers the (function, name) of the frames it sees and announces
 * each with its names (SP_EV_INTERP_CODE, struct sp_ph_code_rec);
 * Its splice turns a stack's PHP words into frames (kind
 * SP_FRAME_INTERP, file:line) where execute_ex ran.
 */
#ifndef SPROF_RUNTIME_LANGS_PHP_H
#define SPROF_RUNTIME_LANGS_PHP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmaps;
struct sp_php;

/* NULL with errno ENOENT when the object has no php walker. */
struct sp_php *sp_php__open(struct bpf_object *obj);

/* Registers pid when the snapshot shows a php whose layouts the walk has:
 * 1 when registered (now or before), 0 when not, -errno on failure. */
int sp_php__add_maps(struct sp_php *ph, pid_t pid, const struct sp_procmaps *pm);
/* Whether pid is or was a registered php process (its stacks carry PHP words). */
bool sp_php__owns(const struct sp_php *ph, pid_t pid);
/* SP_EV_INTERP_CODE of a php process: the function at addr. */
void sp_php__note_code(struct sp_php *ph, pid_t pid, uint64_t addr, const void *rec, size_t len);

/* Its walker's struct sp_iwalker comes first: the rest (destroy, splice
 * where its evaluation loop ran, warnings, --continuous eviction, the
 * count of processes) is interp_walker.h's, through lang.c's table. */

#endif
