/* runtime/attach/fentry.c: fentry:[MODULE:]FUNC and fexit (kfunc, kretfunc).
 *
 * A tracing program (BPF_TRACE_FENTRY/FEXIT) runs from a BPF trampoline at
 * the entry or return of a kernel function; its context is the function's
 * arguments as u64 args[] (fexit: the return value after them), typed from
 * kernel BTF by sema. codegen names the section "fentry/FUNC", so libbpf
 * finds the target's BTF id at load. Trampolines need Linux 5.5 on x86-64
 * with BTF and CONFIG_FUNCTION_TRACER; a kernel without them gets one clear
 * line before load, never a verifier log.
 *
 * Wildcards (fentry:vfs_read*, kfunc:vmlinux:tcp_*) match the kernel
 * functions that have BTF and that ftrace can hook (available_filter_
 * functions), as bpftrace does. A tracing program is verified against one
 * function, so, like bpftrace's one program per match, the program is
 * loaded for the first match (prepare sets the target before load) and a
 * copy of its final instructions is loaded for each other match; `func`
 * and `probe` come from the names map through each link's BPF cookie
 * (tracing links take cookies from Linux 5.19). A match the verifier
 * refuses (a function with fewer arguments than the program reads) is a
 * warning. Only vmlinux functions are matched for now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "base/glob.h"
#include "runtime/attach/fentry.h"
#include "runtime/attach/kprobe.h"
#include "runtime/attach/names.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/progcopy.h"

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


static const char *fentry_kind(const struct sp_plan_probe *p)
{
	return p->type == SP_PROBE_FEXIT ? "fexit" : "fentry";
}

static bool fentry_wild(const struct sp_plan_probe *p)
{
	return strpbrk(p->func, "*?[") || (p->target && strpbrk(p->target, "*?["));
}

/* The functions a wildcard matches, with their vmlinux BTF ids. */
struct fmatch {
	struct sp_kfuncs k;
	int *ids;
};

static void fmatch_free(void *data)
{
	struct fmatch *m = data;

	if (m) {
		sp_kfuncs_clear(&m->k);
		free(m->ids);
	}
	free(m);
}

/* Keeps the names of k with a BTF function in vm, in order. */
static int fmatch_filter(struct fmatch *m, const struct btf *vm)
{
	int w = 0;

	if (m->k.n && !(m->ids = calloc((size_t)m->k.n, sizeof(*m->ids))))
		return -ENOMEM;
	for (int i = 0; i < m->k.n; i++) {
		int id = btf__find_by_name_kind(vm, m->k.v[i], BTF_KIND_FUNC);

		if (id <= 0) {
			free(m->k.v[i]);
			continue;
		}
		m->ids[w] = id;
		m->k.v[w++] = m->k.v[i];
	}
	m->k.n = w;
	return 0;
}

static int fmatch_resolve(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void *out)
{
	struct fmatch *m = out;
	struct btf *vm;
	int err;

	if (p->target && !sp_glob_match(p->target, "vmlinux"))
		return sp_probe_fail(ctx, p, -EOPNOTSUPP, "wildcards over module functions are not "
				     "supported yet (only vmlinux: %s:vmlinux:%s)", fentry_kind(p),
				     p->func);
	vm = btf__load_vmlinux_btf();
	if (!vm)
		return sp_probe_fail(ctx, p, -ENODATA, "the kernel has no BTF");
	err = sp_kfuncs_read(p->func, false, &m->k);
	if (!err)
		err = fmatch_filter(m, vm);
	btf__free(vm);
	if (err)
		return sp_probe_fail(ctx, p, err, "cannot read the kernel's functions: %s",
				     strerror(-err));
	if (m->k.n == 0)
		return sp_probe_fail(ctx, p, -ENOENT, "no traceable kernel function with BTF "
				     "matches '%s'", p->func);
	return 0;
}

