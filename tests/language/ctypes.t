C types: struct, union and enum definitions in the script, casts to typed pointers, *p, p->f, s.f, p[i], pointer arithmetic, bitfields, packed layouts, struct and array values in maps and print(), sizeof, #define, and kernel types from BTF (curtask). The u-probe target is tests/language/cstructs.c, run with -c; it passes a pointer to a struct on its stack.
### fields
# workload: cstructs
# opts: -c "$WORKLOAD 3"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo { $f = (struct foo *)arg0; printf("%d %s %d %d|%d %d %d|%s\n", $f->a, $f->name, $f->in.x, $f->in.y, $f->arr[1], $f->next->a, $f->next->arr[2], $f->next->name); }
--- stdout
42 hello -5 200|2 7 7|two
43 hello -5 200|2 7 7|two
44 hello -5 200|2 7 7|two


### values
# workload: cstructs
# opts: -c "$WORKLOAD 2"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; print($f->in); print($f->arr); @s = $f->in; @a = $f->arr; $v = $f->in; print($v.x + $v.y); print(($f->in, $f->a)); @b = $f->b; }
--- stdout
{ .x = -5, .y = 200 }
[1,2,3]
195
({ .x = -5, .y = 200 }, 43)


@a: [1,2,3]
@b: 1234567890123
@s: { .x = -5, .y = 200 }
### keys
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: differs 0.17 reads unsigned char members as signed
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo { $f = (struct foo *)arg0; @k[$f->in] = count(); @k2[$f->arr] = count(); @t[$f->next->in, 1] = sum(arg1); }
--- stdout


@k[{.x=-5,.y=200}]: 2
@k2[[1,2,3]]: 2
@t[{.x=3,.y=4}, 1]: 1
--- bpftrace


@k[{.x=-5,.y=-56}]: 2
@k2[[1,2,3]]: 2
@t[{.x=3,.y=4}, 1]: 1
### whole_struct
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# filter: next = (0x)?[0-9a-f]+ => next = ADDR
# bpftrace: skip 0.17 prints bitfields of a whole struct as varying garbage
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; print(*$f->next); @m[$f->a] = *$f; }
--- stdout
{ .a = 7, .name = two, .b = -2, .in = { .x = 3, .y = 4 }, .arr = [9,8,7], .next = ADDR, .f1 = 5, .f2 = 17, .neg = 3 }


@m[43]: { .a = 43, .name = hello, .b = 1234567890123, .in = { .x = -5, .y = 200 }, .arr = [1,2,3], .next = ADDR, .f1 = 2, .f2 = 30, .neg = -3 }
### bitfields
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: differs 0.17 does not sign-extend a signed bitfield (-3 in 4 bits reads 13)
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; printf("%d %d %d %d %d %d\n", $f->f1, $f->f2, $f->neg, $f->next->f1, $f->next->f2, $f->next->neg); }
--- stdout
2 30 -3 5 17 3


--- bpftrace
2 30 13 5 17 3


### pointers
# workload: cstructs
# bpftrace: differs 0.17 steps a struct pointer by 56 bytes here and cannot index a char array
# opts: -c "$WORKLOAD 2"
struct foo { int a; char name[8]; long b; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $p = (int32 *)arg0; printf("%d %d %c\n", *$p, $p[0], *((uint8 *)arg0 + 4)); $q = $p + 1; $p++; print($p == $q); $p -= 1; print(*$p); $f = (struct foo *)arg0; print((uint64)($f + 1) - (uint64)$f); print($f != 0); print($f->name[1]); }
--- stdout
43 43 h
true
43
24
true
101


--- bpftrace
### packed
# workload: cstructs
# opts: -c "$WORKLOAD 1"
# bpftrace: skip 0.17's grammar has no __attribute__ after a struct definition
struct pk { char c; int x; } __attribute__((packed));
uprobe:$WORKLOAD:take_pk { $p = (struct pk *)arg0; printf("%c %d %d\n", $p->c, $p->x, sizeof(struct pk)); }
--- stdout
x 123456 5


### union_enum
# workload: cstructs
# opts: -c "$WORKLOAD 1"
union u { int i; unsigned char c[4]; };
enum color { RED, GREEN = 5, BLUE };
uprobe:$WORKLOAD:take_pk { $u = (union u *)arg0; printf("%d %d %d %d\n", $u->i & 0xff, BLUE, RED, sizeof(union u)); }
--- stdout
120 6 0 4


