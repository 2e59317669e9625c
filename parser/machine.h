/* parser/machine.h: what the language knows of the machine: x86-64 register
 * names (reg("ip")) and signal names (signal("SIGUSR1")), checked by sema
 * and used by codegen. */
#ifndef SPROF_PARSER_MACHINE_H
#define SPROF_PARSER_MACHINE_H

/* Byte offset of register `name` in struct pt_regs (bpftrace's names: "ip",
 * "sp", "di", "r8", ...), or -1. */
int sp_reg_offset(const char *name);

/* The registers' names, comma-separated, for messages. */
const char *sp_reg_names(void);

/* Signal number of "SIGKILL", "KILL" or "9" (1..64), or -1. */
int sp_signal_number(const char *name);

#endif
