/* runtime/langs/perl.h: perl processes for the BPF frame walker, and their frames named.
 *
 * The perl counterpart of runtime/langs/ruby.h. sp_perl__add_maps() is
 * called with every snapshot of a process's mappings: a process whose
 * executable or libperl exports PL_revision and PL_thr_key and runs a perl
 * whose layouts are known (5.36, 5.40, 5.42) gets its offsets into pl_procs,
 * and bpf/perl.bpf.c appends its Perl frames to its stacks (abi/perl.h).
 * Other versions, and a perl without what the walk needs (an unthreaded
 * build), get one warning naming the version and what is missing; their
 * native stacks work.
 *
 * BPF numbers the (CV, GV, file) of the frames it sees and announces
 * each (SP_EV_INTERP_CODE, struct sp_pl_code_rec); sp_perl__note_code()
 * reads the sub's name (Pkg::name, as caller() prints it) and the file
 * from the process at once, cached by (pid, id). Its splice turns
 * a stack's Perl words into frames (kind SP_FRAME_INTERP, file:line)
 * where Perl_runops_standard ran, or "[unknown perl frame]" when the
 * process could not be read.
 */
#ifndef SPROF_RUNTIME_LANGS_PERL_H
#define SPROF_RUNTIME_LANGS_PERL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmaps;
struct sp_perl;

/* NULL with errno ENOENT when the object has no perl walker. */
struct sp_perl *sp_perl__open(struct bpf_object *obj);

/* Registers pid when the snapshot shows a supported perl: 1 when
 * registered (now or before), 0 when not (a process that exec'd something
 * else is dropped from pl_procs), -errno on failure. pl may be NULL. */
int sp_perl__add_maps(struct sp_perl *pl, pid_t pid, const struct sp_procmaps *pm);
/* Whether pid is or was a registered perl process (its stacks carry Perl words). */
bool sp_perl__owns(const struct sp_perl *pl, pid_t pid);
/* SP_EV_INTERP_CODE of a perl process: the frame at addr (its CV, or 0). */
void sp_perl__note_code(struct sp_perl *pl, pid_t pid, uint64_t addr, const void *rec, size_t len);

/* Its walker's struct sp_iwalker comes first: the rest (destroy, splice
 * where its evaluation loop ran, warnings, --continuous eviction, the
 * count of processes) is interp_walker.h's, through lang.c's table. */

#endif
