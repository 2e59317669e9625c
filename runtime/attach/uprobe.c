/* runtime/attach/uprobe.c: uprobe and uretprobe.
 *
 *   uprobe:TARGET:FUNC        function entry (mangled or demangled C++ names too)
 *   uprobe:TARGET:FUNC+OFF    an instruction inside FUNC
 *   uprobe:TARGET:0xADDR      an ELF virtual address
 *   uprobe:TARGET:GLOB        one uprobe per matching function, all served
 *                             by the same BPF program
 *   uretprobe:TARGET:FUNC     function return (no offsets)
 *
 * TARGET is resolved by resolve.c (path, -p mappings, ld.so.cache, $PATH).
 * Symbols are read once and turned into file offsets here, and libbpf is
 * given offsets only: its func_name lookup would reopen and rescan the ELF
 * for every probe, which is what makes 500-function wildcards slow. Aliases
 * (several names at one address, like malloc and __libc_malloc) attach
 * once. With -p the uprobe is installed in that process only. A function
 * that is not in the file fails with -ESRCH (the run may skip such an
 * attach point when others of its block attach); in one of glibc's stub
 * libraries (libpthread.so.0 since glibc 2.34) it is looked up in libc.
 *
 * Scale: one perf-event uprobe per function costs little to attach but
 * about 0.1 s to detach here (each one waits for an RCU-tasks grace
 * period), so 500 of them would take a minute to tear down. Kernels 6.6+
 * offer uprobe_multi links: every offset in one link, one grace period on
 * detach. libbpf 1.1 predates them, so the link is created with the raw
 * bpf(2) command, and the program must be loaded with expected attach type
 * BPF_TRACE_UPROBE_MULTI: sp_uprobe_prepare() sets it between open and
 * load when the kernel has the feature. A program loaded without it is
 * loaded a second time for uprobe_multi when it matches many functions;
 * else (old kernels, a few functions) one perf uprobe per offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "base/log.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/progcopy.h"
#include "runtime/attach/names.h"
#include "runtime/attach/resolve.h"
#include "runtime/elf/file.h"
#include "base/clock.h"

struct upoint {
	uint64_t foff;
	const char *name; /* into the sp_funcs; NULL for addresses */
	const char *shown;/* demangled when C++: what `func` says */
	uint64_t cookie;  /* index into the probe names map, or 0 */
};

struct upoints {
	char path[PATH_MAX];
	struct sp_funcs *funcs; /* the file's table: the run's (funcs_file) or own_funcs */
	struct sp_funcs own_funcs;
	struct upoint *v;
	int n;
	struct upoints *next; /* the next file of a path glob, or NULL */
};

static void upoints_free(struct upoints *u)
{
	sp_funcs__free(&u->own_funcs);
	u->funcs = NULL;
	free(u->v);
	u->v = NULL;
	u->n = 0;
}

