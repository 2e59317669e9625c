/* runtime/attach/iter.c: iter:NAME, bpftrace's kernel iterator probes.
 *
 * A BPF iterator program (BPF_TRACE_ITER, section "iter/NAME": libbpf finds
 * bpf_iter_NAME's BTF id) runs once per object (task, open file, VMA...)
 * when someone read()s an iterator made from its link. sprof reads the
 * iterator to its end right after attaching, the program's printf()s and
 * map updates going the usual ways; the seq_file text itself is empty.
 * At the end the kernel calls the program once more with the object NULL;
 * codegen makes that call exit(), so, as in bpftrace, an iter probe runs
 * once and the run ends. Needs Linux 5.8 (sema names the version of each
 * iterator a kernel lacks).
 *
 * iter:NAME:PIN (bpftrace's pin form) pins the link at PIN instead, a file
 * on the BPF file system (a relative PIN is under /sys/fs/bpf), and does
 * not read it: each read() of the pin by anyone runs the program, after
 * sprof's run, which ends once attached ("Program pinned to PATH", as
 * bpftrace says). The pinned program's printf() output goes to sprof's
 * ring buffer, not to the pin's readers: sprof does not generate
 * bpf_seq_printf yet, so what a pin is good for today is its map updates
 * and side effects.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/glob.h"
#include "runtime/attach/probe.h"

static int iter_validate(const struct sp_plan_probe *p, struct sp_attach_ctx *ctx)
{
	if (!p->func || !*p->func)
		return sp_probe_fail(ctx, p, -EINVAL, "expected iter:NAME[:PIN]");
	if (ctx->pid > 0)
		return sp_probe_fail(ctx, p, -EINVAL, "an iterator runs in sprof's own read(), "
				     "not in a process: -p does not apply to it");
	return 0;
}

/* Reads the iterator to its end: each read() runs the program over the
 * next objects. 0 or -errno. */
static int iter_read_all(int link_fd)
{
	char buf[4096];
	int fd = bpf_iter_create(link_fd), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
	}
	close(fd);
	return err;
}

/* iter:NAME:PIN: the link pinned at PIN (relative: under /sys/fs/bpf). */
static int iter_pin(const struct sp_plan_probe *p, struct bpf_link *link,
		    struct sp_attach_ctx *ctx)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s%s", p->target[0] == '/' ? "" : "/sys/fs/bpf/", p->target);
	err = bpf_link__pin(link, path);
	if (err == -EEXIST)
		return sp_probe_fail(ctx, p, err, "cannot pin the iterator: '%s' exists (rm it to "
				     "pin again)", path);
	if (err == -EINVAL)
		return sp_probe_fail(ctx, p, err, "cannot pin the iterator at '%s': not a path on "
				     "a BPF file system (mount -t bpf bpf /sys/fs/bpf)", path);
	if (err)
		return sp_probe_fail(ctx, p, err, "cannot pin the iterator at '%s': %s", path,
				     strerror(-err));
	printf("Program pinned to %s\n", path);
	fflush(stdout);
	return 0;
}

static int iter_attach(const struct sp_plan_probe *p, struct bpf_program *prog,
		       struct sp_attach_ctx *ctx, struct sp_links *links)
{
	struct bpf_link *link = bpf_program__attach_iter(prog, NULL);
	int err;

	if (!link) {
		err = -errno;
		return sp_probe_fail(ctx, p, err, "cannot attach to iterator '%s': %s", p->func,
				     strerror(-err));
	}
	if ((err = sp_links_push(links, link)))
		return err;
	if (p->target)
		return iter_pin(p, link, ctx);
	if ((err = iter_read_all(bpf_link__fd(link))))
		return sp_probe_fail(ctx, p, err, "cannot read iterator '%s': %s", p->func,
				     strerror(-err));
	return 0;
}

/* -l 'iter:*': the kernel's iterators, the bpf_iter_NAME functions of its
 * BTF with a context struct bpf_iter__NAME, as bpftrace lists them. */
static int iter_list(struct sp_lister *l, const char *prov, char **f, int nf, bool wild)
{
	const char *glob = nf > 1 && *f[1] ? f[1] : "*";
	struct btf *vm = btf__load_vmlinux_btf();
	char line[300];
	int n;

	(void)prov;
	(void)wild;
	if (!vm)
		return 0;
	n = (int)btf__type_cnt(vm);
	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(vm, (__u32)id);
		const char *name = btf_is_func(t) ? btf__name_by_offset(vm, t->name_off) : NULL;

		if (!name || strncmp(name, "bpf_iter_", 9) || !sp_glob_match(glob, name + 9))
			continue;
		/* an iterator, not one of the bpf_iter_*_new/next kfuncs: its context */
		snprintf(line, sizeof(line), "bpf_iter__%s", name + 9);
		if (btf__find_by_name_kind(vm, line, BTF_KIND_STRUCT) <= 0)
			continue;
		snprintf(line, sizeof(line), "iter:%s", name + 9);
		sp_lister_emit(l, line);
	}
	btf__free(vm);
	return 0;
}

const struct sp_probe_ops sp_probe_iter_ops = {
	.type = SP_PROBE_ITER,
	.validate = iter_validate,
	.attach = iter_attach,
	.list = iter_list,
};
