// A small program for the stage goldens (tests/tier_stages.py).
// param n int 3: ticks before exit
interval:ms:10 /@ticks < $n/ {
  @ticks++;
  @by[comm, "tick"] = count();
  $x = @ticks * 2;
  printf("tick %d %s\n", $x, comm);
}
interval:ms:100 { @lat = hist(nsecs % 1000); exit(); }
