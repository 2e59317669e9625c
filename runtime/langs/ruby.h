/* runtime/langs/ruby.h: Ruby processes for the BPF frame walker, and their frames named.
 *
 * The Ruby counterpart of runtime/langs/python.h. sp_ruby__add_maps() is
 * called with every snapshot of a process's mappings: a process whose
 * executable or libruby exports ruby_version and runs Ruby 3.1 or 3.3
 * gets its offsets into rb_procs, and bpf/ruby.bpf.c appends its Ruby
 * frames to its stacks (abi/ruby.h). Other Ruby versions, and a libruby
 * whose main ractor or rb_vm_exec cannot be found, get one warning naming
 * the version and what is missing; their native stacks work.
 *
 * BPF numbers the iseqs and C method entries it sees and announces each
 * (SP_EV_INTERP_CODE, struct sp_rb_code_rec); sp_ruby__note_code() reads
 * its label, path and line table (or the C method's name) from the
 * process at once, cached by (pid, id). Its splice turns a stack's
 * Ruby words into frames (kind SP_FRAME_INTERP) where rb_vm_exec ran, or
 * "[unknown ruby frame]" when the process could not be read.
 */
#ifndef SPROF_RUNTIME_LANGS_RUBY_H
#define SPROF_RUNTIME_LANGS_RUBY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_procmaps;
struct sp_ruby;

/* NULL with errno ENOENT when the object has no Ruby walker. */
struct sp_ruby *sp_ruby__open(struct bpf_object *obj);

/* Registers pid when the snapshot shows a supported Ruby: 1 when
 * registered (now or before), 0 when not (a process that exec'd something
 * else is dropped from rb_procs), -errno on failure. rb may be NULL. */
int sp_ruby__add_maps(struct sp_ruby *rb, pid_t pid, const struct sp_procmaps *pm);
/* Whether pid is or was a registered Ruby process (its stacks carry Ruby words). */
bool sp_ruby__owns(const struct sp_ruby *rb, pid_t pid);
/* SP_EV_INTERP_CODE of a Ruby process: the iseq or method entry at addr. */
void sp_ruby__note_code(struct sp_ruby *rb, pid_t pid, uint64_t addr, const void *rec, size_t len);

/* Its walker's struct sp_iwalker comes first: the rest (destroy, splice
 * where its evaluation loop ran, warnings, --continuous eviction, the
 * count of processes) is interp_walker.h's, through lang.c's table. */

#endif
