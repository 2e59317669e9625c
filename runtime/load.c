/* runtime/load.c: open the generated BPF object, size its maps, load it.
 *
 * The object is opened from memory (libbpf copies it during open). Before
 * load, script maps and the shared stack map take the run's key limit.
 * libbpf's messages go through a callback: quiet unless -v, but the last
 * few warnings are kept so a failure can say why. Every program shares one
 * large verifier log buffer: libbpf loads with log level 0 (fast) and only
 * on failure retries into our buffer, so a successful load pays nothing.
 * On a verifier failure the log's last lines are shown (all of it with -v)
 * and the last `; ... @ file:LINE` comment, which the kernel prints from
 * the BTF line info codegen wrote, points the user at the script line.
 *
 * libbpf's print callback takes no context argument, so the loader being
 * loaded is reached through one thread-local pointer (cur_loader).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "load.h"

#define VLOG_SIZE (16u << 20)   /* lazily touched: costs nothing unless used */
#define VLOG_TAIL 12            /* verifier lines shown without -v */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static __thread struct sp_loader *cur_loader;

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int sp_check_privileges(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };

	if (geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &h, d) == 0 &&
	    ((has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON)) || has_cap(d, CAP_SYS_ADMIN)))
		return 0;
	fprintf(stderr, "sprof needs root or CAP_BPF and CAP_PERFMON\n");
	return -EPERM;
}

static void keep_line(struct sp_loader *l, const char *s)
{
	const char *p;

	if (l->nlines == SP_LIBBPF_LINES) {
		free(l->lines[0]);
		memmove(l->lines, l->lines + 1, sizeof(l->lines[0]) * (SP_LIBBPF_LINES - 1));
		l->nlines--;
	}
	l->lines[l->nlines++] = strdup(s);
	p = strstr(s, "prog '");
	if (p && strstr(s, "load failed")) {
		p += 6;
		snprintf(l->failed_prog, sizeof(l->failed_prog), "%.*s",
			 (int)strcspn(p, "'"), p);
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	struct sp_loader *l = cur_loader;
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (l && l->verbose >= (level == LIBBPF_DEBUG ? 2 : 1))
		fputs(buf, stderr);
	if (l && level == LIBBPF_WARN) {
		buf[strcspn(buf, "\n")] = '\0';
		keep_line(l, buf);
	}
	return 0;
}

const struct sp_plan_probe *sp_plan_probe_by_prog(const struct sp_plan *plan, const char *prog)
{
	for (int i = 0; i < plan->nprobes; i++)
		if (plan->probes[i].prog && strcmp(plan->probes[i].prog, prog) == 0)
			return &plan->probes[i];
	return NULL;
}

/* Script maps and the stack map get the run's key limit. A key may hold a
 * user and a kernel stack, so stacks get room for two per key. */
static int size_maps(struct sp_loader *l, const struct sp_plan *plan, uint32_t max_keys)
{
	struct bpf_map *m;
	int err;

	if (max_keys == 0)
		return 0;
	for (int i = 0; i < plan->nmaps; i++) {
		m = bpf_object__find_map_by_name(l->obj, plan->maps[i].bpf_name);
		if (!m) {
			fprintf(stderr, "sprof: map '%s' (%s) missing from the BPF object\n",
				plan->maps[i].name, plan->maps[i].bpf_name);
			return -ENOENT;
		}
		if (bpf_map__type(m) == BPF_MAP_TYPE_ARRAY ||
		    bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY)
			continue; /* scalar maps: one slot */
		err = bpf_map__set_max_entries(m, max_keys);
		if (err)
			return err;
	}
	m = bpf_object__find_map_by_name(l->obj, SP_MAP_STACKS);
	if (m) {
		uint32_t n = max_keys * (plan->uses_ustack && plan->uses_kstack ? 2 : 1);

		err = bpf_map__set_max_entries(m, n < 1024 ? 1024 : n);
		if (err)
			return err;
	}
	return 0;
}

static void setup_logs(struct sp_loader *l)
{
	struct bpf_program *p;

	/* Log level stays 0: libbpf retries a failed load with level 1 into
	 * this buffer. A level set up front could fail a good load whose log
	 * outgrows the buffer (ENOSPC). */
	bpf_object__for_each_program(p, l->obj)
		bpf_program__set_log_buf(p, l->vlog, l->vlogsz);
}

struct sp_loader *sp_loader__open(const struct sp_plan *plan, const void *obj, size_t len,
				  const struct sp_run_opts *o)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "sprof");
	struct sp_loader *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->verbose = o->verbose;
	l->vlogsz = VLOG_SIZE;
	l->vlog = malloc(l->vlogsz);
	if (!l->vlog) {
		err = -ENOMEM;
		goto out_free;
	}
	l->vlog[0] = '\0';
	cur_loader = l;
	libbpf_set_print(libbpf_print);
	l->obj = bpf_object__open_mem(obj, len, &oo);
	if (!l->obj) {
		err = -errno;
		fprintf(stderr, "sprof: cannot open the BPF object: %s\n", strerror(-err));
		for (int i = 0; i < l->nlines && !l->verbose; i++)
			fprintf(stderr, "  libbpf: %s\n", l->lines[i]);
		goto out_free;
	}
	err = size_maps(l, plan, o->max_keys);
	if (err)
		goto out_free;
	setup_logs(l);
	return l;

out_free:
	sp_loader__destroy(l);
	errno = -err;
	return NULL;
}

