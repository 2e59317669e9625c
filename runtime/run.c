/* runtime/run.c: one profiling session, from object bytes to the report.
 *
 *   privileges -> validate probes -> start/check the target (held -c child)
 *   -> open, size, load -> sp_config -> BEGIN -> attach -> release child
 *   -> loop -> stop (sp_config.stopped, interval timers closed) -> END
 *   -> drain events -> collect -> report -> detach (slow: after the report)
 *
 * The loop sleeps in one epoll_wait on: the event ring buffer, a pipe the
 * signal thread writes (SIGINT, SIGTERM, SIGHUP, SIGUSR1; SIGCHLD with -c),
 * the target's pidfd, a --duration
 * timerfd and a 1 s status timerfd. It has no timeout of its own: an
 * exit() record, a signal or the target's exit wakes it at once, so
 * `BEGIN { exit(); }` ends as soon as BEGIN has run (nothing else is
 * attached at all in that case).
 * The signal thread takes those signals (blocked everywhere else) and
 * passes them on as signalfd records; a second SIGINT, SIGTERM or SIGHUP
 * ends sprof there and then, whatever the loop is stuck in (a write to a
 * stdout pipe nobody reads under a printf flood).
 * Every resource is owned by struct run and released by run_destroy() on
 * every path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/collect.h"
#include "runtime/continuous.h"
#include "runtime/events.h"
#include "runtime/load.h"
#include "runtime/outpath.h"
#include "runtime/printf.h"
#include "abi/interp_usdt.h"
#include "runtime/attach/follow.h"
#include "runtime/attach/interp_usdt.h"
#include "runtime/attach/probe.h"
#include "runtime/attach/resolve.h"
#include "runtime/attach/verbose.h"
#include "runtime/attach/watchpoint.h"
#include "runtime/profile/profile.h"
#include "runtime/store/clickhouse.h"
#include "runtime/report/report.h"
#include "runtime/runtime.h"
#include "runtime/shell.h"
#include "runtime/status.h"
#include "runtime/process.h"
#include "runtime/langs/interp_usdt.h"
#include "runtime/langs/lang.h"
#include "runtime/stacks/kofs.h"
#include "runtime/stacks/symbolize.h"
#include "runtime/target.h"
#include "runtime/stacks/sideband.h"
#include "runtime/stacks/unwind.h"
#include "base/clock.h"
#include "base/vec.h"

enum { TAG_EVENTS = 1, TAG_SIGNAL, TAG_TARGET, TAG_DURATION, TAG_TICK, TAG_REREAD, TAG_SIDEBAND,
       TAG_PERIOD };

/* A new process's mappings are read again this long after its first
 * sample: a sample taken while ld.so was still mapping libraries would
 * otherwise leave them unknown (a -c child is read right after exec). */
static const uint64_t reread_after_ns[] = { 50000000ull, 300000000ull, 1000000000ull };
#define NREREAD (sizeof(reread_after_ns) / sizeof(reread_after_ns[0]))


struct run {
	const struct sp_plan *plan;
	const struct sp_run_opts *o;
	struct sp_report_opts ro;
	struct sp_clickhouse *ch; /* --export, or NULL */
	struct sp_continuous *cont; /* --continuous, or NULL */
	struct sp_target tgt;
	struct sp_loader *ld;
	struct sp_links links;    /* every probe but interval timers */
	struct sp_links ilinks;   /* interval timers: unfiltered, so detached first */
	struct sp_watches *watches; /* watchpoint:FUNC+argN breakpoints; NULL without */
	struct sp_attach_ctx actx;
	struct sp_resolved *resolved; /* attach points resolved once for the run */
	struct sp_symbolizer *sym;
	struct sp_unwind *unw;    /* DWARF unwinder tables; NULL when the program has none */
	struct sp_langs *langs;   /* the language walkers' processes (runtime/langs/lang.h) */
	struct sp_iusdt *iu;      /* --interp usdt's frame names; NULL in other modes */
	int iu_attached;          /* interpreters whose probes --interp usdt attached */
	struct sp_consumers procs; /* sym, unw, py: fed one maps snapshot per process event */
	struct sp_sideband *sb;   /* exec/mmap records for unw; NULL without */
	struct sp_collector *coll;
	struct sp_events *ev;
	struct sp_status status;
	struct sp_output out;
	int *cpus;
	int epfd, sigfd, durfd, tickfd, rereadfd;
	int sigw;                 /* the signal thread's end of the sigfd pipe */
	sigset_t sigset;          /* the signals it takes */
	pthread_t sigthr;
	bool sigthr_on;
	struct reread { uint32_t pid; unsigned done; uint64_t first; } *rereads;
	struct held { struct sp_event_hdr h; void *data; size_t len; } *held;
	size_t nheld, heldcap; /* output records held to the end of a drain (hold_record) */
	size_t nrereads, rereadcap;
	sigset_t oldmask;
	bool masked, stop;
	bool stop_signal;         /* stopped by SIGINT, SIGTERM or SIGHUP */
	int exit_code;        /* exit(code): the first one wins */
	bool exited;          /* exit() ended the run (not the -c command's end) */
	uint32_t *pids;       /* processes whose mappings were read after their first sample */
	size_t npids, pidcap; /* open addressing, pidcap a power of two */
	int saved_stdout;     /* -o with text/json: stdout while it points at the file */
	uint64_t t_start;     /* monotonic ns when probes were attached */
	uint64_t wall_start;
	char err[1024];
	bool *skip;           /* plan probes left out (validate_probes) */
	char cmd_path[4096];  /* -c: the program it runs ("" when unknown) */
};

/* With a script location the front end's caret diagnostic says it all. */
static void report_probe_error(struct run *r, const struct sp_plan_probe *p)
{
	if (!r->err[0])
		snprintf(r->err, sizeof(r->err), "probe '%s': failed", p ? p->spec : "?");
	if (r->o->diag && p && p->line)
		r->o->diag(r->o->diag_ctx, p->line, p->col, r->err);
	else
		sp_err("%s\n", r->err);
}

/* ---- before load ---------------------------------------------------------- */

static int setup_report_opts(struct run *r)
{
	const struct sp_run_opts *o = r->o;
	int f = SP_FMT_TEXT;

	if (o->format) {
		f = sp_format_parse(o->format);
		if (f < 0) {
			sp_err("invalid output format '%s' (text, json, folded, "
			       "svg, pprof, speedscope, residency)\n", o->format);
			return -EINVAL;
		}
	} else if (o->output) {
		f = (int)sp_format_from_path(o->output);
	}
	r->ro = (struct sp_report_opts){ .format = (enum sp_format)f, .output = o->output,
					 .map_filter = o->map_filter, .title = o->title,
					 .width = 1200 };
	return 0;
}

