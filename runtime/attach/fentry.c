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

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/info.h"

static int fentry_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *kind = p->type == SP_PROBE_FEXIT ? "fexit" : "fentry";

	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected %s:[MODULE:]FUNCTION", kind);
	if (strpbrk(p->func, "*?["))
		return sp_probe_fail(ctx, p, -EINVAL, "wildcards are not supported for %s yet",
				     kind);
	if (!sp_info_has_fentry())
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
