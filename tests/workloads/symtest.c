/* tests/workloads/symtest.c: a target for the symbolizer tests.
 *
 * Prints where its own functions, a libc function, its vDSO and fake JIT
 * functions live, then "ready", then loops sym_outer -> sym_mid -> sym_leaf
 * (which sleeps) until killed. JIT code is faked twice, in anonymous memory
 * and in a memfd (as W^X JITs double-map it), both announced in
 * /tmp/perf-PID.map as JITs do for perf. With `exec-on-input` it instead
 * waits for a byte on stdin and then execs `sleep 60` (a new image under the
 * same pid).
 *
 * Output lines are `NAME ADDRESS`, and `symtest_line NAME N` for the source
 * line of NAME's declarator (the entry's .debug_line row is it or the next).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
#ifdef OTHER_BUILD
/* Shifts every function: another build, another build id. */
__attribute__((noinline)) void sym_other(void)
{
	sink += 3;
	sink *= 5;
}
#endif

enum { SYM_LEAF_LINE = __LINE__ + 1 };
__attribute__((noinline)) void sym_leaf(void)
{
	struct timespec ts = { 0, 2000000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline)) void sym_mid(void)
{
	for (int i = 0; i < 3; i++)
		sym_leaf();
	sink++;
}

__attribute__((noinline)) static void sym_outer(void)
{
	sym_mid();
	sink++;
}

/* Hand-written so their sizes are known: one byte of code, then 15 bytes
 * that belong to no symbol (sym_sized) or, size unknown, to the symbol
 * before them (sym_nosize). */
void sym_sized(void);
void sym_nosize(void);
void sym_label(void);
__asm__(".text\n"
	".globl sym_sized\n.type sym_sized, @function\nsym_sized: ret\n.size sym_sized, 1\n"
	".skip 15, 0xcc\n"
	".globl sym_nosize\n.type sym_nosize, @function\nsym_nosize: ret\n.skip 15, 0xcc\n"
	".globl sym_after\n.type sym_after, @function\nsym_after: ret\n.size sym_after, 1\n"
	/* an untyped label, as assembly entry points are (ld.so's _start) */
	".globl sym_label\nsym_label: ret\n.skip 7, 0xcc\n");

/* Code in a memfd, as W^X JITs double-map it: a file mapping that is no ELF. */
static void *jit_memfd(void)
{
	int fd = memfd_create("symtest-jit", 0);
	void *p;

	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return NULL;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void announce_jit(void)
{
	char path[64];
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *memfd_page = jit_memfd();
	FILE *f;

	if (page == MAP_FAILED)
		return;
	((unsigned char *)page)[0] = 0xc3; /* ret */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%lx 40 jit_hot_loop\n%lx 20 jit_cold path with spaces\n",
		(unsigned long)page, (unsigned long)page + 0x40);
	if (memfd_page)
		fprintf(f, "%lx 30 jit_in_memfd\n", (unsigned long)memfd_page + 0x100);
	fclose(f);
	printf("jit_hot_loop %p\n", page);
	if (memfd_page)
		printf("jit_in_memfd %p\n", (char *)memfd_page + 0x100);
}

int main(int argc, char **argv)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	printf("sym_leaf %p\n", (void *)sym_leaf);
	printf("sym_mid %p\n", (void *)sym_mid);
	printf("sym_outer %p\n", (void *)sym_outer);
	printf("clock_nanosleep %p\n", libc ? dlsym(libc, "clock_nanosleep") : NULL);
	printf("sym_sized %p\n", (void *)sym_sized);
	printf("sym_nosize %p\n", (void *)sym_nosize);
	printf("sym_label %p\n", (void *)sym_label);
	printf("vdso %#lx\n", getauxval(AT_SYSINFO_EHDR));
	printf("symtest_line sym_leaf %d\n", SYM_LEAF_LINE);
	announce_jit();
	printf("ready\n");
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "exec-on-input") == 0) {
		char c;

		if (read(0, &c, 1) == 1)
			execl("/bin/sleep", "sleep", "60", (char *)NULL);
		return 1;
	}
	for (;;)
		sym_outer();
	return 0;
}
