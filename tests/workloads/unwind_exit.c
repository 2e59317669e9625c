/* A process whose exit takes a while in the kernel: it touches 1 GiB of
 * anonymous memory, so do_exit, after the task has left its address space
 * (exit_mm), spends tens of milliseconds freeing it. Samples then carry
 * the user registers of the exit syscall but no user memory to read:
 * tests/tier_unwind.py's exit_teardown expects them marked [exiting]. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	memset(p, 1, mib << 20);
	return p[mib] == 1 ? 0 : 2;
}
