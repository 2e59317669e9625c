/* abi/usdt_spec.h: how one USDT site's arguments are read; shared with bpf/args.bpf.c.
 *
 * User space decodes each site's argument specs from .note.stapsdt into a
 * struct sp_usdt_spec, stores it in SP_MAP_USDT_SPECS under a key, and
 * attaches the site's uprobe with that key as its bpf cookie; the BPF side
 * (sp_usdt_arg) looks the spec up by cookie. Unlike libbpf 1.1's decoder
 * this one takes every operand form compilers emit: constants, registers,
 * memory off(%reg), base+index*scale, and symbol-relative sym+off(%rip).
 *
 * Keys: a probe whose body uses func/probe gets cookie = its entry in the
 * probe names map (small numbers); every other site gets a key from
 * SP_USDT_KEY_BASE up, so the two never collide.
 */
#ifndef SPROF_ABI_USDT_SPEC_H
#define SPROF_ABI_USDT_SPEC_H

/* Named like libbpf's spec map (which sprof no longer uses) so codegen's
 * rule holds: __bpf_usdt_* maps stay only in objects with usdt probes. */
#define SP_MAP_USDT_SPECS "__bpf_usdt_specs"
#define SP_USDT_MAX_ARGS 12
#define SP_USDT_MAX_SPECS 4096
#define SP_USDT_KEY_BASE 0x10000u

/* Byte offsets in the x86-64 struct pt_regs the program gets as ctx. */
#define SP_PT_REGS_IP 128
#define SP_PT_REGS_SIZE 168

enum sp_usdt_arg_kind {
	SP_USDT_CONST,  /* $imm: val_off */
	SP_USDT_REG,    /* %reg */
	SP_USDT_MEM,    /* off(%base[,%index,scale]), base/index optional: read memory */
	SP_USDT_IPREL,  /* sym+off(%rip): read memory at ip + val_off */
};

struct sp_usdt_arg {
	int64_t val_off;  /* constant, displacement, or (for IPREL) address - site */
	int16_t reg_off;  /* pt_regs offset of the register or base; -1 none */
	int16_t idx_off;  /* pt_regs offset of the index register; -1 none */
	uint8_t kind;     /* enum sp_usdt_arg_kind */
	uint8_t size;     /* 1, 2, 4, 8 bytes */
	uint8_t is_signed;
	uint8_t scale;    /* index multiplier */
};

struct sp_usdt_spec {
	struct sp_usdt_arg args[SP_USDT_MAX_ARGS];
	uint32_t nargs;
	uint32_t pad;
};

#endif
