// Stacks, tuples and a uprobe for the stage goldens (tests/tier_stages.py).
uprobe:/bin/true:main, uprobe:/bin/true:exit* {
  @bytes[ustack, kstack, pid] = sum(arg0);
  @last[func] = (arg1, str(arg2));
  printf("%s %d\n", probe, arg0);
}
