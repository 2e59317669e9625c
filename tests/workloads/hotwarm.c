/* tests/workloads/hotwarm.c: hot() burns twice the CPU of warm().
 *
 *   hotwarm [SECONDS]   (default 1; fractions allowed)
 *
 * Built -O0 -fno-omit-frame-pointer by the tests, so a frame-pointer walk
 * sees main -> hot / warm, each a leaf. Both spin the same loop; hot()
 * runs it twice as many times, so a CPU profile must show hot:warm close
 * to 2. The length varies from round to round (pseudo-random, the same
 * for both): a fixed round of ~0.27 ms against a 999 Hz timer repeats its
 * phase every few samples, and the ratio came out 1.26 on a loaded VM.
 */
#include <stdlib.h>
#include <time.h>

#define SPIN 200000

static volatile unsigned long sink;
static unsigned long spin = SPIN;

__attribute__((noinline)) void hot(void)
{
	for (unsigned long i = 0; i < 2 * spin; i++)
		sink += i;
}

__attribute__((noinline)) void warm(void)
{
	for (unsigned long i = 0; i < spin; i++)
		sink += i;
}

/* SPIN/2 .. 3*SPIN/2, xorshift */
static void next_spin(void)
{
	static unsigned long x = 88172645463325252ul;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	spin = SPIN / 2 + x % SPIN;
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
		next_spin();
	}
	return 0;
}
