/* bpf/sp_bpf.h: shared declarations of the BPF-side helpers.
 *
 * Every bpf/NAME.bpf.c file includes this header. The files are compiled by
 * clang-16 to bitcode, linked together and embedded into sprof; codegen
 * links that bitcode into each generated module, then makes the helper
 * functions internal and always-inline, so a generated program has no
 * BPF-to-BPF calls. Helpers are therefore plain global (non-static)
 * functions here: clang would drop unused static ones before codegen sees
 * them. Maps are BTF-defined in ".maps" and stay external (libbpf rejects
 * static maps).
 *
 * The layouts shared with user space (struct sp_stack_val, struct
 * sp_ustack_key, struct sp_event_hdr, struct sp_config) and the map names
 * come from abi/plan.h.
 */
#ifndef SPROF_BPF_SP_BPF_H
#define SPROF_BPF_SP_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "abi/langs.h"

/* abi/plan.h includes <stdint.h>, and glibc's needs 32-bit stubs under
 * -target bpf: give it the fixed-width types from linux/types.h instead. */
#ifndef __CLANG_STDINT_H
#define __CLANG_STDINT_H
#define _STDINT_H
typedef __u8 uint8_t;
typedef __u16 uint16_t;
typedef __u32 uint32_t;
typedef __u64 uint64_t;
typedef __s8 int8_t;
typedef __s16 int16_t;
typedef __s32 int32_t;
typedef __s64 int64_t;
#endif
#include "abi/plan.h"

/* Helper functions carry no debug info: it would only be parsed again for
 * every compile (a third of the bitcode), and inlined code takes the script
 * location of its call anyway. Maps keep theirs (BTF), and so must any
 * function that stays a BPF subprogram (bpf_loop callbacks): LLVM's BTF
 * emitter needs a DISubprogram for every emitted function. */
#define SP_NODEBUG __attribute__((nodebug))

/* Every bounded loop over a run-time count: bpf_loop (Linux 5.17), whose
 * callback the verifier checks once. The helpers are built a second time
 * with -DSP_BPF_COMPAT for kernels without it (codegen picks that build,
 * sp_codegen_opts.compat): there the loop is a bounded C loop (Linux 5.3)
 * of at most MAX steps calling CB inline, because an older verifier takes
 * a callback referenced by address for a function the program lacks
 * ("number of funcs in func_info doesn't match number of subprogs").
 * Loops too long to inline (the unwinder's and the interpreter walkers')
 * call a global function a few steps instead (bpf/unwind.bpf.c,
 * SP_ILOOP in bpf/interp_common.bpf.h). */
#ifdef SP_BPF_COMPAT
#define sp_loop(n, cb, ctx, max)                                              \
	do {                                                                  \
		__u32 sp_n_ = (__u32)(n);                                     \
		for (__u32 sp_i_ = 0; sp_i_ < (__u32)(max) && sp_i_ < sp_n_; sp_i_++) \
			if (cb(sp_i_, ctx))                                   \
				break;                                        \
	} while (0)
#else
#define sp_loop(n, cb, ctx, max) bpf_loop(n, cb, ctx, 0)
#endif

/* common.bpf.c */
int sp_filter(void);
void sp_ustack(void *ctx, struct sp_ustack_key *out, int limit);
void sp_pystack(void *ctx, struct sp_ustack_key *out, int limit);
void sp_rbstack(void *ctx, struct sp_ustack_key *out, int limit);
__u64 sp_kstack(void *ctx, int limit);
void sp_emit_exit(void);
void sp_emit_event(__u32 type, __u32 id, __u64 arg);
long sp_send_event(__u32 type, __u32 id, __u64 arg);
long sp_send_record(const void *rec, __u32 size);
void sp_event_drop(void);
__u64 sp_elapsed(void);
__u64 sp_cpid(void);
__u64 sp_wall_ns(void);
void sp_probe_name(void *ctx, int which, char *dst, __u32 size);
void sp_note_pid(void);
long sp_read_str(char *dst, __u32 size, const void *src, int user);
long sp_read(void *dst, __u32 size, const void *src, int user);
void sp_note_insert(__u32 slot);
__u64 sp_map_enter(void *drops, __u32 slot);
void sp_map_leave(void *drops);
void sp_count_lost(__u32 cause);
struct sp_stack_val *sp_stack_scratch_buf(void);
__u32 sp_icode_next(void);

/* python.bpf.c */
__u32 sp_interp_frames(__u64 *ips, __u32 start, __u32 end);
int sp_interp_native_limit(int limit);
int sp_interp_known(void);

/* the other runtimes' walkers (abi/langs.h): sp_rb_frames in ruby.bpf.c,
 * sp_pl_frames in perl.bpf.c, ... */
#define SP_BPF_LANG_DECL(id, compat, only)                        \
	__u32 sp_##id##_frames(__u64 *ips, __u32 start, __u32 end); \
	int sp_##id##_native_limit(int limit);                      \
	int sp_##id##_known(void);
SP_BPF_LANGS(SP_BPF_LANG_DECL)
#undef SP_BPF_LANG_DECL
/* interp_usdt.bpf.c (codegen puts them in place of the two above) */
__u32 sp_iu_frames(__u64 *ips, __u32 start, __u32 end);
int sp_iu_native_limit(int limit);
__u32 sp_iu_no_frames(__u64 *ips, __u32 start, __u32 end);
int sp_iu_no_limit(int limit);
int sp_interp_walk_on(void);
int sp_iu_walk_off(void);

/* maps.bpf.c */
void sp_count_drop(void *drops);
void *sp_map_upsert(void *map, void *alt, void *key, void *init, void *drops, __u32 id);
void *sp_map_upsert1(void *map, void *key, void *init, void *drops, __u32 id);
void sp_map_put(void *map, void *key, void *val, void *drops);
__s64 sp_percpu_read(void *map, void *key, int agg);
__u64 sp_log2_bucket(__s64 v);
__u64 sp_lin_bucket(__s64 v, __s64 min, __s64 max, __s64 step);

/* args.bpf.c (argument access; x86-64 SysV ABI) */
__u64 sp_arg(void *ctx, int n);
__u64 sp_retval(void *ctx);
__s64 sp_usdt_arg(void *ctx, int n);

#endif
