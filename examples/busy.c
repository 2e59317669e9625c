/* examples/busy.c: a small CPU-bound program to profile.
 *
 * It "serves requests" for N seconds (default 3): each request parses,
 * compresses and checksums a buffer, so its profile has a few distinct,
 * readable stacks. Built with frame pointers by CMake (build/examples/busy).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t checksum(const uint8_t *b, int n)
{
	uint64_t h = 1469598103934665603ull;
	for (int r = 0; r < 4; r++)
		for (int i = 0; i < n; i++)
			h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) static int compress(uint8_t *b, int n)
{
	int out = 0;
	for (int r = 0; r < 8; r++)
		for (int i = 1; i < n; i++)
			out += b[i] == b[i - 1];
	return out;
}

__attribute__((noinline)) static void parse(uint8_t *b, int n, unsigned seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16) % 7;
	}
}

__attribute__((noinline)) static void handle_request(unsigned id)
{
	uint8_t buf[4096];
	parse(buf, sizeof(buf), id);
	sink += compress(buf, sizeof(buf));
	sink += checksum(buf, sizeof(buf));
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	double end = now() + secs;
	unsigned id = 0;
	while (now() < end)
		handle_request(id++);
	printf("busy: served %u requests\n", id);
	return 0;
}