static int fmatch_get(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, struct fmatch **m)
{
	return sp_resolved_get(ctx, p, sizeof(struct fmatch), fmatch_resolve, fmatch_free,
			       (void **)m);
}

static int fentry_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	const char *kind = fentry_kind(p);
	struct fmatch *m;
	int err;

	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected %s:[MODULE:]FUNCTION", kind);
	if (!sp_fentry_available())
		return sp_probe_fail(ctx, p, -EOPNOTSUPP,
				     "this kernel cannot run %s probes (BPF trampolines need Linux "
				     "5.5+ on x86-64 with BTF and CONFIG_FUNCTION_TRACER)", kind);
	if (!fentry_wild(p))
		return 0;
	if ((err = fmatch_get(p, ctx, &m)))
		return err;
	sp_resolved_put(ctx, m, fmatch_free);
	return 0;
}

/* A wildcard's program is verified against its first match; the section
 * "fentry/vmlinux:FUNC" of kfunc:vmlinux:FUNC is not one libbpf 1.1 reads. */
static int fentry_prepare(const struct sp_plan_probe *p, struct bpf_program *prog,
			  struct sp_attach_ctx *ctx)
{
	struct fmatch *m;
	int err;

	if (p->func && !fentry_wild(p) && p->target && !strcmp(p->target, "vmlinux"))
		return bpf_program__set_attach_target(prog, 0, p->func); /* kfunc:vmlinux:FUNC */
	if (!p->func || !fentry_wild(p) || fmatch_get(p, ctx, &m))
		return 0;
	err = bpf_program__set_attach_target(prog, 0, m->k.v[0]);
	sp_resolved_put(ctx, m, fmatch_free);
	return err;
}

static int fentry_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct fmatch *m;
	int n;

	if (!p->func || !fentry_wild(p))
		return 1;
	if ((n = fmatch_get(p, ctx, &m)))
		return n;
	n = m->k.n;
	sp_resolved_put(ctx, m, fmatch_free);
	return n;
}

/* Match i of a wildcard: the program itself for the first, else a copy;
 * with a cookie when the names are used. 0 or -errno (not fatal). */
static int fentry_attach_one(const struct sp_plan_probe *p, struct bpf_program *prog,
			     const struct fmatch *m, int i, int base, struct sp_links *links)
{
	LIBBPF_OPTS(bpf_trace_opts, to, .cookie = p->uses_names ? (uint64_t)(base + i) : 0);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = to.cookie);
	struct bpf_link *link;
	int fd, lfd;

	if (i == 0) {
		link = p->uses_names ? bpf_program__attach_trace_opts(prog, &to)
				     : bpf_program__attach_trace(prog);
		return link ? sp_links_push(links, link) : -errno;
	}
	fd = sp_prog_copy_load(prog, BPF_PROG_TYPE_TRACING, bpf_program__expected_attach_type(prog),
			       m->ids[i], NULL, 0);
	if (fd < 0)
		return fd;
	lfd = p->uses_names ? bpf_link_create(fd, 0, bpf_program__expected_attach_type(prog), &lo)
			    : bpf_raw_tracepoint_open(NULL, fd);
	lfd = lfd < 0 ? -errno : lfd;
	close(fd);
	return lfd < 0 ? lfd : sp_links_push_fd(links, lfd);
}

static int fentry_names(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			const struct fmatch *m, int *base)
{
	char probe[SP_PROBE_NAME_LEN + 32];
	size_t plen = strcspn(p->spec, ":");
	int err;

	*base = 0;
	if (!p->uses_names)
		return 0;
	if ((*base = sp_probe_names_reserve(ctx->obj, m->k.n)) < 0)
		return sp_probe_fail(ctx, p, *base, "cannot record the names of its %d functions: "
				     "%s", m->k.n, sp_probe_names_strerror(*base));
	for (int i = 0; i < m->k.n; i++) {
		snprintf(probe, sizeof(probe), "%.*s:%s", (int)plen, p->spec, m->k.v[i]);
		if ((err = sp_probe_names_set(ctx->obj, (uint32_t)(*base + i), m->k.v[i], probe)))
			return sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					     strerror(-err));
	}
	return 0;
}

