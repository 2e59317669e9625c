/* runtime/attach/kprobe.c: kprobe:FUNC[+OFF] and kretprobe:FUNC.
 *
 * Attached through libbpf (perf_event_open of the "kprobe" PMU, or the
 * legacy kprobe_events file). Kernels built without CONFIG_KPROBES have
 * neither; validation notices before load and says so, pointing at
 * tracepoints, instead of letting perf_event_open fail with a bare ENOENT.
 * kprobe:MODULE:FUNC is accepted (the module part is informational: the
 * kernel resolves FUNC across modules). -p is filtered in BPF.
 *
 * Wildcards (kprobe:vfs_rea*) expand over the functions the kernel can
 * probe (available_filter_functions, else /proc/kallsyms' text symbols).
 * Where the kernel has kprobe_multi links (5.18+, found out by making one)
 * every match goes into one link, as bpftrace does: one registration, one
 * grace period to detach instead of one per function. The program was
 * loaded as a plain kprobe, so a copy of its final instructions is loaded
 * again for the link (runtime/attach/progcopy.c; the original stays for
 * the fallback); a link the
 * kernel refuses is split in halves until only the functions it refuses
 * are left out. Elsewhere it is one kprobe each. `func` and `probe` come
 * from the names map through each match's BPF cookie either way. A
 * function of the match that cannot be probed is a warning, none at all an
 * error.
 *
 * Validation makes bpftrace 0.17's checks in bpftrace's order, kernel
 * support or not: a function the kernel does not know is a warning ("not
 * traceable"), a kretprobe on one of bpftrace's banned spin-lock functions
 * is an error, and only then does a kernel without kprobes stop the run,
 * naming CONFIG_KPROBES.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/attach/kprobe.h"

#include "runtime/attach/names.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/progcopy.h"
#include "runtime/attach/tracefs.h"
#include "runtime/stacks/kallsyms.h"
#include "base/glob.h"

/* bpftrace's list: a kretprobe on these can lock the machine up. */
static const char *const banned_kretprobes[] = {
	"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore",
	"queued_spin_lock_slowpath",
};

static bool banned_kretprobe(const char *fn)
{
	for (size_t i = 0; i < sizeof(banned_kretprobes) / sizeof(banned_kretprobes[0]); i++)
		if (!strcmp(fn, banned_kretprobes[i]))
			return true;
	return false;
}

/* bpftrace's semantic warning, from /proc/kallsyms (available_filter_functions
 * is not always readable): a name the kernel lacks. */
static void warn_untraceable(const struct sp_plan_probe *p, const char *fn)
{
	uint64_t addr;

	if (strchr(fn, '*') || strchr(fn, '?') || sp_kallsyms_addr_of(NULL, fn, &addr) != -ENOENT)
		return;
	sp_warn("probe '%s': %s is not traceable (either non-existing, "
		"inlined, or marked as \"notrace\"); attaching to it will likely fail\n", p->spec, fn);
}

static bool kprobes_available(void)
{
	char root[256], path[300];

	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	if (sp_tracefs_root(root, sizeof(root)))
		return false;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	return access(path, F_OK) == 0;
}

static const char *kprobe_func(const struct sp_plan_probe *p)
{
	return p->func && *p->func ? p->func : p->target;
}

void sp_kfuncs_clear(struct sp_kfuncs *k)
{
	for (int i = 0; k && i < k->n; i++)
		free(k->v[i]);
	if (k)
		free(k->v);
	if (k)
		memset(k, 0, sizeof(*k));
}

static void kfuncs_free(void *data)
{
	sp_kfuncs_clear(data);
	free(data);
}

