time, strftime, cat, system, exit, -f json and the map-full report.
### time_default
# filter: ^\d\d:\d\d:\d\d$ => HH:MM:SS
BEGIN { time(); exit(); }
--- stdout
11:10:41


### time_fmt
# filter: \d{4}-\d\d-\d\d \d\d => YYYY-MM-DD HH
BEGIN { time("%Y-%m-%d %H\n"); exit(); }
--- stdout
2026-11-21 11


### strftime
# filter: \d{4}-\d\d-\d\d => YYYY-MM-DD
BEGIN { printf("%s\n", strftime("%Y-%m-%d", nsecs)); exit(); }
--- stdout
2026-11-21


### strftime_key
# filter: \d{4} => YYYY
BEGIN { @t[strftime("%Y", nsecs)] = 1; exit(); }
--- stdout


@t[2026]: 1
### cat
BEGIN { cat("/proc/sys/kernel/ostype"); cat("/proc/sys/kernel/%s", "ostype"); exit(); }
--- stdout
Linux
Linux


### system
# opts: --unsafe
BEGIN { system("echo hi %d %s", 5, "x"); printf("after\n"); exit(); }
--- stdout
hi 5 x
after


### system_needs_unsafe
# rc: 1
# bpftrace: skip both refuse it; the messages differ
BEGIN { system("echo hi"); exit(); }
--- stdout
--- stderr
error: system() is unsafe: run sprof with --unsafe to allow it
### exit_stops_after_event
BEGIN { @x = 1; exit(); printf("after\n"); } END { printf("end\n"); }
--- stdout
end


@x: 1
### json_printf_and_maps
# opts: -f json
BEGIN { printf("hi %d\n", 5); @x["k1"] = 1; @x["k2"] = 5; @y[1, "a"] = 2; @z = (1, "two"); @a = avg(3); @st = stats(4); @c = count(); @s = "str"; print(7); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "printf", "data": "hi 5\n"}
{"type": "value", "data": 7}


{"type": "stats", "data": {"@a": 3}}
{"type": "map", "data": {"@c": 1}}
{"type": "map", "data": {"@s": "str"}}
{"type": "stats", "data": {"@st": {"count": 1, "average": 4, "total": 4}}}
{"type": "map", "data": {"@x": {"k1": 1, "k2": 5}}}
{"type": "map", "data": {"@y": {"1,a": 2}}}
{"type": "map", "data": {"@z": [1,"two"]}}
### json_hists
# opts: -f json
BEGIN { @h = hist(3); @h = hist(100); @l = lhist(5, 0, 10, 2); @neg = hist(-1); @k[1] = hist(4); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "hist", "data": {"@h": [{"min": 2, "max": 3, "count": 1}, {"min": 4, "max": 7, "count": 0}, {"min": 8, "max": 15, "count": 0}, {"min": 16, "max": 31, "count": 0}, {"min": 32, "max": 63, "count": 0}, {"min": 64, "max": 127, "count": 1}]}}
{"type": "hist", "data": {"@k": {"1": [{"min": 4, "max": 7, "count": 1}]}}}
{"type": "hist", "data": {"@l": [{"min": 4, "max": 5, "count": 1}]}}
{"type": "hist", "data": {"@neg": [{"max": -1, "count": 1}]}}
### json_events
# opts: -f json --unsafe
BEGIN { printf("q\"t\\ab\tc\n"); @m["a\"b"] = 1; @t = (1, "a"); time("%Y"); printf("\n"); cat("/proc/sys/kernel/ostype"); system("echo sys"); print(@m); print(@t); print("v"); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "printf", "data": "q\"t\\ab\tc\n"}
{"type": "time", "data": "2026"}
{"type": "printf", "data": "\n"}
{"type": "cat", "data": "Linux\n"}
{"type": "syscall", "data": "sys\n"}
{"type": "map", "data": {"@m": {"a\"b": 1}}}
{"type": "map", "data": {"@t": [1,"a"]}}
{"type": "value", "data": "v"}


{"type": "map", "data": {"@m": {"a\"b": 1}}}
{"type": "map", "data": {"@t": [1,"a"]}}
### map_full_reported
# sprof: --max-keys 4
# bpftrace: skip the key limit is BPFTRACE_MAP_KEYS_MAX there, and bpftrace drops updates silently
BEGIN { $i = 0; while ($i < 10) { @m[$i] = $i; @c[$i] = count(); $i++; } @ok = 1; exit(); }
--- stdout


