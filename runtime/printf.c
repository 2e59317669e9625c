/* runtime/printf.c: output records sent on the event ring buffer.
 *
 * BPF sends a format's id and the raw argument bytes; the format strings
 * stay in user space (the plan). Each printf conversion is re-issued to the
 * C library with a 64-bit length, so flags, width and precision behave as
 * in C whatever size the argument has. Stacks print as bpftrace prints them
 * inside printf: one frame per line indented 8 spaces after a newline.
 * time(), cat() and system() take their text from the same formatter. With
 * -f json every piece becomes one bpftrace JSON line instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "runtime/collect.h"
#include "runtime/printf.h"
#include "runtime/profile/profile.h"
#include "runtime/report/report.h"
#include "runtime/report/impl.h"
#include "runtime/shell.h"
#include "base/clock.h"

#define CAT_MAX (10 * 1024) /* bytes cat() prints, like bpftrace */

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
	case 'p': /* glibc's: 0x1000, and (nil) for 0, as bpftrace prints */
		snprintf(f, sizeof(f), "%sp", spec);
		fprintf(out, f, (void *)(uintptr_t)v->i);
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

/* %rx: every byte as \xNN; %rh: every byte as two hex digits, spaced
 * (bpftrace 0.17). */
static void print_hex(FILE *out, const char *spec, char how, const struct sp_kval *v)
{
	char *text = NULL, fs[80];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	for (int64_t i = 0; v->raw && i < v->i; i++)
		fprintf(m, how == 'x' ? "\\x%02x" : i ? " %02x" : "%02x", v->raw[i]);
	fclose(m);
	snprintf(fs, sizeof(fs), "%ss", spec);
	fprintf(out, fs, text ? text : "");
	free(text);
}

static void print_arg(FILE *out, const char *spec, char conv, const struct sp_kval *v,
		      const struct sp_plan_field *f)
{
	if (v->kind == SP_F_BUF && (conv == 'x' || conv == 'h')) { /* %rx, %rh */
		print_hex(out, spec, conv, v);
		return;
	}
	char fs[80];

	if (f && f->kind == SP_F_TEXT && f->fmt && conv != 's' &&
	    (!strcmp(f->fmt, "bool") || !strncmp(f->fmt, "enum ", 5))) {
		print_int(out, spec, conv, v); /* printf("%d", true): 1; %d of an enum value */
		return;
	}
	switch (v->kind) {
	case SP_F_STR:
	case SP_F_BUF: {
		const char *s = v->s ? v->s : "";
		char *safe = NULL;
		size_t cap = strlen(s) * 4 + 1;

		if (sp_text_needs_escape(s) && (safe = malloc(cap)))
			s = sp_text_escape(s, safe, cap);
		snprintf(fs, sizeof(fs), "%ss", spec);
		fprintf(out, fs, s);
		free(safe);
		return;
	}
	case SP_F_USYM:
	case SP_F_KSYM:
		if (conv == 's') {
			char *text = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&text, &len);

			if (!m)
				return;
			sp_text_addr(m, v->s, (uint64_t)v->i);
			fclose(m);
			snprintf(fs, sizeof(fs), "%ss", spec);
			fprintf(out, fs, text);
			free(text);
			return;
		}
		print_int(out, spec, conv, v);
		return;
	case SP_F_USTACK:
	case SP_F_KSTACK:
		/* bpftrace: a newline, then one line per frame (the stack
		 * writer starts with the newline itself) */
		if (v->stack)
			sp_report_text_stack(out, v->stack, f ? f->stack_mode : 0, 8);
		else
			fputc('\n', out);
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
		if (conv == 'r' && (*fmt == 'x' || *fmt == 'h')) /* %rx, %rh */
			conv = *fmt++;
		print_arg(out, spec, conv, &args[next], fields ? &fields[next] : NULL);
		next++;
	}
}

/* Decodes the record's arguments; *kv is a TUPLE (n may be 0). */
static int decode_args(struct sp_output *o, const struct sp_plan_printf *pf, const void *args,
		       size_t len, struct sp_kval *kv)
{
	memset(kv, 0, sizeof(*kv));
	if (pf->args.kind != SP_F_TUPLE || pf->args.nelems == 0)
		return 0;
	const struct sp_plan_field *last = &pf->args.elems[pf->args.nelems - 1];

	if (len < (size_t)last->offset + last->size)
		return -EPROTO;
	return sp_collect_decode(o->coll, &pf->args, args, 0, kv);
}

/* printf-formats a record into a malloc'd string. */
static char *format_record(struct sp_output *o, const struct sp_plan_printf *pf,
			   const void *args, size_t len, int *err)
{
	struct sp_kval kv;
	char *text = NULL;
	size_t n = 0;
	FILE *f;

	*err = decode_args(o, pf, args, len, &kv);
	if (*err)
		return NULL;
	f = open_memstream(&text, &n);
	if (!f) {
		*err = -errno;
		return NULL;
	}
	sp_printf_format(f, pf->fmt ? pf->fmt : "", kv.elems, kv.n,
			 pf->args.kind == SP_F_TUPLE ? pf->args.elems : NULL);
	fclose(f);
	return text;
}

static void emit(struct sp_output *o, const char *type, const char *text)
{
	if (!o->json)
		fputs(text, o->out);
	else if (strcmp(type, "printf") == 0)
		sp_report_json_printf(o->out, text);
	else
		sp_report_json_event(o->out, type, text);
}