static int kfuncs_add(struct sp_kfuncs *k, const char *name)
{
	if (k->n == k->cap) {
		int cap = k->cap ? 2 * k->cap : 64;
		char **nv = realloc(k->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		k->v = nv;
		k->cap = cap;
	}
	if (!(k->v[k->n] = strdup(name)))
		return -ENOMEM;
	k->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names from available_filter_functions ("name [module]" lines), or from
 * kallsyms' text symbols where tracefs is not readable. */
int sp_kfuncs_read(const char *glob, bool ret, struct sp_kfuncs *k)
{
	char root[256], path[320], line[600];
	bool kallsyms = false;
	FILE *f = NULL;
	int err = 0;

	if (!sp_tracefs_root(root, sizeof(root))) {
		snprintf(path, sizeof(path), "%s/available_filter_functions", root);
		f = fopen(path, "re");
	}
	if (!f) {
		f = fopen("/proc/kallsyms", "re");
		kallsyms = true;
	}
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		char *name = line, type = 't';

		if (kallsyms) { /* "ffffffff81000000 T name\t[module]" */
			char *sp = strchr(line, ' ');

			if (!sp || !sp[1] || sp[2] != ' ')
				continue;
			type = sp[1];
			name = sp + 3;
		}
		name[strcspn(name, " \t\n")] = '\0';
		if ((type != 't' && type != 'T') || !*name || !sp_glob_match(glob, name))
			continue;
		if (ret && banned_kretprobe(name))
			continue;
		err = kfuncs_add(k, name);
	}
	fclose(f);
	if (err)
		return err;
	qsort(k->v, (size_t)k->n, sizeof(*k->v), cmp_str);
	int w = 0;

	for (int i = 0; i < k->n; i++) {
		if (w && !strcmp(k->v[w - 1], k->v[i])) {
			free(k->v[i]);
			continue;
		}
		k->v[w++] = k->v[i];
	}
	k->n = w;
	return 0;
}

static int kfuncs_resolve(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void *out)
{
	const char *fn = kprobe_func(p);
	int err = sp_kfuncs_read(fn, p->type == SP_PROBE_KRETPROBE, out);

	if (err)
		return sp_probe_fail(ctx, p, err, "cannot read the kernel's functions: %s",
				     strerror(-err));
	/* -ESRCH: left out when another attach point of its block attaches (run.c) */
	if (((struct sp_kfuncs *)out)->n == 0)
		return sp_probe_fail(ctx, p, -ESRCH, "no kernel function matches '%s'", fn);
	return 0;
}

static int kfuncs_get(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void **out)
{
	return sp_resolved_get(ctx, p, sizeof(struct sp_kfuncs), kfuncs_resolve, kfuncs_free, out);
}

static int kprobe_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *fn = kprobe_func(p);

	if (!fn || !*fn)
		return sp_probe_fail(ctx, p, -EINVAL, "expected %s:FUNCTION", sp_probe_type_name(p->type));
	warn_untraceable(p, fn);
	if (p->type == SP_PROBE_KRETPROBE && banned_kretprobe(fn))
		return sp_probe_fail(ctx, p, -EPERM, "kretprobe:%s can't be used as it might lock up "
				     "your system", fn);
	if (!kprobes_available())
		return sp_probe_fail(ctx, p, -EOPNOTSUPP,
				     "kprobes are not available: this kernel was built without "
				     "CONFIG_KPROBES (try a tracepoint, e.g. "
				     "tracepoint:syscalls:sys_enter_openat)");
	if (p->type == SP_PROBE_KRETPROBE && p->has_offset)
		return sp_probe_fail(ctx, p, -EINVAL, "a kretprobe cannot take an offset");
	if (sp_has_wildcard(fn)) {
		void *d;
		int err = kfuncs_get(p, ctx, &d);

		if (err)
			return err;
		sp_resolved_put(ctx, d, kfuncs_free);
	}
	return 0;
}

/* --- kprobe_multi links (Linux 5.18) ------------------------------------- */

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* Link fd or -errno: syms[0..n) with their cookies (may be NULL). */
static int kmulti_link(int prog_fd, const char **syms, const uint64_t *cookies, size_t n,
		       bool ret)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .kprobe_multi.syms = syms,
		    .kprobe_multi.cookies = (const __u64 *)cookies, .kprobe_multi.cnt = (__u32)n,
		    .kprobe_multi.flags = ret ? BPF_F_KPROBE_MULTI_RETURN : 0);
	int fd = bpf_link_create(prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &o);

	return fd < 0 ? -errno : fd;
}

static bool kmulti_probe(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	const char *sym = "vfs_read";
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &o), link;

	if (prog < 0)
		return false;
	link = kmulti_link(prog, &sym, NULL, 1, false);
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0;
}

bool sp_kprobe_multi_available(void)
{
	static int have = -1;

	if (have < 0)
		have = kmulti_probe();
	return have;
}

struct kmulti {
	int prog_fd;
	bool ret;
	const char **syms;
	uint64_t *cookies; /* NULL without names */
	struct sp_links *links;
	int links_made, skipped;
};

