/* runtime/probe_usdt.c: usdt:TARGET:PROVIDER:NAME and usdt:TARGET:NAME.
 *
 * The notes are read here (usdt_notes.c) to resolve what the user wrote:
 * a missing provider is looked up (and is an error, listing the
 * candidates, when several providers have a probe of that name), globs in
 * the provider or name expand to every matching pair, and with -p a target
 * of '*' (or none) searches the process's executable and every library it
 * has mapped. Attaching goes through libbpf's bpf_program__attach_usdt:
 * it attaches every site of the probe, records each site's argument specs
 * in the spec map that bpf/args.bpf.c's sp_usdt_arg() reads, and passes
 * semaphore offsets to the kernel (uprobe ref_ctr_offset), which raises
 * them in every process mapping the file while the probe is attached.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "probe.h"
#include "probe_names.h"
#include "resolve.h"
#include "usdt_notes.h"

struct usdt_point {
	char *path, *provider, *name;
};

struct usdt_points {
	struct usdt_point *v;
	int n;
};

static void points_free(struct usdt_points *u)
{
	int i;

	for (i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].provider);
		free(u->v[i].name);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

static bool points_has(const struct usdt_points *u, const char *path, const char *prov,
		       const char *name)
{
	int i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].path, path) && !strcmp(u->v[i].provider, prov) &&
		    !strcmp(u->v[i].name, name))
			return true;
	return false;
}

static int points_add(struct usdt_points *u, const char *path, const char *prov, const char *name)
{
	struct usdt_point *nv;

	if (points_has(u, path, prov, name))
		return 0;
	nv = realloc(u->v, (u->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	u->v = nv;
	nv[u->n].path = strdup(path);
	nv[u->n].provider = strdup(prov);
	nv[u->n].name = strdup(name);
	u->n++;
	if (!nv[u->n - 1].path || !nv[u->n - 1].provider || !nv[u->n - 1].name)
		return -ENOMEM;
	return 0;
}

static bool glob_or_any(const char *pat, const char *s)
{
	return !pat || !*pat || sp_glob_match(pat, s);
}

/* Add the (provider, name) pairs of one file that the probe names. */
static int scan_file(const struct sp_plan_probe *p, const char *path, struct usdt_points *u)
{
	struct sp_usdt_notes notes;
	int i, err = sp_usdt_notes__load(&notes, path);

	if (err)
		return err;
	for (i = 0; i < notes.n && !err; i++) {
		const struct sp_usdt_note *n = &notes.v[i];

		if (glob_or_any(p->ns, n->provider) && sp_glob_match(p->func, n->name))
			err = points_add(u, path, n->provider, n->name);
	}
	sp_usdt_notes__free(&notes);
	return err;
}

static bool target_is_any(const char *t)
{
	return !t || !*t || strcmp(t, "*") == 0;
}

static int scan_targets(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct usdt_points *u, char *what, size_t whatlen)
{
	char path[PATH_MAX];
	char **objs;
	int i, n, err;

	if (!target_is_any(p->target)) {
		if (sp_resolve_binary(p->target, ctx->pid, path, sizeof(path)))
			return sp_probe_fail(ctx, p, -ENOENT,
					     "cannot attach: binary '%s' not found (no such file, no "
					     "program of that name in $PATH, no library in "
					     "/etc/ld.so.cache)", p->target);
		snprintf(what, whatlen, "%s", path);
		err = scan_file(p, path, u);
		if (err == -ENOEXEC)
			return sp_probe_fail(ctx, p, err, "cannot attach: '%s' is not an ELF file", path);
		return err ? sp_probe_fail(ctx, p, err, "cannot read %s: %s", path, strerror(-err)) : 0;
	}
	if (ctx->pid <= 0)
		return sp_probe_fail(ctx, p, -EINVAL,
				     "a USDT probe needs a binary (usdt:BINARY:[PROVIDER:]NAME) "
				     "or a process (-p PID)");
	err = sp_pid_objects(ctx->pid, &objs, &n);
	if (err)
		return sp_probe_fail(ctx, p, err, "cannot read the mappings of process %d: %s",
				     (int)ctx->pid, strerror(-err));
	snprintf(what, whatlen, "process %d or its libraries", (int)ctx->pid);
	for (i = 0, err = 0; i < n && !err; i++)
		if (scan_file(p, objs[i], u) == -ENOMEM)
			err = -ENOMEM;
	sp_strv_free(objs, n);
	return err;
}

