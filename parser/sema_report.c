/* parser/sema_report.c: how sema's checkers speak: errors, warnings and
 * notes at a span (silent in the quiet pass, see sema.h), and types
 * written out for messages. The floor every sema*.c file stands on: it
 * calls none of them, so sema.c and the checkers only call down to it. */
#include <stdarg.h>
#include <stdio.h>

#include "parser/sema.h"

static void vreport(struct sema *s, enum sp_diag_level lv, struct sp_span sp, const char *fmt,
		    va_list ap)
{
	char buf[512];

	if (s->quiet)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (lv == SP_DIAG_NOTE)
		sp_diag_note(s->d, sp, "%s", buf);
	else
		sp_diag_at(s->d, lv, sp, "%s", buf);
}

void sema_err(struct sema *s, struct sp_span sp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(s, SP_DIAG_ERROR, sp, fmt, ap);
	va_end(ap);
}

void sema_warn(struct sema *s, struct sp_span sp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(s, SP_DIAG_WARNING, sp, fmt, ap);
	va_end(ap);
}

void sema_note(struct sema *s, struct sp_span sp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(s, SP_DIAG_NOTE, sp, fmt, ap);
	va_end(ap);
}

const char *sema_tstr(struct sema *s, const struct sp_type *t)
{
	char *b = s->tbuf[s->tnext++ & 3];

	return sp_type_str(t, b, sizeof(s->tbuf[0]));
}
