/* tests/workloads/drain_hammer.c: record(k) called as fast as threads can.
 *
 * The drain tier puts a uprobe on record() and checks that maps drained at
 * every --continuous period cut and whenever they fill still count every
 * call: each thread hits the same keys back to back, so a key is being
 * added to at nearly every moment a drain takes it. argv: calls per
 * thread (300000), threads (2), distinct keys (4).
 */
#include <pthread.h>
#include <stdlib.h>

static long calls, keys;

__attribute__((noinline)) void record(long k)
{
	__asm__ volatile("" : : "r"(k) : "memory");
}

static void *run(void *arg)
{
	for (long i = 0; i < calls; i++)
		record(i % keys);
	return arg;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t t[64];

	calls = argc > 1 ? atol(argv[1]) : 300000;
	keys = argc > 3 ? atol(argv[3]) : 4;
	if (threads < 1 || threads > 64 || keys < 1)
		return 2;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, run, NULL))
			return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
