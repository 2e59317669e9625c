/* probeforms: a target for the probe-form cases (tests/language/probeforms.t
 * and tests/tier_probes.py): each mode does one thing the probes watch.
 *
 *   probeforms open        openat("/nonexistent/probeforms-marker")
 *   probeforms kill        kill(-99999, 0): a negative pid, for signedness
 *   probeforms thread      one pthread_create, through libc (not libpthread)
 *   probeforms str         pass_str(untouched): a string constant alone in a
 *                          64 KiB window of .rodata that nothing read before
 *   probeforms watch N     write the long at 0x10000000 N times
 *   probeforms watchfn N   increment(&counter) N times (watchpoint:FUNC+ARG)
 *   probeforms watchwild   bump_0 .. bump_5, each on a new block (a glob, and
 *                          more watched addresses than x86's 4 debug registers)
 *   probeforms watchlater  increment(p) once, 200 ms later 4 writes to *p
 *                          (unwatch(), asyncwatchpoint)
 *   probeforms usdtquoted  fires USDT test:"probe1" (quotes in the name) with 7
 *
 * pf_start() runs before the mode's action, so probes can start counting
 * there. Built -O0 with frame pointers.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, used))

/* The whole fault-around window (64 KiB) is this array: no other access
 * maps its page before pass_str() hands its address over. */
__attribute__((aligned(65536))) const char untouched[65536] =
	"a string constant nobody read before";

volatile long counter;

NOINLINE void pf_start(void)
{
	__asm__ volatile("" ::: "memory");
}

NOINLINE int pass_str(const char *s)
{
	return s != NULL; /* the pointer only: its bytes stay unread */
}

NOINLINE void increment(volatile long *p)
{
	(*p)++;
}

#define BUMP(n) NOINLINE void bump_##n(volatile long *p) { (*p)++; }
BUMP(0) BUMP(1) BUMP(2) BUMP(3) BUMP(4) BUMP(5)

static void watch_wild(void)
{
	void (*fns[])(volatile long *) = { bump_0, bump_1, bump_2, bump_3, bump_4, bump_5 };

	for (int i = 0; i < 6; i++)
		fns[i](calloc(1, sizeof(long)));
}

static void watch_later(void)
{
	volatile long *p = calloc(1, sizeof(long));

	increment(p);
	usleep(200000); /* unwatch() and asyncwatchpoint act after the event */
	for (int i = 0; i < 4; i++)
		(*p)++;
}

static void *thread_fn(void *arg)
{
	return arg;
}

static int watch(int n)
{
	volatile long *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	pf_start();
	for (int i = 0; i < n; i++)
		*p = i;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "open";
	int n = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t t;

	if (!strcmp(mode, "watch"))
		return watch(n);
	pf_start();
	if (!strcmp(mode, "open"))
		return open("/nonexistent/probeforms-marker", O_RDONLY) >= 0;
	if (!strcmp(mode, "kill"))
		return kill(-99999, 0) == 0;
	if (!strcmp(mode, "thread"))
		return pthread_create(&t, NULL, thread_fn, NULL) || pthread_join(t, NULL);
	if (!strcmp(mode, "str"))
		return !pass_str(untouched);
	if (!strcmp(mode, "watchwild")) {
		watch_wild();
		return 0;
	}
	if (!strcmp(mode, "watchlater")) {
		watch_later();
		return 0;
	}
	if (!strcmp(mode, "usdtquoted")) {
		int seven = 7;

		DTRACE_PROBE1(test, "probe1", seven);
		return 0;
	}
	if (!strcmp(mode, "watchfn")) {
		for (int i = 0; i < n; i++)
			increment(&counter);
		return 0;
	}
	return 2;
}
