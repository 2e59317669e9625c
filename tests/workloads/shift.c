/* tests/workloads/shift.c: which function is hot is chosen on the command line.
 *
 *   shift alpha|beta|gamma [SECONDS]   (default 1; fractions allowed)
 *
 * alpha(), beta() and gamma() spin the same loop once per round; the one
 * named runs it four times as long. Two profiles taken with different
 * names are what `sprof diff` is tested on: the named function's share
 * grows from about a third to about two thirds. Built -O0 with frame
 * pointers by the tests, so each function is a leaf under main.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPIN 100000

static volatile unsigned long sink;
static const char *hot_name = "alpha";

/* The loop is written out in each function so each is a leaf. */
#define SPIN_AS(me)                                                   \
	do {                                                          \
		unsigned long n_ = strcmp(me, hot_name) == 0 ? 4 * SPIN : SPIN; \
		for (unsigned long i = 0; i < n_; i++)                \
			sink += i;                                    \
	} while (0)

__attribute__((noinline)) void alpha(void) { SPIN_AS("alpha"); }
__attribute__((noinline)) void beta(void) { SPIN_AS("beta"); }
__attribute__((noinline)) void gamma_(void) { SPIN_AS("gamma"); }

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1.0, end = now() + secs;

	if (argc > 1)
		hot_name = argv[1];
	while (now() < end) {
		alpha();
		beta();
		gamma_();
	}
	return 0;
}
