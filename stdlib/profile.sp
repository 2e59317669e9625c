#!/usr/bin/env sprof
// purpose: on-CPU profile: user and kernel stacks sampled on every CPU, per process name
// param hz int 99: samples per second on each CPU
//   sudo sprof -c ./app profile -o app.svg
//   sudo sprof -p 1234 profile --param hz=999 --duration 10s
profile:hz:$hz { @[comm, kstack, ustack] = count(); }