### enum_names
# bpftrace: skip 0.17 prints enum values as numbers (0.27: by the enumerator's name)
enum color { RED, GREEN = 5, BLUE };
enum { LOW = -1 };
BEGIN { printf("%d %s|%-6s|%s %s %x\n", GREEN, GREEN, BLUE, (enum color)5, (enum color)7, BLUE); $c = RED; print($c); print((BLUE, 1)); @k[GREEN] = BLUE; @v = LOW; @n = GREEN + 1; exit(); }
--- stdout
5 GREEN|BLUE  |GREEN 7 6
RED
(BLUE, 1)


@k[GREEN]: BLUE
@n: 6
@v: LOW
### enum_json
# opts: -f json
# bpftrace: skip 0.17 has no enum names (0.27: JSON keeps the numbers, printf gives names)
enum color { RED, GREEN = 5 };
BEGIN { printf("%s %d\n", GREEN, GREEN); $c = GREEN; print($c); exit(); }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "printf", "data": "GREEN 5\n"}
{"type": "value", "data": 5}


### define_ifdef
#define TEN (5 * 2)
#define NAME "nm"
#ifdef BPFTRACE_HAVE_BTF
#define HAVE 1
#else
#define HAVE 0
#endif
#if TEN > 20
#define BIG 1
#endif
BEGIN { printf("%d %s %d\n", TEN + 1, NAME, HAVE); exit(); }
--- stdout
11 nm 1


### sizeof
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; };
BEGIN { $p = (struct foo *)0; printf("%d %d %d %d %d\n", sizeof(struct inner), sizeof(struct foo), sizeof($p), sizeof(*$p), sizeof(uint16)); exit(); }
--- stdout
4 56 8 56 2


### offsetof
# bpftrace: skip offsetof() arrived in bpftrace 0.18
struct foo { int a; char name[8]; long b; };
BEGIN { printf("%d %d\n", offsetof(struct foo, name), offsetof(struct foo, b)); exit(); }
--- stdout
4 16


### curtask
BEGIN { printf("%d %d %d\n", curtask->pid == pid, ((struct task_struct *)curtask)->tgid == pid, curtask->real_parent->pid > 0); exit(); }
--- stdout
1 1 1


### include_btf
# bpftrace: skip 0.17 parses the header with clang, and linux/types.h alone lacks task_struct
#include <linux/types.h>
BEGIN { $t = (struct task_struct *)curtask; printf("%d\n", $t->tgid == pid); exit(); }
--- stdout
1


### tracepoint_struct_pointer
# opts: -c "/bin/sleep 0.25"
tracepoint:syscalls:sys_enter_clock_nanosleep /pid == cpid/ { printf("%d %d\n", args->rqtp->tv_sec, args->rqtp->tv_nsec); @ns = sum(args->rqtp->tv_nsec); }
--- stdout
0 250000000


@ns: 250000000
### dwarf_args
# workload: cstructs
# opts: -c "$WORKLOAD 2"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; unsigned int f1:3, f2:5; int neg:4; };
uprobe:$WORKLOAD:take_foo { printf("%d %d %s %d\n", args->i, args->f->a, args->f->name, args->f->in.x); }
--- stdout
0 42 hello -5
1 43 hello -5


### args_record
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# filter: 0x[0-9a-f]+ => 0xADDR
# bpftrace: skip 0.17 has no args as a whole value (0.27)
uprobe:$WORKLOAD:take_foo { print(args); $r = args; @[args.i] = ($r, $r.f->a); @k[args] = $r.i; }
--- stdout
{ .f = 0xADDR, .i = 0 }
{ .f = 0xADDR, .i = 1 }


@[0]: ({ .f = 0xADDR, .i = 0 }, 42)
@[1]: ({ .f = 0xADDR, .i = 1 }, 43)
@k[{ .f = 0xADDR, .i = 0 }]: 0
@k[{ .f = 0xADDR, .i = 1 }]: 1
### dwarf_types
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 takes the types of args from DWARF but not the members of structs (it needs the struct defined in the script)
uprobe:$WORKLOAD:take_foo /args.i == 1/ { printf("%d %s %d %d\n", args.f->a, args.f->next->name, args.f->f2, args.f->neg); print(args.f->arr); @in = args.f->in; }
--- stdout
43 two 30 -3
[1,2,3]