/* --map @name must name one of the program's maps: said before the run,
 * not after it, when its data would be lost. */
static int check_map_filter(const struct run *r)
{
	const char *want = r->o->map_filter;

	if (!want)
		return 0;
	for (int i = 0; i < r->plan->nmaps; i++)
		if (r->plan->maps[i].name && strcmp(r->plan->maps[i].name, want) == 0)
			return 0;
	sp_err("--map '%s': no such map in the program", want);
	for (int i = 0, n = 0; i < r->plan->nmaps; i++)
		if (r->plan->maps[i].name)
			sp_log(SP_LOG_ERROR, "%s%s", n++ ? ", " : " (it has ", r->plan->maps[i].name);
	sp_log(SP_LOG_ERROR, "%s\n", r->plan->nmaps ? ")" : "");
	return -ENOENT;
}

/* --export: the server, credentials and table are checked before anything
 * is loaded or started, so a bad URL costs nothing. */
static int open_export(struct run *r)
{
	struct sp_clickhouse_opts co = { .url = r->o->export_url, .host_name = r->o->host_name,
					 .retention_s = r->o->retention_s, .spool_dir = r->o->spool_dir,
					 .spool_bytes = r->o->spool_bytes,
					 .spool_age_s = r->o->spool_age_s };

	if (!r->o->export_url)
		return 0;
	r->ch = sp_clickhouse__open(&co);
	if (!r->ch)
		return -errno ? -errno : -EINVAL;
	return sp_clickhouse__prepare(r->ch);
}

/* -o with text or json: everything sprof prints (printf, print, maps) goes
 * to the file in order, as with bpftrace, so stdout itself is pointed there
 * (after a -c child was forked: its output stays on the terminal). */
static int redirect_stdout(struct run *r)
{
	int fd, err;

	if (!r->o->output || (r->ro.format != SP_FMT_TEXT && r->ro.format != SP_FMT_JSON) ||
	    r->o->continuous_ns) /* a file per period: runtime/continuous.c */
		return 0;
	fd = open(r->o->output, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); /* read: rescue */
	if (fd < 0) {
		err = -errno;
		sp_err("cannot write '%s': %s\n", r->o->output, strerror(-err));
		return err;
	}
	fflush(stdout);
	r->saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	err = r->saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	r->ro.output = NULL;
	r->ro.stdout_name = r->o->output;
	return 0;
}

static void restore_stdout(struct run *r)
{
	if (r->saved_stdout < 0)
		return;
	fflush(stdout);
	dup2(r->saved_stdout, STDOUT_FILENO);
	close(r->saved_stdout);
	r->saved_stdout = -1;
}

/* Probe i's block has an attach point that resolved. */
static bool block_resolves(const struct run *r, int i)
{
	for (int j = 0; j < r->plan->nprobes; j++)
		if (!r->skip[j] && r->plan->probes[j].block == r->plan->probes[i].block)
			return true;
	return false;
}

/* A function missing from its binary (rsa_ossl_public_encrypt, local in a
 * stripped libcrypto, in bpftrace's ssllatency.bt) leaves its attach point
 * out with a warning when another attach point of the same block attaches,
 * as bpftrace does; a block with none left is an error. */
static int skip_missing(struct run *r)
{
	int i, err;

	for (i = 0; i < r->plan->nprobes; i++) {
		const struct sp_plan_probe *p = &r->plan->probes[i];

		if (!r->skip[i])
			continue;
		err = sp_probe_ops_for(p->type)->validate(p, &r->actx); /* its message again */
		if (!block_resolves(r, i)) {
			report_probe_error(r, p);
			return err ? err : -ESRCH;
		}
		sp_warn("%s; left out, the other attach points of its "
			"block are attached\n", r->err);
	}
	return 0;
}

/* The attach points in all, each wildcard match counted (bpftrace 0.27's
 * max_probes, 1024): the error names the probe that goes over. */
static int check_probe_limit(struct run *r)
{
	uint32_t max = r->o->max_probes ? r->o->max_probes : SP_DEFAULT_MAX_PROBES;
	uint64_t total = 0;

	for (int i = 0; i < r->plan->nprobes; i++) {
		const struct sp_plan_probe *p = &r->plan->probes[i];
		const struct sp_probe_ops *ops = sp_probe_ops_for(p->type);
		int n;

		if (r->skip[i] || !ops->count)
			continue;
		n = ops->count(p, &r->actx);
		total += n > 0 ? (uint64_t)n : 0;
		if (total <= max)
			continue;
		snprintf(r->err, sizeof(r->err), "probe '%s': the program would attach to %llu "
			 "points, over the limit of %u; every attached function slows each call of "
			 "it. Raise the limit with SPROF_MAX_PROBES (bpftrace's BPFTRACE_MAX_PROBES, "
			 "BPFTRACE_MAX_BPF_PROGS and config max_probes work too)", p->spec,
			 (unsigned long long)total, max);
		report_probe_error(r, p);
		return -E2BIG;
	}
	return 0;
}

static int validate_probes(struct run *r)
{
	const struct sp_plan *plan = r->plan;
	int err;

	if (plan->nprobes == 0) {
		sp_err("the program has no probes\n");
		return -EINVAL;
	}
	for (int i = 0; i < plan->nprobes; i++) {
		const struct sp_plan_probe *p = &plan->probes[i];
		const struct sp_probe_ops *ops = sp_probe_ops_for(p->type);

		if (!ops) {
			snprintf(r->err, sizeof(r->err), "probe '%s': %s probes are not supported "
				 "yet", p->spec, sp_probe_type_name(p->type));
			report_probe_error(r, p);
			return -EOPNOTSUPP;
		}
		err = ops->validate ? ops->validate(p, &r->actx) : 0;
		if (err == -ESRCH) { /* no such function: decided once all are known */
			r->skip[i] = true;
			continue;
		}
		if (err) {
			report_probe_error(r, p);
			return err;
		}
	}
	err = skip_missing(r);
	return err ? err : check_probe_limit(r);
}

/* -c "CMD ARGS": the program file CMD names, for attach points that name
 * no binary (usdt:::NAME). */
static void cmd_program(struct run *r)
{
	char **argv;
	int n;

	if (!r->o->cmd || (n = sp_split_args(r->o->cmd, &argv)) <= 0)
		return;
	if (sp_resolve_binary(argv[0], 0, r->cmd_path, sizeof(r->cmd_path)))
		r->cmd_path[0] = '\0';
	sp_free_args(argv);
}