static int upoints_add(struct upoints *u, uint64_t foff, struct sp_func *fn)
{
	struct upoint *nv = realloc(u->v, (u->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	u->v = nv;
	nv[u->n].foff = foff;
	nv[u->n].name = fn ? fn->name : NULL;
	nv[u->n].shown = fn ? (sp_func_demangled(fn) ? fn->demangled : fn->name) : NULL;
	nv[u->n].cookie = 0;
	u->n++;
	return 0;
}

static int upoint_cmp(const void *a, const void *b)
{
	const struct upoint *x = a, *y = b;

	return (x->foff > y->foff) - (x->foff < y->foff);
}

static int resolve_target(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			  struct upoints *u)
{
	if (!p->target || !*p->target)
		return sp_probe_fail(ctx, p, -EINVAL, "no binary given (uprobe:BINARY:FUNCTION)");
	if (sp_resolve_binary(p->target, ctx->pid, u->path, sizeof(u->path)))
		return sp_probe_fail(ctx, p, -ENOENT,
				     "cannot attach: binary '%s' not found (no such file, no program "
				     "of that name in $PATH, no library in /etc/ld.so.cache%s)",
				     p->target, ctx->pid > 0 ? ", not mapped by the target process" : "");
	return 0;
}

static int resolve_addr(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct upoints *u)
{
	uint64_t foff;
	int err = sp_elf_vaddr_to_foff(u->path, p->offset, &foff);

	if (err == -ENOEXEC)
		return sp_probe_fail(ctx, p, err, "cannot attach: '%s' is not an ELF file", u->path);
	if (err)
		return sp_probe_fail(ctx, p, err,
				     "cannot attach: Could not resolve address: %s:0x%llx (not in an "
				     "executable segment)", p->target, (unsigned long long)p->offset);
	return upoints_add(u, foff, NULL);
}

/* Every function the pattern names: a glob, or a demangled C++ name that
 * may name several overloads ("ns::area" = area(int) and area(double)). */
static int add_matches(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		       struct upoints *u)
{
	int i, j, err;

	for (i = 0; i < u->funcs->n; i++) {
		if (!sp_func_matches(&u->funcs->v[i], p->func))
			continue;
		err = upoints_add(u, u->funcs->v[i].foff, &u->funcs->v[i]);
		if (err)
			return err;
	}
	if (u->n == 0 && sp_has_wildcard(p->func))
		return sp_probe_fail(ctx, p, -ESRCH, "cannot attach: no function matches '%s' in %s",
				     p->func, u->path);
	if (u->n == 0)
		return sp_probe_fail(ctx, p, -ESRCH, "cannot attach: no symbol '%s' in %s", p->func,
				     u->path);
	if (u->n > 1)
		qsort(u->v, u->n, sizeof(*u->v), upoint_cmp);
	for (i = 1, j = 1; i < u->n; i++)
		if (u->v[i].foff != u->v[j - 1].foff)
			u->v[j++] = u->v[i];
	u->n = j;
	if (p->has_offset && u->n > 1)
		return sp_probe_fail(ctx, p, -EINVAL,
				     "'%s' names %d functions in %s: an offset needs exactly one",
				     p->func, u->n, u->path);
	return 0;
}

static int check_offset(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			const struct sp_func *fn)
{
	if (p->type == SP_PROBE_URETPROBE)
		return sp_probe_fail(ctx, p, -EINVAL, "a uretprobe cannot take an offset");
	if (fn->size && p->offset >= fn->size)
		return sp_probe_fail(ctx, p, -EINVAL,
				     "cannot attach: Offset outside the function bounds ('%s' size "
				     "is %llu bytes, offset %llu)", p->func,
				     (unsigned long long)fn->size, (unsigned long long)p->offset);
	return 0;
}

/* An exact (mangled or C) name first; else demangled names and globs. */
static int add_funcs(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, struct upoints *u)
{
	struct sp_func *fn = NULL;
	int i, err;

	for (i = 0; i < u->funcs->n && !fn; i++)
		if (strcmp(u->funcs->v[i].name, p->func) == 0)
			fn = &u->funcs->v[i];
	if (!fn) {
		err = add_matches(p, ctx, u);
		if (err || !p->has_offset)
			return err;
		fn = sp_funcs__find(u->funcs, u->v[0].name);
		err = fn ? check_offset(p, ctx, fn) : 0;
		u->v[0].foff += p->offset;
		return err;
	}
	if (p->has_offset) {
		err = check_offset(p, ctx, fn);
		if (err)
			return err;
	}
	return upoints_add(u, fn->foff + (p->has_offset ? p->offset : 0), fn);
}

/* A file's function table, loaded once a run and kept in the run's memo
 * (p NULL): the attach points written out one by one in a block (`uprobe:
 * libc:a, uprobe:libc:b, ...`) each read and sorted libc's 7,000 symbols
 * before, 13 ms a point. Keyed by path and the file's identity and mtime. */
struct funcs_file {
	char path[PATH_MAX];
	struct stat st;
	struct sp_funcs funcs;
};

static void funcs_file_destroy(void *data)
{
	struct funcs_file *f = data;

	sp_funcs__free(&f->funcs);
	free(f);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The run's table of u->path, or NULL (then the caller loads its own). */
static struct sp_funcs *shared_funcs(struct sp_attach_ctx *ctx, const char *path, int *err)
{
	struct funcs_file *f;
	struct stat st;

	*err = 0;
	if (!ctx->resolved || stat(path, &st))
		return NULL;
	for (struct sp_resolved *r = *ctx->resolved; r; r = r->next) {
		f = r->data;
		if (!r->p && r->free == funcs_file_destroy && !strcmp(f->path, path) &&
		    same_file(&f->st, &st))
			return &f->funcs;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->st = st;
	*err = sp_funcs__load(&f->funcs, path);
	if (*err) {
		free(f);
		return NULL;
	}
	f = sp_resolved_keep(ctx, NULL, 0, f, funcs_file_destroy);
	return f ? &f->funcs : NULL;
}

static int load_funcs(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		      struct upoints *u)
{
	int err;

	u->funcs = shared_funcs(ctx, u->path, &err);
	if (!u->funcs && !err) {
		err = sp_funcs__load(&u->own_funcs, u->path);
		u->funcs = &u->own_funcs;
	}

	if (err == -ENOEXEC)
		return sp_probe_fail(ctx, p, err, "cannot attach: '%s' is not an ELF file", u->path);
	if (err)
		return sp_probe_fail(ctx, p, err, "cannot attach: cannot read %s: %s", u->path,
				     strerror(-err));
	return 0;
}

/* Since glibc 2.34 libpthread, libdl, librt, libutil and libanl are empty
 * stubs kept for old links: their functions live in libc. */
static bool glibc_stub(const char *path)
{
	static const char *const stubs[] = { "libpthread.so", "libdl.so", "librt.so",
					     "libutil.so", "libanl.so" };
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++)
		if (!strncmp(base, stubs[i], strlen(stubs[i])))
			return true;
	return false;
}

/* uprobe:libpthread:pthread_create finds the function in libc, as
 * bpftrace does, and says so. */
static int follow_stub(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		       struct upoints *u)
{
	char stub[PATH_MAX];
	int err;

	snprintf(stub, sizeof(stub), "%s", u->path);
	upoints_free(u);
	if (sp_resolve_binary("libc.so.6", ctx->pid, u->path, sizeof(u->path)))
		return sp_probe_fail(ctx, p, -ESRCH, "cannot attach: no symbol '%s' in %s (a glibc "
				     "stub) and no libc.so.6 found", p->func, stub);
	err = load_funcs(p, ctx, u);
	if (!err)
		err = add_funcs(p, ctx, u);
	if (!err)
		sp_err("note: probe '%s': %s is a stub since glibc 2.34; "
		       "attaching to '%s' in %s\n", p->spec, stub, p->func, u->path);
	return err;
}

/* The points of u->path; ctx->err on failure. */
static int resolve_in_file(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			   struct upoints *u)
{
	int err;

	if (p->is_addr)
		return resolve_addr(p, ctx, u);
	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "no function given (uprobe:BINARY:FUNCTION)");
	err = load_funcs(p, ctx, u);
	if (err)
		return err;
	err = add_funcs(p, ctx, u);
	if (err == -ESRCH && glibc_stub(u->path))
		return follow_stub(p, ctx, u);
	return err;
}

static void upoints_destroy(void *data)
{
	struct upoints *u = data, *next;

	for (; u; u = next) {
		next = u->next;
		upoints_free(u);
		free(u);
	}
}

/* uprobe:/usr/lib/x86_64-linux-gnu/libssl*:SSL_read: one node per file that
 * has the function; files without it (or not ELF) are passed over. */
static int resolve_glob(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct upoints *u)
{
	struct upoints *last = NULL, *node;
	char **paths;
	int i, n, err = sp_resolve_glob(p->target, &paths, &n);

	if (err)
		return sp_probe_fail(ctx, p, err, "cannot expand '%s': %s", p->target,
				     strerror(-err));
	for (i = 0; i < n && !err; i++) {
		node = last ? calloc(1, sizeof(*node)) : u;
		if (!node) {
			err = -ENOMEM;
			break;
		}
		snprintf(node->path, sizeof(node->path), "%s", paths[i]);
		err = resolve_in_file(p, ctx, node);
		if (err) {
			if (node != u)
				upoints_destroy(node);
			else
				upoints_free(u);
			err = err == -ESRCH || err == -ENOEXEC ? 0 : err;
			continue;
		}
		if (last)
			last->next = node;
		last = node;
	}
	sp_strv_free(paths, n);
	if (!err && !last && n == 0)
		return sp_probe_fail(ctx, p, -ENOENT, "cannot attach: no file matches '%s'",
				     p->target);
	if (!err && !last)
		return sp_probe_fail(ctx, p, -ESRCH, "cannot attach: none of the %d files matching "
				     "'%s' has a function '%s'", n, p->target,
				     p->is_addr ? "at that address" : p->func);
	return err;
}

/* Fill u with every point the probe attaches to; ctx->err on failure. */
static int upoints_resolve(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			   struct upoints *u)
{
	int err;

	memset(u, 0, sizeof(*u));
	if (sp_is_path_glob(p->target))
		return resolve_glob(p, ctx, u);
	err = resolve_target(p, ctx, u);
	return err ? err : resolve_in_file(p, ctx, u);
}

static int upoints_resolve_any(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, void *u)
{
	return upoints_resolve(p, ctx, u);
}

/* The probe's points, resolved once per (probe, pid) for the run. */
static int upoints_get(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
		       struct upoints **out)
{
	return sp_resolved_get(ctx, p, sizeof(**out), upoints_resolve_any, upoints_destroy,
			       (void **)out);
}

static void upoints_put(struct sp_attach_ctx *ctx, struct upoints *u)
{
	sp_resolved_put(ctx, u, upoints_destroy);
}

static int uprobe_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct upoints *u;
	int err = upoints_get(p, ctx, &u);

	if (!err)
		upoints_put(ctx, u);
	return err;
}

/* A progress line on stderr once attaching has taken over a second. */
static void progress(const struct sp_plan_probe *p, double start, double *last, int i, int n)
{
	double t = sp_mono_s();

	if (t - start < 1.0 || (t - *last < 0.2 && i != n))
		return;
	*last = t;
	sp_log(SP_LOG_INFO, "\rattaching %s: %d/%d uprobes%s", p->spec, i, n, i == n ? "\n" : "");
}

static int attach_point(const struct sp_plan_probe *p, struct bpf_program *prog,
			struct sp_attach_ctx *ctx, const struct upoints *u, int i,
			struct sp_links *links)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = p->type == SP_PROBE_URETPROBE,
		    .bpf_cookie = u->v[i].cookie);
	struct bpf_link *link;
	int err;

	link = bpf_program__attach_uprobe_opts(prog, ctx->pid > 0 ? ctx->pid : -1, u->path,
					       u->v[i].foff, &o);
	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach%s%s at offset 0x%llx of %s: %s",
				     u->v[i].name ? " to " : "", u->v[i].name ? u->v[i].name : "",
				     (unsigned long long)u->v[i].foff, u->path, strerror(-err));
	}
	return sp_links_push(links, link);
}

