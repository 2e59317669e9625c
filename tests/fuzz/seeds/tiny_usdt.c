#include <stdio.h>
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short tiny_tick_semaphore __attribute__((section(".probes"))) = 0;
__attribute__((noinline)) static int tick(int i, const char *s)
{
	STAP_PROBE2(tiny, tick, i, s);
	return i * 3 + (s[0] == 'x');
}
int main(int argc, char **argv)
{
	int r = 0;
	for (int i = 0; i < argc; i++)
		r += tick(i, argv[i]);
	printf("%d\n", r);
	return r == 42;
}