static int setup_ctx(struct run *r)
{
	int n = sp_online_cpus(&r->cpus);

	if (n < 0) {
		sp_err("cannot read the online CPUs: %s\n", strerror(-n));
		return n;
	}
	cmd_program(r);
	r->skip = calloc(r->plan->nprobes + 1, sizeof(*r->skip));
	if (!r->skip)
		return -ENOMEM;
	r->actx = (struct sp_attach_ctx){ .pid = r->o->pid, .ncpus = n, .cpus = r->cpus,
					  .verbose = r->o->verbose > 0, .err = r->err,
					  .errlen = sizeof(r->err), .resolved = &r->resolved,
					  .cmd_path = r->cmd_path[0] ? r->cmd_path : NULL };
	return 0;
}

/* ---- events --------------------------------------------------------------- */

/* print(@m, top, div): arg holds top (low 32 bits) and div (high 32). */
static int print_map(struct run *r, uint32_t id, uint64_t arg)
{
	struct sp_mapdata md;
	int top = (int)(uint32_t)arg, div = (int)(arg >> 32);
	int err;

	if (id >= (uint32_t)r->plan->nmaps)
		return -EINVAL;
	err = sp_collect_map(r->coll, &r->plan->maps[id], &md);
	if (err) {
		sp_collector__reset_scratch(r->coll);
		return err;
	}
	if (r->out.json)
		sp_report_json_map(stdout, &md, top, div ? div : 1);
	else
		sp_report_text_map(stdout, &md, top, div ? div : 1);
	sp_collector__reset_scratch(r->coll);
	return 0;
}

static int drain_events(struct run *r, bool all);

