/* runtime/attach/tracepoint.c: tracepoint:CATEGORY:NAME.
 *
 * Either part may be a glob (tracepoint:syscalls:sys_enter_*): the one BPF
 * program is attached to every matching event. Validation checks the
 * events exist in tracefs (mounting it if needed: libbpf reads the event id
 * there too) and suggests the nearest name when one does not. A -p target
 * is filtered in BPF (sp_config), since tracepoints fire in kernel context
 * for every process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "runtime/attach/probe.h"
#include "runtime/attach/names.h"
#include "runtime/attach/resolve.h"
#include "runtime/attach/tracefs.h"

static int tp_fail_missing(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	char *hint;
	char root[256];

	if (sp_tracefs_root(root, sizeof(root)))
		return sp_probe_fail(ctx, p, -ENOENT,
				     "cannot attach: tracefs is not mounted and cannot be mounted "
				     "(mount -t tracefs nodev /sys/kernel/tracing)");
	if (sp_has_wildcard(p->target) || sp_has_wildcard(p->func))
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no tracepoint matches '%s:%s'",
				     p->target, p->func);
	hint = sp_tracepoint_suggest(p->target, p->func);
	sp_probe_fail(ctx, p, -ENOENT, "cannot attach: tracepoint not found: %s:%s%s%s%s", p->target,
		      p->func, hint ? " (did you mean 'tracepoint:" : "", hint ? hint : "",
		      hint ? "'?)" : "");
	free(hint);
	return -ENOENT;
}

/* An exact CAT:NAME as a list of one. */
static int tp_one(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, char ***v, int *n)
{
	size_t len = strlen(p->target) + strlen(p->func) + 2;

	*v = calloc(1, sizeof(**v));
	if (*v)
		(*v)[0] = malloc(len);
	if (!*v || !(*v)[0]) {
		free(*v);
		*v = NULL;
		return sp_probe_fail(ctx, p, -ENOMEM, "out of memory");
	}
	snprintf((*v)[0], len, "%s:%s", p->target, p->func);
	*n = 1;
	return 0;
}

/* Every "CAT:NAME" the probe names; an exact name is checked first (cheap). */
static int tp_expand(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, char ***v, int *n)
{
	bool wild = sp_has_wildcard(p->target) || sp_has_wildcard(p->func);
	int err;

	*v = NULL;
	*n = 0;
	if (!p->target || !*p->target || !p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected tracepoint:CATEGORY:NAME");
	if (!wild && !sp_tracepoint_exists(p->target, p->func))
		return tp_fail_missing(p, ctx);
	if (!wild) /* no listing of tracefs: thousands of points each read it */
		return tp_one(p, ctx, v, n);
	err = sp_tracepoints_list(p->target, p->func, v, n);
	if (err)
		return sp_probe_fail(ctx, p, err, "cannot list tracepoints: %s", strerror(-err));
	if (*n == 0)
		return tp_fail_missing(p, ctx);
	return 0;
}

static int tp_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	char **v;
	int n, err = tp_expand(p, ctx, &v, &n);

	sp_strv_free(v, n);
	return err;
}

static int tp_attach_one(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, char *catname, int cookie,
			 struct sp_links *links)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = (uint64_t)cookie);
	char *name = strchr(catname, ':'), probe[600];
	struct bpf_link *link;
	int err;

	*name++ = '\0';
	if (p->uses_names) {
		snprintf(probe, sizeof(probe), "tracepoint:%s:%s", catname, name);
		err = sp_probe_names_set(ctx->obj, (uint32_t)cookie, name, probe);
		if (err)
			return sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					     strerror(-err));
	}
	link = bpf_program__attach_tracepoint_opts(prog, catname, name, &o);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to tracepoint %s:%s: %s", catname,
				     name, strerror(-err));
	}
	return sp_links_push(links, link);
}

static int tp_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
		     struct sp_attach_ctx *ctx, struct sp_links *links)
{
	char **v;
	int i, n, base = 0, err = tp_expand(p, ctx, &v, &n);

	if (!err && p->uses_names) {
		base = sp_probe_names_reserve(ctx->obj, n);
		if (base < 0)
			err = sp_probe_fail(ctx, p, base, "cannot record the names of its %d "
					    "tracepoints: %s", n, sp_probe_names_strerror(base));
	}
	for (i = 0; i < n && !err; i++)
		err = tp_attach_one(p, prog, ctx, v[i], base + i, links);
	sp_strv_free(v, n);
	return err;
}

static int tracepoint_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	char **v;
	int n, err = tp_expand(p, ctx, &v, &n);

	sp_strv_free(v, n);
	return err ? err : n;
}

static void print_tp_fields(struct sp_lister *l, const char *catname)
{
	char buf[512], *name;
	struct sp_tracefs_field *f;
	int i, n;

	snprintf(buf, sizeof(buf), "%s", catname);
	name = strchr(buf, ':');
	if (!name)
		return;
	*name++ = '\0';
	if (sp_tracepoint_fields(buf, name, &f, &n))
		return;
	for (i = 0; i < n; i++) {
		const char *br = strchr(f[i].type, '[');

		if (f[i].is_common)
			continue;
		if (br && !f[i].is_data_loc)
			fprintf(l->out, "    %.*s %s%s\n", (int)(br - f[i].type), f[i].type, f[i].name,
				br);
		else
			fprintf(l->out, "    %s %s\n", f[i].type, f[i].name);
	}
	sp_tracefs_fields_free(f, n);
}

static int list_tracepoints(struct sp_lister *l, const char *cat, const char *name)
{
	char **v, line[600];
	int i, n, err;

	err = sp_tracepoints_list(cat, name, &v, &n);
	if (err)
		return err == -ENOENT ? 0 : err;
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "tracepoint:%s", v[i]);
		if (sp_lister_emit(l, line) && l->verbose)
			print_tp_fields(l, v[i]);
	}
	sp_strv_free(v, n);
	return 0;
}

static int tp_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	return list_tracepoints(l, nf > 1 && *f[1] ? f[1] : NULL, nf > 2 && *f[2] ? f[2] : NULL);
}

const struct sp_probe_ops sp_probe_tracepoint_ops = {
	.type = SP_PROBE_TRACEPOINT,
	.validate = tp_validate,
	.attach = tp_attach,
	.count = tracepoint_count,
	.list = tp_list,
};
