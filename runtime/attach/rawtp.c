/* runtime/attach/rawtp.c: rawtracepoint:NAME (and rawtracepoint:MODULE:NAME).
 *
 * A raw tracepoint program gets the tracepoint's arguments as an array of
 * u64 (arg0..), without the copying into a record that a tracepoint does.
 * The name is checked against tracefs events and the kernel's BTF
 * (btf_trace_NAME) before load; a module prefix is accepted and ignored,
 * since the kernel finds module tracepoints by name alone. -p is filtered
 * in BPF.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/attach/tracefs.h"

static const char *rawtp_name(const struct sp_plan_probe *p)
{
	return p->func && *p->func ? p->func : p->target;
}

static int rawtp_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *name = rawtp_name(p);

	if (!name || !*name)
		return sp_probe_fail(ctx, p, -EINVAL, "expected rawtracepoint:NAME");
	if (strchr(name, '*') || strchr(name, '?'))
		return sp_probe_fail(ctx, p, -EINVAL,
				     "wildcards are not supported for raw tracepoints");
	if (!sp_rawtracepoint_exists(name))
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no raw tracepoint '%s'", name);
	return 0;
}

static int rawtp_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			struct sp_attach_ctx *ctx, struct sp_links *links)
{
	const char *name = rawtp_name(p);
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_raw_tracepoint(prog, name);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to raw tracepoint '%s': %s", name,
				     strerror(-err));
	}
	return sp_links_push(links, link);
}

const struct sp_probe_ops sp_probe_rawtracepoint_ops = {
	.type = SP_PROBE_RAWTRACEPOINT,
	.validate = rawtp_validate,
	.attach = rawtp_attach,
};
