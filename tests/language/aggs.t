Aggregations, printed at exit exactly like bpftrace.
### count_sum
BEGIN { @c = count(); @c = count(); @s = sum(5); @s = sum(7); @k["a"] = count(); @k["b"] = count(); @k["b"] = count(); exit(); }
--- stdout


@c: 2
@k[a]: 1
@k[b]: 2
@s: 12
### avg_stats
BEGIN { @a = avg(10); @a = avg(20); @st = stats(4); @st = stats(8); @n = avg(-3); @n = avg(-4); exit(); }
--- stdout


@a: 15

@n: -3

@st: count 2, average 6, total 12

### stats_negative
BEGIN { @st = stats(-4); @st = stats(1); @s = sum(-3); exit(); }
--- stdout


@s: -3
@st: count 2, average -1, total -3

### min_max
BEGIN { @mi = min(5); @mi = min(3); @mi = min(9); @ma = max(2); @ma = max(9); @ma = max(4); @mn = min(-2); exit(); }
--- stdout


@ma: 9
@mi: 3
@mn: -2
### max_negative
# bpftrace: differs 0.17 loses a max() whose values are all negative (it prints an empty line); sprof prints -5
BEGIN { @ma = max(-5); @ma = max(-9); exit(); }
--- stdout


@ma: -5
--- bpftrace



### the_reference_example
BEGIN { @c = count(); @s = sum(5); @s = sum(7); @a = avg(10); @a = avg(20); @mi = min(-2); @ma = max(9); @st = stats(4); @st = stats(8); @x["k1"] = 1; @x["k2"] = 5; @y[1, "a"] = 2; @z = (1, "two"); @str = "hello"; exit(); }
--- stdout


@a: 15

@c: 1
@ma: 9
@mi: -2
@s: 12
@st: count 2, average 6, total 12

@str: hello
@x[k1]: 1
@x[k2]: 5
@y[1, a]: 2
@z: (1, two)
### hist_powers
BEGIN { $i = 0; while ($i < 100) { @h = hist($i * $i * 7); $i++; } exit(); }
--- stdout


@h: 
[0]                    1 |@                                                   |
[1]                    0 |                                                    |
[2, 4)                 0 |                                                    |
[4, 8)                 1 |@                                                   |
[8, 16)                0 |                                                    |
[16, 32)               1 |@                                                   |
[32, 64)               1 |@                                                   |
[64, 128)              1 |@                                                   |
[128, 256)             2 |@@@                                                 |
[256, 512)             2 |@@@                                                 |
[512, 1K)              4 |@@@@@@@                                             |
[1K, 2K)               5 |@@@@@@@@@                                           |
[2K, 4K)               7 |@@@@@@@@@@@@@                                       |
[4K, 8K)              10 |@@@@@@@@@@@@@@@@@@                                  |
[8K, 16K)             14 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[16K, 32K)            20 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@               |
[32K, 64K)            28 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[64K, 128K)            3 |@@@@@                                               |

### hist_negative_zero_one
BEGIN { @n = hist(-5); @n = hist(0); @n = hist(1); @n = hist(1100000); exit(); }
--- stdout


