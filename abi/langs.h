/* abi/langs.h: the one list of the language walkers BPF links in after CPython's.
 *
 * Each runtime's BPF walker (bpf/NAME.bpf.c) exports two functions,
 * sp_<id>_frames (appends the process's language words to the scratch
 * stack, 0 when the process is not this runtime's) and
 * sp_<id>_native_limit (how many native frames to leave room for). The
 * BPF side (bpf/common.bpf.c: sp_stack_<id>, take_stack) and codegen
 * (codegen/codegen.c: the global helpers; codegen/cg_interp.c: --interp
 * usdt and off) read this list instead of naming each runtime; CPython's
 * walker (bpf/python.bpf.c, sp_interp_frames) comes first and stays apart,
 * as --interp usdt puts its own frames in its place.
 *
 * X(id, compat, only): id the functions' infix; compat 1 when the walker
 * is in the object for kernels before 5.17 (SP_BPF_COMPAT), 0 when it
 * needs newer helpers; only the INTERP_* language a stack builtin of that
 * language alone asks for (rbstack), or -1. The order is the order they
 * are tried in: the first walker that finds frames wins.
 */
#ifndef SPROF_ABI_LANGS_H
#define SPROF_ABI_LANGS_H

#define SP_BPF_LANGS(X)     \
	X(rb, 1, INTERP_RUBY) \
	X(pl, 1, -1)          \
	X(nd, 0, -1)          \
	X(ph, 0, -1)          \
	X(hs, 0, -1)

#endif