static const char *skip_line_prefix(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A line that is verifier noise rather than its complaint. */
static bool is_noise(const char *s, size_t n)
{
	static const char *const pfx[] = { "processed ", "verification time", "stack depth",
					   "from ", "mark_precise", "last_idx", "regs=", "parent " };

	if (n == 0 || s[0] == ';')
		return true;
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (strncmp(s, pfx[i], strlen(pfx[i])) == 0)
			return true;
	/* instruction lines "12: (79) r0 = ..." and state lines "12: R0=..." */
	size_t d = strspn(s, "0123456789");
	return d > 0 && d < n && s[d] == ':';
}

/* "; <source> @ <file>:<line>" (the source may contain '@'): the line if
 * <file> is the script (the kernel keeps the path's last component only);
 * helpers inlined from bpf/NAME.bpf.c carry their own file and are skipped. */
static uint32_t linfo_line(const char *t, const char *nl, const char *file)
{
	const char *at = NULL, *colon, *name;

	for (const char *q = t; q + 3 <= nl; q++)
		if (q[0] == ' ' && q[1] == '@' && q[2] == ' ')
			at = q;
	if (!at)
		return 0;
	name = at + 3;
	colon = memrchr(name, ':', (size_t)(nl - name));
	if (!colon)
		return 0;
	if (file && ((size_t)(colon - name) != strlen(file) ||
		     strncmp(name, file, (size_t)(colon - name)) != 0))
		return 0;
	return (uint32_t)strtoul(colon + 1, NULL, 10);
}

uint32_t sp_vlog_script_line(const char *log, const char *script, char *msg, size_t msglen)
{
	const char *file = script ? strrchr(script, '/') : NULL;
	uint32_t line = 0;
	const char *s = log, *nl;

	file = file ? file + 1 : script;
	if (msglen)
		msg[0] = '\0';
	for (; *s; s = nl + 1) {
		const char *t = skip_line_prefix(s);
		size_t n;

		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		n = (size_t)(nl - t);
		if (*t == ';') {
			uint32_t l = linfo_line(t, nl, file);

			if (l)
				line = l;
		} else if (!is_noise(t, n) && msglen) {
			snprintf(msg, msglen, "%.*s", (int)n, t);
		}
		if (!*nl)
			break;
	}
	return line;
}

/* Prints the last `tail` lines of the log (all with tail <= 0). */
static void print_vlog(const char *log, int tail)
{
	const char *start = log + strlen(log);
	int n = 0;

	while (start > log && (tail <= 0 || n <= tail)) {
		start--;
		if (*start == '\n' && start[1])
			n++;
	}
	if (start != log)
		start = strchr(start, '\n') + 1;
	fprintf(stderr, "%s%s", start, *start && log[strlen(log) - 1] != '\n' ? "\n" : "");
}

static void report_load_failure(struct sp_loader *l, const struct sp_plan *plan,
				const struct sp_run_opts *o, int err)
{
	const struct sp_plan_probe *p = l->failed_prog[0] ?
		sp_plan_probe_by_prog(plan, l->failed_prog) : NULL;
	char msg[512], diag[768];
	uint32_t line;

	if (!l->vlog[0]) {
		fprintf(stderr, "sprof: cannot load the BPF programs: %s\n", strerror(-err));
		for (int i = 0; i < l->nlines && !l->verbose; i++)
			fprintf(stderr, "  libbpf: %s\n", l->lines[i]);
		return;
	}
	line = sp_vlog_script_line(l->vlog, plan->source_name, msg, sizeof(msg));
	fprintf(stderr, "sprof: probe '%s': the BPF verifier rejected the program%s\n",
		p ? p->spec : l->failed_prog, l->verbose ? "" : " (last lines of its log; -v shows all)");
	print_vlog(l->vlog, l->verbose ? 0 : VLOG_TAIL);
	snprintf(diag, sizeof(diag), "BPF verifier: %s", msg[0] ? msg : strerror(-err));
	if (o->diag && (line || p))
		o->diag(o->diag_ctx, line ? line : p->line, line ? 0 : p->col, diag);
}

int sp_loader__load(struct sp_loader *l, const struct sp_plan *plan, const struct sp_run_opts *o)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };
	struct rlimit cur;
	int err;

	/* Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK. */
	if (getrlimit(RLIMIT_MEMLOCK, &cur) == 0 && cur.rlim_cur != RLIM_INFINITY)
		setrlimit(RLIMIT_MEMLOCK, &r);
	cur_loader = l;
	err = bpf_object__load(l->obj);
	if (err) {
		report_load_failure(l, plan, o, err);
		return err;
	}
	if (bpf_object__btf_fd(l->obj) < 0) {
		fprintf(stderr, "sprof: the kernel did not accept the program's BTF "
			"(maps and line info need it)\n");
		return -EINVAL;
	}
	return 0;
}

int sp_loader__set_config(struct sp_loader *l, pid_t target, pid_t cpid)
{
	struct timespec ts;
	struct sp_config c = { .target_pid = (uint32_t)target, .cpid = (uint32_t)cpid };
	struct bpf_map *m = bpf_object__find_map_by_name(l->obj, SP_MAP_CONFIG);
	uint32_t zero = 0;
	int err;

	if (!m)
		return target ? -ENOENT : 0;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock: `elapsed` */
	c.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	err = bpf_map__update_elem(m, &zero, sizeof(zero), &c, sizeof(c), 0);
	if (err)
		fprintf(stderr, "sprof: cannot write %s: %s\n", SP_MAP_CONFIG, strerror(-err));
	return err;
}

void sp_loader__destroy(struct sp_loader *l)
{
	if (!l)
		return;
	bpf_object__close(l->obj);
	if (cur_loader == l)
		cur_loader = NULL;
	for (int i = 0; i < l->nlines; i++)
		free(l->lines[i]);
	free(l->vlog);
	free(l);
}
