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
BEGIN { @head = 0; @seq = 0; }
uprobe:$lib:malloc { @req[tid] = arg0; }
uprobe:$lib:calloc { @req[tid] = arg0 * arg1; }
uprobe:$lib:free, uprobe:$lib:realloc {
  $a = arg0;
  if (@size[$a]) {
    if (@aged[$a]) {
      @leaked_bytes[@stack[$a]] -= @size[$a];
      @leaked_blocks[@stack[$a]] -= 1;
      if (@leaked_blocks[@stack[$a]] == 0) {
        delete(@leaked_bytes[@stack[$a]]);
        delete(@leaked_blocks[@stack[$a]]);
      }
      delete(@aged[$a]);
    }
    delete(@size[$a]);
    delete(@time[$a]);
    delete(@stack[$a]);
    delete(@seqof[$a]);
  }
  @req[tid] = arg1; // realloc's new size (free has no arg1 worth keeping: its return ends nothing)
}
uretprobe:$lib:malloc, uretprobe:$lib:calloc, uretprobe:$lib:realloc {
  $n = @req[tid];
  if ($n && retval) {
    $seq = ++@seq;
    @size[retval] = $n;
    @time[retval] = nsecs;
    @stack[retval] = ustack;
    @seqof[retval] = $seq;
    @queue[$seq] = retval;
  }
  delete(@req[tid]);
}
interval:ms:100, END {
  $h = @head;
  $n = 0;
  while ($h < @seq && $n < 200) {
    $h++;
    $n++;
    $a = @queue[$h];
    if (@seqof[$a] == $h) {
      if (nsecs - @time[$a] < $age) {
        $h--;
        break;
      }
      @leaked_bytes[@stack[$a]] += @size[$a];
      @leaked_blocks[@stack[$a]] += 1;
      @aged[$a] = 1;
    }
    delete(@queue[$h]);
  }
  @head = $h;
}
END {
  clear(@req); clear(@size); clear(@time); clear(@stack); clear(@seqof); clear(@aged);
  clear(@queue); clear(@head); clear(@seq);
}
