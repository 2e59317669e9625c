/* runtime/attach/progcopy.c: a loaded program loaded again.
 *
 * A kprobe_multi link needs a program loaded for it, a tracing program is
 * verified against one kernel function: a wildcard over many needs the
 * program again. After load, bpf_program__insns() holds libbpf's final
 * instructions (map fds in place, subprograms appended). Subprograms that
 * are bpf_loop callbacks need BTF func_info, which libbpf does not hand
 * out: the kernel's copy (bpf_obj_get_info_by_fd) gives the BTF and each
 * subprogram's type id in order, and the subprograms' starts in libbpf's
 * instructions are the targets of their calls and function pointers (the
 * kernel's offsets are those after its own rewrites, so they cannot be
 * used).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "runtime/attach/progcopy.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sorted unique subprogram starts (0, the main program, first) into
 * starts[cnt]; their number. */
static int subprog_starts(const struct bpf_insn *in, size_t cnt, uint32_t *starts)
{
	int n = 0, w = 0;

	starts[n++] = 0;
	for (size_t i = 0; i < cnt; i++) {
		bool call = in[i].code == (BPF_JMP | BPF_CALL) && in[i].src_reg == BPF_PSEUDO_CALL;
		bool fptr = in[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    in[i].src_reg == BPF_PSEUDO_FUNC;
		int64_t t = (int64_t)i + in[i].imm + 1;

		if ((call || fptr) && t > 0 && (size_t)t < cnt)
			starts[n++] = (uint32_t)t;
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
	qsort(starts, (size_t)n, sizeof(*starts), cmp_u32);
	for (int i = 0; i < n; i++)
		if (!w || starts[w - 1] != starts[i])
			starts[w++] = starts[i];
	return w;
}

/* The kernel's func_info of the loaded prog: BTF id and records. */
static int kernel_func_info(int fd, uint32_t *btf_id, struct bpf_func_info **fi, uint32_t *n)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	if ((err = bpf_obj_get_info_by_fd(fd, &info, &len)))
		return err;
	*n = info.nr_func_info;
	*btf_id = info.btf_id;
	if (!*n)
		return 0;
	if (info.func_info_rec_size != sizeof(**fi) || !(*fi = calloc(*n, sizeof(**fi))))
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	info.nr_func_info = *n;
	info.func_info_rec_size = sizeof(**fi);
	info.func_info = (uint64_t)(uintptr_t)*fi;
	len = sizeof(info);
	return bpf_obj_get_info_by_fd(fd, &info, &len);
}

int sp_prog_copy_load(struct bpf_program *prog, enum bpf_prog_type type,
		      enum bpf_attach_type expected, int attach_btf_id, char *log, size_t loglen)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t cnt = bpf_program__insn_cnt(prog);
	struct bpf_func_info *fi = NULL;
	uint32_t *starts = NULL, nfi = 0, btf_id = 0;
	int fd = -ENOENT, btf_fd = -1, err;

	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = expected,
		    .attach_btf_id = (__u32)attach_btf_id, .prog_flags = bpf_program__flags(prog));
	if (!insns || !cnt)
		return -ENOENT;
	if ((err = kernel_func_info(bpf_program__fd(prog), &btf_id, &fi, &nfi))) {
		fd = err < 0 ? err : -EINVAL;
		goto out;
	}
	if (nfi > 1) { /* subprograms: their starts here, their types from the kernel */
		fd = -ENOMEM;
		if (!(starts = calloc(cnt + 1, sizeof(*starts))))
			goto out;
		fd = -EINVAL;
		if ((uint32_t)subprog_starts(insns, cnt, starts) != nfi)
			goto out;
		for (uint32_t i = 0; i < nfi; i++)
			fi[i].insn_off = starts[i];
	}
	if (nfi) {
		if ((btf_fd = bpf_btf_get_fd_by_id(btf_id)) < 0) {
			fd = -errno;
			goto out;
		}
		o.prog_btf_fd = (__u32)btf_fd;
		o.func_info = fi;
		o.func_info_cnt = nfi;
		o.func_info_rec_size = sizeof(*fi);
	}
	fd = bpf_prog_load(type, bpf_program__name(prog), "GPL", insns, cnt, &o);
	if (fd < 0 && log && loglen) { /* again, for the verifier's log */
		log[0] = '\0';
		o.log_buf = log;
		o.log_size = (__u32)loglen;
		o.log_level = 1;
		fd = bpf_prog_load(type, bpf_program__name(prog), "GPL", insns, cnt, &o);
	}
	fd = fd < 0 ? -errno : fd;
out:
	if (btf_fd >= 0)
		close(btf_fd);
	free(fi);
	free(starts);
	return fd;
}
