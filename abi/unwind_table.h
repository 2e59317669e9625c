/* abi/unwind_table.h: tables of the DWARF (.eh_frame) user-stack unwinder, shared by
 * bpf/unwind.bpf.c and runtime/stacks/unwind.c.
 *
 * User space compiles each file's .eh_frame into rows (runtime/elf/ehframe.c):
 * one row per address range, saying how to find the caller's frame from
 * (rip, rsp, rbp). All files' rows are one sequence, each file a sorted
 * slice of it: the first SP_UNW_BASE_ROWS in one mmapable ARRAY made at
 * load (SP_UNW_MAP_ROWS), the rest in pages of SP_UNW_PAGE_ROWS that user
 * space makes as the tables grow and puts into an ARRAY_OF_MAPS
 * (SP_UNW_MAP_ROWS_MORE); a slice may cross from one into the next. The
 * bucket index (SP_UNW_MAP_PIDX, SP_UNW_MAP_PIDX_MORE) is kept the same
 * way. A process is a sorted
 * list of its executable mappings (SP_UNW_MAP_PROCS, by tgid), each naming
 * the slice of its file. The BPF side looks up the mapping of a pc, binary
 * searches the slice, and steps to the caller. A pc in no registered
 * mapping is looked up in the kernel (bpf_find_vma) and placed through
 * the files map (SP_UNW_MAP_FILES).
 *
 * Row rules, x86-64 (98.7 % of .eh_frame rows are CFA=rsp+off, the rest
 * almost all CFA=rbp+off; RA is always at CFA-8):
 *   CFA_RSP   CFA = rsp + cfa_off
 *   CFA_RBP   CFA = rbp + cfa_off
 *   CFA_RSP_BIG  CFA = rsp + an offset past cfa_off's 32 KiB (frames of
 *             stack-probed functions, up to 8 MiB: see below)
 *   PLT       CFA = rsp + 8 + ((rip & 15) >= cfa_off ? 8 : 0)  (.plt stubs)
 *   SIGNAL    glibc's __restore_rt: registers from the ucontext at rsp + 40
 *   FP        no usable rule (gap between FDEs, DWARF expression, other
 *             register): take one frame-pointer step
 *   STOP      outermost frame (return address undefined: _start, clone)
 *   CUT       the caller cannot be found from here (Go code that writes
 *             rsp: asmcgocall, gogo): the stack ends, marked truncated
 *   GO_SWITCH Go's stack switchers (runtime.systemstack, mcall, morestack),
 *             running on the thread's g0 stack: the goroutine's frames go
 *             on where the switch saved them, g.m.curg.sched {sp, pc, bp},
 *             as Go's own traceback goes on (runtime/traceback.go). g is
 *             the word at fs - 8 (Go's TLS slot on amd64), checked by
 *             g.m (g0 and gsignal share it); which stack the walk is on
 *             is told by rsp inside g0's or curg's bounds (g.stack, at 0);
 *             |cfa_off| is the offset of curg in runtime.m,
 *             8 * |rbp_off8| that of m in runtime.g (sched follows it; a
 *             gobuf is sp, pc, ..., bp at 48); cfa_off < 0 marks
 *             systemstack (the return address is at sched.sp, sched.pc
 *             names systemstack_switch), rbp_off8 < 0 marks mcall.
 *             mcall's and morestack's goroutine may be dropped already
 *             (curg nil: the scheduler runs on g0): the stack then ends
 *             there unmarked, as Go's traceback ends there.
 *             Without the offsets (a Go version not known, no DWARF) these
 *             functions get CUT rows.
 *   GO_VDSO   Go's callers of the vDSO (runtime.nanotime1, time.now): they
 *             move rsp to g0's stack for the call and keep their caller's
 *             sp and pc in m.vdsoSP and m.vdsoPC meanwhile (0 outside):
 *             cfa_off is the offset of vdsoSP in runtime.m (vdsoPC
 *             follows), 8 * rbp_off8 that of m in runtime.g; the caller's
 *             rbp is the word below its return address (Go's frame).
 * then RA = *(CFA - 8), rsp = CFA, and rbp = *(CFA + 8 * rbp_off8) when
 * rbp_off8 != 0, else unchanged.
 */
