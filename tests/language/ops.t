Every operator, precedence, compound assignments and ++/--.
### arith
BEGIN { $a = 17; $b = 5; printf("%d %d %d %d %d\n", $a + $b, $a - $b, $a * $b, $a / $b, $a % $b); exit(); }
--- stdout
22 12 85 3 2


### arith_negative
BEGIN { $a = -17; $b = 5; printf("%d %d %d\n", $a + $b, $a - $b, $a * $b); exit(); }
--- stdout
-12 -22 -85


### signed_division
# bpftrace: differs 0.17 divides signed values as unsigned ones (5 / -3 is 0, 5 % -3 is 5, -5 / 2 is -3); sprof truncates toward zero like C
BEGIN { $a = 5; $b = -3; printf("%d %d %d %d %d\n", $a / $b, $a % $b, -5 / 2, -5 % 2, -6 / -3); exit(); }
--- stdout
-1 2 -2 -1 2


--- stderr
warning: signed operands for '/' can lead to undefined behavior
--- bpftrace
0 5 -3 1 0


### division_by_zero
# bpftrace: skip 0.17 rejects a constant division by zero; sprof gives 0 like the BPF instruction set
BEGIN { $z = 0; printf("%d %d\n", (uint64)10 / $z, (uint64)10 % $z); exit(); }
--- stdout
0 0


### unsigned_division
BEGIN { $a = (uint64)17; printf("%d %d\n", $a / 5, $a % 5); exit(); }
--- stdout
3 2


### bitwise
BEGIN { $a = 12; printf("%d %d %d %d %d\n", $a & 10, $a | 3, $a ^ 5, ~$a, $a & ~4); exit(); }
--- stdout
8 15 9 -13 8


### logical
BEGIN { printf("%d %d %d %d %d %d\n", 5 && 7, 5 && 0, 0 || 0, 0 || 3, !0, !9); exit(); }
--- stdout
1 0 0 1 1 0


### logical_short_circuit
BEGIN { $n = 0; if (0 && $n++) { } if (1 || $n++) { } if (1 && $n++ == 0) { } printf("%d\n", $n); exit(); }
--- stdout
1


### comparisons
BEGIN { $a = 5; printf("%d %d %d %d %d %d\n", $a < 6, $a <= 5, $a > 5, $a >= 6, $a == 5, $a != 5); exit(); }
--- stdout
1 1 0 0 1 0


### unary
BEGIN { $a = 5; printf("%d %d %d %d\n", -$a, !$a, ~$a, - -$a); exit(); }
--- stdout
-5 0 -6 5


### precedence_arith
BEGIN { printf("%d %d %d %d %d\n", 1 + 2 * 3, (1 + 2) * 3, 10 - 4 - 3, 100 / 10 / 5, 7 - 10 % 4 * 2); exit(); }
--- stdout
7 9 3 2 3


### precedence_shift_compare
BEGIN { printf("%d %d %d %d\n", 1 << 2 + 1, 32 >> 1 + 1, 1 < 2 == 1, 3 > 2 > 1); exit(); }
--- stdout
8 8 1 0


### precedence_bitwise
BEGIN { printf("%d %d %d %d\n", 6 & 3 == 3, 1 | 2 ^ 3 & 4, 5 & 3 | 8, 2 + 3 * 4 - 10 / 2 % 3 << 1 | 1 & 3 ^ 2); exit(); }
--- stdout
0 3 9 27


### precedence_logical
BEGIN { printf("%d %d %d %d\n", 1 || 0 && 0, (1 || 0) && 0, !0 + 1, 0 == 0 && 2 > 1); exit(); }
--- stdout
1 0 2 1


### ternary
BEGIN { $x = 5; printf("%s %d %d\n", $x > 3 ? "yes" : "no", $x < 3 ? 1 : 2, $x ? $x > 4 ? 40 : 30 : 0); exit(); }
--- stdout
yes 2 40


### compound_assign_var
BEGIN { $x = 10; $x += 5; $x -= 3; $x *= 4; $x /= 6; $x %= 5; $x <<= 4; $x >>= 1; $x |= 3; $x &= 14; $x ^= 5; printf("%d\n", $x); exit(); }
--- stdout
15


### compound_assign_map
BEGIN { @x = 10; @x += 5; @x -= 3; @x *= 4; @x /= 6; @x %= 5; @x <<= 4; @x >>= 1; @x |= 3; @x &= 14; @x ^= 5; @k[1] = 2; @k[1] *= 21; exit(); }
--- stdout


@k[1]: 42
@x: 15
### incdec_var
BEGIN { $x = 1; $y = $x++ + 10; $z = ++$x + 10; $w = $x--; $v = --$x; printf("%d %d %d %d %d\n", $x, $y, $z, $w, $v); exit(); }
--- stdout
1 11 13 3 1


### incdec_map
BEGIN { @a = 1; @a++; @a++; @a--; ++@a; @b[1] = 5; @b[1]++; @b[2]--; @b[3] = 9; --@b[3]; @m = 5; $p = @m++; $q = --@m; printf("%d %d\n", $p, $q); exit(); }
--- stdout
5 5


@a: 3
@b[2]: -1
@b[1]: 6
@b[3]: 8
@m: 5
### compare_result_sign
BEGIN { printf("%lld %lld %lld %lld\n", ((-3) && 0) <= (-3), -5 <= (2 != 255), -1 < (1 == 1), ((1 && (uint64)5) < -8)); exit(); }
--- stdout
0 1 1 1


### unary_sign
BEGIN { printf("%lld %lld %lld %lld %lld\n", (!5) < -1, (!(uint64)5) < -1, -(uint64)5 < 0, ~(uint64)5 < 0, ~5 < 0); exit(); }
--- stdout
1 1 0 0 1


### shift_right_signed
# bpftrace: differs 0.17 shifts signed values right logically (zero fill): (-3) >> 7 is 144115188075855871 there; sprof shifts them arithmetically like C compilers (-1)
BEGIN { printf("%lld %lld %llu\n", (-3) >> 7, -1024 >> 3, (uint64)(-1024) >> 60); exit(); }
--- stdout
-1 -128 15


--- bpftrace
144115188075855871 2305843009213693824 15


### compare_is_bool
# bpftrace: skip 0.17 prints comparisons as 1 and 0; 0.27 (and sprof) print them as bool, true or false
BEGIN { print(1 < 2); print({ $x = 1; $x > 1 }); @m[pid == 0] = !0; @t = ("a" == "a", 2 != 2, 1 && 0, 0 || 3); printf("%d %d %lld\n", 1 < 2, (1 < 2) + 1, ((1 && (uint64)5) < -8)); exit(); }
--- stdout
true
false
1 2 1


@m[false]: true
@t: (true, false, false, true)
