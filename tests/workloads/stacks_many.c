/* tests/workloads/stacks_many.c: 131,072 distinct user stacks in well under a second.
 *
 * For i in 0..2^17-1, walks 17 levels down through a() or b() as bit k of i
 * says, and calls leaf() at the bottom: every call of leaf() has its own
 * stack (17 frames of a/b in a different order). A uprobe on leaf() sees
 * them all. Prints "calls N" at the end.
 *
 *   stacks_many [ROUNDS]     (default 1: every path once)
 */
#include <stdio.h>
#include <stdlib.h>

#define LEVELS 17

static volatile long sink;

__attribute__((noinline)) void leaf(long i)
{
	sink += i;
}

__attribute__((noinline)) void a(long i, int k);
__attribute__((noinline)) void b(long i, int k);

__attribute__((noinline)) void a(long i, int k)
{
	if (k == LEVELS)
		leaf(i);
	else if (i >> k & 1)
		b(i, k + 1);
	else
		a(i, k + 1);
	sink++; /* not a tail call */
}

__attribute__((noinline)) void b(long i, int k)
{
	if (k == LEVELS)
		leaf(i);
	else if (i >> k & 1)
		b(i, k + 1);
	else
		a(i, k + 1);
	sink++;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	long calls = 0;

	for (int r = 0; r < rounds; r++)
		for (long i = 0; i < 1L << LEVELS; i++, calls++)
			a(i, 0);
	printf("calls %ld\n", calls);
	return 0;
}
