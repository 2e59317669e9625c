/* runtime/langs/rblines.h: Ruby 3.1 iseq line info -> the line of an instruction.
 *
 * A Ruby frame is sampled as (iseq, pc - iseq_encoded in words). Ruby 3.1
 * keeps one insns_info entry (12 bytes, line_no at +0) per change of
 * position and, in release builds, no positions array: the entry of an
 * instruction is found through a succinct bit vector (iseq.c's
 * succ_index_table: a bit per instruction start that opens an entry; the
 * rank of the instruction's position, minus one, is the entry's index).
 * Pure functions on bytes copied out of the process, unit tested in
 * tests/unit/test_rblines.c.
 */
#ifndef SPROF_RUNTIME_LANGS_RBLINES_H
#define SPROF_RUNTIME_LANGS_RBLINES_H

#include <stddef.h>
#include <stdint.h>

#define SP_RB_INSN_INFO_SIZE 12 /* struct iseq_insn_info_entry */

/* Bytes of the succ_index_table of an iseq of iseq_size words. */
size_t sp_rb_succ_size(uint32_t iseq_size);

/* The rank of position x in the table (tab, len bytes): how many entries
 * start at or before x; -1 when the table does not reach x. */
int sp_rb_succ_rank(const uint8_t *tab, size_t len, uint32_t x);

/* The line of the instruction a frame's pc points after (`off`: pc -
 * iseq_encoded in words, as Ruby's calc_pos takes it) from the iseq's
 * insns_info entries (n of them) and its succ_index_table (NULL when n is
 * 1); 0 when it cannot tell. */
int sp_rb_line(const uint8_t *entries, uint32_t n, const uint8_t *succ, size_t succlen,
	       uint32_t off);

#endif