/* One link over [lo, hi); the halves when the kernel refuses it, so only
 * the functions it refuses one by one are left out (counted). */
static int kmulti_attach_range(struct kmulti *m, int lo, int hi)
{
	int fd = kmulti_link(m->prog_fd, m->syms + lo, m->cookies ? m->cookies + lo : NULL,
			     (size_t)(hi - lo), m->ret);
	int err;

	if (fd >= 0) {
		m->links_made++;
		return sp_links_push_fd(m->links, fd);
	}
	if (fd == -ENOMEM || fd == -EPERM)
		return fd;
	if (hi - lo == 1) {
		m->skipped++;
		return 0;
	}
	err = kmulti_attach_range(m, lo, lo + (hi - lo) / 2);
	return err ? err : kmulti_attach_range(m, lo + (hi - lo) / 2, hi);
}

/* Every match in kprobe_multi links: 0, -EOPNOTSUPP (no kprobe_multi, or
 * the copy would not load: one kprobe each then) or -errno. */
static int kprobe_attach_multi(const struct sp_plan_probe *p, struct bpf_program *prog,
			       struct sp_attach_ctx *ctx, struct sp_links *links,
			       const struct sp_kfuncs *k, int base)
{
	struct kmulti m = { .ret = p->type == SP_PROBE_KRETPROBE, .links = links };
	int err = -ENOMEM;

	if (!sp_kprobe_multi_available())
		return -EOPNOTSUPP;
	if ((m.prog_fd = sp_prog_copy_load(prog, BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0,
					     NULL, 0)) < 0) {
		if (ctx->verbose)
			sp_log(SP_LOG_INFO, "%s: no kprobe_multi copy of the program (%s): one kprobe "
			       "each\n", p->spec, strerror(-m.prog_fd));
		return -EOPNOTSUPP;
	}
	m.syms = calloc((size_t)k->n, sizeof(*m.syms));
	if (p->uses_names)
		m.cookies = calloc((size_t)k->n, sizeof(*m.cookies));
	if (!m.syms || (p->uses_names && !m.cookies))
		goto out;
	for (int i = 0; i < k->n; i++) {
		m.syms[i] = k->v[i];
		if (m.cookies)
			m.cookies[i] = (uint64_t)(base + i);
	}
	err = kmulti_attach_range(&m, 0, k->n);
	if (!err && m.links_made == 0)
		err = sp_probe_fail(ctx, p, -ENOENT, "none of the %d matching kernel functions "
				    "could be probed", k->n);
	else if (!err && m.skipped)
		sp_warn("probe '%s': %d of %d matching functions could not "
			"be probed\n", p->spec, m.skipped, k->n);
	else if (!err && ctx->verbose)
		sp_log(SP_LOG_INFO, "%s: %d functions in %d kprobe_multi link%s\n", p->spec,
		       k->n - m.skipped, m.links_made, m.links_made == 1 ? "" : "s");
	else if (err)
		err = sp_probe_fail(ctx, p, err, "cannot attach a kprobe_multi link: %s",
				    strerror(-err));
out:
	close(m.prog_fd);
	free(m.syms);
	free(m.cookies);
	return err;
}

/* kprobe:PATTERN: the names map entries first (the cookies index them),
 * then one kprobe_multi link, else one kprobe a function. */
static int kprobe_attach_each(const struct sp_plan_probe *p, struct bpf_program *prog,
			      struct sp_attach_ctx *ctx, struct sp_links *links)
{
	const char *type = sp_probe_type_name(p->type);
	struct sp_kfuncs *k;
	int err = kfuncs_get(p, ctx, (void **)&k), base = 0, ok = 0, bad = 0;
	char probe[SP_PROBE_NAME_LEN + 32];

