#!/usr/bin/env sprof
// On-CPU profile of user and kernel stacks at 99 Hz, per process name.
// sprof -c ./app stdlib/profile.sp -o app.svg
profile:hz:99 { @[comm, kstack, ustack] = count(); }
