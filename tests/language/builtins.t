Builtins added for bpftrace 0.17 compatibility (bswap, strcontains, numaid, username, strerror, cgroup_path, pton, macaddr, join, debugf, %rx/%rh) and the bugs fixed with them (buf padding, strftime in variables and tuples, exit, positional parameters where literals stand).
### bswap
BEGIN { printf("%x %x %lx %x\n", bswap((uint16)0x1234), bswap((uint32)0x12345678), bswap(0x1122334455667788), bswap((uint8)0xab)); $x = bswap(1); print($x); @[bswap((uint32)1)] = count(); exit(); }
--- stdout
3412 78563412 8877665544332211 ab
72057594037927936


@[16777216]: 1
### bswap_of_a_narrow_variable
BEGIN { $d = (uint16)0x1234; $d = bswap($d); printf("%x\n", $d); $e = (uint32)0x12345678; printf("%x\n", bswap($e)); $f = 0x1234; printf("%lx\n", bswap($f)); exit(); }
--- stdout
3412
78563412
3412000000000000


### strcontains
BEGIN { $s = "hello world"; printf("%d %d %d %d %d\n", strcontains($s, "o w"), strcontains($s, "xyz"), strcontains($s, ""), strcontains("", "a"), strcontains(comm, comm)); if (strcontains($s, "world")) { printf("yes\n"); } exit(); }
--- stdout
1 0 1 0 1
yes


### strcontains_bool
# bpftrace: differs 0.17's strcontains() gives an integer; 0.27's a bool, printed true/false
BEGIN { @m = strcontains("hello world", "o w"); @k[strcontains("abc", "x")] = 1; print(strcontains("ab", "b")); print((strcontains("ab", "c"), 2)); exit(); }
--- stdout
true
(false, 2)


@k[false]: 1
@m: true
--- bpftrace
1
(0, 2)


@k[0]: 1
@m: 1
### strcontains_long_strings
# workload: strargs
# opts: -c "$WORKLOAD 2"
# sprof: --strlen 1024
# bpftrace: differs 0.17 cannot compile it: "BPF stack limit of 512 bytes is exceeded" (three str() and strcontains() copies on the stack); sprof searches in a per-CPU buffer with bpf_loop
uprobe:$WORKLOAD:take_str /arg2 == 1/ { $s = str(arg0); printf("%d %d %d\n", strcontains($s, "o w"), strcontains($s, str(arg0 + 6)), strcontains($s, "xyz")); }
--- stdout
1 1 0


--- bpftrace
### numaid
BEGIN { printf("%d\n", numaid); @[numaid] = count(); exit(); }
--- stdout
0


@[0]: 1
### username
BEGIN { printf("%s\n", username); print(username); @[username] = count(); $u = username; printf("[%s]\n", $u); exit(); }
--- stdout
root
root
[root]


@[root]: 1
### strerror
BEGIN { printf("%s|%s|\n", strerror(2), strerror(22)); print(strerror(13)); $e = strerror(1); printf("%s\n", $e); exit(); }
--- stdout
No such file or directory|Invalid argument|
Permission denied
Operation not permitted


### strerror_map_key
# bpftrace: differs 0.17 rejects a strerror() map key ("invalid mapkey argument type"); sprof allows it
BEGIN { @[strerror(2)] = count(); @[strerror(2)] = count(); @v = strerror(1); exit(); }
--- stdout


@[No such file or directory]: 2
@v: Operation not permitted
--- bpftrace


### cgroup_path_unified
# filter: unified:/\S* => unified:/PATH
BEGIN { printf("%s\n", cgroup_path(cgroup, "unified")); print(cgroup_path(cgroup, "unified")); exit(); }
--- stdout
unified:/
unified:/


### cgroup_path_no_match
BEGIN { printf("[%s]\n", cgroup_path(cgroup, "no-such-hierarchy")); exit(); }
--- stdout
[]


### pton_ntop
BEGIN { $a = pton("127.0.0.1"); printf("%s\n", ntop($a)); print(pton("1.2.3.4")); $b = pton("::1"); printf("%s\n", ntop($b)); printf("%d %d\n", pton("10.9.8.7")[1], pton("fe80::2")[15]); printf("%s\n", ntop(pton("fe80::1:2"))); exit(); }
--- stdout
127.0.0.1
[1,2,3,4]
::1
9 2
fe80::1:2


