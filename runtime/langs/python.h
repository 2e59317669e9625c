/* runtime/langs/python.h: CPython processes for the BPF frame walker, and their frames named.
 *
 * sp_python__add_pid() is called whenever the session reads a process's
 * mappings (first sample, exec, the re-reads after it): when the process
 * runs CPython 3.8-3.13 (the executable or a libpython defines _PyRuntime)
 * its offsets go into the py_procs map, and bpf/python.bpf.c starts
 * appending interpreter frame words to its stacks (abi/interp.h). Other
 * versions get one warning naming the version; their native stacks work.
 *
 * BPF numbers the code objects it sees and announces each new one
 * (SP_EV_INTERP_CODE) with its name, file, first line and line table as far
 * as it could copy them; what is missing is read from the process
 * (process_vm_readv) at once. Cached by (pid, code id).
 * sp_python__splice() then turns a stack's interpreter words into frames
 * placed where _PyEval_EvalFrameDefault ran: kind SP_FRAME_INTERP, sym the
 * qualified name, srcfile/srcline the file and line, or
 * "[unknown python frame]" when the code object could not be read.
 * Strings in frames live until sp_python__destroy().
 */
#ifndef SPROF_RUNTIME_LANGS_PYTHON_H
#define SPROF_RUNTIME_LANGS_PYTHON_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "runtime/profile/profile.h"

struct bpf_object;
struct sp_python;

/* NULL with errno ENOENT when the object has no walker (the program takes
 * no user stacks). */
struct sp_python *sp_python__open(struct bpf_object *obj);
void sp_python__destroy(struct sp_python *py); /* accepts NULL */

/* Looks at pid's mappings again; registers it when it runs a supported
 * CPython. 1 when registered (now or before), 0 when not an interpreter
 * (yet), -errno on failure. py may be NULL. */
int sp_python__add_pid(struct sp_python *py, pid_t pid);
/* The same from a snapshot the process layer read (runtime/process.h). */
struct sp_procmaps;
int sp_python__add_maps(struct sp_python *py, pid_t pid, const struct sp_procmaps *pm);
/* SP_EV_INTERP_CODE: the code object at addr of pid, from the record BPF
 * copied (struct sp_py_code_rec, len bytes) and what is missing there read
 * from the process now. */
void sp_python__note_code(struct sp_python *py, pid_t pid, uint64_t addr, const void *rec,
			  size_t len);

/* frames[0..nnative) are a stack's native frames, symbolized, leaf first;
 * words its ninterp interpreter words. Rewrites frames (room for
 * nnative + ninterp) into the mixed stack and returns its length. */
int sp_python__splice(struct sp_python *py, pid_t pid, const uint64_t *words, int ninterp,
		      struct sp_frame *frames, int nnative);

/* A long run (--continuous), between two reports: forgets processes that
 * are gone, their code objects, and their entries in BPF's maps. Returns
 * the processes forgotten. */
int sp_python__evict(struct sp_python *py);
/* CPython processes known (registered or looked at). Accepts NULL. */
int sp_python__nprocs(const struct sp_python *py);

/* Interpreter stacks lost or cut (py_stats, unknown frames), on f; nothing
 * when all went well. */
void sp_python__warn(struct sp_python *py, FILE *f);

#endif
