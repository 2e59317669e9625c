#!/usr/bin/env sprof
// purpose: block I/O latency: histogram of microseconds from issue to completion, per disk (major, minor)
//   sudo sprof biolatency --duration 10s
// Requests complete in interrupt context, in whatever task was running:
// run it system wide (with -p/-c the completions are filtered out).
tracepoint:block:block_rq_issue { @start[args.dev, args.sector] = nsecs; }
tracepoint:block:block_rq_complete {
  $s = @start[args.dev, args.sector];
  if ($s) {
    @usecs[args.dev >> 20, args.dev & 0xfffff] = hist((nsecs - $s) / 1000);
    delete(@start[args.dev, args.sector]);
  }
}
END { clear(@start); }
