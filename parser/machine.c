/* parser/machine.c: x86-64 pt_regs offsets and signal names (machine.h). */
#define _GNU_SOURCE /* sigabbrev_np */
#include "parser/machine.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* struct pt_regs of x86-64, in order: 8 bytes each */
static const char *const regs[] = {
	"r15", "r14", "r13", "r12", "bp", "bx", "r11", "r10", "r9", "r8", "ax",
	"cx", "dx", "si", "di", "orig_ax", "ip", "cs", "flags", "sp", "ss",
};

int sp_reg_offset(const char *name)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i], name))
			return (int)(i * 8);
	return -1;
}

const char *sp_reg_names(void)
{
	return "r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, "
	       "cs, flags, sp, ss";
}

int sp_signal_number(const char *name)
{
	char *end;
	long v;

	if (!name || !*name)
		return -1;
	v = strtol(name, &end, 10);
	if (!*end)
		return v >= 1 && v <= 64 ? (int)v : -1;
	if (!strncasecmp(name, "SIG", 3))
		name += 3;
	for (int s = 1; s < 32; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && !strcasecmp(abbrev, name))
			return s;
	}
	return -1;
}