#ifndef SPROF_ABI_UNWIND_TABLE_H
#define SPROF_ABI_UNWIND_TABLE_H

#include <linux/types.h>

enum sp_unw_kind {
	SP_UNW_CFA_RSP = 0,
	SP_UNW_CFA_RBP = 1,
	SP_UNW_PLT = 2,
	SP_UNW_SIGNAL = 3,
	SP_UNW_FP = 4,
	SP_UNW_STOP = 5,
	SP_UNW_CUT = 6,
	SP_UNW_GO_SWITCH = 7,
	SP_UNW_GO_VDSO = 8,
	SP_UNW_CFA_RSP_BIG = 9,
};

/* CFA_RSP_BIG: 8 * the 20-bit number made of (u16)cfa_off and the top four
 * bits of rbp_off8 above it; rbp saved at CFA + 8 * (the low four bits of
 * rbp_off8, signed). */
#define SP_UNW_BIG_MAX8 (1u << 20)

/* One row: the rule from `pc` up to the next row's pc. `pc` is relative to
 * the mapping's bias (see struct sp_unw_map), so it fits 32 bits. */
struct sp_unw_row {
	__u32 pc;
	__s16 cfa_off;
	__u8 kind;      /* enum sp_unw_kind */
	__s8 rbp_off8;  /* saved rbp at CFA + 8 * rbp_off8; 0: rbp unchanged */
};

/* One executable mapping with a table: rows[first, first + count) for
 * pcs in [start, end); a row's pc is (pc - bias). */
struct sp_unw_map {
	__u64 start, end;
	__u64 bias;
	__u32 first, count;
	__u32 pidx, npidx;  /* the file's bucket index (SP_UNW_MAP_PIDX); npidx 0: none */
};

/* A file's bucket index, so a pc's row is found without searching all of
 * the file's rows: element b (of npidx, in SP_UNW_MAP_PIDX from pidx)
 * covers row pcs [b << SHIFT, (b + 1) << SHIFT). lo is the row (counted
 * from the file's first) in effect at the bucket's start, hi the one in
 * effect at its last byte; the rows starting inside it, after its first
 * byte, are lo + 1 .. hi. When there are at most 8 of them, offs holds
 * their offsets from the bucket's start (1-127, ascending, one a byte from
 * the lowest; unused bytes 0x80), and the row of a pc at offset o is lo
 * plus the number of offsets <= o: counted with one subtraction across
 * the eight bytes (each byte 0x80 + o - offset keeps its top bit when
 * offset <= o), no search. With more, rows lo..hi are searched. 128-byte
 * buckets hold ~3 of libc's 40k rows. */
struct sp_unw_bucket {
	__u32 lo, hi;
	__u64 offs;
};
#define SP_UNW_PIDX_SHIFT 7

/* The row and bucket sequences: a base of 16 MiB and 8 MiB (enough for
 * most machines' programs, read fastest), then pages of 8 MiB, at most
 * SP_UNW_MAX_PAGES of each (512 MiB), fewer under the runtime's budget. */
#define SP_UNW_BASE_ROWS (2u << 20)
#define SP_UNW_BASE_BUCKETS (512u << 10)
#define SP_UNW_PAGE_ROWS_SHIFT 20
#define SP_UNW_PAGE_ROWS (1u << SP_UNW_PAGE_ROWS_SHIFT)
#define SP_UNW_PAGE_BUCKETS_SHIFT 19
#define SP_UNW_PAGE_BUCKETS (1u << SP_UNW_PAGE_BUCKETS_SHIFT)
#define SP_UNW_MAX_PAGES 64
#define SP_UNW_BUCKET_OFFS 8

#ifdef __bpf__
#define SP_UNW_INLINE static inline __attribute__((always_inline, nodebug))
#else
#define SP_UNW_INLINE static inline
#endif

/* The row, counted from the file's first, of row pc rel in its bucket e
 * (rel >> SP_UNW_PIDX_SHIFT); -1 when the bucket has too many rows for
 * offs: the row is then among lo..hi (binary search). */