@n: 
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2, 4)                 0 |                                                    |
[4, 8)                 0 |                                                    |
[8, 16)                0 |                                                    |
[16, 32)               0 |                                                    |
[32, 64)               0 |                                                    |
[64, 128)              0 |                                                    |
[128, 256)             0 |                                                    |
[256, 512)             0 |                                                    |
[512, 1K)              0 |                                                    |
[1K, 2K)               0 |                                                    |
[2K, 4K)               0 |                                                    |
[4K, 8K)               0 |                                                    |
[8K, 16K)              0 |                                                    |
[16K, 32K)             0 |                                                    |
[32K, 64K)             0 |                                                    |
[64K, 128K)            0 |                                                    |
[128K, 256K)           0 |                                                    |
[256K, 512K)           0 |                                                    |
[512K, 1M)             0 |                                                    |
[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### hist_keyed
BEGIN { @k[1] = hist(3); @k[2] = hist(100); @k[2] = hist(200); @k[3] = hist(1); @k[3] = hist(1); @k[3] = hist(1); exit(); }
--- stdout


@k[1]: 
[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@k[2]: 
[64, 128)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[128, 256)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@k[3]: 
[1]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### hist_big_suffixes
# bpftrace: differs 0.17's hist() puts every value from 2^31 up in its [2G, 4G) bucket
BEGIN { $one = 1; @h = hist($one << 20); @h = hist($one << 30); @h = hist($one << 40); @h = hist(3 * ($one << 50)); exit(); }
--- stdout


@h: 
[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2M, 4M)               0 |                                                    |
[4M, 8M)               0 |                                                    |
[8M, 16M)              0 |                                                    |
[16M, 32M)             0 |                                                    |
[32M, 64M)             0 |                                                    |
[64M, 128M)            0 |                                                    |
[128M, 256M)           0 |                                                    |
[256M, 512M)           0 |                                                    |
[512M, 1G)             0 |                                                    |
[1G, 2G)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2G, 4G)               0 |                                                    |
[4G, 8G)               0 |                                                    |
[8G, 16G)              0 |                                                    |
[16G, 32G)             0 |                                                    |
[32G, 64G)             0 |                                                    |
[64G, 128G)            0 |                                                    |
[128G, 256G)           0 |                                                    |
[256G, 512G)           0 |                                                    |
[512G, 1T)             0 |                                                    |
[1T, 2T)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2T, 4T)               0 |                                                    |
[4T, 8T)               0 |                                                    |
[8T, 16T)              0 |                                                    |
[16T, 32T)             0 |                                                    |
[32T, 64T)             0 |                                                    |
[64T, 128T)            0 |                                                    |
[128T, 256T)           0 |                                                    |
[256T, 512T)           0 |                                                    |
[512T, 1024T)          0 |                                                    |
[1024T, 2048T)         0 |                                                    |
[2048T, 4096T)         1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

--- bpftrace


