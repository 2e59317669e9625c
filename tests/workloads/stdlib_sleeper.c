/* tests/workloads/stdlib_sleeper.c: sleeps 10 x 20 ms in nap() and burns CPU in work() (stdlib/offcpu.sp) */
#include <unistd.h>
#include <time.h>
__attribute__((noinline)) void nap(void) { usleep(20000); }
__attribute__((noinline)) void work(void) { volatile long x = 0; for (long i = 0; i < 20000000; i++) x += i; }
int main(void) { for (int i = 0; i < 10; i++) { nap(); work(); } return 0; }
