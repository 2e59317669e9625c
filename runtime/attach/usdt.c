/* runtime/attach/usdt.c: usdt:TARGET:PROVIDER:NAME and usdt:TARGET:NAME.
 *
 * The notes are read here (usdt_notes.c) to resolve what the user wrote:
 * a missing provider is looked up (and is an error, listing the
 * candidates, when several providers have a probe of that name), globs in
 * the provider or name expand to every matching pair, and with -p a target
 * of '*' (or none) searches the process's executable and every library it
 * has mapped.
 *
 * Every site of a probe gets its own uprobe. Its argument specs are
 * decoded here into a struct sp_usdt_spec stored in SP_MAP_USDT_SPECS
 * under the uprobe's bpf cookie, which bpf/args.bpf.c's sp_usdt_arg()
 * reads. (libbpf 1.1's bpf_program__attach_usdt did this until it met
 * operands it cannot decode, such as base+index*scale and sym+off(%rip),
 * which compilers emit for array elements and globals.) Semaphores are
 * passed as the uprobe's ref_ctr_offset: the kernel raises them in every
 * process mapping the file while the probe is attached. A file's sites
 * share one uprobe_multi link when the program was prepared for it (or
 * there are many), like wildcard uprobes (probe_uprobe.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/names.h"
#include "runtime/attach/resolve.h"
#include "runtime/elf/usdt_notes.h"

/* One probe site. */
struct usdt_point {
	char *path, *provider, *name, *args;
	uint64_t pc, sema;
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
		free(u->v[i].args);
	}
	free(u->v);
	memset(u, 0, sizeof(*u));
}

static int points_add(struct usdt_points *u, const char *path, const struct sp_usdt_note *n)
{
	struct usdt_point *nv = realloc(u->v, (u->n + 1) * sizeof(*nv)), *pt;

	if (!nv)
		return -ENOMEM;
	u->v = nv;
	pt = &nv[u->n++];
	pt->path = strdup(path);
	pt->provider = strdup(n->provider);
	pt->name = strdup(n->name);
	pt->args = strdup(n->args);
	pt->pc = n->pc;
	pt->sema = n->semaphore;
	if (!pt->path || !pt->provider || !pt->name || !pt->args)
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
			err = points_add(u, path, n);
	}
	sp_usdt_notes__free(&notes);
	return err;
}

static bool target_is_any(const char *t)
{
	return !t || !*t || strcmp(t, "*") == 0;
}

/* usdt:/usr/lib/x86_64-linux-gnu/libfoo*.so:*:*: every matching file (files
 * that are not ELF, or have no such probe, add nothing). */
static int scan_glob(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		     struct usdt_points *u, char *what, size_t whatlen)
{
	char **paths;
	int i, n, err = sp_resolve_glob(p->target, &paths, &n);

	if (err)
		return sp_probe_fail(ctx, p, err, "cannot expand '%s': %s", p->target,
				     strerror(-err));
	if (n == 0)
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no file matches '%s'",
				     p->target);
	snprintf(what, whatlen, "the %d file%s matching '%s'", n, n == 1 ? "" : "s", p->target);
	for (i = 0; i < n && !err; i++)
		if (scan_file(p, paths[i], u) == -ENOMEM)
			err = -ENOMEM;
	sp_strv_free(paths, n);
	return err;
}

static int scan_targets(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct usdt_points *u, char *what, size_t whatlen)
{
	char path[PATH_MAX];
	char **objs;
	int i, n, err;

	if (sp_is_path_glob(p->target))
		return scan_glob(p, ctx, u, what, whatlen);
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
	if (ctx->pid <= 0 && ctx->cmd_path) { /* -c: the command's program */
		snprintf(what, whatlen, "%s", ctx->cmd_path);
		err = scan_file(p, ctx->cmd_path, u);
		return err ? sp_probe_fail(ctx, p, err, "cannot read %s: %s", ctx->cmd_path,
					   strerror(-err)) : 0;
	}
	if (ctx->pid <= 0)
		return sp_probe_fail(ctx, p, -EINVAL,
				     "a USDT probe needs a binary (usdt:BINARY:[PROVIDER:]NAME), "
				     "a process (-p PID) or a command (-c CMD)");
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
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no USDT probe '%s%s%s' in %s",
				     p->ns ? p->ns : "", p->ns ? ":" : "", p->func, what);
	return check_ambiguous(p, ctx, u);
}

static void points_destroy(void *data)
{
	points_free(data);
	free(data);
}

static int usdt_resolve_any(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void *u)
{
	return usdt_resolve(p, ctx, u);
}

