#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int leaf_work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
__attribute__((noinline)) static int middle(int n) { return leaf_work(n) + leaf_work(n / 2); }
int main(int argc, char **argv) { printf("%d\n", middle(argc > 1 ? atoi(argv[1]) : 10)); return 0; }
