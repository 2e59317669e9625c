/* runtime/printf.c: format printf() records sent on the event ring buffer.
 *
 * BPF sends the format's id and the raw argument bytes; the format string
 * stays in user space (the plan). Each conversion is re-issued to the C
 * library with a 64-bit length, so flags, width and precision behave as in
 * C whatever size the argument has. Stacks print as bpftrace prints them
 * inside printf: a newline, then one frame per line indented 8 spaces.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collect.h"
#include "printf.h"
#include "profile.h"
#include "report.h"

/* Copies "%-08.3" (flags, width, precision) into spec; returns the
 * conversion character, with *fmt left after it. */
static char parse_spec(const char **fmt, char *spec, size_t len)
{
	const char *s = *fmt + 1;
	size_t n;

	s += strspn(s, "-+ #0");
	s += strspn(s, "0123456789");
	if (*s == '.') {
		s++;
		s += strspn(s, "0123456789");
	}
	n = (size_t)(s - *fmt);
	if (n >= len - 4)
		n = len - 4;
	memcpy(spec, *fmt, n);
	spec[n] = '\0';
	s += strspn(s, "hlqjzt");
	*fmt = *s ? s + 1 : s;
	return *s;
}

static void print_int(FILE *out, const char *spec, char conv, const struct sp_kval *v)
{
	char f[80];

	switch (conv) {
	case 'd':
	case 'i':
		snprintf(f, sizeof(f), "%sll%c", spec, conv);
		fprintf(out, f, (long long)v->i);
		break;
	case 'c':
		snprintf(f, sizeof(f), "%sc", spec);
		fprintf(out, f, (int)(unsigned char)v->i);
		break;
	case 'p':
		snprintf(f, sizeof(f), "%s#llx", spec);
		fprintf(out, f, (unsigned long long)v->i);
		break;
	case 's': {
		char num[32];

		snprintf(num, sizeof(num), v->is_signed ? "%lld" : "%llu", (long long)v->i);
		snprintf(f, sizeof(f), "%ss", spec);
		fprintf(out, f, num);
		break;
	}
	default: /* u x X o */
		snprintf(f, sizeof(f), "%sll%c", spec, conv);
		fprintf(out, f, (unsigned long long)v->i);
	}
}

static void print_arg(FILE *out, const char *spec, char conv, const struct sp_kval *v,
		      const struct sp_plan_field *f)
{
	char fs[80];

	switch (v->kind) {
	case SP_F_STR:
	case SP_F_BUF:
		snprintf(fs, sizeof(fs), "%ss", spec);
		fprintf(out, fs, v->s ? v->s : "");
		return;
	case SP_F_USYM:
	case SP_F_KSYM:
		if (conv == 's' && v->s) {
			snprintf(fs, sizeof(fs), "%ss", spec);
			fprintf(out, fs, v->s);
			return;
		}
		print_int(out, spec, conv == 's' ? 'p' : conv, v);
		return;
	case SP_F_USTACK:
	case SP_F_KSTACK:
		fputc('\n', out);
		if (v->stack)
			sp_report_text_stack(out, v->stack, f ? f->stack_mode : 0, 8);
		return;
	case SP_F_TUPLE:
		fputc('(', out);
		for (int i = 0; i < v->n; i++) {
			fputs(i ? ", " : "", out);
			print_arg(out, "%", v->elems[i].kind == SP_F_INT ? 'd' : 's', &v->elems[i],
				  f && i < f->nelems ? &f->elems[i] : NULL);
		}
		fputc(')', out);
		return;
	default:
		print_int(out, spec, conv, v);
	}
}

void sp_printf_format(FILE *out, const char *fmt, const struct sp_kval *args, int nargs,
		      const struct sp_plan_field *fields)
{
	int next = 0;

	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		char spec[64], conv;

		if (!pct) {
			fputs(fmt, out);
			return;
		}
		fwrite(fmt, 1, (size_t)(pct - fmt), out);
		if (pct[1] == '%') {
			fputc('%', out);
			fmt = pct + 2;
			continue;
		}
		fmt = pct;
		conv = parse_spec(&fmt, spec, sizeof(spec));
		if (!conv)
			return;
		if (next >= nargs) {
			fputs(spec, out); /* more conversions than arguments: sema's job */
			fputc(conv, out);
			continue;
		}
		print_arg(out, spec, conv, &args[next], fields ? &fields[next] : NULL);
		next++;
	}
}

int sp_printf_event(FILE *out, const struct sp_plan *plan, struct sp_collector *c,
		    uint32_t id, const void *args, size_t len)
{
	const struct sp_plan_printf *pf;
	struct sp_kval kv;
	int err;

	if (id >= (uint32_t)plan->nprintfs)
		return -EINVAL;
	pf = &plan->printfs[id];
	if (pf->args.kind == SP_F_TUPLE && pf->args.nelems > 0) {
		const struct sp_plan_field *last = &pf->args.elems[pf->args.nelems - 1];

		if (len < (size_t)last->offset + last->size)
			return -EPROTO;
	}
	err = sp_collect_decode(c, &pf->args, args, 0, &kv);
	if (!err)
		sp_printf_format(out, pf->fmt, kv.elems, kv.kind == SP_F_TUPLE ? kv.n : 0,
				 pf->args.kind == SP_F_TUPLE ? pf->args.elems : NULL);
	sp_collector__reset_scratch(c);
	return err;
}
