/* tests/fuzz/seeds/tiny_inline.c: the elf fuzzer's seed with inline chains in .debug_info. */
static volatile int sink;

static inline __attribute__((always_inline)) int inner(int x)
{
	return x * 3 + sink;
}

static inline __attribute__((always_inline)) int outer(int x)
{
	return inner(x) ^ 5;
}

int main(int argc, char **argv)
{
	(void)argv;
	sink = outer(argc);
	return sink;
}
