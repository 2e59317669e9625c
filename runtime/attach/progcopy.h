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
/* The same, for a target in a kernel module: attach_btf_id is an id of the
 * module's BTF, attach_btf_obj_fd that BTF object (0: vmlinux). */
int sp_prog_copy_load_in(struct bpf_program *prog, enum bpf_prog_type type,
			 enum bpf_attach_type expected, int attach_btf_obj_fd, int attach_btf_id,
			 char *log, size_t loglen);

#endif