/* usdt:BIN:NAME where several providers define NAME: make the user choose. */
static int check_ambiguous(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			   const struct usdt_points *u)
{
	char list[512] = "";
	size_t len = 0;
	int i, nprov = 0;

	if ((p->ns && *p->ns) || sp_has_wildcard(p->func))
		return 0;
	for (i = 0; i < u->n; i++) {
		int j;

		for (j = 0; j < i && strcmp(u->v[j].provider, u->v[i].provider); j++)
			;
		if (j < i)
			continue;
		nprov++;
		len += snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0, "%s'%s'",
				nprov > 1 ? ", " : "", u->v[i].provider);
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
	}
	if (nprov < 2)
		return 0;
	return sp_probe_fail(ctx, p, -EINVAL,
			     "USDT probe '%s' is ambiguous: it is defined by providers %s "
			     "(write usdt:%s:PROVIDER:%s)", p->func, list,
			     p->target ? p->target : "BINARY", p->func);
}

static int usdt_resolve(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct usdt_points *u)
{
	char what[PATH_MAX + 64];
	int err;

	memset(u, 0, sizeof(*u));
	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected usdt:BINARY:[PROVIDER:]NAME");
	err = scan_targets(p, ctx, u, what, sizeof(what));
	if (err)
		return err;
	if (u->n == 0)
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no USDT probe %s%s%s'%s' in %s",
				     p->ns ? "'" : "", p->ns ? p->ns : "", p->ns ? ":" : "", p->func,
				     what);
	return check_ambiguous(p, ctx, u);
}

static int usdt_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct usdt_points u;
	int err = usdt_resolve(p, ctx, &u);

	points_free(&u);
	return err;
}

/* `func`/`probe` of a wildcard: the names-map index goes in the USDT
 * cookie (bpf_usdt_cookie(); libbpf keeps the attach cookie for itself). */
static int record_names(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			const struct usdt_points *u)
{
	char probe[PATH_MAX + 256];
	int i, err, base = sp_probe_names_reserve(ctx->obj, u->n);

	if (base < 0)
		return sp_probe_fail(ctx, p, base, "cannot record the names of its %d probes: %s",
				     u->n, sp_probe_names_strerror(base));
	for (i = 0; i < u->n; i++) {
		snprintf(probe, sizeof(probe), "usdt:%s:%s:%s", u->v[i].path, u->v[i].provider,
			 u->v[i].name);
		err = sp_probe_names_set(ctx->obj, base + i, u->v[i].name, probe);
		if (err)
			return sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					     strerror(-err));
	}
	return base;
}

static int usdt_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct usdt_points u;
	int i, base = 0, err = usdt_resolve(p, ctx, &u);

	if (!err && p->uses_names) {
		base = record_names(p, ctx, &u);
		err = base < 0 ? base : 0;
	}
	for (i = 0; i < u.n && !err; i++) {
		LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = (uint64_t)(base + i));
		const struct usdt_point *pt = &u.v[i];
		struct bpf_link *link;

		link = bpf_program__attach_usdt(prog, ctx->pid > 0 ? ctx->pid : -1, pt->path,
						pt->provider, pt->name, &o);
		if (!link) {
			err = -errno;
			sp_probe_fail(ctx, p, err, "cannot attach to USDT %s:%s in %s: %s",
				      pt->provider, pt->name, pt->path, strerror(-err));
			break;
		}
		err = sp_links_push(links, link);
	}
	points_free(&u);
	return err;
}

int sp_usdt_count(const struct sp_plan_probe *p, pid_t pid)
{
	char err[256];
	struct sp_attach_ctx ctx = { .pid = pid, .err = err, .errlen = sizeof(err) };
	struct usdt_points u;
	int n = usdt_resolve(p, &ctx, &u);

	if (n == 0)
		n = u.n;
	points_free(&u);
	return n;
}

const struct sp_probe_ops sp_probe_usdt_ops = {
	.type = SP_PROBE_USDT,
	.validate = usdt_validate,
	.attach = usdt_attach,
};
