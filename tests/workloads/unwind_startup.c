/* tests/workloads/unwind_startup.c: user stacks from a process's first instructions.
 *
 * main calls grab() 20,000 times right away, grab() calls malloc (libc,
 * mapped by ld.so after exec); built -O2 -fomit-frame-pointer, so only
 * tables give `malloc <- grab <- main <- ... <- _start`. A uprobe on
 * malloc sees the first call within a millisecond of exec: stacks are
 * complete only if the process's tables (program, ld.so, libc) were ready
 * before it ran.
 *
 *   unwind_startup [N]      (default 20000 calls)
 */
#include <stdlib.h>

static void *volatile keep;

__attribute__((noipa)) void *grab(size_t n)
{
	void *p = malloc(n);

	keep = p;
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;

	for (int i = 0; i < n; i++)
		free(grab(16 + (size_t)(i & 63)));
	return 0;
}
