/* tests/workloads/dlopen_loop.c: a library loaded and unloaded over and over.
 *
 * For SECONDS (default 2): dlopen("libm.so.6"), call cos() through it in
 * loop_once() for about a millisecond, dlclose(); so the profiler sees
 * code appear and vanish at (often) the same addresses many times a second.
 * Prints the number of rounds at the end.
 *
 *   dlopen_loop [SECONDS]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noipa)) void loop_once(double (*f)(double), double until)
{
	for (int i = 0; now() < until; i++)
		sink += f(i * 0.001);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	long rounds = 0;

	while (now() < end) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		double (*f)(double) = h ? (double (*)(double))dlsym(h, "cos") : NULL;

		if (!f)
			return 1;
		loop_once(f, now() + 0.001);
		dlclose(h);
		rounds++;
	}
	printf("rounds %ld\n", rounds);
	return 0;
}