/* --- uprobe_multi links (kernel 6.6+; not in libbpf 1.1's headers) --------- */

#define SP_BPF_TRACE_UPROBE_MULTI 48
#define SP_BPF_F_UPROBE_MULTI_RETURN 1U

/* The BPF_LINK_CREATE attr for uprobe_multi, as in the kernel's uapi. */
struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, umflags, pid;
	uint32_t pad[5];
};

/* Link fd or -errno. */
static int uprobe_multi_link(int prog_fd, const struct sp_umulti *m)
{
	struct uprobe_multi_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = prog_fd;
	a.attach_type = SP_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)m->path;
	a.offsets = (uint64_t)(uintptr_t)m->offs;
	a.ref_ctr_offsets = (uint64_t)(uintptr_t)m->refs;
	a.cookies = (uint64_t)(uintptr_t)m->cookies;
	a.cnt = m->cnt;
	a.umflags = m->ret ? SP_BPF_F_UPROBE_MULTI_RETURN : 0;
	a.pid = m->pid > 0 ? (uint32_t)m->pid : 0;
	fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

/* Same probe as libbpf 1.3+: a uprobe_multi link on "/" fails with EBADF
 * when the kernel knows the link type. */
static bool have_uprobe_multi(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = SP_BPF_TRACE_UPROBE_MULTI);
	uint64_t off = 0;
	struct sp_umulti m = { .path = "/", .offs = &off, .cnt = 1 };
	int prog, link;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	link = uprobe_multi_link(prog, &m);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -EBADF;
}