### printf_rx_rh
BEGIN { printf("%rx|%rh|%r\n", buf("AB\n", 3), buf("AB\n", 3), buf("AB\n", 3)); printf("[%rh]\n", buf("\x01\xff", 2)); exit(); }
--- stdout
\x41\x42\x0a|41 42 0a|AB\x0a
[01 ff]


### buf_string_padded
BEGIN { printf("%r|%r|%r\n", buf("ok_key", 8), buf("abcdefgh", 4), buf("ab", 2)); @[buf("ok_key", 8)] = 1; exit(); }
--- stdout
ok_key\x00\x00|abcd|ab


@[ok_key\x00\x00]: 1
### strftime_in_variable_and_tuple
BEGIN { $t = strftime("plain text", nsecs); printf("%s\n", $t); @x = (1, strftime("[%%]", nsecs)); $u = (strftime("a", nsecs), 2); printf("%s\n", $u.0); exit(); }
--- stdout
plain text
a


@x: (1, [%])
### macaddr
# workload: strargs
# opts: -c "$WORKLOAD 2"
uprobe:$WORKLOAD:take_str /arg2 == 1/ { printf("%s\n", macaddr(arg0)); @[macaddr(arg0)] = count(); }
--- stdout
68:65:6C:6C:6F:20


@[68:65:6C:6C:6F:20]: 1
### macaddr_struct_member
# workload: strargs
# opts: -c "$WORKLOAD 2"
struct M { char mac[6]; } uprobe:$WORKLOAD:take_str /arg2 == 1/ { $s = (struct M *)arg0; printf("P: %s\n", macaddr($s->mac)); @[macaddr($s->mac)] = 1; @v[1] = macaddr($s->mac); }
--- stdout
P: 68:65:6C:6C:6F:20


@[68:65:6C:6C:6F:20]: 1
@v[1]: 68:65:6C:6C:6F:20
### bswap_bpftrace_cases
BEGIN { printf("%llx %x %x %x %llx %x\n", bswap(0x1122334455667788), bswap((int32)0x12345678), bswap((int16)0x1234), bswap((int8)0x12), bswap(0x12340000 + 0x5678), bswap(bswap(0x1234))); exit(); }
--- stdout
8877665544332211 78563412 3412 12 7856341200000000 1234


### pton_ntop_with_family
BEGIN { printf("IP: %s %s\n", ntop(2, pton("127.0.0.1")), ntop(10, pton("::1"))); printf("%rx|%rh\n", buf("Hello\0", 6), buf("Hello\0", 6)); exit(); }
--- stdout
IP: 127.0.0.1 ::1
\x48\x65\x6c\x6c\x6f\x00|48 65 6c 6c 6f 00


### join_argv
# workload: strargs
# opts: -c "$WORKLOAD 2"
# filter: \S*/strargs => .../strargs
uprobe:$WORKLOAD:main { join(arg1); join(arg1, ","); join(arg1 + 8); }
--- stdout
.../strargs 2
.../strargs,2
2


### join_execve
# workload: strargs
# opts: -c "$WORKLOAD 1 extra"
# filter: \S*/strargs => WORKLOAD
tracepoint:syscalls:sys_enter_execve /pid == cpid/ { join(args->argv, " | "); }
--- stdout
/work/wt/builtins/build/tests/workloads/strargs | 1 | extra


### argv_elements
# workload: strargs
# opts: -c "$WORKLOAD 1 extra"
tracepoint:syscalls:sys_enter_execve /pid == cpid/ { printf("%s %s %d\n", str(args->argv[1]), str(args->argv[2]), *args->argv == args->argv[0]); }
--- stdout
1 extra 1


### debugf_goes_to_trace_buffer
# opts: --unsafe
BEGIN { $t = nsecs; debugf("dbg-%d %d %x\n", pid, $t, 255); system("grep -c 'dbg-%d %d ff' /sys/kernel/tracing/trace", pid, $t); exit(); }
--- stdout
1