/* SIGUSR1: every map, in name order, as print(@m) prints it; the run goes on. */
static void print_all_maps(struct run *r)
{
	const struct sp_plan_map *m = r->plan->maps;
	int *order = calloc((size_t)r->plan->nmaps + 1, sizeof(*order));

	if (!order)
		return;
	drain_events(r, false);
	for (int i = 0; i < r->plan->nmaps; i++) { /* insertion sort: a handful of maps */
		int j = i;

		for (; j > 0 && strcmp(m[order[j - 1]].name, m[i].name) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	sp_status__clear(&r->status);
	for (int i = 0; i < r->plan->nmaps; i++)
		if (print_map(r, (uint32_t)order[i], 0))
			sp_warn("cannot read map '%s'\n", m[order[i]].name);
	fflush(stdout);
	free(order);
}

static int map_event(struct run *r, const struct sp_event_hdr *h)
{
	if (h->type == SP_EV_PRINT)
		return print_map(r, h->id, h->arg);
	if (h->id >= (uint32_t)r->plan->nmaps)
		return -EINVAL;
	if (h->type == SP_EV_CLEAR)
		return sp_collect_clear(r->coll, &r->plan->maps[h->id]);
	return sp_collect_zero(r->coll, &r->plan->maps[h->id]);
}

/* A process's mappings are read (symbolizer, unwinder tables) on every
 * NEWPID record: BPF sends one for a process's first sample and again when
 * a pc falls outside its known mappings (dlopen, exec). A printf record can
 * reach us before the NEWPID record of the same sample (it is reserved
 * first), so printf arguments holding a user stack read unknown pids too. */
static void read_pid(struct run *r, uint32_t pid)
{
	sp_process__add(&r->procs, (pid_t)pid, true);
}

/* -c: the child stopped at its exec, only its program and ld.so mapped:
 * their tables go to the unwinder before ld.so runs, so its loading and
 * relocating is sampled with whole stacks, not cut short. */
static void at_exec(void *arg)
{
	struct run *r = arg;

	read_pid(r, (uint32_t)r->tgt.pid);
}

/* Adds pid to the set of processes seen; true if it was there already. */
static bool pid_seen(struct run *r, uint32_t pid)
{
	size_t j;

	if ((r->npids + 1) * 2 > r->pidcap) {
		size_t ncap = r->pidcap ? r->pidcap * 2 : 256;
		uint32_t *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return false;
		for (size_t i = 0; i < r->pidcap; i++) {
			if (!r->pids[i])
				continue;
			for (j = r->pids[i] & (ncap - 1); nv[j]; j = (j + 1) & (ncap - 1))
				;
			nv[j] = r->pids[i];
		}
		free(r->pids);
		r->pids = nv;
		r->pidcap = ncap;
	}
	for (j = pid & (r->pidcap - 1); r->pids[j]; j = (j + 1) & (r->pidcap - 1))
		if (r->pids[j] == pid)
			return true;
	r->pids[j] = pid;
	r->npids++;
	return false;
}

static void arm_reread(struct run *r, uint64_t in_ns)
{
	struct itimerspec its = { .it_value = { (time_t)(in_ns / 1000000000ull),
						(long)(in_ns % 1000000000ull) } };

	if (r->rereadfd >= 0)
		timerfd_settime(r->rereadfd, 0, &its, NULL);
}

/* Queues the later re-reads of a process seen for the first time. */
static void queue_reread(struct run *r, uint32_t pid)
{
	if (r->rereadfd < 0)
		return;
	for (size_t i = 0; i < r->nrereads; i++)
		if (r->rereads[i].pid == pid)
			return;
	if (SP_GROW(r->rereads, r->rereadcap, r->nrereads + 1, 64))
		return;
	r->rereads[r->nrereads++] = (struct reread){ .pid = pid, .first = sp_clock_ns(CLOCK_MONOTONIC) };
	if (r->nrereads == 1)
		arm_reread(r, reread_after_ns[0]);
}

/* Timer: re-reads what is due, drops finished or gone processes, re-arms
 * for the next due time. */
static void reread_due(struct run *r)
{
	uint64_t n, now = sp_clock_ns(CLOCK_MONOTONIC), next = UINT64_MAX;
	size_t k = 0;

	if (read(r->rereadfd, &n, sizeof(n)) < 0)
		return;
	for (size_t i = 0; i < r->nrereads; i++) {
		struct reread e = r->rereads[i];

		if (now >= e.first + reread_after_ns[e.done]) {
			bool gone = sp_process__add(&r->procs, (pid_t)e.pid, true) == -ESRCH;

			if (gone || ++e.done == NREREAD)
				continue;
		}
		if (e.first + reread_after_ns[e.done] < next)
			next = e.first + reread_after_ns[e.done];
		r->rereads[k++] = e;
	}
	r->nrereads = k;
	if (k)
		arm_reread(r, next > now ? next - now : 1);
}

static void note_arg_pids(struct run *r, const struct sp_event_hdr *h, const void *data,
			  size_t len)
{
	const struct sp_plan_field *args;
	struct sp_ustack_key k;

	if (h->id >= (uint32_t)r->plan->nprintfs)
		return;
	args = &r->plan->printfs[h->id].args;
	for (int i = 0; args->kind == SP_F_TUPLE && i < args->nelems; i++) {
		const struct sp_plan_field *f = &args->elems[i];

		if (f->kind != SP_F_USTACK || (size_t)f->offset + sizeof(k) > len)
			continue;
		memcpy(&k, (const uint8_t *)data + f->offset, sizeof(k));
		if (k.pid && !pid_seen(r, k.pid)) {
			read_pid(r, k.pid);
			queue_reread(r, k.pid);
		}
	}
}

/* printf/print of a value holding a user stack, in a program that walks
 * interpreter frames. */
static bool has_stack_arg(struct run *r, const struct sp_event_hdr *h)
{
	const struct sp_plan_field *args;

	if (!sp_langs__any(r->langs) || (h->type != SP_EV_PRINTF && h->type != SP_EV_PRINT_VALUE) ||
	    h->id >= (uint32_t)r->plan->nprintfs)
		return false;
	args = &r->plan->printfs[h->id].args;
	for (int i = 0; args->kind == SP_F_TUPLE && i < args->nelems; i++)
		if (args->elems[i].kind == SP_F_USTACK)
			return true;
	return false;
}

/* A printf record is reserved before its arguments are computed, so the
 * records BPF sends while taking a stack argument (the names of Python
 * functions or Ruby methods seen for the first time) come after it: such a record, and
 * every output record after it (to keep their order), is held to the end
 * of the drain. False when it could not be held (it is handled now). */
static bool hold_record(struct run *r, const struct sp_event_hdr *h, const void *data, size_t len)
{
	struct held *e;

	if (SP_GROW(r->held, r->heldcap, r->nheld + 1, 64))
		return false;
	e = &r->held[r->nheld];
	e->h = *h;
	e->len = len;
	e->data = malloc(len ? len : 1);
	if (!e->data)
		return false;
	memcpy(e->data, data, len);
	r->nheld++;
	return true;
}

static int output_record(struct run *r, const struct sp_event_hdr *h, const void *data,
			 size_t len);

static void release_held(struct run *r)
{
	size_t n = r->nheld;

	r->nheld = 0;
	for (size_t i = 0; i < n; i++) {
		output_record(r, &r->held[i].h, r->held[i].data, r->held[i].len);
		free(r->held[i].data);
	}
}

static int on_event(void *ctx, const struct sp_event_hdr *h, const void *data, size_t len)
{
	struct run *r = ctx;

	switch (h->type) {
	case SP_EV_EXIT:
		if (!r->stop) {
			r->exit_code = (int)(h->arg & 0xff);
			r->exited = true;
		}
		r->stop = true;
		return 0;
	case SP_EV_NEWPID:
		if (h->arg) {
			if (!pid_seen(r, (uint32_t)h->arg))
				queue_reread(r, (uint32_t)h->arg);
			read_pid(r, (uint32_t)h->arg);
		}
		return 0;
	case SP_EV_WATCH:
		sp_watches_arm(r->watches, h, data, len);
		return 0;
	case SP_EV_UNWATCH:
		sp_watches_unwatch(r->watches, h->arg);
		return 0;
	case SP_EV_INTERP_CODE:
		sp_langs__note_code(r->langs, (pid_t)h->id, h->arg, data, len);
		return 0;
	default:
		if ((r->nheld || has_stack_arg(r, h)) && hold_record(r, h, data, len))
			return 0;
		return output_record(r, h, data, len);
	}
}

static int output_record(struct run *r, const struct sp_event_hdr *h, const void *data,
			 size_t len)
{
	int err = 0;

	switch (h->type) {
	case SP_EV_PRINT:
	case SP_EV_CLEAR:
	case SP_EV_ZERO:
		sp_status__clear(&r->status);
		err = map_event(r, h);
		break;
	default:
		sp_status__clear(&r->status);
		if (h->type == SP_EV_PRINTF || h->type == SP_EV_PRINT_VALUE)
			note_arg_pids(r, h, data, len);
		err = sp_output_event(&r->out, h, data, len);
		if (err == -ENOTSUP)
			return 0; /* a newer codegen's record: skip it */
	}
	if (err)
		sp_warn("bad event record (type %u, id %u): %s\n", h->type,
			h->id, strerror(-err));
	return 0;
}

#define EVENT_BUDGET 4096            /* records per wakeup before signals get a look */
#define EVENT_SLICE_NS 50000000ull   /* and at most this long (system() is slow) */
#define SHELL_GRACE_NS 1000000000ull /* system() still started after the end */

/* Handles what is waiting; `all` once nothing is attached any more. */
static int drain_events(struct run *r, bool all)
{
	int n = sp_events__drain(r->ev, all ? 0 : EVENT_BUDGET, all ? 0 : EVENT_SLICE_NS);

	release_held(r);
	fflush(stdout);
	return n < 0 ? n : 0;
}

/* ---- load and attach ------------------------------------------------------ */

static int load(struct run *r, const void *obj, size_t objlen)
{
	int err;

	r->ld = sp_loader__open(r->plan, obj, objlen, r->o);
	if (!r->ld)
		return -errno;
	sp_timing_lap("BPF object open");
	/* probe types' own sizing before load (wildcard names, uprobe_multi) */
	err = sp_probes_prepare(r->ld->obj, r->plan, &r->actx);
	if (err) {
		sp_err("cannot prepare the probes: %s\n", strerror(-err));
		return err;
	}
	/* sizes its maps: before load */
	errno = ENOENT;
	r->unw = r->o->no_dwarf ? NULL : sp_unwind__open(r->ld->obj, r->o->unwind_rows);
	sp_unwind__set_verbose(r->unw, r->o->verbose > 0);
	if (!r->unw && errno != ENOENT) {
		err = -errno;
		sp_err("cannot set up the unwinder: %s\n", strerror(-err));
		return err;
	}
	sp_timing_lap("probes, unwinder maps sized");
	/* the unwinder's kernel offsets (vmlinux BTF) are read while the
	 * verifier checks the programs, on the other CPU */
	if (r->unw)
		sp_kofs__prefetch();
	err = sp_loader__load(r->ld, r->plan, r->o);
	sp_timing_lap("BPF load (maps, verifier)");
	if (err)
		return err;
	r->actx.obj = r->ld->obj;
	return sp_loader__set_config(r->ld, r->tgt.pid, r->tgt.child ? r->tgt.pid : 0,
				     r->o->test_hash_bits);
}

static pid_t fork_parent(void *unw, pid_t pid)
{
	return sp_unwind__parent(unw, pid);
}

static int open_readers(struct run *r)
{
	r->sym = sp_symbolizer__open();
	if (!r->sym) {
		sp_err("cannot start the symbolizer: %s\n", strerror(errno));
		return -errno;
	}
	sp_symbolizer__set_inline(r->sym, !r->o->no_inline);
	if (r->unw) /* forked children gone unread: named by their parent's mappings */
		sp_symbolizer__set_parent_of(r->sym, fork_parent, r->unw);
	/* one open per object file for names and unwind tables (the unwinder
	 * is destroyed first, the symbolizer owns the cache) */
	sp_unwind__share_objcache(r->unw, sp_symbolizer__objcache(r->sym));
	r->langs = sp_langs__open(r->ld->obj);
	if (!r->langs)
		return -ENOMEM;
	r->procs = (struct sp_consumers){ .sym = r->sym, .unw = r->unw, .langs = r->langs };
	if (r->tgt.pid && r->tgt.running)
		sp_process__add(&r->procs, r->tgt.pid, false);
	r->coll = sp_collector__open(r->plan, r->ld->obj, r->sym,
				     r->o->no_drain ? 0 : r->o->max_keys);
	if (!r->coll)
		return -ENOMEM;
	sp_collector__set_langs(r->coll, r->langs);
	r->iu = sp_iusdt__open(r->ld->obj);
	sp_collector__set_iusdt(r->coll, r->iu);
	r->out = (struct sp_output){ .plan = r->plan, .coll = r->coll, .out = stdout,
				     .json = r->ro.format == SP_FMT_JSON,
				     .cat_max = r->o->cat_bytes_max };
	r->ev = sp_events__open(r->ld->obj, on_event, r);
	if (!r->ev) {
		sp_err("cannot read the event ring buffer: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Whether the kernel runs the programs of one event last-attached-first
 * (uprobes' consumer list, software events' hlist, kprobes) rather than in
 * attach order (tracepoints' prog array, timers, breakpoints): those are
 * attached in reverse declaration order, as bpftrace does. */
static bool attach_reverse(enum sp_probe_type t)
{
	switch (t) {
	case SP_PROBE_UPROBE:
	case SP_PROBE_URETPROBE:
	case SP_PROBE_USDT:
	case SP_PROBE_SOFTWARE:
	case SP_PROBE_KPROBE:
		return true;
	default:
		return false;
	}
}

/* Attaches probe i; 1 when attached, 0 when left out, -errno. */
static int attach_one(struct run *r, int i)
{
	const struct sp_plan_probe *p = &r->plan->probes[i];
	const struct sp_probe_ops *ops = sp_probe_ops_for(p->type);
	struct bpf_program *prog;
	int err;

	if (p->type == SP_PROBE_BEGIN || p->type == SP_PROBE_END || r->skip[i])
		return 0;
	prog = bpf_object__find_program_by_name(r->ld->obj, p->prog);
	if (!prog) {
		snprintf(r->err, sizeof(r->err), "probe '%s': program '%s' missing from "
			 "the BPF object", p->spec, p->prog);
		report_probe_error(r, p);
		return -ENOENT;
	}
	struct sp_links *links = p->type == SP_PROBE_INTERVAL ? &r->ilinks : &r->links;
	int nl = links->n, nf = links->nfds;

	err = ops->attach(p, prog, &r->actx, links);
	if (err == -EINTR)
		return err;
	if (err) {
		report_probe_error(r, p);
		return err;
	}
	if (r->o->verbose)
		sp_attach_report(stderr, p, links, nl, nf);
	return 1;
}

/* Probes on the same event run in declaration order: the ones the kernel
 * runs in attach order first, forwards, then the others backwards. */
static int attach_all(struct run *r)
{
	int n = 0, np = r->plan->nprobes;

	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < np; k++) {
			int i = pass ? np - 1 - k : k, err;

			if (attach_reverse(r->plan->probes[i].type) != (pass == 1))
				continue;
			err = attach_one(r, i);
			if (err == -EINTR) /* Ctrl-C while attaching: the loop reads it and ends the run */
				return n;
			if (err < 0)
				return err;
			n += err;
		}
	}
	return n;
}

/* The attach points the probes expand to (a wildcard counts each match),
 * as bpftrace counts them for its "Attached N probes" line. */
static int count_probes(struct run *r)
{
	int n = 0;

	for (int i = 0; i < r->plan->nprobes; i++) {
		const struct sp_plan_probe *p = &r->plan->probes[i];
		const struct sp_probe_ops *ops = sp_probe_ops_for(p->type);
		int k = ops && ops->count ? ops->count(p, &r->actx) : 1;

		n += k > 0 ? k : 1;
	}
	return n;
}

/* -f json's first record, on stdout (or the -o file) before BEGIN runs,
 * as bpftrace writes it. Not with -q. */
static void say_attaching_json(struct run *r)
{
	if (r->o->quiet || !r->out.json)
		return;
	sp_report_json_attached(stdout, count_probes(r));
	fflush(stdout);
}

/* bpftrace 0.24+'s "Attached N probes", on stderr once the probes are
 * attached (0.17 printed "Attaching N probes..." on stdout before BEGIN).
 * Not with -q, nor with -f json (its record says it), nor, without -v,
 * where stdout holds a binary or folded report. */
static void say_attached(struct run *r)
{
	bool text = r->ro.format == SP_FMT_TEXT;
	int n;

	if (r->o->quiet || r->out.json || (!text && !r->o->verbose))
		return;
	n = count_probes(r);
	sp_log(SP_LOG_INFO, "Attached %d probe%s\n", n, n == 1 ? "" : "s");
}

/* __BPFTRACE_NOTIFY_PROBES_ATTACHED: bpftrace's test harness waits for
 * this line on stdout (the terminal's, not -o's), before any probe output,
 * to start its trigger command. */
static void notify_attached(struct run *r)
{
	static const char line[] = "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n";
	int fd = r->saved_stdout >= 0 ? r->saved_stdout : STDOUT_FILENO;

	fflush(stdout);
	if (write(fd, line, sizeof(line) - 1) < 0)
		sp_warn("cannot write the attach notification: %s\n",
			strerror(errno));
}

static int run_special(struct run *r, enum sp_probe_type t)
{
	int err = sp_probe_run_special(r->plan, t, &r->actx);

	if (err)
		report_probe_error(r, NULL);
	return err;
}

/* ---- the loop --------------------------------------------------------------- */

static int epoll_add(struct run *r, int fd, int tag)
{
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = (uint32_t)tag };

	if (fd < 0)
		return 0;
	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

static int arm_timer(int *fd, uint64_t first_ns, uint64_t interval_ns)
{
	struct itimerspec its = {
		.it_value = { (time_t)(first_ns / 1000000000ull), (long)(first_ns % 1000000000ull) },
		.it_interval = { (time_t)(interval_ns / 1000000000ull),
				 (long)(interval_ns % 1000000000ull) },
	};

	*fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (*fd < 0)
		return -errno;
	return timerfd_settime(*fd, 0, &its, NULL) ? -errno : 0;
}

/* A second stop signal: sprof ends now, with the signal's own status. */
static void die_of(int sig)
{
	static const char msg[] = "sprof: second signal: exiting without the report\n";
	sigset_t one;

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		(void)0;
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void *signal_thread(void *arg)
{
	struct run *r = arg;
	int stops = 0;

	for (;;) {
		struct signalfd_siginfo rec = { 0 };
		int sig = sigwaitinfo(&r->sigset, NULL);

		if (sig < 0)
			continue;
		if ((sig == SIGINT || sig == SIGTERM || sig == SIGHUP) && ++stops > 1)
			die_of(sig);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			sp_shell_set_stop(true); /* a system() command under way ends now */
		rec.ssi_signo = (uint32_t)sig;
		if (write(r->sigw, &rec, sizeof(rec)) < 0)
			continue; /* the pipe full of signals: the loop has enough to read */
	}
	return NULL;
}

static void stop_signal_thread(struct run *r)
{
	if (!r->sigthr_on)
		return;
	pthread_cancel(r->sigthr);
	pthread_join(r->sigthr, NULL);
	r->sigthr_on = false;
}

static int start_signal_thread(struct run *r)
{
	int p[2], err;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	r->sigfd = p[0];
	r->sigw = p[1];
	sp_shell_set_stop(false);
	err = pthread_create(&r->sigthr, NULL, signal_thread, r);
	if (err)
		return -err;
	r->sigthr_on = true;
	return 0;
}

static int setup_loop(struct run *r)
{
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP); /* a closed terminal ends the run like Ctrl-C, with the report */
	sigaddset(&set, SIGUSR1); /* print every map now, as bpftrace does, and go on */
	if (r->tgt.child)
		sigaddset(&set, SIGCHLD); /* the child's end, should pidfds be missing */
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask))
		return -errno;
	r->masked = true;
	r->sigset = set;
	err = start_signal_thread(r);
	if (err)
		return err;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	r->rereadfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	err = epoll_add(r, r->sigfd, TAG_SIGNAL);
	if (!err)
		err = epoll_add(r, r->rereadfd, TAG_REREAD);
	if (!err)
		err = epoll_add(r, sp_events__fd(r->ev), TAG_EVENTS);
	if (!err)
		err = epoll_add(r, r->tgt.pidfd, TAG_TARGET);
	/* without it (no perf events) tables come at first samples, as before */
	r->sb = r->unw ? sp_sideband__open(r->unw, r->tgt.pid, sp_follow_map_fd(r->ld->obj)) : NULL;
	if (!err)
		err = epoll_add(r, sp_sideband__fd(r->sb), TAG_SIDEBAND);
	return err;
}

static uint64_t sample_period(const struct sp_plan *plan);

/* --continuous: a report every period (runtime/continuous.c). */
static int start_periods(struct run *r)
{
	struct sp_continuous_io io = { .obj = r->ld->obj, .coll = r->coll, .sym = r->sym,
				       .unw = r->unw, .langs = r->langs, .ch = r->ch,
				       .ro = r->ro,
				       .output = r->o->output, .nmaps = r->plan->nmaps,
				       .verbose = r->o->verbose,
				       .sample_period_ns = sample_period(r->plan) };

	r->cont = sp_continuous__open(r->o->continuous_ns, &io);
	if (!r->cont) {
		sp_err("cannot start --continuous: %s\n", strerror(errno));
		return -errno;
	}
	return epoll_add(r, sp_continuous__fd(r->cont), TAG_PERIOD);
}

static int start_timers(struct run *r)
{
	int err = 0;

	if (r->o->duration_ns) {
		err = arm_timer(&r->durfd, r->o->duration_ns, 0);
		if (!err)
			err = epoll_add(r, r->durfd, TAG_DURATION);
	}
	if (!err && r->o->continuous_ns)
		err = start_periods(r);
	if (!err && (r->status.enabled || r->iu_attached)) {
		err = arm_timer(&r->tickfd, 1000000000ull, 1000000000ull);
		if (!err)
			err = epoll_add(r, r->tickfd, TAG_TICK);
	}
	return err;
}

static void tick(struct run *r)
{
	uint64_t n, stacks;
	struct sp_lost lost;

	if (read(r->tickfd, &n, sizeof(n)) < 0)
		return;
	if (r->iu_attached) { /* the status line is drawn again below */
		sp_status__clear(&r->status);
		sp_iusdt__check(r->iu, true, stderr);
	}
	if (!r->status.enabled)
		return;
	sp_collect_counters(r->coll, &stacks, &lost);
	sp_status__draw(&r->status, sp_clock_ns(CLOCK_MONOTONIC) - r->t_start, stacks, &lost);
}

static void handle(struct run *r, uint32_t tag)
{
	struct signalfd_siginfo si;

	switch (tag) {
	case TAG_EVENTS:
		drain_events(r, false);
		break;
	case TAG_SIGNAL:
		while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_signo == SIGUSR1)
				print_all_maps(r);
			else if (si.ssi_signo != SIGCHLD)
				r->stop = r->stop_signal = true;
			else if (sp_target__gone(&r->tgt)) /* not a system() shell's */
				r->stop = true;
		break;
	case TAG_TARGET:
		sp_target__gone(&r->tgt);
		r->stop = true;
		break;
	case TAG_DURATION:
		r->stop = true;
		break;
	case TAG_TICK:
		tick(r);
		break;
	case TAG_REREAD:
		reread_due(r);
		break;
	case TAG_SIDEBAND:
		sp_sideband__drain(r->sb);
		break;
	case TAG_PERIOD:
		sp_continuous__tick(r->cont);
		free(r->pids); /* pids come back as other processes: the set starts over */
		r->pids = NULL;
		r->npids = r->pidcap = 0;
		break;
	}
}

/* Only BEGIN and END (and pinned iterators), and no -c or -p: nothing can
 * fire in this run after BEGIN, so the run ends there, END included, as bpftrace 0.24+ does (0.17 waited
 * for Ctrl-C). */
static bool only_special(const struct run *r)
{
	if (r->o->cmd || r->o->pid)
		return false;
	for (int i = 0; i < r->plan->nprobes; i++) {
		const struct sp_plan_probe *p = &r->plan->probes[i];

		/* a pinned iterator runs in the readers of its pin, after this run */
		if (p->type == SP_PROBE_ITER && p->target)
			continue;
		if (p->type != SP_PROBE_BEGIN && p->type != SP_PROBE_END)
			return false;
	}
	return true;
}

static int loop(struct run *r)
{
	struct epoll_event evs[8];

	if (!r->stop && only_special(r)) {
		/* BEGIN's records first: an exit(N) there keeps its code */
		int err = drain_events(r, true);

		r->stop = true;
		return err;
	}
	while (!r->stop) {
		int n = epoll_wait(r->epfd, evs, 8, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (int i = 0; i < n; i++)
			handle(r, evs[i].data.u32);
	}
	return 0;
}

/* ---- after the loop ------------------------------------------------------- */

static uint64_t sample_period(const struct sp_plan *plan)
{
	for (int i = 0; i < plan->nprobes; i++) {
		const struct sp_plan_probe *p = &plan->probes[i];
		const char *u = p->unit ? p->unit : "hz";

		if (p->type != SP_PROBE_PROFILE || !p->value)
			continue;
		if (strcmp(u, "hz") == 0)
			return 1000000000ull / p->value;
		if (strcmp(u, "s") == 0)
			return p->value * 1000000000ull;
		if (strcmp(u, "ms") == 0)
			return p->value * 1000000ull;
		if (strcmp(u, "us") == 0)
			return p->value * 1000ull;
		return p->value;
	}
	return 0;
}

/* After the loop a second Ctrl-C should kill a slow symbolization or
 * report: signals already seen are read away, then default handling is back. */
static void restore_signals(struct run *r)
{
	struct signalfd_siginfo si;

	stop_signal_thread(r);
	while (r->sigfd >= 0 && read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	r->masked = false;
}

/* The end of a run, without waiting for the kernel: interval timers are
 * closed (software perf events go at once) and every other program, which
 * starts with sp_filter(), is told through sp_config to return at once.
 * The links themselves are destroyed after the report: a perf-event
 * tracepoint or uprobe costs a kernel grace period (~0.09 s) to detach. */
static void stop_probes(struct run *r)
{
	struct bpf_map *m = bpf_object__find_map_by_name(r->ld->obj, SP_MAP_CONFIG);
	struct sp_config c;
	uint32_t zero = 0;
	int err;

	sp_links_destroy(&r->ilinks);
	if (!m || r->links.n + r->links.nfds == 0)
		return;
	err = bpf_map__lookup_elem(m, &zero, sizeof(zero), &c, sizeof(c), 0);
	if (!err) {
		c.stopped = 1;
		err = bpf_map__update_elem(m, &zero, sizeof(zero), &c, sizeof(c), 0);
	}
	if (err) { /* cannot tell them: detach now, slowly */
		sp_warn("cannot stop the probes through %s: %s\n",
			SP_MAP_CONFIG, strerror(-err));
		sp_links_destroy(&r->links);
	}
}

static int finish_periods(struct run *r)
{
	int err = sp_continuous__finish(r->cont);

	sp_unwind__print_summary(r->unw, stderr);
	sp_langs__warn_one(r->langs, "python", stderr);
	sp_links_detach(&r->links);
	return err;
}

/* -k, -kk: the failed helper calls BPF counted (codegen checks them only
 * at these levels); failed map updates are reported at every level. */
static void warn_helper_errors(struct run *r)
{
	uint64_t del = sp_collect_lost(r->coll, SP_LOST_HELPER_DELETE);
	uint64_t rd = sp_collect_lost(r->coll, SP_LOST_HELPER_READ);

	if (r->o->helper_checks >= 1 && del)
		sp_warn("%llu delete() calls found no such key "
			"(bpf_map_delete_elem: -ENOENT)\n", (unsigned long long)del);
	if (r->o->helper_checks >= 2 && rd)
		sp_warn("%llu reads of probed memory failed "
			"(bpf_probe_read_*: address not mapped or not paged in; the values read as 0)\n",
			(unsigned long long)rd);
}

static void warn_shell(struct run *r)
{
	unsigned long n = r->out.shell_skipped, k = r->out.shell_killed;

	if (n)
		sp_warn("%lu system() call%s not run: the run was ending\n",
			n, n == 1 ? "" : "s");
	if (k)
		sp_warn("%lu system() command%s killed: the run was ending\n",
			k, k == 1 ? "" : "s");
}

static int finish(struct run *r)
{
	struct sp_profile prof = { 0 };
	int err;

	restore_signals(r);
	stop_probes(r);
	prof.duration_ns = r->t_start ? sp_clock_ns(CLOCK_MONOTONIC) - r->t_start : 0;
	/* Ctrl-C: END now, not after the system() calls queued (a flood of them
	 * takes minutes); any other end: they run for a second at most. END's
	 * own run to the end (a second Ctrl-C now kills sprof at once). */
	r->out.shell_deadline_ns = sp_mono_ns() + (r->stop_signal ? 0 : SHELL_GRACE_NS);
	drain_events(r, true);
	r->out.shell_deadline_ns = 0;
	err = run_special(r, SP_PROBE_END);
	drain_events(r, true);
	warn_shell(r);
	sp_status__clear(&r->status);
	if (err)
		return err;
	if (r->cont) /* the last, partial period */
		return finish_periods(r);
	err = sp_collect(r->coll, &prof);
	if (err)
		return err;
	prof.sample_period_ns = sample_period(r->plan);
	prof.start_time_ns = r->wall_start;
	fflush(stdout);
	err = r->o->no_exit_maps ? 0 : sp_outpath_write(&prof, &r->ro, r->o->output,
							   r->saved_stdout >= 0);
	fflush(stdout);
	if (r->ch) {
		int e = sp_clickhouse__export(r->ch, &prof);

		err = err ? err : e;
	}
	sp_profile_warn(&prof);
	warn_helper_errors(r);
	sp_unwind__print_summary(r->unw, stderr);
	sp_iusdt__warn(r->iu, r->iu_attached > 0, r->o->verbose > 0, stderr);
	sp_langs__warn(r->langs, stderr);
	if (r->o->verbose || r->o->stats) {
		sp_status__print_costs(&r->status, r->plan, stderr);
		sp_unwind__print_stats(r->unw, stderr);
		sp_collect_print_stats(r->coll, stderr);
	}
	sp_links_detach(&r->links);
	return err;
}

static void run_destroy(struct run *r)
{
	restore_stdout(r);
	sp_continuous__destroy(r->cont); /* its thread sends through r->ch */
	sp_clickhouse__destroy(r->ch);
	sp_links_destroy(&r->ilinks);
	sp_links_destroy(&r->links);
	sp_watches_free(r->watches);
	sp_status__destroy(&r->status);
	sp_events__destroy(r->ev);
	sp_collector__destroy(r->coll);
	sp_langs__destroy(r->langs);
	sp_iusdt__destroy(r->iu);
	sp_sideband__destroy(r->sb);
	sp_unwind__destroy(r->unw);
	sp_symbolizer__destroy(r->sym);
	sp_resolved_free(&r->resolved);
	sp_loader__destroy(r->ld);
	sp_target__destroy(&r->tgt);
	stop_signal_thread(r);
	int fds[] = { r->epfd, r->sigfd, r->sigw, r->durfd, r->tickfd, r->rereadfd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	free(r->pids);
	free(r->rereads);
	for (size_t i = 0; i < r->nheld; i++)
		free(r->held[i].data);
	free(r->held);
	free(r->cpus);
	free(r->skip);
}

static int prepare(struct run *r, const void *obj, size_t objlen)
{
	int err = sp_check_privileges();

	if (!err)
		err = sp_check_unsafe(r->o->unsafe);
	if (!err)
		err = setup_report_opts(r);
	if (!err)
		err = check_map_filter(r);
	if (!err)
		err = sp_outpath_check(r->o->output);
	if (!err)
		err = open_export(r);
	if (!err)
		err = setup_ctx(r);
	if (!err)
		err = validate_probes(r);
	if (!err)
		err = sp_target__open(&r->tgt, r->o->pid, r->o->cmd);
	if (!err)
		err = redirect_stdout(r);
	sp_timing_lap("checks, target");
	if (!err)
		err = load(r, obj, objlen);
	if (!err)
		err = open_readers(r);
	sp_timing_lap("symbolizer, walkers, readers");
	if (!err)
		err = setup_loop(r);
	sp_timing_lap("event loop set up");
	return err;
}

/* --interp usdt: the hidden programs on the target's interpreters
 * (runtime/attach/interp_usdt.h); an error when there is none. */
static int attach_interp(struct run *r)
{
	int n;

	if (r->o->interp != SP_INTERP_USDT || !r->iu)
		return 0;
	if (r->tgt.pid <= 0) {
		sp_err("--interp usdt needs the process to profile: -p PID or "
		       "-c CMD\n");
		return -EINVAL;
	}
	n = sp_iusdt_attach(&r->actx, r->tgt.pid, &r->links);
	if (n == 0) {
		sp_err("--interp usdt: process %d runs no interpreter with USDT "
		       "probes (python:function__entry, ruby:method__entry); use --interp memory\n",
		       (int)r->tgt.pid);
		return -ENOENT;
	}
	r->iu_attached = n > 0 ? n : 0;
	return n < 0 ? n : 0;
}

/* BEGIN, attach, release the -c child. Sets r->stop if BEGIN called exit(). */
static int start(struct run *r)
{
	int err;

	say_attaching_json(r);
	err = r->o->dry_run ? 0 : run_special(r, SP_PROBE_BEGIN);
	/* BEGIN's output now, so an exit() there spares attaching the rest;
	 * under the harness's notification it waits until after the line,
	 * as in bpftrace 0.27 (the ring buffer keeps it ahead of the rest) */
	if (!err && !r->o->notify_attached)
		err = drain_events(r, true); /* only BEGIN's records: nothing else is attached */
	if (!err && r->stop)
		say_attached(r);
	if (err || r->stop)
		return err;
	/* actx.pid stays -p's: a held -c child still has sprof's mappings, so
	 * probes resolve and attach system wide and BPF filters on its pid */
	r->watches = sp_watches_new(r->ld->obj, r->plan, r->cpus, r->actx.ncpus);
	err = attach_all(r);
	if (err >= 0 && r->tgt.pid) /* before the -c child runs its first instruction */
		err = sp_follow_attach(r->ld->obj, r->tgt.pid, !r->tgt.child, &r->links);
	if (err < 0)
		return err;
	if (!r->tgt.child && (err = attach_interp(r)) < 0)
		return err;
	/* a sample can land in the child between release and the end of its
	 * exec (the execve call itself): it still runs sprof's image then, so
	 * the symbolizer keeps those mappings as the child's first generation
	 * (names, not hex); the unwinder does not need sprof's own tables */
	if (r->tgt.child && r->sym)
		sp_symbolizer__add_pid(r->sym, r->tgt.pid, false);
	err = sp_target__release(&r->tgt, at_exec, r);
	if (err)
		return err;
	if (r->tgt.child) { /* read again at its first sample, when ld.so is done */
		read_pid(r, (uint32_t)r->tgt.pid);
		sp_unwind__started(r->unw); /* before it runs its program's first instruction */
		queue_reread(r, (uint32_t)r->tgt.pid);
		err = attach_interp(r); /* its interpreter is mapped now */
		sp_target__resume(&r->tgt);
		if (err < 0)
			return err;
	}
	say_attached(r);
	if (r->o->notify_attached)
		notify_attached(r);
	r->t_start = sp_clock_ns(CLOCK_MONOTONIC);
	r->wall_start = sp_clock_ns(CLOCK_REALTIME);
	if (r->o->stats)
		sp_status__want_costs(&r->status);
	sp_status__init(&r->status, r->o->status_line, r->ld->obj, r->plan);
	return start_timers(r);
}

int sp_run(const struct sp_plan *plan, const void *obj, size_t objlen,
	   const struct sp_run_opts *o)
{
	struct run r = { .plan = plan, .o = o, .epfd = -1, .sigfd = -1, .sigw = -1, .durfd = -1,
			 .tickfd = -1, .rereadfd = -1, .saved_stdout = -1, .status = { .stats_fd = -1 } };
	int err;

	r.tgt.go_fd = r.tgt.err_fd = r.tgt.pidfd = -1;
	err = prepare(&r, obj, objlen);
	if (!err)
		err = start(&r);
	sp_timing_lap("BEGIN, attach");
	if (!err && !o->dry_run) /* --dry-run: attached is all it checks */
		err = loop(&r);
	sp_timing_lap("run loop");
	if (!err && !o->dry_run)
		err = finish(&r);
	sp_timing_lap("finish, report");
	/* exit(N) wins; else a -c command that ended gives its own status
	 * (bpftrace -c does not: 0 there); a command still running when the
	 * run ends (Ctrl-C, --duration) is ended by sprof: 0 */
	if (!err && !r.exited && sp_target__exit_status(&r.tgt) >= 0)
		r.exit_code = sp_target__exit_status(&r.tgt);
	run_destroy(&r);
	sp_timing_lap("teardown (maps, programs)");
	return err ? 1 : r.exit_code;
}