int sp_uprobe_prepare(const struct sp_plan_probe *p, struct bpf_program *prog,
		      struct sp_attach_ctx *ctx)
{
	(void)p;
	(void)ctx;
	if (!prog)
		return -ENOENT;
	if (!have_uprobe_multi())
		return 0;
	return bpf_program__set_expected_attach_type(prog, SP_BPF_TRACE_UPROBE_MULTI);
}

static bool prepared_for_multi(struct bpf_program *prog)
{
	return bpf_program__expected_attach_type(prog) ==
	       (enum bpf_attach_type)SP_BPF_TRACE_UPROBE_MULTI;
}

/* A copy of a loaded program, loaded again for uprobe_multi, for programs
 * the loader did not prepare (runtime/attach/progcopy.c). The link keeps
 * the copy alive. */
static int load_multi_copy(struct bpf_program *prog)
{
	return sp_prog_copy_load(prog, BPF_PROG_TYPE_KPROBE,
				 (enum bpf_attach_type)SP_BPF_TRACE_UPROBE_MULTI, 0, NULL, 0);
}

int sp_uprobe_multi_attach(struct bpf_program *prog, const struct sp_umulti *m, int min_copy)
{
	int fd, link;

	if (prepared_for_multi(prog))
		return uprobe_multi_link(bpf_program__fd(prog), m);
	if ((int)m->cnt < min_copy || !have_uprobe_multi())
		return -EOPNOTSUPP;
	fd = load_multi_copy(prog);
	if (fd < 0)
		return -EOPNOTSUPP;
	link = uprobe_multi_link(fd, m);
	close(fd);
	return link;
}

