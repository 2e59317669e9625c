Statements that steer: if/else, unroll, while, break, continue, return, exit, END, interval.
### if_else_chain
BEGIN { $x = 5; if ($x > 10) { printf("big\n"); } else if ($x > 3) { printf("mid\n"); } else { printf("small\n"); } if ($x == 0) { printf("zero\n"); } else { printf("nonzero\n"); } exit(); }
--- stdout
mid
nonzero


### if_nested
BEGIN { $i = 2; if ($i > 0) { if ($i > 1) { printf("a\n"); } else { printf("b\n"); } } exit(); }
--- stdout
a


### predicate
interval:ms:10 /@n < 3/ { @n++; } interval:ms:10 /@n > 100/ { printf("never\n"); } interval:ms:200 /@n >= 3/ { printf("three\n"); exit(); }
--- stdout
three


@n: 3
### predicate_on_map
BEGIN { @on = 1; } interval:ms:10 /@on/ { @n++; if (@n == 3) { @on = 0; exit(); } }
--- stdout


@n: 3
@on: 0
### unroll
BEGIN { $i = 0; unroll(5) { $i += 2; } printf("%d\n", $i); unroll(1) { printf("once\n"); } exit(); }
--- stdout
10
once


### while_break_continue
BEGIN { $i = 0; while ($i < 10) { $i++; if ($i == 3) { continue; } if ($i > 6) { break; } printf("%d ", $i); } printf("\n"); exit(); }
--- stdout
1 2 4 5 6 


### while_nested
BEGIN { $i = 0; $n = 0; while ($i < 4) { $j = 0; while ($j < $i) { $n++; $j++; } $i++; } printf("%d\n", $n); exit(); }
--- stdout
6


### while_fills_map
BEGIN { $i = 0; while ($i < 5) { @sq[$i] = $i * $i; $i++; } exit(); }
--- stdout


@sq[0]: 0
@sq[1]: 1
@sq[2]: 4
@sq[3]: 9
@sq[4]: 16
### return_leaves_probe
BEGIN { printf("a\n"); if (1) { return; } printf("b\n"); } END { printf("end\n"); } interval:ms:10 { exit(); }
--- stdout
a
end


### exit_then_end
BEGIN { @x = 1; exit(); } END { printf("end %d\n", @x); @x = 2; }
--- stdout
end 1


@x: 2
### interval_counts
interval:ms:20 { @n++; if (@n == 3) { exit(); } } END { printf("end %d\n", @n); }
--- stdout
end 3


@n: 3
### several_begin
# bpftrace: skip 0.17 allows one BEGIN probe ("More than one BEGIN probe defined"); sprof runs them in order
BEGIN { printf("a\n"); } BEGIN { printf("b\n"); exit(); }
--- stdout
a
b


### probe_list
# bpftrace: skip 0.17 cannot generate BEGIN and END in one probe list ("Code not generated for probe: BEGIN,END")
BEGIN, END { printf("%s\n", probe); } interval:ms:10 { exit(); }
--- stdout
BEGIN
END


### probe_list_intervals
interval:ms:10, interval:s:100 { @n++; if (@n == 2) { printf("%s\n", probe); exit(); } }
--- stdout
interval:ms:10


@n: 2
### empty_body
BEGIN { } END { printf("end\n"); } interval:ms:10 { exit(); }
--- stdout
end


### comments
BEGIN {
  // a line comment
  $a = 1; /* a block
  comment */ printf("%d\n", $a);
  exit();
}
--- stdout
1


### state_machine
interval:ms:5 { @ticks++; @state = @state == 0 ? 1 : (@state == 1 ? 2 : 0); @seen[@state] = sum(@ticks); if (@ticks == 6) { exit(); } }
--- stdout


