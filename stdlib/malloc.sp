#!/usr/bin/env sprof
// purpose: bytes requested from malloc, calloc and realloc, by process name and user stack
// param lib string libc: the C library: a path, or a name found through the ld.so cache
//   sudo sprof -c ./app malloc -o alloc.svg
// The sizes asked for, whether or not they were freed (see memleak).
uprobe:$lib:malloc { @bytes[comm, ustack] = sum(arg0); }
uprobe:$lib:calloc { @bytes[comm, ustack] = sum(arg0 * arg1); }
uprobe:$lib:realloc { @bytes[comm, ustack] = sum(arg1); }
