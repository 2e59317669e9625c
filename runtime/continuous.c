/* runtime/continuous.c: --continuous PERIOD: a profile every period, memory flat (see continuous.h).
 *
 * A period: sp_collect() (tables taken, not copied: sp_collector__set_take)
 * -> loss counters made per period -> written -> queued for ClickHouse ->
 * forgotten. Only then is anything evicted: frames of the profile point
 * into the symbolizer's files, so nothing may go while one is in use.
 * Processes are forgotten once found gone for a whole period (so keys of
 * theirs drained at the start of the next period still resolve); object
 * files once no kept process maps them, past the IDLE_FILES most recently
 * released. The ClickHouse thread only sends: the rows are built here,
 * while the profile lives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "runtime/collect.h"
#include "runtime/continuous.h"
#include "runtime/store/clickhouse.h"
#include "runtime/langs/lang.h"
#include "runtime/stacks/symbolize.h"
#include "runtime/stacks/unwind.h"
#include "base/clock.h"

#define IDLE_FILES 32 /* object files no process maps, kept for the next one */
#define IDLE_BYTES (16u << 20) /* and their size at most */

/* Loss counters as BPF keeps them: totals since the start. */
struct totals {
	uint64_t events, stacks, collisions, cut;
	uint64_t *map_dropped; /* per plan map */
};

struct sender {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	unsigned queued;      /* batches queued since the thread last looked */
	bool stop, started;
};

struct sp_continuous {
	struct sp_continuous_io io;
	uint64_t period_ns;
	int timerfd;
	uint64_t start_mono, start_wall; /* of the period under way */
	struct totals last;
	int nmaps;
	unsigned periods, failed;
	char last_path[4096];           /* the file the last period went to */
	struct sender tx;
};

/* ---- the export thread ------------------------------------------------------------- */

static void *sender_main(void *arg)
{
	struct sp_continuous *c = arg;
	struct sender *tx = &c->tx;
	sigset_t all;
	bool stop;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* the run loop reads signals */
	do {
		pthread_mutex_lock(&tx->lock);
		while (!tx->stop && !tx->queued)
			pthread_cond_wait(&tx->wake, &tx->lock);
		tx->queued = 0;
		stop = tx->stop;
		pthread_mutex_unlock(&tx->lock);
		sp_clickhouse__flush(c->io.ch); /* what fails stays queued for the next wake */
	} while (!stop); /* stopped during a flush: one more, for the last period */
	return NULL;
}

static void sender_poke(struct sender *tx, bool stop)
{
	pthread_mutex_lock(&tx->lock);
	tx->queued++;
	tx->stop = tx->stop || stop;
	pthread_cond_signal(&tx->wake);
	pthread_mutex_unlock(&tx->lock);
}

static int sender_start(struct sp_continuous *c)
{
	int err;

	if (!c->io.ch)
		return 0;
	err = pthread_create(&c->tx.thread, NULL, sender_main, c);
	c->tx.started = err == 0;
	return -err;
}

static void sender_stop(struct sp_continuous *c)
{
	if (!c->tx.started)
		return;
	sp_clickhouse__quit(c->io.ch); /* a retry's wait ends now; one try each from here */
	sender_poke(&c->tx, true);
	pthread_join(c->tx.thread, NULL);
	c->tx.started = false;
}

/* ---- per-period counters ----------------------------------------------------------- */

static uint64_t since(uint64_t now, uint64_t *last)
{
	uint64_t d = now >= *last ? now - *last : now;

	*last = now;
	return d;
}

/* The profile's loss counters become this period's. */
static void make_per_period(struct sp_continuous *c, struct sp_profile *p)
{
	p->lost_events = since(p->lost_events, &c->last.events);
	p->lost_stacks = since(p->lost_stacks, &c->last.stacks);
	p->lost_collisions = since(p->lost_collisions, &c->last.collisions);
	p->cut_stacks = since(p->cut_stacks, &c->last.cut);
	for (int i = 0; i < p->nmaps && i < c->nmaps; i++)
		p->maps[i].dropped = since(p->maps[i].dropped, &c->last.map_dropped[i]);
}

/* ---- output ------------------------------------------------------------------------ */

