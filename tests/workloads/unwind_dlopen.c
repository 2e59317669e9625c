/* tests/workloads/unwind_dlopen.c: code mapped after the first sample.
 *
 * Spins in spin_start() for 0.3 s (so the profiler sees the process and
 * reads its mappings), then dlopen()s libm and calls cos() from use_libm()
 * until the end. A frame-pointer walk from inside libm's frameless cos()
 * skips use_libm(); the DWARF unwinder needs libm's table, which it only
 * gets by re-reading the mappings.
 *
 *   unwind_dlopen [SECONDS]      (default 2)
 */
#include <dlfcn.h>
#include <stdint.h>
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

__attribute__((noipa)) void spin_start(double until)
{
	while (now() < until)
		sink += 1;
}

__attribute__((noipa)) double use_libm(double (*f)(double), double x)
{
	double s = 0;

	for (int i = 0; i < 2000; i++)
		s += f(x + i * 0.001);
	return s * 0.5;
}

int main(int argc, char **argv)
{
	double t0 = now(), end = t0 + (argc > 1 ? atof(argv[1]) : 2.0), x = 0;
	void *h;
	double (*f)(double);

	spin_start(t0 + 0.3);
	h = dlopen("libm.so.6", RTLD_NOW);
	f = h ? (double (*)(double))dlsym(h, "cos") : NULL;
	if (!f) {
		fprintf(stderr, "no libm cos: %s\n", dlerror());
		return 1;
	}
	while (now() < end)
		sink += use_libm(f, x += 1);
	return 0;
}