/* Unprepared program, many functions: worth a second verification to
 * detach in one grace period instead of one per function. */
#define MULTI_COPY_MIN 8

/* A Ctrl-C (SIGINT, SIGTERM, SIGHUP: blocked by the session, read later
 * from its signalfd) is waiting: stop attaching, the run ends as usual. */
static bool interrupted(void)
{
	sigset_t set;

	return sigpending(&set) == 0 &&
	       (sigismember(&set, SIGINT) || sigismember(&set, SIGTERM) || sigismember(&set, SIGHUP));
}

/* The kernel refuses a function whose first instruction it cannot
 * single-step (ENOTSUPP, 524: e.g. some of libc's hand-written assembly),
 * and one such offset fails the whole uprobe_multi link. */
#define SP_ENOTSUPP 524

/* One uprobe_multi link over m's points [lo, hi); when the kernel refuses
 * one of them, halves are tried so every other function still gets its
 * uprobe and only the refused ones are left out (counted in *skipped).
 * 0, -EINTR (interrupted), -EOPNOTSUPP (no uprobe_multi) or -errno. */
static int attach_range(struct bpf_program *prog, const struct sp_umulti *all, uint32_t lo,
			uint32_t hi, struct sp_links *links, int *skipped)
{
	struct sp_umulti m = *all;
	uint32_t mid = lo + (hi - lo) / 2;
	int fd, err;

	if (interrupted())
		return -EINTR;
	m.offs = all->offs + lo;
	m.cookies = all->cookies + lo;
	m.cnt = hi - lo;
	fd = sp_uprobe_multi_attach(prog, &m, MULTI_COPY_MIN);
	if (fd >= 0)
		return sp_links_push_fd(links, fd);
	if ((fd != -SP_ENOTSUPP && fd != -EINVAL) || all->cnt == 1)
		return fd;
	if (hi - lo == 1) {
		(*skipped)++;
		return 0;
	}
	err = attach_range(prog, all, lo, mid, links, skipped);
	return err ? err : attach_range(prog, all, mid, hi, links, skipped);
}

