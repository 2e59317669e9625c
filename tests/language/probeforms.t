Probe forms and bpftrace's tools' idioms: one block on two tracepoints of different layouts (opensnoop), syscall arguments typed by their declaration (killsnoop), glibc's libpthread stub (threadsnoop), an attach point whose function is missing next to ones that exist (ssllatency), quoted uprobe names with an offset, USDT with empty fields. The target is tests/language/probeforms.c, run with -c.
### two_tracepoint_layouts
# workload: probeforms
# opts: -c "$WORKLOAD open"
uprobe:$WORKLOAD:pf_start { @on = 1; }
tracepoint:syscalls:sys_enter_open, tracepoint:syscalls:sys_enter_openat /@on && pid == cpid/ { @f[tid] = args->filename; }
tracepoint:syscalls:sys_exit_open, tracepoint:syscalls:sys_exit_openat /@f[tid]/ { printf("%s %d\n", str(@f[tid]), args->ret); delete(@f[tid]); }
END { clear(@on); }
--- stdout
/nonexistent/probeforms-marker -2




### syscall_arg_signed
# workload: probeforms
# opts: -c "$WORKLOAD kill"
# bpftrace: differs 0.17 prints the key of a pid_t argument as unsigned while printf shows it signed
tracepoint:syscalls:sys_enter_kill /pid == cpid/ { printf("%d %d\n", args->pid, args->sig); @[args->pid] = count(); }
--- stdout
-99999 0


@[-99999]: 1
--- bpftrace
-99999 0


@[4294867297]: 1
### libpthread_stub
# workload: probeforms
# opts: -c "$WORKLOAD thread"
# bpftrace: differs 0.17 follows the stub system wide but not with -c: "No probes to attach"
uprobe:libpthread:pthread_create /pid == cpid/ { @ = count(); }
--- stdout


@: 1
--- stderr
is a stub since glibc 2.34
--- bpftrace
No probes to attach
### missing_function_left_out
# workload: probeforms
# opts: -c "$WORKLOAD open"
uprobe:$WORKLOAD:no_such_function, uprobe:$WORKLOAD:pf_start { @ = count(); }
--- stdout


@: 1
--- stderr
no symbol 'no_such_function'
### watchpoint_write
# workload: probeforms
# opts: -c "$WORKLOAD watch 100"
watchpoint:0x10000000:8:w { @ = count(); @c[comm] = count(); }
--- stdout


@: 100
@c[probeforms]: 100
### asyncwatchpoint_rw
# workload: probeforms
# opts: -c "$WORKLOAD watch 50"
# bpftrace: skip 0.17's asyncwatchpoint takes only the FUNC+argN form ("asyncwatchpoint requires a function name")
asyncwatchpoint:0x10000000:4:rw { @ = count(); }
--- stdout


@: 50
### watchpoint_function_arg
# workload: probeforms
# opts: -c "$WORKLOAD watchfn 5"
watchpoint:increment+arg0:8:w { @ = count(); }
--- stdout


@: 5
### watchpoint_function_glob_names
# workload: probeforms
# opts: -c "$WORKLOAD watchwild"
# filter: watchpoint:\S+:bump_ => watchpoint:PATH:bump_
# bpftrace: differs 0.17 prints "Failed to attach watchpoint probe. You are out of watchpoint registers." on stdout; sprof warns on stderr
watchpoint:bump_*+arg0:8:w { printf("%s\n", probe); }
--- stdout
watchpoint:PATH:bump_0:8:w
watchpoint:PATH:bump_1:8:w
watchpoint:PATH:bump_2:8:w
watchpoint:PATH:bump_3:8:w


--- stderr
You are out of watchpoint registers
--- bpftrace
watchpoint:PATH:bump_0:8:w
watchpoint:PATH:bump_1:8:w
watchpoint:PATH:bump_2:8:w
watchpoint:PATH:bump_3:8:w
Failed to attach watchpoint probe. You are out of watchpoint registers.
Failed to attach watchpoint probe. You are out of watchpoint registers.


### watchpoint_unwatch
# workload: probeforms
# opts: -c "$WORKLOAD watchlater"
# filter: @addr: \d+ => @addr: ADDR
uprobe:$WORKLOAD:increment { @addr = arg0; }
watchpoint:increment+arg0:8:w { @hits = count(); unwatch(@addr); }
--- stdout


@addr: ADDR
@hits: 1
### asyncwatchpoint_function_arg
# workload: probeforms
# opts: -c "$WORKLOAD watchlater"
# filter: @hits: [45]\n => @hits: 4 or 5 (increment's own write races the breakpoint)\n
asyncwatchpoint:increment+arg0:8:w { @hits = count(); }
--- stdout


@hits: 4 or 5 (increment's own write races the breakpoint)
### usdt_quoted_probe_name
# workload: probeforms
# opts: -c "$WORKLOAD usdtquoted"
usdt:$WORKLOAD:test:"\"probe1\"" { printf("%d\n", arg0); }
--- stdout
7


### str_untouched_page
# workload: probeforms
# opts: -c "$WORKLOAD str"
# bpftrace: differs 0.17 reads an empty string from a page the process never touched; str(p, n) keeps n - 1 characters as in 0.27 (0.17: n)
uprobe:$WORKLOAD:pass_str { printf("[%s]\n", str(arg0)); @[str(arg0, 8)] = count(); }
--- stdout
[a string constant nobody read before]


@[a strin]: 1
--- bpftrace
[]


@[]: 1
### buf_untouched_page
# workload: probeforms
# opts: -c "$WORKLOAD str"
# bpftrace: differs 0.17 reads zeros from a page the process never touched
uprobe:$WORKLOAD:pass_str { printf("[%r]\n", buf(arg0, 8)); }
--- stdout
[a string]


--- bpftrace
[\x00\x00\x00\x00\x00\x00\x00\x00]


### interval_duration
# bpftrace: skip 0.17 knows only interval:UNIT:N (interval:100ms and profile:10ms came in 0.24)
interval:100ms { @n++; if (@n == 1) { @t = nsecs; } if (@n == 3) { printf("%d\n", (nsecs - @t + 50ms) / 100ms); exit(); } }
profile:1ms { @p = 1; }
END { printf("%d\n", @p); clear(@n); clear(@p); clear(@t); }
--- stdout
2
1





