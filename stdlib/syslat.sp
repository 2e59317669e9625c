#!/usr/bin/env sprof
// purpose: system call latency: histogram of microseconds per syscall number
//   sudo sprof -c ./app syslat
// Time from sys_enter to sys_exit in the same thread; numbers as in syscount.
tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@start[tid]/ {
  @usecs[args.id] = hist((nsecs - @start[tid]) / 1000);
  delete(@start[tid]);
}
END { clear(@start); }
