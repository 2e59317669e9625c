#!/usr/bin/env sprof
// purpose: system calls counted by number and process name
//   sudo sprof -c ./app syscount
//   sudo sprof syscount --duration 5s
// Numbers are the x86-64 syscall numbers (ausyscall --dump, or
// /usr/include/x86_64-linux-gnu/asm/unistd_64.h): 0 read, 1 write, ...
tracepoint:raw_syscalls:sys_enter { @calls[comm, args.id] = count(); }
