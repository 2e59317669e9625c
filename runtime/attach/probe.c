/* runtime/attach/probe.c: the probe-type table and the link bookkeeping.
 *
 * One row per probe type; a type without a row cannot be attached yet and
 * says so. Links (and raw fds not owned by a link) are collected in struct
 * sp_links so every exit path can release them with one call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "abi/usdt_spec.h"
#include "base/vec.h"

extern const struct sp_probe_ops sp_probe_begin_ops, sp_probe_end_ops;
extern const struct sp_probe_ops sp_probe_profile_ops, sp_probe_interval_ops;
extern const struct sp_probe_ops sp_probe_software_ops, sp_probe_hardware_ops;
extern const struct sp_probe_ops sp_probe_uprobe_ops, sp_probe_uretprobe_ops, sp_probe_usdt_ops;
extern const struct sp_probe_ops sp_probe_tracepoint_ops, sp_probe_rawtracepoint_ops;
extern const struct sp_probe_ops sp_probe_kprobe_ops, sp_probe_kretprobe_ops;
extern const struct sp_probe_ops sp_probe_watchpoint_ops, sp_probe_asyncwatchpoint_ops;
extern const struct sp_probe_ops sp_probe_fentry_ops, sp_probe_fexit_ops;
extern const struct sp_probe_ops sp_probe_iter_ops;

static const struct sp_probe_ops *const probe_table[] = {
	&sp_probe_begin_ops,
	&sp_probe_end_ops,
	&sp_probe_profile_ops,
	&sp_probe_interval_ops,
	&sp_probe_software_ops,
	&sp_probe_hardware_ops,
	&sp_probe_uprobe_ops,
	&sp_probe_uretprobe_ops,
	&sp_probe_usdt_ops,
	&sp_probe_tracepoint_ops,
	&sp_probe_rawtracepoint_ops,
	&sp_probe_kprobe_ops,
	&sp_probe_kretprobe_ops,
	&sp_probe_watchpoint_ops,
	&sp_probe_asyncwatchpoint_ops,
	&sp_probe_fentry_ops,
	&sp_probe_fexit_ops,
	&sp_probe_iter_ops,
};

const struct sp_probe_ops *sp_probe_ops_for(enum sp_probe_type t)
{
	for (size_t i = 0; i < sizeof(probe_table) / sizeof(probe_table[0]); i++)
		if (probe_table[i]->type == t)
			return probe_table[i];
	return NULL;
}

int sp_probes_prepare(struct bpf_object *obj, const struct sp_plan *plan,
		      struct sp_attach_ctx *ctx)
{
	struct bpf_map *names = bpf_object__find_map_by_name(obj, SP_MAP_PROBE_NAMES);
	int i, total = 0;

	for (i = 0; i < plan->nprobes; i++) {
		const struct sp_plan_probe *p = &plan->probes[i];
		const struct sp_probe_ops *ops = sp_probe_ops_for(p->type);
		int n;

		struct bpf_program *prog = bpf_object__find_program_by_name(obj, p->prog);

		if (ops && ops->prepare && prog)
			ops->prepare(p, prog, ctx); /* validate() already reported errors */
		if (p->sleepable && prog)
			bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_SLEEPABLE);
		if (!p->uses_names)
			continue;
		n = ops && ops->count ? ops->count(p, ctx) : 1;
		total += n > 0 ? n : 0; /* validate() already reported errors */
	}
	if (!names || total == 0)
		return 0;
	/* Room for a different resolution at attach time (-c: the child's
	 * mappings here, none there), below the USDT spec keys' range. */
	total = total * 2 + 16;
	if (total > (int)SP_USDT_KEY_BASE)
		total = (int)SP_USDT_KEY_BASE;
	return bpf_map__set_max_entries(names, (uint32_t)total);
}

void *sp_resolved_find(const struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, pid_t pid)
{
	for (struct sp_resolved *r = ctx->resolved ? *ctx->resolved : NULL; r; r = r->next)
		if (r->p == p && r->pid == pid)
			return r->data;
	return NULL;
}

void *sp_resolved_keep(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, pid_t pid,
		       void *data, void (*free_fn)(void *data))
{
	struct sp_resolved *r;

	if (!ctx->resolved)
		return data; /* no memo: the caller keeps it (sp_resolved_put frees it) */
	r = calloc(1, sizeof(*r));
	if (!r) {
		free_fn(data);
		return NULL;
	}
	*r = (struct sp_resolved){ .p = p, .pid = pid, .data = data, .free = free_fn,
				   .next = *ctx->resolved };
	*ctx->resolved = r;
	return data;
}

int sp_resolved_get(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, size_t size,
		    sp_resolve_fn resolve, void (*free_fn)(void *data), void **out)
{
	void *data = sp_resolved_find(ctx, p, ctx->pid);
	int err;

	if (data) {
		*out = data;
		return 0;
	}
	data = calloc(1, size);
	if (!data)
		return -ENOMEM;
	err = resolve(p, ctx, data);
	if (err) {
		free_fn(data);
		return err;
	}
	*out = sp_resolved_keep(ctx, p, ctx->pid, data, free_fn);
	return *out ? 0 : -ENOMEM;
}

void sp_resolved_put(struct sp_attach_ctx *ctx, void *data, void (*free_fn)(void *data))
{
	if (!ctx->resolved)
		free_fn(data);
}

void sp_resolved_free(struct sp_resolved **memo)
{
	while (memo && *memo) {
		struct sp_resolved *next = (*memo)->next;

		(*memo)->free((*memo)->data);
		free(*memo);
		*memo = next;
	}
}

int sp_probe_fail(struct sp_attach_ctx *ctx, const struct sp_plan_probe *p, int err,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!ctx->err || !ctx->errlen)
		return err;
	n = snprintf(ctx->err, ctx->errlen, "probe '%s': ", p->spec ? p->spec : "?");
	if (n < 0 || (size_t)n >= ctx->errlen)
		return err;
	va_start(ap, fmt);
	vsnprintf(ctx->err + n, ctx->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return err;
}

int sp_links_push(struct sp_links *l, struct bpf_link *link)
{
	if (SP_GROW(l->v, l->cap, l->n + 1, 16)) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	l->v[l->n++] = link;
	return 0;
}

int sp_links_push_fd(struct sp_links *l, int fd)
{
	if (SP_GROW(l->fds, l->fdcap, l->nfds + 1, 16)) {
		close(fd);
		return -ENOMEM;
	}
	l->fds[l->nfds++] = fd;
	return 0;
}

void sp_links_destroy(struct sp_links *l)
{
	for (int i = l->n - 1; i >= 0; i--)
		bpf_link__destroy(l->v[i]);
	for (int i = 0; i < l->nfds; i++)
		close(l->fds[i]);
	free(l->v);
	free(l->fds);
	memset(l, 0, sizeof(*l));
}

/* "0-3,5,7-8" */
int sp_online_cpus(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char buf[4096], *s;
	int n = 0, cap = 0, *v = NULL;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	for (s = buf; *s && *s != '\n';) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++) {
			if (SP_GROW(v, cap, n + 1, 16)) {
				free(v);
				return -ENOMEM;
			}
			v[n++] = (int)c;
		}
		s = *end == ',' ? end + 1 : end;
	}
	if (n == 0) {
		free(v);
		return -EIO;
	}
	*cpus = v;
	return n;
}
