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


### pointer_values_print_in_hex
# bpftrace: differs 0.17 prints pointer values in decimal (keys in hex); 0.27 prints both in hex
BEGIN { @ = (int32 *)32; @++; @m[(int8 *)3] = (int8 *)4; @t = ((int16 *)1, 2); $p = (uint64 *)9; printf("%d %p %x\n", $p, $p, $p); @d = (int32 *)36; @d -= 2; exit(); }
--- stdout
9 0x9 9


@: 0x24
@d: 0x1c
@m[0x3]: 0x4
@t: (0x1, 2)
--- bpftrace
9 0x9 9


@: 36
@d: 28
@m[0x3]: 4
@t: (1, 2)
### struct_map_keys
# workload: cstructs
# opts: -c "$WORKLOAD 1"
struct inner { short x; char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo { $f = (struct foo *)arg0; @s[$f->in] = 0; @m[$f->next->in, $f->a] = 1; @c[$f->in] = count(); }
--- stdout


@c[{.x=-5,.y=-56}]: 1
@m[{.x=3,.y=4}, 42]: 1
@s[{.x=-5,.y=-56}]: 0
### tuple_sizeof_counts_padding
BEGIN { $a = ((int8)1, (int64)1, (int8)1, (int64)1); $b = ((int8)1, (int16)1, (int32)1); $c = ((int8)-100, (int8)100, "abcdef", 3, (int32)1, (int64)-10, (int8)10, (int16)-555, "abc"); printf("%d %d %d\n", sizeof($a), sizeof($b), sizeof($c)); exit(); }
--- stdout
32 8 48


### array_and_buffer_equality
# workload: cstructs
# opts: -c "$WORKLOAD 1"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo { $f = (struct foo *)arg0; $a = buf("hi", 2); $b = buf("bye", 3); printf("%d %d %d %d|%d %d\n", $f->arr == $f->arr, $f->arr != $f->arr, $f->arr == $f->next->arr, $f->arr != $f->next->arr, $a == $a, $a != $b); }
--- stdout
1 0 0 1|1 1


### ternary_of_statements
BEGIN { nsecs ? printf("yes\n") : printf("no\n"); 0 ? printf("a\n") : printf("b\n"); $n = 2; $n > 1 ? exit() : printf("not yet\n"); }
--- stdout
yes
b


### ctx_builtin
# workload: cstructs
# opts: -c "$WORKLOAD 1"
struct x { unsigned long x }; uprobe:$WORKLOAD:take_foo { printf("%d %d\n", ((struct pt_regs *)ctx)->di == arg0, ((struct pt_regs *)ctx)->si); }
--- stdout
1 0


### uaddr_is_a_typed_pointer
# workload: cstructs no-pie
# opts: -c "$WORKLOAD 2"
uprobe:$WORKLOAD:take_pk { printf("%d %d\n", *uaddr("sink"), sizeof(*uaddr("sink"))); }
--- stdout
86 8


