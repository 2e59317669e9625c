#!/usr/bin/env sprof
// purpose: outstanding allocations by user stack: bytes and blocks allocated and not freed, older than age
// param lib string libc: the C library: a path, or a name found through the ld.so cache
// param age duration 500ms: report only allocations at least this old
//   sudo sprof -c ./app memleak --param age=2s
//   sudo sprof -p 1234 memleak --duration 30s
// Every malloc/calloc/realloc result is remembered (size, time, stack) and
// queued in allocation order; free and realloc forget it. Ten times a second
// (and at the end) the oldest queued allocations still alive and older than
// age are added to @leaked_bytes and @leaked_blocks, and taken out again if
// they are freed later. What remains at the end is memory the program still
// holds after age. Allocations made before sprof attached are not seen; with
// many allocations in flight raise --max-keys.
BEGIN { @q[0] = 0; @q[1] = 0; } // @q[0]: the queue's head, @q[1]: the last allocation's number
uprobe:$lib:malloc { @req[tid] = arg0; }
uprobe:$lib:calloc { @req[tid] = arg0 * arg1; }
uprobe:$lib:free, uprobe:$lib:realloc {
  $a = arg0;
  $al = @alloc[$a]; // (size, time, number, stack, aged)
  if ($al.0) {
    if ($al.4) {
      @leaked_bytes[$al.3] -= $al.0;
      @leaked_blocks[$al.3] -= 1;
      if (@leaked_blocks[$al.3] == 0) {
        delete(@leaked_bytes[$al.3]);
        delete(@leaked_blocks[$al.3]);
      }
    }
    delete(@alloc[$a]);
  }
  @req[tid] = arg1; // realloc's new size (free's arg1 is never used: no uretprobe on free)
}
uretprobe:$lib:malloc, uretprobe:$lib:calloc, uretprobe:$lib:realloc {
  $n = @req[tid];
  if ($n && retval) {
    $seq = ++@q[1];
    @alloc[retval] = ($n, nsecs, $seq, ustack, 0);
    @queue[$seq] = retval;
  }
  delete(@req[tid]);
}
interval:ms:100, END {
  $h = @q[0];
  $n = 0;
  while ($h < @q[1] && $n < 200) {
    $h++;
    $n++;
    $a = @queue[$h];
    $al = @alloc[$a];
    if ($al.2 == $h) {
      if (nsecs - $al.1 < $age) {
        $h--;
        break;
      }
      @leaked_bytes[$al.3] += $al.0;
      @leaked_blocks[$al.3] += 1;
      @alloc[$a] = ($al.0, $al.1, $al.2, $al.3, 1);
    }
    delete(@queue[$h]);
  }
  @q[0] = $h;
}
END { clear(@req); clear(@alloc); clear(@queue); clear(@q); }
