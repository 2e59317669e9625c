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
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/attach/resolve.h"
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

static int cmp_after_colon(const void *a, const void *b)
{
	const char *x = strchr(*(char *const *)a, ':'), *y = strchr(*(char *const *)b, ':');

	return strcmp(x, y);
}

static int list_rawtps(struct sp_lister *l, const char *name)
{
	char **v, line[600];
	int i, n, err = sp_tracepoints_list(NULL, name, &v, &n);

	if (err)
		return err == -ENOENT ? 0 : err;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_after_colon);
	for (i = 0; i < n; i++) {
		const char *colon = strchr(v[i], ':');

		if (i > 0 && !strcmp(strchr(v[i - 1], ':'), colon))
			continue;
		snprintf(line, sizeof(line), "rawtracepoint:%s", colon + 1);
		sp_lister_emit(l, line);
	}
	sp_strv_free(v, n);
	return 0;
}

static int rawtp_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *a = nf > 1 && *f[1] ? f[1] : NULL, *b = nf > 2 && *f[2] ? f[2] : NULL;

	return list_rawtps(l, b ? b : a);
}

const struct sp_probe_ops sp_probe_rawtracepoint_ops = {
	.type = SP_PROBE_RAWTRACEPOINT,
	.validate = rawtp_validate,
	.attach = rawtp_attach,
	.list = rawtp_list,
};
