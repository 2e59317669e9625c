#!/usr/bin/env sprof
// purpose: off-CPU time (microseconds) by process name, kernel and user stack: where threads block
//   sudo sprof -c ./server stdlib/offcpu.sp -o server.svg
//   sudo sprof -p 1234 offcpu --duration 10s
// When a thread is switched out, its stacks and the time are kept; when it
// is switched back in, the time it spent off the CPU is added to those
// stacks. With -p/-c a switch passes the filter when the thread leaving or
// the one coming in belongs to the target; with -c only the command's own
// threads are recorded (with -p, threads that trade places with the
// target's show up under their own names too).
tracepoint:sched:sched_switch {
  if (cpid == 0 || pid == cpid) {
    @offcpu_ts[tid] = nsecs;
    @offcpu_kstack[tid] = kstack;
    @offcpu_ustack[tid] = ustack;
  }
  $start = @offcpu_ts[args.next_pid];
  if ($start) {
    @[args.next_comm, @offcpu_kstack[args.next_pid], @offcpu_ustack[args.next_pid]] =
      sum((nsecs - $start) / 1000);
    delete(@offcpu_ts[args.next_pid]);
  }
}
END { clear(@offcpu_ts); clear(@offcpu_kstack); clear(@offcpu_ustack); }