@in: { .x = -5, .y = 200 }
### json
# workload: cstructs
# opts: -f json -c "$WORKLOAD 2"
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; @s = $f->in; @a = $f->arr; print($f->in); @m[1] = *$f; }
--- stdout
{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": { "x": -5, "y": 200 }}


{"type": "map", "data": {"@a": [1,2,3]}}
{"type": "map", "data": {"@m": {"1": { "a": 43, "name": "hello", "b": 1234567890123, "in": { "x": -5, "y": 200 }, "arr": [1,2,3] }}}}
{"type": "map", "data": {"@s": { "x": -5, "y": 200 }}}
### big_values
struct big { long arr[500]; int tail; };
BEGIN { $b = *(struct big *)0; printf("%d %d %d\n", $b.tail, $b.arr[499], sizeof($b)); exit(); }
--- stdout
0 0 4008


### kernel_struct_value
# bpftrace: skip 0.17 prints nothing for a task_struct value read whole
BEGIN { $t = *curtask; @t[1] = *curtask; printf("%d %d %s\n", $t.tgid == pid, @t[1].pid == tid, @t[1].comm); delete(@t[1]); exit(); }
--- stdout
1 1 sprof



### header_defines
#include <sys/socket.h>
#include <fcntl.h>
#define TWICE (AF_INET6 * 2) // a comment
BEGIN { printf("%d %d %d %d\n", AF_INET, AF_INET6, O_CREAT, TWICE); exit(); }
--- stdout
2 10 64 20


### header_defines_deep
#include <errno.h>
#include <signal.h>
BEGIN { printf("%d %d %d\n", EINVAL, EHWPOISON, SIGKILL); exit(); }
--- stdout
22 133 9


### uptr_kptr
# workload: cstructs
# opts: -c "$WORKLOAD 2"
struct foo { int a; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $k = (struct foo *)kptr(arg0); $u = (struct foo *)uptr(arg0); printf("%d %d\n", $k->a, $u->a); }
--- stdout
0 43


### typedefs
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17's grammar has no typedef (it takes typedefs only from #include'd headers)
typedef unsigned int u32_t;
typedef struct inner { short x; unsigned char y; } inner_t;
typedef struct foo { int a; char name[8]; long b; inner_t in; int arr[3]; } foo_t;
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (foo_t *)arg0; printf("%d %d %d\n", $f->a, (u32_t)-1, sizeof(inner_t)); print($f->in); }
--- stdout
43 4294967295 4
{ .x = -5, .y = 200 }


### dwarf_registers
# workload: cstructs
# opts: -c "$WORKLOAD 1"
# bpftrace: skip 0.17 reads the third parameter from the third register (whatever rdx holds), though the double before it went to xmm0
uprobe:$WORKLOAD:take_mixed { printf("%d\n", args->k); }
--- stdout
7


### btf_member_layout
# bpftrace: skip 0.17 needs kernel headers (not BTF) for kernel structs inside a script's struct
struct mine { char c; struct load_weight lw; struct list_head l; char d; };
BEGIN { printf("%d %d %d\n", offsetof(struct mine, lw), offsetof(struct mine, l), sizeof(struct mine)); exit(); }
--- stdout
8 24 48


### address_of
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 has no '&' (bpftrace 0.26 added it) and cannot cast a char array to a pointer
struct inner { short x; unsigned char y; };
struct foo { int a; char name[8]; long b; struct inner in; int arr[3]; struct foo *next; };
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; $pi = &$f->in; $pa = &$f->arr[1]; $c = (int8 *)$f->name; printf("%d %d %d %d %d %d\n", $pi->x, *$pa, $c[1], (uint64)$pi - (uint64)$f, (uint64)&$f->next->b - (uint64)$f->next, $pa[1]); }
--- stdout
-5 2 101 24 16 3


### address_of_variable
# bpftrace: skip 0.17 has no '&' (bpftrace 0.26 added it)
struct foo { unsigned int lo:4, hi:4; } BEGIN { $v = (uint32)0x5a; $s = "hi"; $t = (1, "x"); $f = *(struct foo *)&$v; $c = *((int8 *)&$s + 1); $p = &$v; print(($f.hi, $c, *$p, $p != 0, *&$t)); exit(); }
--- stdout
(5, 105, 90, true, (1, x))


### dwarf_structs
# workload: cstructs
# opts: -c "$WORKLOAD 2"
# bpftrace: skip 0.17 takes struct definitions from the script or kernel headers, not from the probed binary's DWARF
uprobe:$WORKLOAD:take_foo /arg1 == 1/ { $f = (struct foo *)arg0; printf("%d %s %d %d\n", $f->a, $f->next->name, $f->in.x, $f->neg); print($f->in); }
--- stdout
43 two -5 -3
{ .x = -5, .y = 200 }


### rawtracepoint_args
# opts: -c "/bin/true"
# bpftrace: skip 0.17 has no rawtracepoint probes (0.18), and their args came from BTF in 0.24
rawtracepoint:sched_process_exec { printf("%s %s %d\n", str(args.bprm->filename), args.p->comm, args.old_pid == (int32)pid); }
--- stdout
/bin/true true 1


