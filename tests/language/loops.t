While loops that update maps, 1,000 and 2,500 iterations: inside a while loop every map update is a call to a global BPF function (codegen/cg_oob.c) that the verifier checks once, so the loop stays under its limits. bpftrace 0.17 runs the same loops.
### while_1000_count
BEGIN { $i = 0; while ($i < 1000) { @c[$i < 100 ? 0 : ($i < 300 ? 1 : ($i < 600 ? 2 : 3))] = count(); $i++; } exit(); }
--- stdout


@c[0]: 100
@c[1]: 200
@c[2]: 300
@c[3]: 400
### while_1000_assign
BEGIN { $i = 0; while ($i < 1000) { @sq[$i % 5] = $i * $i; @last = $i; $i++; } exit(); }
--- stdout


@last: 999
@sq[0]: 990025
@sq[1]: 992016
@sq[2]: 994009
@sq[3]: 996004
@sq[4]: 998001
### while_2500_aggs
# bpftrace: differs 0.17 fails to load it (five aggregations in a 2,500-iteration loop are too much for its verifier budget); sprof runs it
BEGIN { $i = 0; while ($i < 2500) { @c[$i % 3 == 0 ? 1 : 2] = count(); @s = sum($i); @mx = max($i); @mn = min($i); @a = avg($i); $i++; } exit(); }
--- stdout


@a: 1249

@c[1]: 834
@c[2]: 1666
@mn: 0
@mx: 2499
@s: 3123750
--- bpftrace
### while_2500_hist
BEGIN { $i = 0; while ($i < 2500) { @h = hist($i); @l = lhist($i, 0, 2500, 500); $i++; } exit(); }
--- stdout


@h: 
[0]                    1 |                                                    |
[1]                    1 |                                                    |
[2, 4)                 2 |                                                    |
[4, 8)                 4 |                                                    |
[8, 16)                8 |                                                    |
[16, 32)              16 |                                                    |
[32, 64)              32 |@                                                   |
[64, 128)             64 |@@@                                                 |
[128, 256)           128 |@@@@@@                                              |
[256, 512)           256 |@@@@@@@@@@@@@                                       |
[512, 1K)            512 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[1K, 2K)            1024 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2K, 4K)             452 |@@@@@@@@@@@@@@@@@@@@@@                              |

@l: 
[0, 500)             500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[500, 1000)          500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1000, 1500)         500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1500, 2000)         500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2000, 2500)         500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### while_2500_tuple_key_and_break
BEGIN { $i = 0; while ($i < 100000) { if ($i >= 2500) { break; } @t[$i % 5 == 0 ? 1 : 2, "k"] = count(); @v[$i % 3] = $i; $i++; } printf("%d\n", $i); exit(); }
--- stdout
2500


@t[1, k]: 500
@t[2, k]: 2000
@v[1]: 2497
@v[2]: 2498
@v[0]: 2499
### while_reads_back
BEGIN { $i = 0; while ($i < 1000) { @x = @x + 1; @y[$i % 2] = @y[$i % 2] + $i; $i++; } exit(); }
--- stdout


@x: 1000
@y[0]: 249500
@y[1]: 250000
### while_2500_increments
# bpftrace: differs 0.17 fails to load it (three read-modify-writes in a 2,500-iteration loop); sprof reads and writes out of line
BEGIN { $i = 0; while ($i < 2500) { @c[$i % 3 == 0 ? 1 : 2]++; @m[$i % 2] += $i; @x = @x + 1; $i++; } exit(); }
--- stdout


@c[1]: 834
@c[2]: 1666
@m[0]: 1561250
@m[1]: 1562500
@x: 2500
--- bpftrace
### for_map
# bpftrace: skip 0.17 has no for loops (0.21+)
BEGIN { @m[1, "a"] = 10; @m[2, "b"] = 20; @m[3, "c"] = 30; @c["x"] = count(); @c["x"] = count(); @s[7] = "seven"; $t = 0; $n = 0; for ($kv : @m) { $t += $kv.0.0 * $kv.1; $n++; } for ($e : @c) { printf("%s %d\n", $e.0, $e.1); } for ($e : @s) { printf("%d %s\n", $e.0, $e.1); } printf("%d %d\n", $n, $t); clear(@m); clear(@c); clear(@s); exit(); }
--- stdout
x 2
7 seven
3 140





### for_range
# bpftrace: skip 0.17 has no for loops (0.21+)
BEGIN { $a = 10; $sum = 0; for ($i : 0..$a) { $a--; if ($i == 2) { continue; } if ($i == 8) { break; } $sum += $i; } printf("%d %d\n", $sum, $a); for ($j : 5..2) { printf("never\n"); } for ($k : -2..1) { printf("%d ", $k); } printf("\n"); $big = 0; for ($i : 0..100000) { $big += $i; } printf("%d\n", $big); exit(); }
--- stdout
26 1
-2 -1 0 
4999950000


### for_nested_return
# bpftrace: skip 0.17 has no for loops (0.21+)
BEGIN { @m[1] = 1; @m[2] = 2; $hits = 0; for ($kv : @m) { for ($i : 0..3) { @x[$kv.0, $i] = $kv.1 * $i; $hits++; } } printf("%d\n", $hits); for ($i : 0..10) { if ($i == 3) { printf("return at %d\n", $i); exit(); return; } } printf("not reached\n"); }
END { clear(@m); }
--- stdout
6
return at 3



@x[1, 0]: 0
@x[2, 0]: 0
@x[1, 1]: 1
@x[1, 2]: 2
@x[2, 1]: 2
@x[2, 2]: 4