@c[0]: 1
@c[1]: 1
@c[2]: 1
@c[3]: 1
@m[0]: 0
@m[1]: 1
@m[2]: 2
@m[3]: 3
@ok: 1
--- stderr
@m: 6 updates dropped, map full at 4 keys
@c: 6 updates dropped, map full at 4 keys
### map_declared_sizes
# bpftrace: skip map declarations (let @m = hash(N);) are bpftrace 0.27's
let @h = hash(2); let @l = lruhash(2); let @c = percpuhash(1); let @p = percpulruhash(1);
BEGIN { $i = 0; while ($i < 4) { @h[$i] = $i; @l[$i] = $i; @c[$i] = count(); @p[$i] = count(); $i++; } exit(); }
--- stdout


@c[0]: 1
@h[0]: 0
@h[1]: 1
@l[2]: 2
@l[3]: 3
@p[3]: 1
--- stderr
@h: 2 updates dropped, map full at 2 keys
@c: 3 updates dropped, map full at 1 keys
### map_declared_keeps_size
# bpftrace: skip map declarations are bpftrace 0.27's
# sprof: --max-keys 1
let @h = hash(3);
BEGIN { @h[1] = 1; @h[2] = 2; @h[3] = 3; exit(); }
--- stdout


@h[1]: 1
@h[2]: 2
@h[3]: 3
### map_full_env
# env: SPROF_MAX_MAP_KEYS=2
# bpftrace: skip the key limit is BPFTRACE_MAP_KEYS_MAX there, and bpftrace drops updates silently
BEGIN { $i = 0; while ($i < 10) { @m[$i] = $i; $i++; } exit(); }
--- stdout


@m[0]: 0
@m[1]: 1
--- stderr
@m: 8 updates dropped, map full at 2 keys
### map_full_json
# opts: -f json
# sprof: --max-keys 3
# bpftrace: skip the key limit is BPFTRACE_MAP_KEYS_MAX there, and bpftrace drops updates silently
BEGIN { $i = 0; while ($i < 5) { @m[$i] = $i; $i++; } exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "map", "data": {"@m": {"0": 0, "1": 1, "2": 2}}}
--- stderr
@m: 2 updates dropped, map full at 3 keys
### json_print_and_aggs
# opts: -f json
BEGIN { @a[1] = 10; @a[2] = 20; @a[3] = 5; print(@a, 2); print(@a, 0, 5); print((1, "a")); print(-3); @s[1] = stats(5); @s[2] = stats(10); @v[1] = avg(4); @h[1, "x"] = hist(2); @l["q"] = lhist(5, 0, 10, 5); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "map", "data": {"@a": {"1": 10, "2": 20}}}
{"type": "map", "data": {"@a": {"3": 1, "1": 2, "2": 4}}}
{"type": "value", "data": [1,"a"]}
{"type": "value", "data": -3}


{"type": "map", "data": {"@a": {"3": 5, "1": 10, "2": 20}}}
{"type": "hist", "data": {"@h": {"1,x": [{"min": 2, "max": 3, "count": 1}]}}}
{"type": "hist", "data": {"@l": {"q": [{"min": 5, "max": 9, "count": 1}]}}}
{"type": "stats", "data": {"@s": {"1": {"count": 1, "average": 5, "total": 5}, "2": {"count": 1, "average": 10, "total": 10}}}}
{"type": "stats", "data": {"@v": {"1": 4}}}
### json_scalars_and_keys
# opts: -f json
BEGIN { @c = count(); @mi[-1] = min(-5); @ma = max(3); @str["a"] = "b"; @neg[-5] = -5; @t[1] = (1, (2, "x")); @e = 0; exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "map", "data": {"@c": 1}}
{"type": "map", "data": {"@e": 0}}
{"type": "map", "data": {"@ma": 3}}
{"type": "map", "data": {"@mi": {"-1": -5}}}
{"type": "map", "data": {"@neg": {"-5": -5}}}
{"type": "map", "data": {"@str": {"a": "b"}}}
{"type": "map", "data": {"@t": {"1": [1,[2,"x"]]}}}
### cat_missing_file
BEGIN { cat("/nonexistent/file"); printf("after\n"); exit(); }
--- stdout
after


--- stderr
/nonexistent/file
### system_in_order
# opts: --unsafe
BEGIN { printf("1\n"); system("echo 2"); printf("3\n"); system("echo 4; echo 5"); exit(); }
--- stdout
1
2
3
4
5


