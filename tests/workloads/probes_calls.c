/* probes_calls: calls known functions a known number of times, for exact
 * uprobe/uretprobe counts and argument/return-value checks.
 *
 *   probes_calls [N] [SLEEP_US]   (default 1000, 0)
 *
 * probe_count(i)           called N times, returns nothing interesting
 * probe_ret(i)             called N times, returns i % 5 (0..4, N/5 each)
 * probe_neg(i)             called N times, returns -(i % 3) - 1 (-1..-3)
 * probe_args8(0..7 + i)    called N times with 8 args (2 on the stack)
 * probe_twice/probe_thrice called 2N and 3N times (wildcard 'probe_t*')
 * probe_offset(i)          called N times (for FUNC+OFFSET probes)
 * getppid()                called N times (a libc function: uprobe:libc:getppid)
 * With SLEEP_US, each round sleeps that long (for -p tests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, used))

volatile long sink;

NOINLINE void probe_count(int i) { sink += i; }
NOINLINE int probe_ret(int i) { sink++; return i % 5; }
NOINLINE int probe_neg(int i) { sink++; return -(i % 3) - 1; }
NOINLINE long probe_args8(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7)
{
	return sink += a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
NOINLINE void probe_twice(void) { sink++; }
NOINLINE void probe_thrice(void) { sink++; }
NOINLINE void probe_offset(int i)
{
	sink += i;
	sink ^= i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int us = argc > 2 ? atoi(argv[2]) : 0;

	for (int i = 0; i < n; i++) {
		probe_count(i);
		probe_ret(i);
		probe_neg(i);
		probe_args8(i, 1, 2, 3, 4, 5, 6 + i, 7 + i);
		probe_twice();
		probe_twice();
		probe_thrice();
		probe_thrice();
		probe_thrice();
		probe_offset(i);
		sink += getppid();
		if (us)
			usleep(us);
	}
	printf("done %d\n", n);
	return 0;
}
