Integer literals, integer types and casts.
### literals
BEGIN { printf("%d %d %d %d %d\n", 0x1f, 017, 1e3, 1_000, 0); exit(); }
--- stdout
31 15 1000 1000 0


### hex_digit_e
BEGIN { printf("%x %x %d %d %x\n", 0xdeadbeef, 0xe, 0x1e2, 0xee, 0xEe); exit(); }
--- stdout
deadbeef e 482 238 ee


### suffixes
BEGIN { printf("%d %d %d %d %d %llu %d\n", 10u, 10ul, 10ull, 10l, 10ll, 4294967295u, 1_000_000u); exit(); }
--- stdout
10 10 10 10 10 4294967295 1000000


### durations
# bpftrace: skip 0.17 has no duration literals (0.25+: an integer in nanoseconds)
BEGIN { printf("%llu %llu %llu %llu %llu %llu %llu\n", 10ns, 5us, 100ms, 1s, 2m, 1h, 1d); $t = nsecs + 1s; printf("%d\n", $t - nsecs > 900ms); exit(); }
--- stdout
10 5000 100000000 1000000000 120000000000 3600000000000 86400000000000
1


### bool
# bpftrace: skip 0.17 has no bool (0.24+: true and false, printed so)
BEGIN { $t = true; print($t); print(false); print((true, 1)); printf("%d %d %s|%6s|\n", true, false, true, false); if ($t && !false) { printf("yes\n"); } @k[true] = false; @c = (bool)256; @d = (bool)0; @a[1] = 1; @h = has_key(@a, 1); exit(); }
--- stdout
true
false
(true, 1)
1 0 true| false|
yes


@a[1]: 1
@c: true
@d: false
@h: true
@k[true]: false
### bool_ternary
# bpftrace: skip 0.17 has no bool (0.24+: a ?: of two bools is a bool)
BEGIN { $a = nsecs ? true : false; print($a); @b = pid ? false : true; @n = pid ? 2 : false; exit(); }
--- stdout
true


@b: false
@n: 2
### bool_json
# opts: -f json
# bpftrace: skip 0.17 has no bool (0.24+: JSON's true and false)
BEGIN { print((true, 1)); @k[true] = false; exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": [true,1]}


{"type": "map", "data": {"@k": {"true": false}}}
### cast_truncates
BEGIN { printf("%d %d %d %d %u %d\n", (uint8)300, (int8)200, (uint16)70000, (int16)40000, (uint32)-1, (int32)4294967295); exit(); }
--- stdout
44 -56 4464 -25536 4294967295 -1


### cast_arrays
# bpftrace: skip 0.17 has no array casts (0.27: an integer's bytes as an integer array and back)
BEGIN { $a = (int8[8])12345; printf("%x %x %d|%x\n", $a[0], $a[1], (uint64)$a, ((uint8[])(uint16)513)[1]); print((int8[])"hi"); @b = (bool[2])(uint16)1; @k[(uint8[2])(uint16)513] = (uint32)pton("127.0.0.1"); exit(); }
--- stdout
39 30 12345|2
[104,105,0]


@b: [true,false]
@k[[1,2]]: 16777343
### cast_short_names
# bpftrace: skip 0.17 knows only the uint8..int64 spellings of the types ("Unknown struct/union: 'u16'")
BEGIN { printf("%d %d %d %d %d %d %d %d\n", (u8)257, (s8)255, (u16)65537, (s16)65535, (u32)4294967297, (s32)4294967295, (u64)5, (s64)-5); exit(); }
--- stdout
1 -1 1 -1 1 -1 5 -5


### cast_widen_unsigned
# bpftrace: differs 0.17 sign-extends a narrower unsigned value when casting it wider: (int64)(uint32)-1 is -1 there (also with %lld)
BEGIN { printf("%d\n", (int64)(uint32)-1); exit(); }
--- stdout
4294967295


--- bpftrace
-1


### cast_u64_of_negative
# bpftrace: differs 0.17 hands %d %u %x %X %o without l/ll to C's printf, which reads 32 bits: it prints the low half of a 64-bit value; sprof prints all 64 bits
BEGIN { $c = (uint64)-1; printf("%u %d %x\n", $c, $c > 0, $c); exit(); }
--- stdout
18446744073709551615 1 ffffffffffffffff


--- bpftrace
4294967295 1 ffffffff


### cast_int_types_print
BEGIN { @a = (uint8)255; @b = (int8)-1; @c = (uint16)65535; @d = (int16)-2; @e = (uint32)4294967295; @f = (int32)-3; @g = (uint64)18446744073709551615; @h = (int64)-4; exit(); }
--- stdout


@a: 255
@b: -1
@c: 65535
@d: -2
@e: 4294967295
@f: -3
@g: 18446744073709551615
@h: -4
### var_keeps_64_bits
# bpftrace: differs a scratch variable is 64 bits wide in sprof, its signedness from the first value; 0.17 keeps the cast's width and loses the store of a wider value (250 + 10 stays 250)
BEGIN { $a = (uint8)250; $a += 10; printf("%d\n", $a); $b = (int8)127; $b++; printf("%d\n", $b); $c = (uint8)($a); printf("%d\n", $c); exit(); }
--- stdout
260
128
4


--- bpftrace
250
-128
250


### unsigned_compare
BEGIN { $a = (uint32)5; $b = (int32)-1; printf("%d %d\n", $a > $b, -1 < 1); exit(); }
--- stdout
0 1


--- stderr
warning: comparison of integers of different signs
### wide_values_ll
BEGIN { $u = (uint64)0; $u = $u - 1; $one = 1; printf("%llu %llx %lld %lld\n", $u, $u, $one << 40, -($one << 40)); printf("%llu\n", (uint64)-1); exit(); }
--- stdout
18446744073709551615 ffffffffffffffff 1099511627776 -1099511627776
18446744073709551615


### signed_compare
BEGIN { $a = -3; $b = 2; printf("%d %d %d %d\n", $a < $b, $a > $b, $a <= -3, $a >= -2); exit(); }
--- stdout
1 0 1 0


### unsigned_wraps
# bpftrace: differs 0.17 hands %d %u %x %X %o without l/ll to C's printf, which reads 32 bits: it prints the low half of a 64-bit value; sprof prints all 64 bits; and 0.17 folds the constant (uint64)1 << 63 to 0
BEGIN { $u = (uint64)0; $u = $u - 1; printf("%u %x\n", $u, $u); $v = (uint64)1 << 63; printf("%u\n", $v); exit(); }
--- stdout
18446744073709551615 ffffffffffffffff
9223372036854775808


--- bpftrace
4294967295 ffffffff
0


### shifts
BEGIN { $a = -16; printf("%d %d\n", $a >> 2, $a << 2); $u = (uint64)16; printf("%d %d\n", $u >> 2, $u << 60); exit(); }
--- stdout
-4 -64
4 0


### negative_in_map
BEGIN { @n = -5; @m[1] = -2147483649; @big = 9223372036854775807; exit(); }
--- stdout


@big: 9223372036854775807
@m[1]: -2147483649
@n: -5
### narrow_types_in_maps
BEGIN { @m = (uint8)255; @m++; @n = (int8)-1; @k[(uint16)1] = 1; @k[(uint16)2] = 2; @s[(int8)-1] = (int8)-1; @u[(uint32)4000000000] = 1; exit(); }
--- stdout


@k[1]: 1
@k[2]: 2
@m: 256
@n: -1
@s[-1]: -1
@u[4000000000]: 1
