Tuples as values and keys.
### tuple_values
BEGIN { $t = (1, "two", (3, 4)); printf("%d %s %d\n", $t.0, $t.1, $t.2.1); print($t); @t = $t; exit(); }
--- stdout
1 two 4
(1, two, (3, 4))


@t: (1, two, (3, 4))
### tuple_in_map
BEGIN { @x = (1, (2, "three"), "four"); @y["k"] = (5, "v"); @y["j"] = (6, "w"); exit(); }
--- stdout


@x: (1, (2, three), four)
@y[j]: (6, w)
@y[k]: (5, v)
### tuple_keys
# bpftrace: skip 0.17 rejects a tuple as a map key ("Try a multi-key associative array instead"); sprof prints it like a multi-key key
BEGIN { @u[(1, 2)] = 3; @v[1, (2, "b")] = 4; $k = (7, "x"); @w[$k] = 5; exit(); }
--- stdout


@u[1, 2]: 3
@v[1, (2, b)]: 4
@w[7, x]: 5
### tuple_negative
BEGIN { @t = (-1, (int8)-2, (uint8)255); exit(); }
--- stdout


@t: (-1, -2, 255)
### records
# bpftrace: skip records (a=1, b="x") are bpftrace 0.27's
BEGIN { $v = (x=1, y=-2); $r = (a=0, b="str", c=(5, 6), d=$v); printf("%d %s %d %d\n", $r.a, $r.b, $r.c.1, $r.d.y); print($r); @r = $r; @k[(n=1, s="k")] = 2; exit(); }
--- stdout
0 str 6 -2
{ .a = 0, .b = str, .c = (5, 6), .d = { .x = 1, .y = -2 } }


@k[{ .n = 1, .s = k }]: 2
@r: { .a = 0, .b = str, .c = (5, 6), .d = { .x = 1, .y = -2 } }
### records_by_name
# bpftrace: skip records are bpftrace 0.27's (0.27 matches their fields by name)
BEGIN { $a = (color="green", size=2); $a = (size={ printf("s"); 10 }, color={ printf("c\n"); "blue" }); print($a); @m = (x=1, y="a"); @m = (y="bb", x=3); exit(); }
--- stdout
sc
{ .color = blue, .size = 10 }


@m: { .x = 3, .y = bb }
### records_json
# bpftrace: skip records are bpftrace 0.27's
# opts: -f json
BEGIN { $v = (x=1, y=2); @a = (a=0, b=1, c="str", d=(5, 6), e=$v); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "map", "data": {"@a": {"a": 0, "b": 1, "c": "str", "d": [5,6], "e": {"x": 1, "y": 2}}}}
### tuple_key_narrow_signed_elements
# bpftrace: skip 0.17 takes no tuple as a map key (bpftrace 0.27 variable.map key tuple with casted ints)
BEGIN { @a[(int16)-1, ((int32)-2, 3)] = 10; $c = ((int8)-4, ((int16)-5, -6)); @a[$c] = 12; exit(); }
--- stdout


@a[-1, (-2, 3)]: 10
@a[-4, (-5, -6)]: 12
### tuple_var_strings_widen_each
# bpftrace: skip 0.17 mangles a tuple variable whose strings change size (prints (hi, (gstr, 0))); bpftrace 0.27 widens each string (variable.variable nested tuple string resize)
BEGIN { $a = ("hi", ("hellolongstr", 2)); print($a); $a = ("hellolongstr", ("hi", 5)); print($a); exit(); }
--- stdout
(hi, (hellolongstr, 2))
(hellolongstr, (hi, 5))


