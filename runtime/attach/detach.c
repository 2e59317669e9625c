/* runtime/attach/detach.c: the end of a run's links, without making the run wait for it.
 *
 * Detaching costs a kernel grace period per tracepoint, kprobe or uprobe
 * (~35-75 ms measured on 6.18). Independent uprobe detaches overlap when
 * done from several threads, tracepoints do not: the kernel unregisters
 * them one at a time under its event_mutex, so 360 syscall tracepoints
 * take ~12-20 s whatever the threads; that was most of "--duration 10s
 * ran 18 s". The probes are already stopped when this runs (every program
 * returns at once: run.c's stop_probes), so nothing is measured while
 * they go. Past one link a grandchild, holding copies of the
 * links' fds and no other file (so pipes on the caller's stdout and stderr
 * see their end), drops the last references in the background and the run
 * ends when its report is out.
 */
#define _GNU_SOURCE /* pipe2 */
#include "runtime/attach/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#define DETACH_THREADS 8
#define DETACH_INLINE_MAX 1 /* links detached in the run itself: ~0.09 s each */

struct detach_job {
	struct sp_links *l;
	int first, step;
};

/* Every step-th link or raw perf fd from first on; each one done is
 * cleared (NULL, -1) for sp_links_destroy(). */
static void *detach_some(void *arg)
{
	struct detach_job *j = arg;
	struct sp_links *l = j->l;

	for (int i = j->first; i < l->n + l->nfds; i += j->step) {
		if (i < l->n) {
			bpf_link__destroy(l->v[i]);
			l->v[i] = NULL;
		} else {
			close(l->fds[i - l->n]);
			l->fds[i - l->n] = -1;
		}
	}
	return NULL;
}

/* Destroys the links from several threads: the kernel's grace periods of
 * independent detaches overlap (360 syscall tracepoints: 26 s one by one,
 * 11-15 s with 8 threads). A thread that cannot start leaves its share to
 * sp_links_destroy(), which skips what is gone. */
static void detach_threaded(struct sp_links *l)
{
	pthread_t t[DETACH_THREADS];
	struct detach_job jobs[DETACH_THREADS];
	bool started[DETACH_THREADS] = { false };
	int nt = l->n + l->nfds;

	if (nt > DETACH_THREADS)
		nt = DETACH_THREADS;
	if (nt < 2)
		nt = 0; /* one link: no thread */
	for (int k = 0; k < nt; k++) {
		jobs[k] = (struct detach_job){ .l = l, .first = k, .step = nt };
		started[k] = pthread_create(&t[k], NULL, detach_some, &jobs[k]) == 0;
	}
	for (int k = 0; k < nt; k++)
		if (started[k])
			pthread_join(t[k], NULL);
	sp_links_destroy(l);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The fds the links own and `extra`, sorted; NULL when there is no memory. */
static int *link_fds(const struct sp_links *l, int extra, int *n)
{
	int *v = malloc(sizeof(*v) * (size_t)(l->n + l->nfds + 1));

	*n = 0;
	if (!v)
		return NULL;
	for (int i = 0; i < l->n; i++)
		if (l->v[i] && bpf_link__fd(l->v[i]) >= 0)
			v[(*n)++] = bpf_link__fd(l->v[i]);
	for (int i = 0; i < l->nfds; i++)
		if (l->fds[i] >= 0)
			v[(*n)++] = l->fds[i];
	v[(*n)++] = extra;
	qsort(v, (size_t)*n, sizeof(*v), int_cmp);
	return v;
}

static void close_from_to(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
	for (unsigned fd = lo; fd <= hi && fd < 65536; fd++)
		close((int)fd);
}

/* Every fd but keep[0..n) (sorted). */
static void close_all_but(const int *keep, int n)
{
	unsigned lo = 0;

	for (int i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			close_from_to(lo, (unsigned)keep[i] - 1);
		lo = (unsigned)keep[i] + 1;
	}
	close_from_to(lo, ~0u);
}

/* In the background: a grandchild (reparented, never waited for by the
 * caller's shell) keeps only the links' fds and drops them once the run
 * has dropped its own copies (EOF on *gate): the last reference is the
 * one that waits for the kernel. false when it could not be started. */
static bool detach_background(struct sp_links *l, int *gate)
{
	int n, st, *keep, p[2];
	pid_t mid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return false;
	keep = link_fds(l, p[0], &n);
	mid = keep ? fork() : -1;
	if (mid == 0) {
		if (fork() != 0)
			_exit(0); /* the middle one: its child is init's now */
		setsid();
		close_all_but(keep, n); /* the write end too */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		detach_threaded(l);
		_exit(0);
	}
	free(keep);
	close(p[0]);
	if (mid < 0) {
		close(p[1]);
		return false;
	}
	*gate = p[1];
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	return true;
}

void sp_links_detach(struct sp_links *l)
{
	int gate = -1;

	if (l->n + l->nfds > DETACH_INLINE_MAX && detach_background(l, &gate)) {
		sp_links_destroy(l); /* our copies: not the last references */
		close(gate);         /* the grandchild's turn */
		return;
	}
	detach_threaded(l);
}
