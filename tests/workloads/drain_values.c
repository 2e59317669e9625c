/* tests/workloads/drain_values.c: record(k, v) called with known values.
 *
 * The drain tier puts a uprobe on record() and compares what maps drained
 * many times print with what a never-drained run prints. Calls come in
 * small bursts with short sleeps, so a tiny BPF map is drained between
 * bursts instead of filling. argv: calls (20000), distinct keys (500),
 * calls per burst (8).
 */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void record(long k, long v)
{
	__asm__ volatile("" : : "r"(k), "r"(v) : "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long keys = argc > 2 ? atol(argv[2]) : 500;
	long burst = argc > 3 ? atol(argv[3]) : 8;

	for (long i = 0; i < n; i++) {
		record(i % keys, (i * 7919) % 100003 - 1000);
		if (i % burst == burst - 1)
			usleep(1000);
	}
	return 0;
}
