#!/usr/bin/env sprof
// purpose: latency of a user function: histogram of microseconds per call
// param func func -: the function (e.g. /bin/bash:readline); a glob gives one histogram per function
//   sudo sprof -c ./app funclatency --param func=./app:handle_request
// The time from entry to return, per thread (a recursive call's inner
// returns end the outer timing too).
uprobe:$func { @start[tid] = nsecs; }
uretprobe:$func /@start[tid]/ {
  @usecs[func] = hist((nsecs - @start[tid]) / 1000);
  delete(@start[tid]);
}
END { clear(@start); }
