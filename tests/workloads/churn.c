/* tests/workloads/churn.c: a short-lived process for --continuous tests.
 *
 * Built many times with -DVARIANT=N (each binary a file of its own, with
 * its own symbol churn_variant_N), started over and over by a shell loop:
 * spins about MS milliseconds (argv[1], default 150) in churn_hot() and exits, so a
 * profiler meets a stream of new processes and new object files. */
#include <stdlib.h>
#include <time.h>

#ifndef VARIANT
#define VARIANT 0
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) double churn_hot(double x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

/* The variant's own function: a distinct symbol in every binary. */
__attribute__((noinline)) double CAT(churn_variant_, VARIANT)(double x, double until)
{
	while (now_ms() < until)
		x = churn_hot(x);
	return x;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 150;
	volatile double r = CAT(churn_variant_, VARIANT)(1.0, now_ms() + ms);

	return r < 0;
}
