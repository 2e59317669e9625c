/* runtime/elf/bpf_disasm.h: `-d bpf`, the BPF object as instructions.
 *
 * Prints every program section of a BPF object (the bytes codegen made),
 * function by function, one line per instruction in the kernel verifier's
 * notation with the opcode byte in parentheses:
 *
 *     12: (bf) r1 = r6
 *     13: (85) call bpf_map_lookup_elem#1
 *
 * interleaved with the source lines that produced them, taken from the
 * object's .BTF.ext line info ("; @[comm] = count(); @ trace.sp:3:20").
 * Map loads show the map's name from the relocation. No kernel is needed.
 */
#ifndef SPROF_RUNTIME_ELF_BPF_DISASM_H
#define SPROF_RUNTIME_ELF_BPF_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 0, or -errno when the bytes are not a BPF ELF object (message on stderr).
 * src_name/src_text: the script, whose lines are shown where the object's
 * line info has no text (NULL: none). */
int sp_bpf_disasm(FILE *out, const void *obj, size_t len, const char *src_name,
		  const char *src_text);

/* Line `line` (1-based) of text without its indentation, and its length;
 * "" past the end. */
const char *sp_text_line(const char *text, uint32_t line, int *len);

#endif