### json_cleared_maps
# opts: -f json
BEGIN { @a = count(); clear(@a); @b[1] = 1; clear(@b); @h = hist(1); clear(@h); @s = stats(1); clear(@s); @v = avg(2); zero(@v); @m = sum(3); clear(@m); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "map", "data": {"@a": 0}}
{"type": "stats", "data": {"@v": 0}}
### json_print_empty_map
# opts: -f json
BEGIN { @b[1] = 1; } interval:ms:5 { clear(@b); print(@b); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 2}}


### json_zeroed_aggs
# opts: -f json
BEGIN { @h = hist(5); zero(@h); @l = lhist(3, 0, 10, 1); zero(@l); @st = stats(3); zero(@st); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}


{"type": "hist", "data": {"@h": []}}
{"type": "hist", "data": {"@l": []}}
{"type": "stats", "data": {"@st": {"count": 0, "average": 0, "total": 0}}}
### map_full_hist_buckets
# sprof: --max-keys 4
# bpftrace: skip the key limit is BPFTRACE_MAP_KEYS_MAX there, and bpftrace drops updates silently
BEGIN { $i = 0; while ($i < 10) { @h = hist(1 << $i); $i++; } exit(); }
--- stdout


@h: 
[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

--- stderr
@h: 6 updates dropped, map full at 4 keys
### exit_code
# rc: 3
# bpftrace: skip 0.17's exit() takes no argument (bpftrace 0.21+ does)
BEGIN { @x = 1; exit(3); }
--- stdout


@x: 1
### json_print_aggs_then_clear
# opts: -f json
BEGIN { @h = hist(5); @l = lhist(3, 0, 10, 2); @s = stats(4); @a = avg(6); @k[1, "x"] = count(); } interval:ms:5 { print(@h); print(@l); print(@s); print(@a); print(@k); clear(@h); clear(@l); clear(@s); clear(@a); clear(@k); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 2}}
{"type": "hist", "data": {"@h": [{"min": 4, "max": 7, "count": 1}]}}
{"type": "hist", "data": {"@l": [{"min": 2, "max": 3, "count": 1}]}}
{"type": "stats", "data": {"@s": {"count": 1, "average": 4, "total": 4}}}
{"type": "stats", "data": {"@a": 6}}
{"type": "map", "data": {"@k": {"1,x": 1}}}


### kstack_in_printf_and_print
# filter: ^(\s+)\S*(bpf_prog|_einittext)\S* => \1BPF_PROG
# filter: \+\d+ => +N
BEGIN { printf("[%s]\n", kstack(2)); print(kstack(1)); exit(); }
--- stdout
[
        BPF_PROG
        __bpf_prog_test_run_raw_tp+N
]

        BPF_PROG



### kstack_keys
# filter: \S*(bpf_prog|_einittext)\S* => BPF_PROG
# filter: \+\d+ => +N
# filter: \t[0-9a-f]{16} => \tADDR
BEGIN { @k[kstack(2)] = count(); @p[kstack(perf, 2)] = count(); @t[kstack(1), 5] = count(); exit(); }
--- stdout


@k[
    bpf_prog_9be2ca518570931c_BEGIN_0+150
    __bpf_prog_test_run_raw_tp+106
]: 1
@p[
	ffffffffc00274a4 bpf_prog_9be2ca518570931c_BEGIN_0+796
	ffffffff81f081aa __bpf_prog_test_run_raw_tp+106
]: 1
@t[
    bpf_prog_9be2ca518570931c_BEGIN_0+1442
, 5]: 1
### json_values_of_every_kind
# opts: -f json
# filter: 20\d\d => YYYY
# filter: "(sprof|bpftrace)" => "TOOL"
# bpftrace: differs 0.17 writes a strftime() value unquoted ({"@t": 2026}: not JSON for most formats); sprof writes a string
BEGIN { print(strftime("%Y", nsecs)); print(ntop(0x0100007f)); print(comm); @t = strftime("%Y", nsecs); @n = ntop(0x0100007f); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": "2026"}
{"type": "value", "data": "127.0.0.1"}
{"type": "value", "data": "sprof"}


{"type": "map", "data": {"@n": "127.0.0.1"}}
{"type": "map", "data": {"@t": "2026"}}
--- bpftrace
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": 2026}
{"type": "value", "data": "127.0.0.1"}
{"type": "value", "data": "bpftrace"}


{"type": "map", "data": {"@n": "127.0.0.1"}}
{"type": "map", "data": {"@t": 2026}}
### print_map_entry
# bpftrace: skip 0.17 rejects print(@m[k]) ("The map passed to print() should not be indexed by a key"); 0.27 prints the entry's value
BEGIN { @x[1] = 5; @x[2] = 6; print(@x[1]); print(@x[3]); clear(@x); exit(); }
--- stdout
5
0