int sp_continuous_path(const char *pattern, uint64_t wall_ns, bool ms, char *out, size_t len)
{
	time_t secs = (time_t)(wall_ns / 1000000000ull);
	char stamp[40];
	struct tm tm;
	size_t o = 0;

	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	if (ms)
		snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%03u",
			 (unsigned)(wall_ns / 1000000ull % 1000));
	strcat(stamp, "Z");
	for (const char *p = pattern; *p; p++) {
		const char *add = NULL;
		char one[2] = { *p, 0 };

		if (p[0] == '%' && (p[1] == 't' || p[1] == '%'))
			add = *++p == 't' ? stamp : "%";
		else
			add = one;
		if (o + strlen(add) >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, add, strlen(add));
		o += strlen(add);
	}
	out[o] = '\0';
	return 0;
}

/* A period's %t file name is never reused: one already taken (by the
 * last period, when periods were delayed into one stamp; by an earlier
 * run; by anyone) gets "-1", "-2", ... before its extension. */
static int fresh_path(struct sp_continuous *c, char *path, size_t len)
{
	struct stat st;
	char num[16];

	if (!strstr(c->io.output, "%t"))
		return 0; /* a fixed name: each period replaces the last, as asked */
	for (int k = 0; k < 1000; k++) {
		char *p;

		snprintf(num, sizeof(num), "%d", k);
		p = k ? sp_report_suffixed_path(path, num) : strdup(path);
		if (!p)
			return -ENOMEM;
		if (strcmp(p, c->last_path) != 0 && lstat(p, &st) != 0 && errno == ENOENT) {
			int n = snprintf(path, len, "%s", p);

			free(p);
			if (n < 0 || (size_t)n >= len)
				return -ENAMETOOLONG;
			snprintf(c->last_path, sizeof(c->last_path), "%s", path);
			return 0;
		}
		free(p);
	}
	return -EEXIST;
}

static int write_period(struct sp_continuous *c, const struct sp_profile *p)
{
	struct sp_report_opts ro = c->io.ro;
	bool ms = c->period_ns < 1000000000ull;
	char path[4096], stamp[64];
	int err;

	ro.output = NULL;
	if (c->io.output) {
		err = sp_continuous_path(c->io.output, c->start_wall, ms, path, sizeof(path));
		if (!err)
			err = fresh_path(c, path, sizeof(path));
		if (err) {
			sp_err("cannot write '%s': %s\n", c->io.output, strerror(-err));
			return err;
		}
		ro.output = path;
	} else if (ro.format == SP_FMT_TEXT) {
		sp_continuous_path("%t", c->start_wall, ms, stamp, sizeof(stamp));
		printf("\n=== %s ===", stamp); /* the report itself starts with two newlines */
	}
	err = sp_report_write(p, &ro);
	fflush(stdout);
	return err;
}

/* ---- a long run: what is gone goes -------------------------------------------------- */

/* BPF announces a pid once (sp_seen_pids): gone pids leave room, and a
 * pid given out again is announced again. The keys are listed first and
 * deleted after (a delete during the walk would restart it). */
static void forget_seen_pids(struct sp_continuous *c)
{
	struct bpf_map *m = bpf_object__find_map_by_name(c->io.obj, SP_MAP_SEEN_PIDS);
	int fd = m ? bpf_map__fd(m) : -1;
	uint32_t max = m ? bpf_map__max_entries(m) : 0, n = 0, *keys;

	if (fd < 0 || !(keys = malloc(sizeof(*keys) * ((size_t)max + 1))))
		return;
	while (n < max && bpf_map_get_next_key(fd, n ? &keys[n - 1] : NULL, &keys[n]) == 0)
		n++;
	for (uint32_t i = 0; i < n; i++)
		if (kill((pid_t)keys[i], 0) != 0 && errno == ESRCH)
			bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
}

/* -v: what is held after a period, to see it stay flat. */
static void print_held(struct sp_continuous *c, size_t stacks_forgotten, int procs_forgotten)
{
	struct sp_symbolizer_stats ss = { 0 };
	struct sp_unwind_stats us = { 0 };
	uint64_t stacks;
	struct sp_lost lost;

	if (c->io.sym)
		sp_symbolizer__stats(c->io.sym, &ss);
	if (c->io.unw)
		sp_unwind__stats(c->io.unw, &us);
	sp_collect_counters(c->io.coll, &stacks, &lost);
	sp_log(SP_LOG_INFO, "continuous: period %u: %llu stacks held (%zu forgotten), %d processes "
	       "(%d forgotten), %d files open (%d closed so far), unwinder: %d processes, "
	       "%d files, %u rows, walkers: %d python, %d ruby processes\n", c->periods,
	       (unsigned long long)stacks, stacks_forgotten, ss.procs, procs_forgotten,
	       ss.held_files, ss.evicted_files, us.procs, us.files, us.rows,
	       sp_langs__nprocs(c->io.langs, "python"), sp_langs__nprocs(c->io.langs, "ruby"));
}