/* The probe's sites, resolved once per (probe, pid) for the run. */
static int points_get(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		      struct usdt_points **out)
{
	return sp_resolved_get(ctx, p, sizeof(**out), usdt_resolve_any, points_destroy,
			       (void **)out);
}

static void points_put(struct sp_attach_ctx *ctx, struct usdt_points *u)
{
	sp_resolved_put(ctx, u, points_destroy);
}

static int usdt_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct usdt_points *u;
	int err = points_get(p, ctx, &u);

	if (!err)
		points_put(ctx, u);
	return err;
}

/* `func`/`probe` of a wildcard: one names entry per site; its index is the
 * site's cookie and spec key. Returns the first index or -errno. */
static int record_names(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			const struct usdt_points *u)
{
	char probe[PATH_MAX + 256];
	int i, err, base = sp_probe_names_reserve(ctx->obj, u->n);

	if (base < 0)
		return sp_probe_fail(ctx, p, base, "cannot record the names of its %d sites: %s",
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

/* The first free spec key from SP_USDT_KEY_BASE (keys of earlier probes are taken). */
static uint32_t first_free_key(int fd)
{
	struct sp_usdt_spec spec;
	uint32_t k = SP_USDT_KEY_BASE;

	while (bpf_map_lookup_elem(fd, &k, &spec) == 0)
		k++;
	return k;
}

/* Decode a site's specs; an operand we cannot read ends the list there,
 * with a warning: the probe still fires and later args read as 0. */
static void site_spec(const struct sp_plan_probe *p, const struct usdt_point *pt,
		      struct sp_usdt_spec *spec)
{
	char bad[128] = "";
	int err = sp_usdt_spec_parse(pt->args, pt->path, pt->pc, spec, bad, sizeof(bad));

	if (!err)
		return;
	spec->nargs--;
	sp_warn("probe '%s': cannot decode arg%u ('%s') of USDT %s:%s in %s%s; "
		"it and later arguments read as 0\n", p->spec, spec->nargs, bad, pt->provider,
		pt->name, pt->path, err == -ENOENT ? " (unknown symbol)" : "");
}

/* A site's file offset and its semaphore's (0: none); -ENOEXEC outside the segments. */
static int site_offsets(const struct usdt_point *pt, uint64_t *foff, uint64_t *ref)
{
	*ref = 0;
	if (sp_elf_vaddr_to_foff(pt->path, pt->pc, foff) ||
	    (pt->sema && sp_elf_data_vaddr_to_foff(pt->path, pt->sema, ref)))
		return -ENOEXEC;
	return 0;
}

static int store_spec(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		      const struct usdt_point *pt, uint32_t key, int specs_fd)
{
	struct sp_usdt_spec spec;

	site_spec(p, pt, &spec);
	if (bpf_map_update_elem(specs_fd, &key, &spec, BPF_ANY))
		return sp_probe_fail(ctx, p, -errno, "cannot store USDT argument specs: %s",
				     strerror(errno));
	return 0;
}

static int fail_site(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		     const struct usdt_point *pt, int err)
{
	if (err == -ENOEXEC)
		return sp_probe_fail(ctx, p, err, "USDT %s:%s in %s: site 0x%llx or its semaphore "
				     "is outside the file's segments", pt->provider, pt->name,
				     pt->path, (unsigned long long)pt->pc);
	return sp_probe_fail(ctx, p, err, "cannot attach to USDT %s:%s at 0x%llx in %s: %s",
			     pt->provider, pt->name, (unsigned long long)pt->pc, pt->path,
			     strerror(-err));
}

static int attach_site(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, const struct usdt_point *pt, uint32_t key,
		       struct sp_links *links)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = key);
	struct bpf_link *link;
	uint64_t foff, ref;
	int err = site_offsets(pt, &foff, &ref);

	if (err)
		return fail_site(p, ctx, pt, err);
	o.ref_ctr_offset = ref;
	link = bpf_program__attach_uprobe_opts(prog, ctx->pid > 0 ? ctx->pid : -1, pt->path, foff,
					       &o);
	if (!link)
		return fail_site(p, ctx, pt, -errno);
	return sp_links_push(links, link);
}

/* Sites [first, first + n) all in one file: one uprobe_multi link when the
 * program allows it (-EOPNOTSUPP otherwise). */
#define USDT_MULTI_MIN 8