static int attach_multi(const struct sp_plan_probe *p, struct bpf_program *prog,
			struct sp_attach_ctx *ctx, const struct upoints *u,
			struct sp_links *links)
{
	uint64_t *offs = malloc(2 * u->n * sizeof(*offs)), *cookies = offs + u->n;
	struct sp_umulti m = { .path = u->path, .offs = offs, .cookies = cookies, .cnt = u->n,
			       .ret = p->type == SP_PROBE_URETPROBE, .pid = ctx->pid };
	int i, err, skipped = 0;

	if (!offs)
		return -ENOMEM;
	for (i = 0; i < u->n; i++) {
		offs[i] = u->v[i].foff;
		cookies[i] = u->v[i].cookie;
	}
	err = attach_range(prog, &m, 0, (uint32_t)u->n, links, &skipped);
	free(offs);
	if (err == -EOPNOTSUPP || err == -EINTR)
		return err;
	if (!err && skipped == u->n)
		err = -SP_ENOTSUPP;
	if (err < 0)
		return sp_probe_fail(ctx, p, err, "cannot attach %d uprobe%s in %s: %s", u->n,
				     u->n == 1 ? "" : "s", u->path,
				     err == -SP_ENOTSUPP ? "instruction not supported by uprobes" :
				     strerror(-err));
	if (skipped)
		sp_warn("probe '%s': %d of %d functions left out: the "
			"kernel cannot uprobe their first instruction\n", p->spec, skipped, u->n);
	return 0;
}

static int attach_each(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, const struct upoints *u, struct sp_links *links)
{
	double start = sp_mono_s(), last = 0;
	int i, err = 0;

	for (i = 0; i < u->n && !err; i++) {
		if (interrupted())
			return -EINTR;
		err = attach_point(p, prog, ctx, u, i, links);
		if (u->n > 1)
			progress(p, start, &last, i + 1, u->n);
	}
	if (err && i > 1 && sp_mono_s() - start >= 1.0)
		sp_log(SP_LOG_INFO, "\n"); /* ends progress()'s line */
	return err;
}

/* A uprobe on an AVX-512 (EVEX-encoded: first byte 0x62 in 64-bit code)
 * instruction corrupts the traced process: seen on Linux 6.18 with glibc's
 * __strchrnul_evex (`vpbroadcastb %esi,%ymm17` at its entry), after which
 * printf in every traced process printed garbage (tests/tier_faults.py).
 * Such points are left out of a wildcard, with a warning, and refused when
 * they are all there is. */
#define EVEX_PREFIX 0x62

static bool is_evex(int fd, uint64_t foff)
{
	uint8_t b;

	return pread(fd, &b, 1, (off_t)foff) == 1 && b == EVEX_PREFIX;
}

static int drop_evex(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx, struct upoints *u)
{
	int fd = sp_file_open(u->path, SP_FILE_ELF_MAX), kept = 0, n = u->n;

	if (fd < 0)
		return 0; /* attaching says what is wrong with the file */
	for (int i = 0; i < n; i++)
		if (!is_evex(fd, u->v[i].foff))
			u->v[kept++] = u->v[i];
	close(fd);
	u->n = kept;
	if (kept == 0)
		return sp_probe_fail(ctx, p, -EINVAL, "cannot attach: %s starts with an AVX-512 "
				     "(EVEX) instruction, which a uprobe corrupts in the traced "
				     "process", n == 1 ? "the function" : "every function");
	if (kept < n)
		sp_warn("probe '%s': %d of %d functions left out: they "
			"start with an AVX-512 (EVEX) instruction, which a uprobe corrupts\n",
			p->spec, n - kept, n);
	return 0;
}

/* `func`/`probe` of a wildcard: one names-map entry per point, its index the cookie. */
static int record_names(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx,
			struct upoints *u)
{
	char probe[PATH_MAX + 256], addr[32];
	int i, err, base = sp_probe_names_reserve(ctx->obj, u->n);