SP_UNW_INLINE __s64 sp_unw_bucket_row(const struct sp_unw_bucket *e, __u64 rel)
{
	__u64 o = (rel & ((1u << SP_UNW_PIDX_SHIFT) - 1)) * 0x0101010101010101ull;

	if (e->hi - e->lo > SP_UNW_BUCKET_OFFS)
		return -1;
	/* a byte's top bit stays set where its offset <= o; then their sum */
	o = (((o | 0x8080808080808080ull) - e->offs) >> 7) & 0x0101010101010101ull;
	return (__s64)e->lo + (__s64)((o * 0x0101010101010101ull) >> 56);
}

#define SP_UNW_MAX_MAPS 256 /* per process; more mappings are left to frame pointers */

/* Value of SP_UNW_MAP_PROCS: a process's executable mappings, sorted by
 * start; those without a table (JIT, no .eh_frame) have count 0. A pc in
 * no mapping (a new mmap, dlopen, libraries mapped after the first read)
 * makes BPF send SP_EV_NEWPID again so user space re-reads the maps: at
 * once after the first read (refresh_ns 0), then at most every
 * SP_UNW_REFRESH_NS (refresh_ns: CLOCK_MONOTONIC of the last request). */
struct sp_unw_proc {
	__u32 n;
	__u32 pad;
	__u64 refresh_ns;
	struct sp_unw_map maps[SP_UNW_MAX_MAPS];
};
#define SP_UNW_REFRESH_NS 200000000ull

/* Value of SP_UNW_MAP_FILES, by the kernel's identity of the file (its
 * super_block's s_dev, MKDEV encoding, and inode number): every file user
 * space made rows for (count 0: no table, frame-pointer steps), with its
 * executable PT_LOADs, so BPF can place a mapping it finds with
 * bpf_find_vma (a process or mapping user space has not registered yet):
 *   bias = vma start - pgoff + seg.off - seg.vaddr + base
 * for the segment whose page-aligned offset range holds pgoff. */
struct sp_unw_file_key {
	__u64 dev, ino;
};
#define SP_UNW_FILE_SEGS 4
struct sp_unw_file {
	__u32 first, count;
	__u64 base;               /* vaddr of the first row */
	__u32 nsegs, pidx;        /* pidx, npidx: as in struct sp_unw_map */
	__u32 npidx, pad;
	struct {
		__u64 off, vaddr, filesz;
	} segs[SP_UNW_FILE_SEGS];
};
#define SP_UNW_MAX_FILES 8192

/* Value 0 of SP_UNW_MAP_KOFS: byte offsets of the kernel fields read from a
 * vma (runtime/stacks/kofs.c, from vmlinux BTF); ok 0: no vma lookups.
 * regs_ok: task_stack (task_struct.stack) and regs_top (THREAD_SIZE -
 * sizeof(struct pt_regs)) give the task's saved user registers where
 * bpf_task_pt_regs (Linux 5.15) is missing. */
struct sp_unw_kofs {
	__u32 ok;
	__u32 vm_start, vm_end, vm_pgoff, vm_flags, vm_file;
	__u32 f_inode, i_ino, i_sb, s_dev;
	__u32 regs_ok, task_stack, regs_top;
	__u32 task_fsbase; /* task_struct.thread.fsbase (GO_SWITCH rows); 0: unknown */
	/* task_struct.real_parent, .tgid, .self_exec_id (u64): a forked child
	 * without an entry walks with its parent's while neither has exec'd
	 * since; task_parent 0: unknown */
	__u32 task_parent, task_tgid, task_exec_id;
	/* task_struct.mm: 0 once a task has left its address space (do_exit's
	 * exit_mm, before it frees the mappings): its stack reads fail; 0: unknown */
	__u32 task_mm;
};

