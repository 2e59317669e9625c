/* parser/intlit.h: integer literals, as bpftrace 0.27 writes them.
 *
 * One reader for every place a number is written: expressions (lexer.l)
 * and attach-point fields (attach.c: interval:1s, profile:hz:99).
 *
 *   decimal  1000, 1_000        octal  017        hex  0x1f, 0xdead_beef
 *   exponent 1e6 (decimal and octal only: 'e' is a digit in hex)
 *   suffix   u ul ull l ll      C's integer suffixes; they bound the value
 *            ns us ms s m h d   a duration: the value is in nanoseconds
 *
 * There is no binary 0b form and no upper-case suffix, as in bpftrace 0.27.
 * Hex literals take no suffix.
 */
#ifndef SPROF_PARSER_INTLIT_H
#define SPROF_PARSER_INTLIT_H

#include <stdbool.h>
#include <stdint.h>

struct sp_intlit {
	uint64_t value;
	bool duration;      /* had a duration suffix: value is in nanoseconds */
	/* when sp_intlit_read() fails: what is wrong and where in the text */
	char msg[128];
	const char *note;   /* a hint to print after msg, or NULL */
	uint32_t err_off, err_len;
};

/* Read the literal s[0..len); false with lit->msg set when it is not one. */
bool sp_intlit_read(const char *s, uint32_t len, struct sp_intlit *lit);

#endif
