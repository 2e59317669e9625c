/* runtime/attach/fentry.c: fentry:[MODULE:]FUNC and fexit (kfunc, kretfunc).
 *
 * A tracing program (BPF_TRACE_FENTRY/FEXIT) runs from a BPF trampoline at
 * the entry or return of a kernel function; its context is the function's
 * arguments as u64 args[] (fexit: the return value after them), typed from
 * kernel BTF by sema. codegen names the section "fentry/FUNC", so libbpf
 * finds the target's BTF id at load. Trampolines need Linux 5.5 on x86-64
 * with BTF and CONFIG_FUNCTION_TRACER; a kernel without them gets one clear
 * line before load, never a verifier log.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/attach/fentry.h"

/* fentry: a tracing program loaded against a kernel function and attached
 * (the load alone succeeds on kernels whose ftrace cannot make trampolines). */
bool sp_fentry_available(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *vm = btf__load_vmlinux_btf();
	int id = vm ? btf__find_by_name_kind(vm, "vfs_read", BTF_KIND_FUNC) : -1;
	int prog, link = -1;

	btf__free(vm);
	if (id < 0)
		return false;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &o);
	if (prog >= 0)
		link = bpf_raw_tracepoint_open(NULL, prog); /* 5.5+, unlike link_create */
	if (link >= 0)
		close(link);
	if (prog >= 0)
		close(prog);
	return link >= 0;
}


static int fentry_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *kind = p->type == SP_PROBE_FEXIT ? "fexit" : "fentry";

	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected %s:[MODULE:]FUNCTION", kind);
	if (strpbrk(p->func, "*?["))
		return sp_probe_fail(ctx, p, -EINVAL, "wildcards are not supported for %s yet",
				     kind);
	if (!sp_fentry_available())
		return sp_probe_fail(ctx, p, -EOPNOTSUPP,
				     "this kernel cannot run %s probes (BPF trampolines need Linux "
				     "5.5+ on x86-64 with BTF and CONFIG_FUNCTION_TRACER)", kind);
	return 0;
}

static int fentry_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct bpf_link *link = bpf_program__attach_trace(prog);
	int err;

	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to '%s': %s", p->func,
				     strerror(-err));
	}
	return sp_links_push(links, link);
}

const struct sp_probe_ops sp_probe_fentry_ops = {
	.type = SP_PROBE_FENTRY,
	.validate = fentry_validate,
	.attach = fentry_attach,
};

const struct sp_probe_ops sp_probe_fexit_ops = {
	.type = SP_PROBE_FEXIT,
	.validate = fentry_validate,
	.attach = fentry_attach,
};