### exit_skips_the_rest_of_the_probe
i:ms:50 { @a++; if (@a == 2) { exit(); } printf("after %d\n", @a); }
--- stdout
after 1


@a: 2
### exit_no_probe_fires_after
BEGIN { printf("a\n"); exit(); printf("b\n"); @x = 1; } interval:ms:1 { printf("tick\n"); } END { printf("end %d\n", @x); }
--- stdout
a
end 0



### exit_stops_a_busy_probe
# filter: (?s)\A.*?exit\n => exit\n
profile:hz:997 { printf("tick\n"); } interval:ms:100 { printf("exit\n"); exit(); }
--- stdout
exit


### exit_flushes_partial_line
BEGIN { printf("no newline"); exit(); }
--- stdout
no newline

### positional_str_offset
# params: hello 3
BEGIN { printf("%s|%s|%s|%d\n", str($1 + 1), str($1 + 5), str($1), $#); exit(); }
--- stdout
ello||hello|2


### positional_literal_places
# params: 3 5 vfs_read
BEGIN { $a = 1; unroll ($1) { $a = $a + 1; } printf("a=%d\n", $a); if (strncmp("hello", "hell", $1) == 0) { printf("ok\n"); } @b = buf("hello", $2); printf("%s\n", ksym(kaddr(str($3)))); exit(); }
--- stdout
a=4
ok
vfs_read


@b: hello
### positional_stack_limit
# params: 1
# filter: ^\s+\S+( \S+)?$ => FRAME
BEGIN { @k = kstack($1); @p = kstack(perf, $1); exit(); }
--- stdout


@k: 
    bpf_prog_58c0643c69b50f7b_BEGIN_0+153

@p: 
	ffffffffc0027a87 bpf_prog_58c0643c69b50f7b_BEGIN_0+2215

### positional_lhist
# params: 0 10 2
# bpftrace: differs 0.17 builds lhist(x, $1, $2, $3) with a broken range (every value lands in "(..., 2)" with a count of 0)
BEGIN { @h = lhist(5, $1, $2, $3); @n[$#] = count(); exit(); }
--- stdout


@h: 
[4, 6)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@n[3]: 1
--- bpftrace


@h: 
(..., 1)               0 |                                                    |

@n[3]: 1
### call_style
# bpftrace: skip 0.17 has no call forms of the builtins (pid(), comm(), nsecs(boot) came in 0.24)
BEGIN { printf("%d %d %d %s %d\n", pid() == pid, tid() == tid, cpu() == cpu, comm(), uid() == uid); $m = nsecs(monotonic); $b = nsecs(boot); $t = nsecs(tai); $n = nsecs(); printf("%d %d %d\n", $b >= $m, $t > $b, $n >= $m); @[comm()] = count(); exit(); }
--- stdout
1 1 1 sprof 1
1 1 1


@[sprof]: 1
### bpftrace_027_builtins
# bpftrace: skip 0.17 has none of jiffies, ncpus, usermode, probetype, ppid, pcomm, leader_comm, strlen, signal_name, the __builtin_ names or retval() (0.20-0.27)
BEGIN { printf("%d %d %d %s %d %s %d %d %s %s\n", jiffies > 0, ncpus > 0, usermode, probetype, ppid > 0, leader_comm, strlen(comm), strlen("abc"), signal_name(2), signal_name(15)); printf("%d %d %d\n", __builtin_ncpus == ncpus(), __builtin_jiffies() > 0, strlen(pcomm) > 0); $s = "hello"; printf("%d\n", strlen($s)); }
interval:ms:10 { printf("%s %d %d\n", probetype(), usermode <= 1, __builtin_usermode == usermode); exit(); }
--- stdout
1 1 1 special 1 sprof 5 3 Interrupt Terminated
1 1 1
5
interval 1 1


### probe_begin_end_as_written
# bpftrace: skip 0.17 has no lowercase begin and end (bpftrace 0.27 names them so; 0.17 prints BEGIN and END, as sprof does for those)
begin { printf("%s|", probe); } BEGIN { printf("%s|", probe); } end { printf("%s\n", probe); } interval:ms:10 { exit(); }
--- stdout
begin|BEGIN|end


