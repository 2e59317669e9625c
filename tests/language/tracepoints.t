Tracepoint programs the way bpftrace users write them (args->field, @start[tid], delete). The target is dd run with -c; `pid == cpid` keeps both tools to its events (bpftrace 0.17's -c filters only u-probes and USDT, sprof's every probe).
### syscall_latency_idiom
# opts: -c "/usr/bin/dd if=/dev/zero of=/dev/null bs=3 count=500 status=none"
tracepoint:syscalls:sys_enter_read /pid == cpid && args->fd == 0/ { @start[tid] = nsecs; @fd[args->fd] = count(); } tracepoint:syscalls:sys_exit_read /pid == cpid && @start[tid]/ { @n = count(); @bytes = sum(args->ret); @lat = hist(1); delete(@start[tid]); }
--- stdout


@bytes: 1500
@fd[0]: 500
@lat: 
[1]                  500 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@n: 500

### args_dot_and_arrow
# opts: -c "/usr/bin/dd if=/dev/zero of=/dev/null bs=7 count=100 status=none"
# bpftrace: skip 0.17 spells tracepoint fields args->name only (args.name came in 0.19)
tracepoint:syscalls:sys_exit_read /pid == cpid && args.ret == 7 && args->ret == 7/ { @a = count(); @b = sum(args->ret); @c[comm] = count(); }
--- stdout


@a: 100
@b: 700
@c[dd]: 100
### string_field
# opts: -c "/usr/bin/dd if=/dev/zero of=/dev/null bs=1 count=5 status=none"
tracepoint:sched:sched_process_exec /pid == cpid/ { printf("%s\n", str(args->filename)); }
--- stdout
/usr/bin/dd


