Strings: comparisons, strncmp, size, positional parameters.
### string_equality
BEGIN { $s = "hello"; if ($s == "hello") { printf("eq\n"); } if ($s != "world") { printf("ne\n"); } if ("hello" == "hellO") { printf("bad\n"); } exit(); }
--- stdout
eq
ne


### strncmp
BEGIN { $s = "hello"; printf("%d %d %d %d\n", strncmp($s, "help", 3), strncmp($s, "help", 4), strncmp("abc", "abc", 10), strncmp("a", "b", 0)); exit(); }
--- stdout
0 1 0 0


### string_keys_and_values
BEGIN { @m["a"] = "x"; @m["b"] = "y"; $k = "c"; @m[$k] = "z"; exit(); }
--- stdout


@m[a]: x
@m[b]: y
@m[c]: z
### string_escapes
BEGIN { printf("%s|%s|\n", "a\tb", "c\\d\"e"); printf("\x41\102\n"); exit(); }
--- stdout
a	b|c\d"e|
AB


### string_ternary
BEGIN { $x = 1; $s = $x ? "one" : "other"; printf("%s\n", $s); exit(); }
--- stdout
one


### string_compare_comm
BEGIN { if (comm == "sprof" || comm == "bpftrace") { printf("me\n"); } exit(); }
--- stdout
me


### positional_params
# params: 42 hello
BEGIN { printf("%d %s %d\n", $1, str($2), $#); @[str($2)] = $1 + 1; exit(); }
--- stdout
42 hello 2


@[hello]: 43
### positional_sum
# params: 3 4 5
BEGIN { printf("%d %d\n", $1 + $2, $#); exit(); }
--- stdout
7 3


### positional_missing_is_zero
# params: 3
BEGIN { printf("%d [%s]\n", $3, str($2)); exit(); }
--- stdout
0 []


### positional_number_as_string
# params: 3 0x10
BEGIN { printf("%s %d %s\n", str($1), $2, str($2)); exit(); }
--- stdout
3 16 0x10


### positional_str_len
# params: hello
BEGIN { printf("%s|%s|%s\n", str($1, 2), str($1, 5), str($1, 64)); exit(); }
--- stdout
he|hello|hello


### positional_in_probe
# params: 25
interval:ms:$1 { @n++; if (@n == 2) { exit(); } }
--- stdout


@n: 2
### ntop
BEGIN { printf("%s %s %s\n", ntop(0x0100007f), ntop(2, 0x0101a8c0), ntop(10, (uint32)0x0100007f)); @ip[ntop(0x0100007f)] = 1; exit(); }
--- stdout
127.0.0.1 192.168.1.1 7f00:1::


@ip[127.0.0.1]: 1
### string_var_widens
BEGIN { $s = "a"; $s = "longer string"; printf("%s\n", $s); $t = ("a", 1); $t = ("bbbbbbbbbbbbbbbbbbbbbbbbb", 2); print($t); @m = "x"; @m = "yyyy"; exit(); }
--- stdout
longer string
(bbbbbbbbbbbbbbbbbbbbbbbbb, 2)


@m: yyyy
### string_literal_longer_than_64
# bpftrace: skip 0.17 rejects a string literal over 64 bytes ("String is too long"); sprof sizes a literal to fit it
BEGIN { @s = "0123456789012345678901234567890123456789012345678901234567890123456789"; exit(); }
--- stdout


@s: 0123456789012345678901234567890123456789012345678901234567890123456789
### unresolved_symbols
BEGIN { printf("%s|%s\n", usym(1), ksym(1)); @k = ksym(1); exit(); }
--- stdout
0x1|0x1


@k: 0x1
### unresolved_symbol_zero
BEGIN { printf("%s\n", usym(0)); @u[usym(0)] = 1; exit(); }
--- stdout
0


@u[0]: 1
### positional_negative_octal
# params: -- -5 010
BEGIN { printf("%d %d %d %d\n", $1, $2, $1 * $2, $#); exit(); }
--- stdout
-5 8 -40 2


### string_keys_widen
# filter: sprof|bpftrace => TOOL
BEGIN { @m[comm] = 1; @m["a_much_longer_string_than_16"] = 2; @m[comm] += 5; exit(); }
--- stdout


@m[a_much_longer_string_than_16]: 2
@m[sprof]: 6
