#!/usr/bin/env sprof
// Off-CPU time: where threads block, and for how long (microseconds).
//   sudo sprof -c ./server stdlib/offcpu.sp -o server.svg
//   sudo sprof -p 1234 offcpu --duration 10s
// When a thread is switched out, its stacks and the time are kept; when it
// is switched back in, the time it spent off the CPU is added to those
// stacks. With -p/-c only the target's threads are recorded.
tracepoint:sched:sched_switch {
  @offcpu_ts[tid] = nsecs;
  @offcpu_kstack[tid] = kstack;
  @offcpu_ustack[tid] = ustack;
  $start = @offcpu_ts[args.next_pid];
  if ($start) {
    @[args.next_comm, @offcpu_kstack[args.next_pid], @offcpu_ustack[args.next_pid]] =
      sum((nsecs - $start) / 1000);
    delete(@offcpu_ts[args.next_pid]);
  }
}
