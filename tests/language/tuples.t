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
