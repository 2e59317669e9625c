delete, clear, zero and print. print() is an event: user space reads the map when the event arrives, after the probe's whole action has run.
### delete
BEGIN { @a[1] = 1; @a[2] = 2; @a[3] = 3; delete(@a[2]); delete(@a[9]); @s = 5; delete(@s); exit(); }
--- stdout


@a[1]: 1
@a[3]: 3

### delete_multikey
BEGIN { @m[1, "a"] = 1; @m[2, "b"] = 2; delete(@m[1, "a"]); exit(); }
--- stdout


@m[2, b]: 2
### delete_map_and_key
# bpftrace: skip 0.17 has only delete(@m[key]); delete(@m, key) came in 0.22
BEGIN { @a[1] = 1; @a[2] = 2; @m[1, "a"] = 1; @m[2, "b"] = 2; @s = 5; $gone = delete(@a, 2); printf("%d %d\n", $gone, delete(@a, 2)); delete(@m, (1, "a")); delete(@s); exit(); }
--- stdout
1 0


@a[1]: 1
@m[2, b]: 2

### has_key
# bpftrace: skip 0.17 has no has_key() (0.22+)
BEGIN { @a[1] = 1; @m[1, "a"] = 1; @c["x"] = count(); printf("%d %d %d %d %d\n", has_key(@a, 1), has_key(@a, 2), has_key(@m, (1, "a")), has_key(@m, (1, "b")), has_key(@c, "x")); if (!has_key(@a, 3)) { printf("no 3\n"); } clear(@a); clear(@m); clear(@c); exit(); }
--- stdout
1 0 1 0 1
no 3





### len
# bpftrace: skip 0.17 has no len() (0.20+)
BEGIN { @a[1] = 1; @a[2] = 2; @m[1, "a"] = 1; @c["x"] = count(); @c["y"] = count(); printf("%d %d %d %d\n", len(@a), len(@m), len(@c), len(@later)); delete(@a, 1); printf("%d\n", len(@a)); clear(@a); clear(@m); clear(@c); exit(); }
END { @later[1, "k"] = 5; printf("%d\n", len(@later)); }
--- stdout
2 1 2 0
1
1




@later[1, k]: 5

### clear
BEGIN { @m[1] = 1; @m[2] = 2; clear(@m); @c = count(); clear(@c); exit(); }
--- stdout


@c: 0

### zero
BEGIN { @z[1] = 5; zero(@z); @c = count(); @c = count(); zero(@c); @h = hist(5); zero(@h); exit(); }
--- stdout


@c: 0
@h: 

@z[1]: 0
### print_map
BEGIN { @a[1] = 10; @a[2] = 20; @a[3] = 5; @a[4] = 40; } interval:ms:10 { print(@a); clear(@a); exit(); }
--- stdout
@a[3]: 5
@a[1]: 10
@a[2]: 20
@a[4]: 40



### print_top
BEGIN { @a[1] = 10; @a[2] = 20; @a[3] = 5; @a[4] = 40; } interval:ms:10 { print(@a, 2); exit(); }
--- stdout
@a[2]: 20
@a[4]: 40


@a[3]: 5
@a[1]: 10
@a[2]: 20
@a[4]: 40
### print_div
BEGIN { @a[1] = 10; @a[2] = 25; @a[3] = 5; @a[4] = 40; } interval:ms:10 { print(@a, 0, 10); exit(); }
--- stdout
@a[3]: 0
@a[1]: 1
@a[2]: 2
@a[4]: 4


@a[3]: 5
@a[1]: 10
@a[2]: 25
@a[4]: 40
### print_top_div
BEGIN { @a[1] = 10; @a[2] = 25; @a[3] = 5; @a[4] = 40; } interval:ms:10 { print(@a, 3, 5); exit(); }
--- stdout
@a[1]: 2
@a[2]: 5
@a[4]: 8


@a[3]: 5
@a[1]: 10
@a[2]: 25
@a[4]: 40
### print_is_async
BEGIN { @a[1] = 10; @a[2] = 20; print(@a); delete(@a[2]); print(@a); clear(@a); @c = count(); @c = count(); zero(@c); print(@c); exit(); }
--- stdout
@a[1]: 10
@a[1]: 10
@c: 0



