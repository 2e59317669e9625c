/* bench/manystacks.c: a workload with ~1000 distinct user stacks.
 *
 * Ten functions f0..f9 call each other three levels deep along the decimal
 * digits of a counter, so 10^3 call paths each burn a little CPU (argv[3]:
 * levels, default 3, for 10^levels paths; argv[2] "-": no end-time file). On exit it
 * writes its CLOCK_MONOTONIC end time (ns) to the file named by argv[2], so
 * bench/print_stacks.py can measure from the end of sampling to sprof's
 * last printed line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*fn_t)(int, unsigned);
static fn_t table[10];
static volatile unsigned long sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) static void burn(void)
{
	for (int i = 0; i < 20000; i++)
		sink += i;
}

#define F(n)                                                  \
	__attribute__((noinline)) static void f##n(int d, unsigned p) \
	{                                                     \
		if (d == 0)                                   \
			burn();                               \
		else                                          \
			table[p % 10](d - 1, p / 10);         \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)

int main(int argc, char **argv)
{
	fn_t t[10] = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9};
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	int levels = argc > 3 ? atoi(argv[3]) : 3;
	unsigned paths = 1;
	unsigned long long end = now_ns() + (unsigned long long)(secs * 1e9);
	for (int i = 0; i < 10; i++)
		table[i] = t[i];
	if (levels < 1)
		levels = 1;
	for (int i = 0; i < levels && i < 9; i++)
		paths *= 10;
	for (unsigned p = 0; now_ns() < end; p = (p + 1) % paths)
		table[p % 10](levels - 1, p / 10);
	if (argc > 2 && strcmp(argv[2], "-") != 0) {
		FILE *f = fopen(argv[2], "w");
		if (f) {
			fprintf(f, "%llu\n", now_ns());
			fclose(f);
		}
	}
	return 0;
}
