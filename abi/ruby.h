/* abi/ruby.h: Ruby stacks, the layouts shared by bpf/ruby.bpf.c and runtime/langs/ruby.c.
 *
 * The Ruby half of the interpreter walker (abi/interp.h has CPython's).
 * User space finds a process's libruby (ruby_single_main_ractor) and writes
 * one struct sp_rb_proc per process into rb_procs. At sample time BPF takes
 * the sampled thread's execution context (its ruby_current_ec thread-local,
 * else the main ractor's running one), checks that it belongs to the
 * sampled thread (its thread's pthread_t is the thread's FS base), and
 * walks its control frames from the top down to the end of the VM stack,
 * appending one word per Ruby frame after the native frames, in the format
 * of abi/interp.h's frame words (group end bit, id, offset). The offset is
 * the frame's instruction index in its iseq (pc - iseq_encoded, in words).
 * A group ends at a frame with VM_FRAME_FLAG_FINISH: the first frame an
 * rb_vm_exec activation runs, where user space splices the group.
 */
#ifndef SPROF_ABI_RUBY_H
#define SPROF_ABI_RUBY_H

#define SP_RB_MAP_PROCS "rb_procs"
#define SP_RB_MAP_STATS "rb_stats"
#define SP_RB_MAP_SEEN "rb_code_seen"
#define SP_RB_MAP_LIVE "rb_live" /* as py_live (abi/interp.h) */
#define SP_RB_SEEN_MAX 16384 /* rb_code_seen's size */

/* Offsets in bytes (Ruby 3.1's or 3.3's layouts, runtime/langs/ruby.c). */
struct sp_rb_proc {
	uint64_t main_ractor;     /* address of ruby_single_main_ractor (a pointer) */
	uint64_t task_fsbase;     /* task_struct -> thread.fsbase (vmlinux BTF) */
	uint64_t ec_tls;          /* ruby_current_ec is at FS base - ec_tls in every
				   * thread (libruby's static TLS); 0: unknown */
	uint32_t version;         /* major*10000 + minor*100 + teeny */
	uint16_t ractor_running_ec;
	uint16_t ec_vm_stack, ec_vm_stack_size, ec_cfp, ec_thread;
	uint16_t thread_id;       /* rb_thread_t (or its native thread) -> pthread_t (== FS base) */
	uint16_t cfp_size;        /* sizeof(rb_control_frame_t) */
	uint16_t cfp_pc, cfp_iseq, cfp_ep;
	uint16_t iseq_body, body_encoded, body_label;
	uint16_t me_def;          /* rb_method_entry_t -> def (cfunc frames) */
	uint16_t me_called_id;    /* rb_method_entry_t -> called_id */
	uint16_t thread_nt;       /* rb_thread_t -> its native thread, whose pthread_t is at
				   * thread_id (3.3's M:N threads); 0: pthread_t in the
				   * rb_thread_t itself (3.1) */
	uint16_t pad;
};

/* rb_stats (per-CPU u64 counters). */
enum sp_rb_stat {
	SP_RB_ST_WALKS,     /* samples of a known Ruby process */
	SP_RB_ST_NOTHREAD,  /* the running context is another thread's (or none) */
	SP_RB_ST_TRUNCATED, /* more frames than room in the stack */
	SP_RB_ST_READERR,   /* a frame could not be read (stack cut there) */
	SP_RB_ST_FRAMES,    /* Ruby frames stored */
	SP_RB_ST_CODE_RETRY, /* records the full ring buffer refused (sent again later) */
	SP_RB_ST_CODE_SENT, /* records sent */
	SP_RB_NSTATS
};

/* What a frame word's id stands for. */
enum sp_rb_kind {
	SP_RB_ISEQ = 1,  /* a Ruby method, block, class body...: addr the iseq, aux its body */
	SP_RB_CFUNC = 2, /* a C method: addr the method entry, aux its definition */
};

/* SP_EV_INTERP_CODE record of a Ruby process (after struct sp_event_hdr:
 * id the pid, arg addr): BPF's new id for (addr, aux); user space reads
 * names and the line table from the process when it arrives. */
struct sp_rb_code_rec {
	uint32_t id;
	uint32_t kind;    /* enum sp_rb_kind */
	uint64_t aux;
	uint64_t magic;   /* SP_RB_REC_MAGIC: tells it from CPython's records */
};
#define SP_RB_REC_MAGIC 0x72627370726f6631ull

/* Key of rb_code_seen (value: the id): aux and gen tell a reused address
 * apart (an iseq's body and label, a method entry's definition and name:
 * a freed iseq and a new one at its address rarely share all three). */
struct sp_rb_code_key {
	uint64_t addr;
	uint64_t aux;
	uint64_t gen;
	uint32_t pid;
	uint32_t pad;
};

/* Frame flags (ep[0]) of Ruby 3.1's and 3.3's vm_core.h. */
#define SP_RB_MAGIC_MASK 0x7fff0001ull
#define SP_RB_MAGIC_CFUNC 0x55550001ull
#define SP_RB_FLAG_FINISH 0x0020ull

#endif