static void evict(struct sp_continuous *c)
{
	size_t stacks = sp_collector__end_period(c->io.coll);
	int procs = c->io.sym ? sp_symbolizer__evict(c->io.sym, c->period_ns, IDLE_FILES,
						       IDLE_BYTES) : 0;

	sp_unwind__sweep(c->io.unw);
	sp_langs__evict(c->io.langs);
	forget_seen_pids(c);
#ifdef __GLIBC__
	malloc_trim(0); /* what was freed in the middle of the heap goes back too */
#endif
	if (c->io.verbose)
		print_held(c, stacks, procs);
}

/* ---- periods ----------------------------------------------------------------------- */

static int emit(struct sp_continuous *c)
{
	uint64_t now = sp_clock_ns(CLOCK_MONOTONIC), wall = sp_clock_ns(CLOCK_REALTIME);
	struct sp_profile prof = { 0 };
	int err = sp_collect(c->io.coll, &prof);

	prof.duration_ns = now - c->start_mono;
	prof.start_time_ns = c->start_wall;
	prof.sample_period_ns = c->io.sample_period_ns;
	if (!err) {
		make_per_period(c, &prof);
		err = write_period(c, &prof);
		if (c->io.ch && sp_clickhouse__queue(c->io.ch, &prof) == 0)
			sender_poke(&c->tx, false);
		sp_profile_warn(&prof);
	}
	c->failed += err != 0;
	c->periods++;
	evict(c);
	c->start_mono = now; /* the next period starts where this one ended */
	c->start_wall = wall;
	return 0;
}

int sp_continuous__tick(struct sp_continuous *c)
{
	uint64_t n;

	if (read(c->timerfd, &n, sizeof(n)) < 0)
		return 0; /* not due after all */
	return emit(c);
}

int sp_continuous__finish(struct sp_continuous *c)
{
	uint64_t lost;

	emit(c);
	sender_stop(c);
	lost = c->io.ch ? sp_clickhouse__dropped_rows(c->io.ch) +
			  (uint64_t)sp_clickhouse__pending(c->io.ch) : 0; /* pending: lost at exit */
	return c->failed || lost ? -EIO : 0;
}

int sp_continuous__fd(const struct sp_continuous *c)
{
	return c->timerfd;
}

struct sp_continuous *sp_continuous__open(uint64_t period_ns, const struct sp_continuous_io *io)
{
	struct sp_continuous *c = calloc(1, sizeof(*c));
	struct timespec ts = { (time_t)(period_ns / 1000000000ull), (long)(period_ns % 1000000000ull) };
	struct itimerspec its = { .it_value = ts, .it_interval = ts };
	int err;

	if (!c)
		return NULL;
	pthread_mutex_init(&c->tx.lock, NULL);
	pthread_cond_init(&c->tx.wake, NULL);
	c->io = *io;
	c->period_ns = period_ns;
	c->nmaps = io->nmaps > 0 ? io->nmaps : 1;
	c->last.map_dropped = calloc((size_t)c->nmaps, sizeof(uint64_t));
	c->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	err = !c->last.map_dropped ? -ENOMEM : c->timerfd < 0 ? -errno : 0;
	if (!err && timerfd_settime(c->timerfd, 0, &its, NULL))
		err = -errno;
	if (!err)
		err = sender_start(c);
	if (err) {
		sp_continuous__destroy(c);
		errno = -err;
		return NULL;
	}
	sp_collector__set_take(io->coll, true);
	c->start_mono = sp_clock_ns(CLOCK_MONOTONIC);
	c->start_wall = sp_clock_ns(CLOCK_REALTIME);
	return c;
}

void sp_continuous__destroy(struct sp_continuous *c)
{
	if (!c)
		return;
	sender_stop(c);
	pthread_mutex_destroy(&c->tx.lock);
	pthread_cond_destroy(&c->tx.wake);
	if (c->timerfd >= 0)
		close(c->timerfd);
	free(c->last.map_dropped);
	free(c);
}
