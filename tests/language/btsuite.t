Cases from bpftrace v0.17.0's runtime test suite that sprof once failed: the language forms they use, run side by side with bpftrace.
### struct_last_member_without_semicolon
struct x { unsigned long x }; struct y { struct { int m[1] } a; int b:3, c:5 }; BEGIN { printf("%d %d\n", sizeof(struct x), sizeof(struct y)); exit(); }
--- stdout
8 8


### buf_of_array
# workload: cstructs
# opts: -c "$WORKLOAD 1"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4 };
uprobe:$WORKLOAD:take_foo { $f = (struct foo *)arg0; printf("%r|%r\n", buf($f->arr), buf($f->name, 4)); }
--- stdout
\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00|hell