static int print_value(struct sp_output *o, const struct sp_plan_printf *pf, const void *args,
		       size_t len)
{
	const struct sp_plan_field *fld = pf->args.nelems > 0 ? &pf->args.elems[0] : NULL;
	struct sp_kval kv;
	int err = decode_args(o, pf, args, len, &kv);

	if (err || kv.n < 1)
		return err ? err : -EPROTO;
	if (o->json) {
		sp_report_json_value(o->out, &kv.elems[0], fld);
	} else if (kv.elems[0].kind == SP_F_USTACK || kv.elems[0].kind == SP_F_KSTACK) {
		sp_report_text_stack(o->out, kv.elems[0].stack, fld->stack_mode, 8);
		fputs("\n", o->out);
	} else {
		sp_text_kval(o->out, &kv.elems[0], fld, false);
		fputc('\n', o->out);
	}
	return 0;
}

static int print_time(struct sp_output *o, const struct sp_plan_printf *pf)
{
	time_t now = time(NULL);
	char buf[512];
	struct tm tm;

	localtime_r(&now, &tm);
	if (strftime(buf, sizeof(buf), pf->fmt ? pf->fmt : "%H:%M:%S\n", &tm) == 0)
		buf[0] = '\0';
	emit(o, "time", buf);
	return 0;
}

/* Reads up to max bytes of a file; NULL (message on stderr) if it
 * cannot be opened. */
static char *slurp(const char *path, size_t max, size_t *n)
{
	FILE *f = fopen(path, "re");
	char *buf;

	*n = 0;
	if (!f) {
		sp_err("cat: failed to open file '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(max + 1);
	if (buf) {
		*n = fread(buf, 1, max, f);
		buf[*n] = '\0';
	}
	fclose(f);
	return buf;
}

/* system(): the command's output captured so it stays in order with ours
 * (and can be wrapped in JSON); never started once the run is ending (a
 * stop signal waits, or the deadline passed), killed when that happens
 * while it runs (runtime/shell.c). */
static char *run_shell(struct sp_output *o, const char *cmd)
{
	char *text = NULL;
	int err;

	if (sp_shell_stop_pending() ||
	    (o->shell_deadline_ns && sp_mono_ns() >= o->shell_deadline_ns)) {
		o->shell_skipped++;
		return NULL;
	}
	err = sp_shell_run(cmd, o->shell_deadline_ns, &text);
	if (err == -ECANCELED)
		o->shell_killed++;
	else if (err)
		sp_warn("system(): cannot run '%s': %s\n", cmd,
			strerror(-err));
	return text;
}

static int file_event(struct sp_output *o, const struct sp_event_hdr *h,
		      const struct sp_plan_printf *pf, const void *args, size_t len)
{
	int err;
	char *arg = format_record(o, pf, args, len, &err), *text;
	size_t n = 0;

	if (!arg)
		return err;
	if (h->type == SP_EV_CAT) {
		text = slurp(arg, o->cat_max ? o->cat_max : CAT_MAX, &n);
		if (text && n)
			emit(o, "cat", text);
	} else {
		fflush(o->out);
		text = run_shell(o, arg);
		if (text)
			emit(o, "syscall", text);
	}
	free(text);
	free(arg);
	return 0;
}

/* join(): the record's strings up to the first empty one, joined by the
 * delimiter (the printf entry's fmt), one line. */
static int print_join(struct sp_output *o, const struct sp_plan_printf *pf, const char *args,
		      size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	if (!m)
		return -errno;
	for (size_t i = 0; i < SP_JOIN_ARGNUM && (i + 1) * SP_JOIN_ARGSIZE <= len; i++) {
		const char *slot = args + i * SP_JOIN_ARGSIZE;

		if (!slot[0])
			break;
		if (i)
			fputs(pf->fmt ? pf->fmt : " ", m);
		fwrite(slot, 1, strnlen(slot, SP_JOIN_ARGSIZE), m);
	}
	if (!o->json)
		fputc('\n', m);
	fclose(m);
	emit(o, "join", text ? text : "");
	free(text);
	return 0;
}

int sp_output_event(struct sp_output *o, const struct sp_event_hdr *h, const void *args,
		    size_t len)
{
	const struct sp_plan_printf *pf;
	char *text;
	int err = 0;

	if (h->id >= (uint32_t)o->plan->nprintfs)
		return -EINVAL;
	pf = &o->plan->printfs[h->id];
	switch (h->type) {
	case SP_EV_PRINTF:
		text = format_record(o, pf, args, len, &err);
		if (text)
			emit(o, "printf", text);
		free(text);
		break;
	case SP_EV_ERRORF: /* errorf()/warnf(): the location is in the format */
		text = format_record(o, pf, args, len, &err);
		if (text) {
			fflush(o->out);
			fputs(text, stderr);
			fflush(stderr);
		}
		free(text);
		break;
	case SP_EV_PRINT_VALUE:
		err = print_value(o, pf, args, len);
		break;
	case SP_EV_TIME:
		err = print_time(o, pf);
		break;
	case SP_EV_CAT:
	case SP_EV_SYSTEM:
		err = file_event(o, h, pf, args, len);
		break;
	case SP_EV_JOIN:
		err = print_join(o, pf, args, len);
		break;
	default:
		err = -ENOTSUP;
	}
	sp_collector__reset_scratch(o->coll);
	return err;
}
