/* probes_many: 640 distinct functions (many_000 .. many_639), each called
 * once per round, for wildcard attach at scale (uprobe:W:many_*).
 *
 *   probes_many [ROUNDS]   (default 1)
 */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

#define F(n) __attribute__((noinline, used)) void many_##n(void) { sink += 1; }
#define F10(p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)
#define F100(p) F10(p##0) F10(p##1) F10(p##2) F10(p##3) F10(p##4) F10(p##5) F10(p##6) \
	F10(p##7) F10(p##8) F10(p##9)
F100(0) F100(1) F100(2) F100(3) F100(4) F100(5) F10(60) F10(61) F10(62) F10(63)

#define C(n) many_##n();
#define C10(p) C(p##0) C(p##1) C(p##2) C(p##3) C(p##4) C(p##5) C(p##6) C(p##7) C(p##8) C(p##9)
#define C100(p) C10(p##0) C10(p##1) C10(p##2) C10(p##3) C10(p##4) C10(p##5) C10(p##6) \
	C10(p##7) C10(p##8) C10(p##9)

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1;

	for (int r = 0; r < rounds; r++) {
		C100(0) C100(1) C100(2) C100(3) C100(4) C100(5) C10(60) C10(61) C10(62) C10(63)
	}
	printf("done %d\n", rounds);
	return 0;
}