static int attach_group_multi(const struct sp_plan_probe *p, struct bpf_program *prog,
			      struct sp_attach_ctx *ctx, const struct usdt_point *pt, int n,
			      uint32_t key, struct sp_links *links)
{
	uint64_t *v = malloc(3 * n * sizeof(*v));
	struct sp_umulti m = { .path = pt->path, .offs = v, .refs = v + n, .cookies = v + 2 * n,
			       .cnt = (uint32_t)n, .pid = ctx->pid };
	int i, fd = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n && fd == 0; i++) {
		fd = site_offsets(&pt[i], &v[i], &v[n + i]);
		v[2 * n + i] = key + (uint32_t)i;
	}
	if (fd)
		fd = fail_site(p, ctx, &pt[i - 1], fd);
	else
		fd = sp_uprobe_multi_attach(prog, &m, USDT_MULTI_MIN);
	free(v);
	if (fd == -EOPNOTSUPP || fd == -ENOEXEC)
		return fd;
	if (fd < 0)
		return sp_probe_fail(ctx, p, fd, "cannot attach to the %d sites of USDT %s:%s in "
				     "%s: %s", n, pt->provider, pt->name, pt->path, strerror(-fd));
	return sp_links_push_fd(links, fd);
}

static int attach_sites(const struct sp_plan_probe *p, struct bpf_program *prog,
			struct sp_attach_ctx *ctx, const struct usdt_points *u, uint32_t base,
			int specs_fd, struct sp_links *links)
{
	int i, j, k, err = 0;

	for (i = 0; i < u->n && !err; i++)
		err = store_spec(p, ctx, &u->v[i], base + (uint32_t)i, specs_fd);
	for (i = 0; i < u->n && !err; i = j) {
		for (j = i + 1; j < u->n && !strcmp(u->v[j].path, u->v[i].path); j++)
			;
		err = attach_group_multi(p, prog, ctx, &u->v[i], j - i, base + (uint32_t)i, links);
		if (err != -EOPNOTSUPP)
			continue;
		err = 0;
		for (k = i; k < j && !err; k++)
			err = attach_site(p, prog, ctx, &u->v[k], base + (uint32_t)k, links);
	}
	return err;
}

static int usdt_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct bpf_map *specs = bpf_object__find_map_by_name(ctx->obj, SP_MAP_USDT_SPECS);
	struct usdt_points *u;
	int base = 0, fd, err = points_get(p, ctx, &u);

	if (err)
		return err;
	if (!specs)
		err = sp_probe_fail(ctx, p, -ENOENT, "the BPF object has no '%s' map",
				    SP_MAP_USDT_SPECS);
	fd = specs ? bpf_map__fd(specs) : -1;
	if (!err && p->uses_names) {
		base = record_names(p, ctx, u);
		err = base < 0 ? base : 0;
	} else if (!err) {
		base = (int)first_free_key(fd);
	}
	if (!err)
		err = attach_sites(p, prog, ctx, u, (uint32_t)base, fd, links);
	points_put(ctx, u);
	return err;
}

static int usdt_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct usdt_points *u;
	int n = points_get(p, ctx, &u);

	if (n == 0) {
		n = u->n;
		points_put(ctx, u);
	}
	return n;
}

static void print_usdt_args(struct sp_lister *l, const char *args)
{
	char *copy = strdup(args), *tok, *save = NULL;
	int i = 0;

	if (!copy)
		return;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		fprintf(l->out, "    arg%d: %s\n", i++, tok);
	free(copy);
}

static void list_file_usdt(struct sp_lister *l, const char *path, const char *prov,
			   const char *name)
{
	struct sp_usdt_notes u;
	int i, j;

	if (sp_usdt_notes__load(&u, path))
		return;
	for (i = 0; i < u.n; i++) {
		const struct sp_usdt_note *n = &u.v[i];
		char line[PATH_MAX + 600];

		if ((prov && !sp_glob_match(prov, n->provider)) || (name && !sp_glob_match(name, n->name)))
			continue;
		/* One line per probe, not per site. */
		for (j = 0; j < i; j++)
			if (!strcmp(u.v[j].provider, n->provider) && !strcmp(u.v[j].name, n->name))
				break;
		if (j < i)
			continue;
		snprintf(line, sizeof(line), "usdt:%s:%s:%s", path, n->provider, n->name);
		if (sp_lister_emit(l, line) && l->verbose)
			print_usdt_args(l, n->args);
	}
	sp_usdt_notes__free(&u);
}

static int usdt_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	char **paths;
	int n, err = sp_lister_user_targets(l, prov, f, nf, wild, &paths, &n);

	for (int i = 0; i < n && !err; i++)
		list_file_usdt(l, paths[i], nf > 3 ? f[2] : NULL, nf > 3 ? f[3] : nf > 2 ? f[2] : NULL);
	sp_strv_free(paths, n);
	return err;
}

const struct sp_probe_ops sp_probe_usdt_ops = {
	.type = SP_PROBE_USDT,
	.validate = usdt_validate,
	.attach = usdt_attach,
	.prepare = sp_uprobe_prepare,
	.count = usdt_count,
	.list = usdt_list,
};
