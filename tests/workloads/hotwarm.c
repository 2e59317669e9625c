/* tests/workloads/hotwarm.c: hot() burns twice the CPU of warm().
 *
 *   hotwarm [SECONDS]   (default 1; fractions allowed)
 *
 * Built -O0 -fno-omit-frame-pointer by the tests, so a frame-pointer walk
 * sees main -> hot / warm, each a leaf. Both spin the same loop; hot()
 * runs it twice as many times, so a CPU profile must show hot:warm close
 * to 2.
 */
#include <stdlib.h>
#include <time.h>

#define SPIN 200000

static volatile unsigned long sink;

__attribute__((noinline)) void hot(void)
{
	for (unsigned long i = 0; i < 2 * SPIN; i++)
		sink += i;
}

__attribute__((noinline)) void warm(void)
{
	for (unsigned long i = 0; i < SPIN; i++)
		sink += i;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	double end = now() + secs;

	while (now() < end) {
		hot();
		warm();
	}
	return 0;
}