static int fentry_attach_wild(const struct sp_plan_probe *p, struct bpf_program *prog,
			      struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct fmatch *m;
	int err = fmatch_get(p, ctx, &m), base, ok = 0, bad = 0;

	if (err)
		return err;
	if ((err = fentry_names(p, ctx, m, &base)))
		goto out;
	for (int i = 0; i < m->k.n; i++) {
		err = fentry_attach_one(p, prog, m, i, base, links);
		if (err == -ENOMEM)
			goto out;
		if (err && ctx->verbose)
			sp_err("probe '%s': %s: %s\n", p->spec, m->k.v[i],
			       strerror(-err));
		ok += !err;
		bad += !!err;
	}
	err = 0;
	if (ok == 0)
		err = sp_probe_fail(ctx, p, -ENOENT, "none of the %d matching kernel functions "
				    "could be traced", m->k.n);
	else if (bad)
		sp_warn("probe '%s': %d of %d matching functions could not "
			"be traced%s\n", p->spec, bad, m->k.n, ctx->verbose ? "" : " (-v names them)");
	else if (ctx->verbose)
		sp_log(SP_LOG_INFO, "%s: %d function%s traced\n", p->spec, ok, ok == 1 ? "" : "s");
out:
	sp_resolved_put(ctx, m, fmatch_free);
	return err;
}

static int fentry_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct bpf_link *link;
	int err;

	if (fentry_wild(p))
		return fentry_attach_wild(p, prog, ctx, links);
	link = bpf_program__attach_trace(prog);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to '%s': %s", p->func,
				     strerror(-err));
	}
	return sp_links_push(links, link);
}

/* -l 'fentry:PATTERN', -l 'kfunc:vmlinux:PATTERN': bpftrace's lines,
 * "fentry:vmlinux:FUNC", for the functions with BTF ftrace can hook; with
 * -v the BTF arguments and return type below each. Only where the kernel
 * runs fentry probes. */
static int fentry_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *kind = !strcmp(prov, "fexit") || !strcmp(prov, "kretfunc") ? "fexit" : "fentry";
	const char *mod = nf > 2 ? f[1] : NULL, *fn = nf > 2 ? f[2] : nf > 1 ? f[1] : NULL;
	struct fmatch m = { 0 };
	struct btf *vm;
	char line[600];
	int err;

	(void)wild;
	if ((mod && *mod && !sp_glob_match(mod, "vmlinux")) || !sp_fentry_available())
		return 0;
	if (!(vm = btf__load_vmlinux_btf()))
		return 0;
	err = sp_kfuncs_read(fn && *fn ? fn : "*", false, &m.k);
	if (!err)
		err = fmatch_filter(&m, vm);
	btf__free(vm);
	for (int i = 0; !err && i < m.k.n; i++) {
		snprintf(line, sizeof(line), "%s:vmlinux:%s", kind, m.k.v[i]);
		if (sp_lister_emit(l, line) && l->verbose && l->params)
			l->params(l->params_ctx, SP_LIST_KFUNC, m.k.v[i], l->out);
	}
	sp_kfuncs_clear(&m.k);
	free(m.ids);
	return err;
}

const struct sp_probe_ops sp_probe_fentry_ops = {
	.type = SP_PROBE_FENTRY,
	.validate = fentry_validate,
	.prepare = fentry_prepare,
	.attach = fentry_attach,
	.count = fentry_count,
	.list = fentry_list,
};

const struct sp_probe_ops sp_probe_fexit_ops = {
	.type = SP_PROBE_FEXIT,
	.validate = fentry_validate,
	.prepare = fentry_prepare,
	.attach = fentry_attach,
	.count = fentry_count,
	.list = fentry_list,
};
