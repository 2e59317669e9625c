#!/usr/bin/env sprof
// purpose: run-queue latency: histogram of microseconds from wakeup (or preemption) to running
//   sudo sprof runqlat --duration 10s
//   sudo sprof -c ./app runqlat
// A thread is queued when it is woken (sched_wakeup, sched_wakeup_new) or
// preempted while runnable (sched_switch with a running prev_state); the
// time until a sched_switch puts it on a CPU is its wait. With -p/-c only
// the target's threads are measured (their wakeups pass the filter whoever
// the waker is).
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @qtime[args.pid] = nsecs; }
tracepoint:sched:sched_switch {
  if ((args.prev_state & 0xff) == 0 && args.prev_pid != 0) {
    @qtime[args.prev_pid] = nsecs;
  }
  $t = @qtime[args.next_pid];
  if ($t) {
    @usecs = hist((nsecs - $t) / 1000);
    delete(@qtime[args.next_pid]);
  }
}
END { clear(@qtime); }