	if (base < 0)
		return sp_probe_fail(ctx, p, base, "cannot record the names of its %d functions: "
				     "%s", u->n, sp_probe_names_strerror(base));
	for (i = 0; i < u->n; i++) {
		const char *name = u->v[i].shown;

		if (!name) {
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)p->offset);
			name = addr;
		}
		snprintf(probe, sizeof(probe), "%s:%s:%s", sp_probe_type_name(p->type), u->path,
			 u->v[i].name ? u->v[i].name : name);
		if (p->type == SP_PROBE_WATCHPOINT || p->type == SP_PROBE_ASYNCWATCHPOINT)
			snprintf(probe + strlen(probe), sizeof(probe) - strlen(probe), ":%llu:%s",
				 (unsigned long long)p->value, p->unit ? p->unit : "");
		u->v[i].cookie = (uint64_t)(base + i);
		err = sp_probe_names_set(ctx->obj, base + i, name, probe);
		if (err)
			return sp_probe_fail(ctx, p, err, "cannot record probe names: %s",
					     strerror(-err));
	}
	return 0;
}

static int attach_file(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, struct upoints *u, struct sp_links *links)
{
	double start = sp_mono_s();
	int err = drop_evex(p, ctx, u);

	if (!err && p->uses_names)
		err = record_names(p, ctx, u);
	if (!err) {
		err = attach_multi(p, prog, ctx, u, links);
		if (err == -EOPNOTSUPP)
			err = attach_each(p, prog, ctx, u, links);
	}
	if (!err && ctx->verbose && u->n > 1)
		sp_log(SP_LOG_INFO, "%s: %d uprobes in %s attached in %.3f s\n", p->spec, u->n, u->path,
		       sp_mono_s() - start);
	return err;
}

static int uprobe_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
			 struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct upoints *u;
	int err = upoints_get(p, ctx, &u);

	if (err)
		return err;
	for (struct upoints *f = u; f && !err; f = f->next)
		err = attach_file(p, prog, ctx, f, links);
	upoints_put(ctx, u);
	return err;
}

static int uprobe_count(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	struct upoints *u;
	int n = upoints_get(p, ctx, &u);

	if (n == 0) {
		for (struct upoints *f = u; f; f = f->next)
			n += f->n;
		upoints_put(ctx, u);
	}
	return n;
}

static void list_file_funcs(struct sp_lister *l, const char *prov, const char *path,
			    const char *glob)
{
	struct sp_funcs f;
	int i;

	if (sp_funcs__load(&f, path))
		return;
	for (i = 0; i < f.n; i++) {
		char line[PATH_MAX + 600];

		if (glob && !sp_func_matches(&f.v[i], glob))
			continue;
		if (i > 0 && !strcmp(f.v[i].name, f.v[i - 1].name))
			continue;
		snprintf(line, sizeof(line), "%s:%s:%s", prov, path, f.v[i].name);
		if (!sp_lister_emit(l, line) || !l->verbose)
			continue;
		if (sp_func_demangled(&f.v[i]))
			fprintf(l->out, "    %s\n", f.v[i].demangled);
		else if (l->params)
			l->params(l->params_ctx, path, f.v[i].name, l->out);
	}
	sp_funcs__free(&f);
}

static int uprobe_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	char **paths;
	int n, err = sp_lister_user_targets(l, prov, f, nf, wild, &paths, &n);

	for (int i = 0; i < n && !err; i++)
		list_file_funcs(l, prov, paths[i], nf > 2 ? f[2] : NULL);
	sp_strv_free(paths, n);
	return err;
}

const struct sp_probe_ops sp_probe_uprobe_ops = {
	.type = SP_PROBE_UPROBE,
	.validate = uprobe_validate,
	.attach = uprobe_attach,
	.prepare = sp_uprobe_prepare,
	.count = uprobe_count,
	.list = uprobe_list,
};

const struct sp_probe_ops sp_probe_uretprobe_ops = {
	.type = SP_PROBE_URETPROBE,
	.validate = uprobe_validate,
	.attach = uprobe_attach,
	.prepare = sp_uprobe_prepare,
	.count = uprobe_count,
	.list = uprobe_list,
};
