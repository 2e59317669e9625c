/* runtime/attach/special.c: BEGIN and END.
 *
 * Neither attaches to anything: run.c calls sp_probe_run_special() to run
 * every BEGIN program once through BPF_PROG_TEST_RUN before the other
 * probes attach, and every END program after they have stopped firing (run.c
 * stops them through sp_config and detaches them after the report), so BEGIN
 * sees no sample and END sees every one. Several of each run in the order
 * they are written.
 */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"

static int special_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			  struct sp_attach_ctx *ctx, struct sp_links *links)
{
	return 0;
}

static int run_once(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct bpf_program *prog = bpf_object__find_program_by_name(ctx->obj, p->prog);
	int err;

	if (!prog)
		return sp_probe_fail(ctx, p, -ENOENT, "program '%s' missing from the BPF object",
				     p->prog);
	err = bpf_prog_test_run_opts(bpf_program__fd(prog), &opts);
	if (err)
		return sp_probe_fail(ctx, p, -errno, "cannot run: %s", strerror(errno));
	return 0;
}

int sp_probe_run_special(const struct sp_plan *plan, enum sp_probe_type t,
			 struct sp_attach_ctx *ctx)
{
	for (int i = 0; i < plan->nprobes; i++) {
		int err;

		if (plan->probes[i].type != t)
			continue;
		err = run_once(&plan->probes[i], ctx);
		if (err)
			return err;
	}
	return 0;
}

const struct sp_probe_ops sp_probe_begin_ops = {
	.type = SP_PROBE_BEGIN, .attach = special_attach,
};
const struct sp_probe_ops sp_probe_end_ops = {
	.type = SP_PROBE_END, .attach = special_attach,
};
