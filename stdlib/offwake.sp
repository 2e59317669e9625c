#!/usr/bin/env sprof
// purpose: off-CPU time (microseconds) by blocked stack together with the stack of the thread that woke it
//   sudo sprof -c ./server offwake -o server.svg
// sched_wakeup records who woke a thread (its name and stacks); when the
// thread is switched back in, the time it was off the CPU is added to its
// own stacks joined with the waker's. With -p/-c every wakeup of the
// target's threads is seen, whoever the waker is; a wakeup from an
// interrupt shows the interrupted task as the waker.
tracepoint:sched:sched_wakeup {
  @waker_comm[args.pid] = comm;
  @waker_kstack[args.pid] = kstack;
  @waker_ustack[args.pid] = ustack;
}
tracepoint:sched:sched_switch {
  if (cpid == 0 || pid == cpid) {
    @offcpu_ts[tid] = nsecs;
    @offcpu_kstack[tid] = kstack;
    @offcpu_ustack[tid] = ustack;
  }
  $next = args.next_pid;
  $start = @offcpu_ts[$next];
  if ($start) {
    @[args.next_comm, @offcpu_kstack[$next], @offcpu_ustack[$next],
      @waker_comm[$next], @waker_ustack[$next], @waker_kstack[$next]] = sum((nsecs - $start) / 1000);
    delete(@offcpu_ts[$next]);
    delete(@waker_comm[$next]);
    delete(@waker_kstack[$next]);
    delete(@waker_ustack[$next]);
  }
}
END {
  clear(@offcpu_ts); clear(@offcpu_kstack); clear(@offcpu_ustack);
  clear(@waker_comm); clear(@waker_kstack); clear(@waker_ustack);
}
