/* runtime/timings.c: SPROF_TIMINGS=1's phase list; see timings.h. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/clock.h"
#include "runtime/timings.h"

#define MAX_LAPS 64
#define MAX_NOTES 32

struct lap {
	const char *what;
	uint64_t wall_ns, cpu_ns;
};

static struct {
	int on; /* 0 unknown, 1 on, -1 off */
	pthread_t thread;
	uint64_t wall0, cpu0;
	struct lap laps[MAX_LAPS];
	int nlaps;
	char notes[MAX_NOTES][96];
	int nnotes;
	bool printed;
} T;

/* The first call (main's first line) starts the clock; the CPU time the
 * process used before it (ld.so, constructors) is the first lap, its wall
 * time is not known here (bench/startup.py has the whole run's). */
bool sp_timings_on(void)
{
	if (!T.on) {
		const char *v = getenv("SPROF_TIMINGS");

		T.on = v && *v && strcmp(v, "0") ? 1 : -1;
		if (T.on > 0) {
			T.thread = pthread_self();
			T.wall0 = sp_clock_ns(CLOCK_MONOTONIC);
			T.cpu0 = sp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
			T.laps[T.nlaps++] = (struct lap){ "exec, ld.so, before main", UINT64_MAX,
							  T.cpu0 };
		}
	}
	return T.on > 0;
}

void sp_timing_lap(const char *what)
{
	uint64_t wall, cpu;

	if (!sp_timings_on() || !pthread_equal(T.thread, pthread_self()) || T.nlaps == MAX_LAPS)
		return;
	wall = sp_clock_ns(CLOCK_MONOTONIC);
	cpu = sp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	T.laps[T.nlaps++] = (struct lap){ what, wall - T.wall0, cpu - T.cpu0 };
	T.wall0 = wall;
	T.cpu0 = cpu;
}

void sp_timing_note(const char *fmt, ...)
{
	va_list ap;

	if (!sp_timings_on() || T.nnotes == MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(T.notes[T.nnotes++], sizeof(T.notes[0]), fmt, ap);
	va_end(ap);
}

void sp_timings_print(void)
{
	uint64_t wall = 0, cpu = 0;
	struct rusage ru;

	if (!sp_timings_on() || T.printed)
		return;
	T.printed = true;
	fprintf(stderr, "sprof: timings (SPROF_TIMINGS): phase, wall ms, this thread's CPU ms\n");
	for (int i = 0; i < T.nlaps; i++) {
		if (T.laps[i].wall_ns == UINT64_MAX)
			fprintf(stderr, "  %-28s %8s %8.2f\n", T.laps[i].what, "-",
				T.laps[i].cpu_ns / 1e6);
		else
			fprintf(stderr, "  %-28s %8.2f %8.2f\n", T.laps[i].what,
				T.laps[i].wall_ns / 1e6, T.laps[i].cpu_ns / 1e6);
		wall += T.laps[i].wall_ns == UINT64_MAX ? 0 : T.laps[i].wall_ns;
		cpu += T.laps[i].cpu_ns;
	}
	fprintf(stderr, "  %-28s %8.2f %8.2f\n", "total since main", wall / 1e6, cpu / 1e6);
	if (!getrusage(RUSAGE_SELF, &ru))
		fprintf(stderr, "  process CPU: %.2f ms user, %.2f ms system (all threads)\n",
			ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
			ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
	for (int i = 0; i < T.nnotes; i++)
		fprintf(stderr, "  %s\n", T.notes[i]);
}