/* Counters in SP_UNW_MAP_STATS (per-CPU array), by index. */
enum sp_unw_stat {
	SP_UNW_ST_SAMPLES,   /* stacks taken by the DWARF unwinder */
	SP_UNW_ST_FRAMES,    /* frames recorded, all ways */
	SP_UNW_ST_FP_FRAMES, /* frames from frame-pointer steps (no table or rule) */
	SP_UNW_ST_NO_PROC,   /* stacks of processes without an entry (mappings from the kernel) */
	SP_UNW_ST_READ_ERR,  /* a stack read failed: the stack ends there */
	SP_UNW_ST_TRUNCATED, /* the frame limit was reached */
	SP_UNW_ST_REFRESH,   /* maps re-read requests (pc in no known mapping) */
	SP_UNW_ST_NOT_LOADED, /* stacks cut short: a frame's pc in no known mapping
	                       * (tables not loaded yet: a new mmap, dlopen, exec) */
	SP_UNW_ST_BAD_GUESS, /* stacks cut short: a frame-pointer step (no table
	                      * rule) gave a return address in no mapping */
	SP_UNW_ST_VMA,       /* mappings found by bpf_find_vma (not registered yet) */
	SP_UNW_ST_GO_SWITCH, /* Go stack switches followed to the goroutine's stack */
	SP_UNW_ST_PARENT,    /* stacks of forked children walked with their parent's entry */
	SP_UNW_ST_FP_FALLBACK, /* stacks left to the kernel's frame-pointer walk: a
	                        * kernel without bpf_find_vma (before 5.17), and the
	                        * process or the interrupted pc's mapping not
	                        * registered yet */
	SP_UNW_ST_VMA_CACHED, /* mappings found in the cache of bpf_find_vma's results
	                       * (bpf/unwind.bpf.c: unw_vcache) */
	SP_UNW_ST_EXITING,   /* a stack read failed in a task without its address
	                      * space (exiting: the kernel frees its mappings) */
	SP_UNW_ST_NSTATS,
};

/* The last "frame" of a stack the unwinder could not finish (a read
 * failed, no mapping, a frame-pointer guess rejected); not an address:
 * user space shows it as `[truncated]`. Stacks that end at an outermost
 * frame (_start, clone, runtime.goexit), a zero return address or the
 * frame limit have none. */
#define SP_UNW_IP_TRUNCATED 0xfffffffffffffff1ull
/* The last "frame" of a stack whose task has left its address space
 * (do_exit after exit_mm: the kernel tears the mappings down, which takes
 * a while for a big process, and no user memory can be read): user space
 * shows it as `[exiting]`, a kind of truncation with its own cause. */
#define SP_UNW_IP_EXITING 0xfffffffffffffff2ull

/* max | SP_UNW_KEEP_BOTTOM (a mixed stack's native limit, which leaves
 * room for interpreter frames, not one the program asked for): the walk
 * goes on past max, up to SP_UNW_WALK_MAX frames, keeping the last
 * SP_UNW_KEEP - 1 after a truncation mark at max - SP_UNW_KEEP, so the
 * stack keeps its root. */
#define SP_UNW_KEEP_BOTTOM 0x10000
#define SP_UNW_KEEP 32
#define SP_UNW_WALK_MAX 254
#ifdef __bpf__
/* bpf/unwind.bpf.c: the current task's user stack into buf->ip[0..max), as
 * bpf_get_stack(BPF_F_USER_STACK) would return it; the number of frames,
 * or -1 when the user registers cannot be read (then take bpf_get_stack's). */
struct sp_stack_val;
int sp_unwind_user(struct sp_stack_val *buf, int max);
#endif

/* Not sp_*: codegen drops helper maps no code uses unless they are sp_*,
 * so a program that takes no user stack has none of these (and
 * sp_unwind__open() says ENOENT). */
#define SP_UNW_MAP_ROWS "unw_rows"
#define SP_UNW_MAP_PIDX "unw_pidx"
#define SP_UNW_MAP_ROWS_MORE "unw_rows_more"
#define SP_UNW_MAP_PIDX_MORE "unw_pidx_more"
#define SP_UNW_MAP_PROCS "unw_procs"
#define SP_UNW_MAP_STATS "unw_stats"
#define SP_UNW_MAP_FILES "unw_files"
#define SP_UNW_MAP_KOFS "unw_kofs"

#endif