@seen[1]: 5
@seen[2]: 7
@seen[0]: 9
@state: 0
@ticks: 6
### classify_loop
BEGIN { $i = 0; while ($i < 20) { @kind[$i % 3 == 0 ? "three" : ($i % 2 == 0 ? "even" : "odd")] = sum($i); @sq = hist($i * $i); $i++; } exit(); }
--- stdout


@kind[even]: 54
@kind[three]: 63
@kind[odd]: 73
@sq: 
[0]                    1 |@@@@@@@@@@@@@                                       |
[1]                    1 |@@@@@@@@@@@@@                                       |
[2, 4)                 0 |                                                    |
[4, 8)                 1 |@@@@@@@@@@@@@                                       |
[8, 16)                1 |@@@@@@@@@@@@@                                       |
[16, 32)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[32, 64)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[64, 128)              4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[128, 256)             4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[256, 512)             4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### while_1000_map_updates
BEGIN { $i = 0; while ($i < 1000) { @x++; @c = count(); $i++; } exit(); }
--- stdout


@c: 1000
@x: 1000
### while_500_map_updates
BEGIN { $i = 0; while ($i < 500) { @x++; $i++; } exit(); }
--- stdout


@x: 500
### periodic_print_clear
interval:ms:10 { @t++; @k[@t % 3] = sum(@t); if (@t % 3 == 0) { printf("tick %d\n", @t); print(@k); clear(@k); } if (@t == 6) { exit(); } }
--- stdout
tick 3
@k[1]: 1
@k[2]: 2
@k[0]: 3
tick 6
@k[1]: 4
@k[2]: 5
@k[0]: 6



@t: 6
### periodic_hist_zero
interval:ms:10 { @t++; @l = lhist(@t * 7, 0, 50, 10); if (@t == 4) { print(@l); zero(@l); } if (@t == 6) { exit(); } }
--- stdout
@l: 
[0, 10)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[10, 20)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[20, 30)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|



@l: 
[30, 40)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[40, 50)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@t: 6
### end_reads_maps
BEGIN { @start = 10; } interval:ms:10 { @n++; @last = @n * 100; if (@n == 3) { exit(); } } END { printf("%d %d %d\n", @start, @n, @last - @start); delete(@start); }
--- stdout
10 3 290


@last: 300
@n: 3

### end_prints_and_exits
BEGIN { @a[1] = 5; @b = 3; exit(); } END { print(@a); clear(@a); printf("end %d\n", @b); exit(); }
--- stdout
@a[1]: 5
end 3



@b: 3
### end_events
# filter: ^\d{4}$ => YYYY
END { time("%Y\n"); cat("/proc/sys/kernel/ostype"); } interval:ms:5 { exit(); }
--- stdout
2026
Linux


### angle_blocks
# bpftrace: skip 0.17 has no `< >` blocks (an sprof extension)
BEGIN < $x = 2; if ($x > 1) { printf("%d\n", $x >> 1); } exit(); >
--- stdout
1


### bpftrace027_statement_forms
# bpftrace: skip 0.17 has none of these forms (0.27: paren-less conditions, if as a value, ?:, _ =, return expr)
BEGIN { @a[1] = 1; $i = 0; while !($i >= 3) { $i++; } if $i { printf("i=%d\n", $i); } else if !$i { printf("no\n"); } for $k : 0..2 { printf("k=%d\n", $k); } for $kv : @a { print($kv); } if 1 { $x = 7; } let $x = "late"; print($x); $v = if ($i > 5) { "big" } else if $i { "some" } else { "none" }; print($v); print(if $i { if 0 { 1 } else { 2 } } else { 3 }); $z = 0; print(($z ?: 10, $i ?: 10)); _ = { printf("discarded\n"); 1 }; $t = (1, "two", 3); print($t[1 + 1]); print(curtask ? "task" : "none"); clear(@a); exit(); return printf("not reached\n"); }
--- stdout
i=3
k=0
k=1
(1, 1)
late
some
2
(10, 3)
discarded
3
task