@h: 
[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[2M, 4M)               0 |                                                    |
[4M, 8M)               0 |                                                    |
[8M, 16M)              0 |                                                    |
[16M, 32M)             0 |                                                    |
[32M, 64M)             0 |                                                    |
[64M, 128M)            0 |                                                    |
[128M, 256M)           0 |                                                    |
[256M, 512M)           0 |                                                    |
[512M, 1G)             0 |                                                    |
[1G, 2G)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[2G, 4G)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### lhist
BEGIN { $i = 0; while ($i < 100) { @l = lhist($i, 0, 50, 10); $i++; } exit(); }
--- stdout


@l: 
[0, 10)               10 |@@@@@@@@@@                                          |
[10, 20)              10 |@@@@@@@@@@                                          |
[20, 30)              10 |@@@@@@@@@@                                          |
[30, 40)              10 |@@@@@@@@@@                                          |
[40, 50)              10 |@@@@@@@@@@                                          |
[50, ...)             50 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### lhist_suffixes_and_overflow
BEGIN { @l = lhist(2048, 0, 4096, 1024); @l = lhist(-1, 0, 4096, 1024); @l = lhist(9999, 0, 4096, 1024); exit(); }
--- stdout


@l: 
(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[0, 1K)                0 |                                                    |
[1K, 2K)               0 |                                                    |
[2K, 3K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[3K, 4K)               0 |                                                    |
[4K, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### lhist_trimmed
BEGIN { @l = lhist(25, 0, 100, 5); @l = lhist(37, 0, 100, 5); @l = lhist(37, 0, 100, 5); exit(); }
--- stdout


@l: 
[25, 30)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[30, 35)               0 |                                                    |
[35, 40)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### lhist_keyed
BEGIN { @l["x"] = lhist(3, 0, 10, 1); @l["y"] = lhist(7, 0, 10, 1); @l["y"] = lhist(8, 0, 10, 1); exit(); }
--- stdout


@l[x]: 
[3, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l[y]: 
[7, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 9)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### agg_read_as_value
# bpftrace: skip 0.17 cannot read an aggregation in a probe ("%d specifier expects a value of type integer (count supplied)"); bpftrace 0.21+ and sprof can
BEGIN { @c = count(); @c = count(); @s = sum(-5); @mx = max(7); @a = avg(10); @a = avg(20); $x = @c; @y[@c, @s] = 1; @z = @s; @w = @mx; $v = @a; printf("%d %d\n", $x, $v); exit(); }
--- stdout
2 15


@a: 15

@c: 2
@mx: 7
@s: -5
@w: 7
@y[2, -5]: 1
@z: -5
### agg_in_expressions
# bpftrace: skip 0.17 rejects an aggregation in an expression ("comparing 'count' with 'int64'"); 0.27 reads its value merged across CPUs
BEGIN { @c = count(); @c = count(); @s = sum(10); @mn = min(-3); @a = avg(-1); @a = avg(-10); if (@c > 1 && @mn < 0) { printf("%d %d %d\n", @s + @c, (int64)@mn * 2, @a == -5); } @z = sum(0); print(((bool)@c, (bool)@z, @mn)); exit(); }
--- stdout
12 -6 1
(true, false, -3)


@a: -5

@c: 2
@mn: -3
@s: 10
@z: 0
### agg_in_interval
interval:ms:10 { @c = count(); @s = sum(2); @h = hist(4); @n++; if (@n == 3) { exit(); } }
--- stdout


@c: 3
@h: 
[4, 8)                 3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@n: 3
@s: 6
### sort_hists_by_total
BEGIN { @h[3] = hist(1); @h[1] = hist(1); @h[1] = hist(1); @h[2] = hist(1); @h[2] = hist(1); @h[2] = hist(1); exit(); }
--- stdout


@h[3]: 
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[1]: 
[1]                    2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[1]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### sort_avg_stats_by_value
BEGIN { @a[2] = avg(5); @a[1] = avg(10); @a[3] = avg(1); @s[2] = stats(5); @s[1] = stats(10); exit(); }
--- stdout


@a[3]: 1
@a[2]: 5
@a[1]: 10

@s[2]: count 1, average 5, total 5
@s[1]: count 1, average 10, total 10

### percpu_merged
# bpftrace: skip 0.17 cannot read an aggregation in a probe
# filter: ^@(c|s|hi|lo): \d+$ => @\1: N
profile:hz:499 { @c = count(); @s = sum(2); @hi = max(cpu); @lo = min(cpu); } interval:ms:300 { exit(); } END { $c = @c; $s = @s; $hi = @hi; $lo = @lo; printf("%d %d %d\n", $s == 2 * $c, $c > 0, $hi >= $lo); }
--- stdout
1 1 1


@c: 179
@hi: 1
@lo: 0
@s: 358
### lhist_offsets_and_k_labels
BEGIN { @b = lhist(150, 100, 200, 25); @b = lhist(50, 100, 200, 25); @c = lhist(1500, 1000, 3000, 500); @d = lhist(2048, 0, 10240, 2048); @d = lhist(10240, 0, 10240, 2048); @e = hist(0); exit(); }
--- stdout


@b: 
(..., 100)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[100, 125)             0 |                                                    |
[125, 150)             0 |                                                    |
[150, 175)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@c: 
[1500, 2000)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@d: 
[2K, 4K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4K, 6K)               0 |                                                    |
[6K, 8K)               0 |                                                    |
[8K, 10K)              0 |                                                    |
[10K, ...)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@e: 
[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### bar_widths
BEGIN { $i = 0; while ($i < 200) { @l = lhist($i % 7 == 0 ? 0 : ($i % 3 == 0 ? 1 : ($i % 11 == 0 ? 2 : 3)), 0, 10, 1); @h = hist($i * $i * $i % 1000); $i++; } exit(); }
--- stdout


@h: 
[0]                   20 |@@@@@@@@@@@                                         |
[1]                    1 |                                                    |
[2, 4)                 0 |                                                    |
[4, 8)                 0 |                                                    |
[8, 16)                1 |                                                    |
[16, 32)               5 |@@                                                  |
[32, 64)               6 |@@@                                                 |
[64, 128)             12 |@@@@@@                                              |
[128, 256)            18 |@@@@@@@@@@                                          |
[256, 512)            45 |@@@@@@@@@@@@@@@@@@@@@@@@@                           |
[512, 1K)             92 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l: 
[0, 1)                29 |@@@@@@@@@@@@@@                                      |
[1, 2)                57 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@                        |
[2, 3)                10 |@@@@@                                               |
[3, 4)               104 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### tseries_keyed_gaps
# bpftrace: skip tseries() is bpftrace 0.27's; the time comes from @ts (BPFTRACE_DUMMY_TS_MAP, its test hook)
# env: BPFTRACE_DUMMY_TS_MAP=@ts
# env: TZ=UTC
BEGIN { @ts = (uint64)1000000000; $i = 0; while ($i < 6) { @z["a"] = tseries($i - 2, 1s, 8); @ts += 1000000000; $i++; } @ts += 2000000000; @z["b"] = tseries(7, 1s, 8); clear(@ts); exit(); }
--- stdout



@z[a]:
         -1                                                  3
hh:mm:ss |___________________________________________________|
00:00:02 *            .                                      | -1
00:00:03 |            *                                      | 0
00:00:04 |            .            *                         | 1
00:00:05 |            .                         *            | 2
00:00:06 |            .                                      * 3
00:00:07 |            .                                      | -
00:00:08 |            .                                      | -
00:00:09 |            .                                      | -
         v___________________________________________________v
         -1                                                  3

@z[b]:
                   6                                                   8
hh:mm:ss.ns        |___________________________________________________|
00:00:09.000000000 |                         *                         | 7
                   v___________________________________________________v
                   6                                                   8

### tseries_functions
# bpftrace: skip tseries() is bpftrace 0.27's
# env: BPFTRACE_DUMMY_TS_MAP=@ts
# env: TZ=UTC
BEGIN { @ts = (uint64)500000000; @av = tseries(4, 100ms, 3, "avg"); @av = tseries(7, 100ms, 3, "avg"); @su = tseries(4, 100ms, 3, "sum"); @su = tseries(7, 100ms, 3, "sum"); @mi = tseries(4, 100ms, 3, "min"); @mi = tseries(7, 100ms, 3, "min"); @ma = tseries(4, 100ms, 3, "max"); @ma = tseries(7, 100ms, 3, "max"); @la = tseries(4, 100ms, 3); @la = tseries(7, 100ms, 3); @ts += 100000000; @av = tseries(1, 100ms, 3, "avg"); @su = tseries(1, 100ms, 3, "sum"); @mi = tseries(1, 100ms, 3, "min"); @ma = tseries(1, 100ms, 3, "max"); @la = tseries(1, 100ms, 3); clear(@ts); exit(); }
--- stdout


@av:
             1                                                   5
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                                                   * 5
00:00:00.600 *                                                   | 1
             v___________________________________________________v
             1                                                   5

@la:
             1                                                   7
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                                                   * 7
00:00:00.600 *                                                   | 1
             v___________________________________________________v
             1                                                   7

@ma:
             1                                                   7
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                                                   * 7
00:00:00.600 *                                                   | 1
             v___________________________________________________v
             1                                                   7

@mi:
             1                                                   4
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                                                   * 4
00:00:00.600 *                                                   | 1
             v___________________________________________________v
             1                                                   4

@su:
             1                                                  11
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                                                   * 11
00:00:00.600 *                                                   | 1
             v___________________________________________________v
             1                                                  11


### tseries_json
# bpftrace: skip tseries() is bpftrace 0.27's
# opts: -f json
# env: BPFTRACE_DUMMY_TS_MAP=@ts
BEGIN { @ts = (uint64)1000000000; $i = 0; while ($i < 3) { @z["a"] = tseries($i, 1s, 4); @ts += 1000000000; $i++; } @ts += 1000000000; @z["b"] = tseries(7, 1s, 4); @s = tseries(-1, 1s, 2); clear(@ts); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "tseries", "data": {"@s": [{"interval_start": "1970-01-01 00:00:05.000000000", "value": -1}]}}
{"type": "tseries", "data": {"@z": {"a": [{"interval_start": "1970-01-01 00:00:02.000000000", "value": 1}, {"interval_start": "1970-01-01 00:00:03.000000000", "value": 2}], "b": [{"interval_start": "1970-01-01 00:00:05.000000000", "value": 7}]}}}
### tseries_zero_clear
# bpftrace: skip tseries() is bpftrace 0.27's
# env: BPFTRACE_DUMMY_TS_MAP=@ts
BEGIN { @ts = (uint64)1000000000; @a[1] = tseries(5, 1s, 3); @c = tseries(3, 1s, 3); zero(@a); clear(@c); clear(@ts); exit(); }
--- stdout


@a[1]:
<no data>


### tseries_wall_clock
# bpftrace: skip tseries() is bpftrace 0.27's
# filter: ^\d\d:\d\d:\d\d\.\d{9} => HH:MM:SS.NS
BEGIN { @ = tseries(2, 1s, 2); exit(); }
--- stdout


@:
                   1                                                   3
hh:mm:ss.ns        |___________________________________________________|
HH:MM:SS.NS |                         *                         | 2
                   v___________________________________________________v
                   1                                                   3

