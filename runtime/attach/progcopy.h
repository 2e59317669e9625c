/* runtime/attach/progcopy.h: a loaded program loaded again for another
 * attach type or target (runtime/attach/progcopy.c). */
#ifndef SPROF_RUNTIME_ATTACH_PROGCOPY_H
#define SPROF_RUNTIME_ATTACH_PROGCOPY_H

#include <stddef.h>
#include <bpf/bpf.h>

struct bpf_program;

/* prog (loaded) again as `type` with `expected` attach type and, for
 * tracing programs, target BTF id attach_btf_id (0: none). Program fd, or
 * -errno; with log (may be NULL) the verifier's log of a refusal. */
int sp_prog_copy_load(struct bpf_program *prog, enum bpf_prog_type type,
		      enum bpf_attach_type expected, int attach_btf_id, char *log, size_t loglen);

#endif
