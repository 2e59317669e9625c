Builtins and functions that need a u-probe: str, buf, uaddr, usym, func, probe, argN, retval, ustack. The target is tests/language/strargs.c, run with -c. In bpftrace 0.17 the first call's memory reads come back empty (the string's page is not yet mapped into the traced process when the uprobe first fires); sprof's str() and buf() fault the page in, so only str_and_args reads the first call (the other cases are bpftrace's too).
### str_and_args
# workload: strargs
# opts: -c "$WORKLOAD 3"
# bpftrace: differs 0.17 reads empty strings on the first call (the string's page is not yet mapped); sprof's str() faults it in; str(p, n) keeps n - 1 characters as in 0.27 (0.17: n)
uprobe:$WORKLOAD:take_str { printf("%s|%s|%d %d\n", str(arg0), str(arg0, 5), arg1, arg2); @s[str(arg0)] = count(); @n[str(arg0, 3), arg1] = sum(arg2); }
--- stdout
hello world|hell|11 0
hello world|hell|11 1
hello world|hell|11 2


@n[he, 11]: 3
@s[hello world]: 3
--- bpftrace
||11 0
hello world|hello|11 1
hello world|hello|11 2


@n[, 11]: 0
@n[hel, 11]: 3
@s[]: 1
@s[hello world]: 2
### strlen_option
# workload: strargs
# opts: --strlen 6 -c "$WORKLOAD 2"
# bpftrace: skip 0.17 takes the size from BPFTRACE_STRLEN, not an option
uprobe:$WORKLOAD:take_str /arg2 == 1/ { printf("%s|\n", str(arg0)); }
--- stdout
hello|


### buf
# workload: strargs
# opts: -c "$WORKLOAD 2"
uprobe:$WORKLOAD:take_str /arg2 == 1/ { printf("%r|\n", buf(arg0, 5)); @b = buf(arg0, 3); }
--- stdout
hello|


@b: hel
### uaddr_global
# workload: strargs no-pie
# opts: -c "$WORKLOAD 2"
uprobe:$WORKLOAD:take_str /arg2 == 1/ { printf("%s\n", str(uaddr("greeting"))); }
--- stdout
greeting from a global


### func_probe
# workload: strargs
# opts: -c "$WORKLOAD 2"
# filter: /\S+/strargs => .../strargs
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_str { printf("%s\n", func); @p[probe] = count(); }
--- stdout
take_str
take_str


@p[uprobe:/work/main/build-lang/tests/workloads/strargs:take_str]: 2
### retval
# workload: strargs
# opts: -c "$WORKLOAD 4"
uretprobe:$WORKLOAD:take_str { @r[retval] = sum(retval); @total = sum(retval); @n = count(); }
--- stdout


@n: 4
@r[11]: 11
@r[12]: 12
@r[13]: 13
@r[14]: 14
@total: 50
### ustack_frames
# workload: strargs
# opts: -c "$WORKLOAD 2"
# filter: \+\d+ => +N
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_str { @[ustack(2)] = count(); }
--- stdout


@[
    take_str+0
    main+122
]: 2
### uaddr_pie
# workload: strargs
# opts: -c "$WORKLOAD 2"
# bpftrace: differs 0.17 uaddr() is the link-time address, right for non-PIE executables only
uprobe:$WORKLOAD:take_str /arg2 == 1/ { printf("%s\n", str(uaddr("greeting"))); }
--- stdout
greeting from a global


--- bpftrace



### ustack_modes
# workload: strargs
# opts: -c "$WORKLOAD 2"
# filter: \+\d+ => +N
# filter: [0-9a-f]{6,16} => ADDR
# filter: /\S+/strargs => .../strargs
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_str { @p[ustack(perf, 2)] = count(); @r[ustack(raw, 2)] = count(); @k[kstack] = count(); }
--- stdout


@k[]: 2
@p[
	55a099778139 take_str+0 (/work/main/build-lang/tests/workloads/strargs)
	55a099778218 main+122 (/work/main/build-lang/tests/workloads/strargs)
]: 2
@r[
55a099778139
55a099778218
]: 2
### usym_of_argument
# workload: strargs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_fn { printf("%s\n", usym(arg0)); @u[usym(arg0)] = count(); }
--- stdout
cb
cb


@u[cb]: 2
### usym_with_ustack
# workload: strargs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_fn { @u[usym(arg0), ustack(1)] = count(); }
--- stdout


@u[cb, 
    take_fn+0
]: 2
### ustack_in_printf_and_print
# workload: strargs
# opts: -c "$WORKLOAD 1"
# filter: \+\d+ => +N
# bpftrace: skip 0.17 resolves func, usym and ustack in user space when it prints them; a -c child has exited by then and 0.17 prints bare addresses (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_fn { printf("[%s]\n", ustack(2)); print(ustack(2)); }
--- stdout
[
        take_fn+N
        main+N
]

        take_fn+N
        main+N



### uretprobe_func
# workload: strargs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 names the caller in func at a uretprobe (research notes: func=mid at uretprobe:leaf_a), and resolves it after the -c child has exited
uretprobe:$WORKLOAD:take_fn { @f[func, comm, retval] = count(); }
--- stdout


@f[take_fn, strargs, 0]: 1
@f[take_fn, strargs, 2]: 1
### stack_args_and_registers
# workload: strargs
# opts: -c "$WORKLOAD 3"
# bpftrace: skip 0.17 resolves usym in user space when it prints it; a -c child has exited by then and 0.17 prints a bare address (bpftrace issue #246), differently from run to run
uprobe:$WORKLOAD:take_many { printf("%d %d %d %d %s\n", sarg0, sarg1, reg("di"), reg("si"), usym(reg("ip"))); @[sarg1 - sarg0] = count(); }
--- stdout
70 80 1 2 take_many
71 81 1 2 take_many
72 82 1 2 take_many


@[10]: 3
### signal_ends_the_target
# workload: strargs
# opts: --unsafe -c "$WORKLOAD 5"
# rc: 137
uprobe:$WORKLOAD:take_str { printf("%d\n", arg2); if (arg2 == 1) { signal("SIGKILL"); } }
--- stdout
0
1