@c: 0
### print_hist
BEGIN { @h = hist(5); @h = hist(9); @l[1] = lhist(3, 0, 10, 1); } interval:ms:10 { print(@h); print(@l); clear(@h); exit(); }
--- stdout
@h: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l[1]: 
[3, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|




@l[1]: 
[3, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### print_stats_avg
BEGIN { @a = avg(3); @a = avg(4); @s = stats(6); } interval:ms:10 { print(@a); print(@s); clear(@a); clear(@s); exit(); }
--- stdout
@a: 3

@s: count 1, average 6, total 6







### print_scalar_map
BEGIN { @x = 3; @c = count(); } interval:ms:10 { print(@x); print(@c); exit(); }
--- stdout
@x: 3
@c: 1


@c: 1
@x: 3
### print_value
BEGIN { print(123); print("str"); print((1, "a", (2, 3))); print(-5); $v = 7; print($v); exit(); }
--- stdout
123
str
(1, a, (2, 3))
-5
7


### cleared_count_scalar
BEGIN { @a = count(); clear(@a); exit(); }
--- stdout


@a: 0
### cleared_sum_min_max_scalar
BEGIN { @s = sum(3); @mi = min(3); @ma = max(3); clear(@s); clear(@mi); clear(@ma); exit(); }
--- stdout





### cleared_avg_stats
BEGIN { @a = avg(3); @s = stats(3); @k[1] = avg(4); clear(@a); clear(@s); clear(@k); exit(); }
--- stdout








### cleared_other_maps
BEGIN { @h = hist(3); @l = lhist(3, 0, 10, 1); @v = 5; @s = "s"; @k[1] = 2; clear(@h); clear(@l); clear(@v); clear(@s); clear(@k); exit(); }
--- stdout







### zeroed_aggs
BEGIN { @a = avg(3); @s = stats(3); @mi = min(3); @ma = max(3); @k[1] = avg(4); zero(@a); zero(@s); zero(@mi); zero(@ma); zero(@k); exit(); }
--- stdout


@a: 0

@k[1]: 0

@ma: 0
@mi: 0
@s: count 0, average 0, total 0

### print_count_top_div
BEGIN { @c[1] = count(); @c[2] = count(); @c[2] = count(); print(@c, 1); print(@c, 0, 2); exit(); }
--- stdout
@c[2]: 2
@c[1]: 0
@c[2]: 1


@c[1]: 1
@c[2]: 2
### print_hist_top
BEGIN { @h = hist(5); print(@h, 1); exit(); }
--- stdout
@h: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|



@h: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

### delete_aggregations
# bpftrace: differs 0.17 is broken too: it deletes one bucket of a hist() key, nothing of an lhist() or stats() key
BEGIN { @h[1] = hist(1); @h[2] = hist(2); @h[2] = hist(100); delete(@h[2]); @l[1] = lhist(1, 0, 10, 1); @l[2] = lhist(5, 0, 10, 1); delete(@l[1]); @s[1] = stats(3); @s[2] = stats(4); delete(@s[1]); exit(); }
--- stdout


@h[1]: 
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l[2]: 
[5, 6)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@s[2]: count 1, average 4, total 4

--- bpftrace


@h[1]: 
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l[1]: 
[1, 2)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@l[2]: 
[5, 6)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@s[1]: count 1, average 0, total 0
@s[2]: count 1, average 4, total 4

### delete_percpu_aggs
# bpftrace: differs 0.17 leaves a deleted avg() key behind as `@a[1]: 0`
BEGIN { @c[1] = count(); @c[2] = count(); delete(@c[1]); @s[1] = sum(5); @s[2] = sum(6); delete(@s[2]); @a[1] = avg(5); @a[2] = avg(7); delete(@a[1]); @m[1] = max(3); @m[2] = max(4); delete(@m[1]); @c0 = count(); delete(@c0); exit(); }
--- stdout


@a[2]: 7

@c[2]: 1
@c0: 0
@m[2]: 4
@s[1]: 5
--- bpftrace


@a[1]: 0
@a[2]: 7

@c[2]: 1
@c0: 0
@m[2]: 4
@s[1]: 5
### print_top_div_avg_stats_hist
# bpftrace: differs 0.17 ignores top and div for stats() maps ("print()'s top and div arguments are ignored when used on stats() maps"); sprof keeps the top entries by average and divides average and total
BEGIN { @a[1] = avg(10); @a[2] = avg(40); @a[3] = avg(20); @s[1] = stats(10); @s[2] = stats(30); @s[3] = stats(5); @s[3] = stats(5); @s[3] = stats(5); @h[1] = hist(5); @h[2] = hist(6); @h[2] = hist(7); } interval:ms:5 { print(@a, 2); print(@a, 0, 10); print(@s, 2); print(@s, 0, 5); print(@h, 1); print(@h, 0, 2); exit(); }
--- stdout
@a[3]: 20
@a[2]: 40

@a[1]: 1
@a[3]: 2
@a[2]: 4

@s[1]: count 1, average 10, total 10
@s[2]: count 1, average 30, total 30

@s[3]: count 3, average 1, total 3
@s[1]: count 1, average 2, total 2
@s[2]: count 1, average 6, total 6

@h[2]: 
[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[1]: 
[4, 8)                 0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|



@a[1]: 10
@a[3]: 20
@a[2]: 40

@h[1]: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@s[3]: count 3, average 5, total 15
@s[1]: count 1, average 10, total 10
@s[2]: count 1, average 30, total 30

--- bpftrace
@a[3]: 20
@a[2]: 40

@a[1]: 1
@a[3]: 2
@a[2]: 4

@s[3]: count 3, average 5, total 15
@s[1]: count 1, average 10, total 10
@s[2]: count 1, average 30, total 30

@s[3]: count 3, average 5, total 15
@s[1]: count 1, average 10, total 10
@s[2]: count 1, average 30, total 30

@h[2]: 
[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[1]: 
[4, 8)                 0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|



@a[1]: 10
@a[3]: 20
@a[2]: 40

@h[1]: 
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[2]: 
[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@s[3]: count 3, average 5, total 15
@s[1]: count 1, average 10, total 10
@s[2]: count 1, average 30, total 30