	if (err)
		return err;
	if (p->uses_names && (base = sp_probe_names_reserve(ctx->obj, k->n)) < 0) {
		err = sp_probe_fail(ctx, p, base, "cannot record the names of its %d functions: %s",
				    k->n, sp_probe_names_strerror(base));
		goto out;
	}
	for (int i = 0; p->uses_names && i < k->n; i++) {
		snprintf(probe, sizeof(probe), "%s:%s", type, k->v[i]);
		err = sp_probe_names_set(ctx->obj, (uint32_t)(base + i), k->v[i], probe);
		if (err) {
			err = sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					    strerror(-err));
			goto out;
		}
	}
	err = kprobe_attach_multi(p, prog, ctx, links, k, base);
	if (err != -EOPNOTSUPP)
		goto out;
	for (int i = 0; i < k->n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = p->type == SP_PROBE_KRETPROBE,
			    .bpf_cookie = p->uses_names ? (uint64_t)(base + i) : 0);
		struct bpf_link *link = bpf_program__attach_kprobe_opts(prog, k->v[i], &o);

		if (!link) {
			if (ctx->verbose)
				sp_err("probe '%s': %s:%s: %s\n", p->spec, type, k->v[i],
				       strerror(errno));
			bad++;
			continue;
		}
		if ((err = sp_links_push(links, link)))
			goto out;
		ok++;
	}
	err = 0;
	if (ok == 0)
		err = sp_probe_fail(ctx, p, -ENOENT, "none of the %d matching kernel functions "
				    "could be probed", k->n);
	else if (bad)
		sp_warn("probe '%s': %d of %d matching functions could not "
			"be probed%s\n", p->spec, bad, k->n, ctx->verbose ? "" : " (-v names them)");
	else if (ctx->verbose)
		sp_log(SP_LOG_INFO, "%s: %d kprobes attached\n", p->spec, ok);
out:
	sp_resolved_put(ctx, k, kfuncs_free);
	return err;
}

static int kprobe_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct sp_kfuncs *k;
	int n;

	if (!sp_has_wildcard(kprobe_func(p)))
		return 1;
	n = kfuncs_get(p, ctx, (void **)&k);
	if (n)
		return n;
	n = k->n;
	sp_resolved_put(ctx, k, kfuncs_free);
	return n;
}

static int kprobe_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, struct sp_links *links)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = p->type == SP_PROBE_KRETPROBE,
		    .offset = p->has_offset ? p->offset : 0);
	const char *fn = kprobe_func(p);
	char probe[SP_PROBE_NAME_LEN + 32];
	struct bpf_link *link;
	int err, base;

	if (sp_has_wildcard(fn))
		return kprobe_attach_each(p, prog, ctx, links);
	if (p->uses_names) { /* one program serves the block's points (codegen/cg_share.c) */
		base = sp_probe_names_reserve(ctx->obj, 1);
		if (base < 0)
			return sp_probe_fail(ctx, p, base, "cannot record its names: %s",
					     sp_probe_names_strerror(base));
		snprintf(probe, sizeof(probe), "%s:%s", sp_probe_type_name(p->type), fn);
		err = sp_probe_names_set(ctx->obj, (uint32_t)base, fn, probe);
		if (err)
			return sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					     strerror(-err));
		o.bpf_cookie = (uint64_t)base;
	}
	link = bpf_program__attach_kprobe_opts(prog, fn, &o);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to kernel function '%s': %s", fn,
				     err == -ENOENT ? "no such function (or it cannot be probed)"
						    : strerror(-err));
	}
	return sp_links_push(links, link);
}

/* Only where the kernel has kprobes: available_filter_functions names them. */
static int list_kprobes(struct sp_lister *l, const char *glob)
{
	char root[256], path[320], buf[512], line[600];
	FILE *f;

	if (sp_tracefs_root(root, sizeof(root)))
		return 0;
	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	if (access(path, F_OK) && access("/sys/bus/event_source/devices/kprobe", F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/available_filter_functions", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, " \t\n")] = '\0';
		if (!*buf || (glob && !sp_glob_match(glob, buf)))
			continue;
		snprintf(line, sizeof(line), "kprobe:%s", buf);
		sp_lister_emit(l, line);
	}
	fclose(f);
	return 0;
}

static int kprobe_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *a = nf > 1 && *f[1] ? f[1] : NULL, *b = nf > 2 && *f[2] ? f[2] : NULL;

	return list_kprobes(l, b ? b : a);
}

const struct sp_probe_ops sp_probe_kprobe_ops = {
	.type = SP_PROBE_KPROBE,
	.validate = kprobe_validate,
	.attach = kprobe_attach,
	.count = kprobe_count,
	.list = kprobe_list,
};

const struct sp_probe_ops sp_probe_kretprobe_ops = {
	.type = SP_PROBE_KRETPROBE,
	.validate = kprobe_validate,
	.attach = kprobe_attach,
	.count = kprobe_count,
	.list = kprobe_list,
};
