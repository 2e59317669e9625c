/* parser/attach.c: attach points, from raw text to struct sp_attach.
 *
 * The lexer hands over each attach point as one token, as bpftrace does.
 * Here it is split on ':' (outside double quotes), the probe type alias
 * resolved (p i s h u ur U t rt k kr, begin/end), and every field checked,
 * so a mistake is reported with the caret under the field that is wrong:
 *
 *   <cmdline>:1:12: error: profile frequency must not be 0
 *   profile:hz:0 { }
 *              ^
 *
 * Rates: profile:hz:N is 1..100000 Hz; profile:s|ms|us:N is a period whose
 * frequency must stay within the same limit (at least 10us). interval
 * takes the same units.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/perf_events.h"
#include "parser/base/arena.h"
#include "parser/base/diag.h"
#include "parser/intlit.h"
#include "parser/lexstate.h"
#include "parser/probes.h"

#define MAX_FIELDS 8
#define MAX_HZ 100000

/* Types bpftrace has that sprof does not (yet): a clear error, not a typo. */
static const char *const unsupported[] = {
	"self", "test", "bench",
};

/* name, alias (or NULL): abi/perf_events.h's table (periods are the runtime's) */
static const char *const software_events[][2] = {
#define X(name, alias, config, period) { name, alias },
	SP_SOFTWARE_EVENTS(X)
#undef X
};
static const char *const hardware_events[][2] = {
#define X(name, alias, config, period) { name, alias },
	SP_HARDWARE_EVENTS(X)
#undef X
};

struct field {
	const char *text; /* unquoted, arena */
	uint32_t off;     /* offset in raw */
	uint32_t len;     /* raw length (with quotes) */
};

struct ap {
	bool expanded;      /* $N replaced: fields no longer match the source */
	struct sp_arena *arena;
	struct sp_diag *d;
	struct sp_node *node;
	struct sp_attach *at;
	struct field f[MAX_FIELDS];
	int n;
};

const char *sp_probe_kind_name(enum sp_probe_kind k)
{
	return k < SP_PK__COUNT ? sp_probe_type_name((enum sp_probe_type)k) : "?";
}

bool sp_is_probe_type_name(const char *s, uint32_t len)
{
	int i;

	for (i = 0; i < SP_PK__COUNT; i++)
		if ((strlen(sp_probe_type_name(i)) == len && !strncmp(s, sp_probe_type_name(i), len)) ||
		    (strlen(sp_probe_type_alias(i)) == len && !strncmp(s, sp_probe_type_alias(i), len)))
			return true;
	return false;
}

static struct sp_span field_span(const struct ap *p, int i)
{
	uint32_t b = p->node->span.begin;

	if (p->expanded)
		return p->node->span;
	if (i >= p->n) /* a missing field: point just past the text */
		return (struct sp_span){ p->node->span.end, p->node->span.end };
	return (struct sp_span){ b + p->f[i].off, b + p->f[i].off + p->f[i].len };
}

/* raw[b, e) as a field's text: a quoted one ("...") without its quotes,
 * \" and \\ inside it unescaped (usdt:BIN:test:"\"probe1\"" names the
 * probe "probe1" with its quotes). */
static char *field_text(struct ap *p, const char *raw, uint32_t b, uint32_t e)
{
	char *t, *in, *o;

	if (e - b < 2 || raw[b] != '"' || raw[e - 1] != '"')
		return sp_arena_strndup(p->arena, raw + b, e - b);
	t = sp_arena_strndup(p->arena, raw + b + 1, e - b - 2);
	for (in = o = t; *in; in++) {
		if (in[0] == '\\' && (in[1] == '"' || in[1] == '\\'))
			in++;
		*o++ = *in;
	}
	*o = '\0';
	return t;
}

static void add_field(struct ap *p, const char *raw, uint32_t b, uint32_t e)
{
	struct field *f;

	if (p->n == MAX_FIELDS)
		return;
	f = &p->f[p->n++];
	f->off = b;
	f->len = e - b;
	f->text = field_text(p, raw, b, e);
}

static void split(struct ap *p, const char *raw)
{
	uint32_t i, start = 0, len = (uint32_t)strlen(raw);

	for (i = 0; i < len; i++) {
		if (raw[i] == '"') { /* to the closing quote, past \" and \\ */
			for (i++; i < len && raw[i] != '"'; i++)
				if (raw[i] == '\\' && i + 1 < len)
					i++;
		} else if (raw[i] == ':') {
			add_field(p, raw, start, i);
			start = i + 1;
		}
	}
	add_field(p, raw, start, len);
}

/* Field i and everything after it, as one string ("foo::bar" in C++). */
static const char *rest_from(struct ap *p, int i, const char *raw)
{
	return field_text(p, raw, p->f[i].off, (uint32_t)strlen(raw));
}

static int find_kind(struct ap *p)
{
	const char *name = p->f[0].text;
	const char *cands[2 * SP_PK__COUNT];
	const char *hint;
	size_t i;

	/* bpftrace 0.17's names for fentry and fexit */
	if (!strcmp(name, "kfunc"))
		return SP_PK_FENTRY;
	if (!strcmp(name, "kretfunc"))
		return SP_PK_FEXIT;
	for (i = 0; i < SP_PK__COUNT; i++) {
		if (!strcmp(name, sp_probe_type_name(i)) || !strcmp(name, sp_probe_type_alias(i)))
			return (int)i;
		cands[2 * i] = sp_probe_type_name(i);
		cands[2 * i + 1] = sp_probe_type_alias(i);
	}
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		if (!strcmp(name, unsupported[i])) {
			sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 0),
				   "probe type '%s' is not supported by sprof", name);
			return -1;
		}
	}
	sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 0), "unknown probe type '%s'", name);
	hint = sp_did_you_mean(name, cands, 2 * SP_PK__COUNT);
	if (hint)
		sp_diag_note(p->d, field_span(p, 0), "did you mean '%s'?", hint);
	return -1;
}

/* kprobe:MODULE:FUNCTION: vmlinux, a module the kernel has (built in or
 * loaded: /sys/module), or a pattern; "kprobe:syscalls:sys_exit_nanosleep"
 * (a tracepoint written as a kprobe) is an error, as in bpftrace. */
static bool known_module(const char *m)
{
	char path[300];

	if (!strcmp(m, "vmlinux") || strpbrk(m, "*?["))
		return true;
	snprintf(path, sizeof(path), "/sys/module/%s", m);
	return access(path, F_OK) == 0 || access("/sys/module", F_OK) != 0;
}

/* bpftrace's list: a kretprobe on these can lock the machine up (the
 * runtime checks again, for plans made elsewhere). */
static bool banned_kretprobe(struct ap *p, const char *fn)
{
	static const char *const banned[] = {
		"_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore",
		"queued_spin_lock_slowpath",
	};

	for (size_t i = 0; fn && i < sizeof(banned) / sizeof(banned[0]); i++) {
		if (strcmp(fn, banned[i]))
			continue;
		sp_diag_at(p->d, SP_DIAG_ERROR, p->node->span, "kretprobe:%s can't be used as it "
			   "might lock up your system (bpftrace's banned list)", fn);
		return true;
	}
	return false;
}

static bool need_fields(struct ap *p, int kind, int min, int max)
{
	if (p->n < min) {
		sp_diag_at(p->d, SP_DIAG_ERROR, p->node->span,
			   "incomplete attach point '%s', expected '%s'", p->at->raw, sp_probe_type_usage(kind));
		return false;
	}
	if (max && p->n > max) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, max),
			   "too many fields in attach point '%s', expected '%s'", p->at->raw,
			   sp_probe_type_usage(kind));
		return false;
	}
	for (int i = 1; i < p->n && i < (max ? max : p->n); i++) {
		/* usdt:[BINARY]:[PROVIDER]:NAME: -p names the binary, any provider */
		if (kind == SP_PK_USDT && i < p->n - 1)
			continue;
		if (!p->f[i].text[0]) {
			sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i),
				   "empty field in attach point '%s', expected '%s'", p->at->raw,
				   sp_probe_type_usage(kind));
			return false;
		}
	}
	return true;
}

/* A count in field i, written as an integer literal (99, 0x10, 1e6,
 * 1_000; intlit.h); never 0. */
static bool parse_count(struct ap *p, int i, const char *what, uint64_t *out)
{
	const char *s = p->f[i].text;
	struct sp_intlit lit;

	if (s[0] == '-') {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i), "%s must be positive, not '%s'",
			   what, s);
		return false;
	}
	if (!s[0] || s[0] < '0' || s[0] > '9' || !sp_intlit_read(s, (uint32_t)strlen(s), &lit) ||
	    lit.duration) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i), "invalid %s '%s'", what, s);
		return false;
	}
	*out = lit.value;
	if (*out == 0) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i), "%s must not be 0", what);
		return false;
	}
	return true;
}

/* profile:DURATION, interval:DURATION (bpftrace 0.24+): interval:1s,
 * profile:10ms, a bare number in nanoseconds; kept in us, ms or s, the
 * largest unit that divides it (bpftrace keeps us, dropping spare ns). */
static bool parse_period(struct ap *p, const char *what)
{
	static const char *const units[] = { "s", "ms", "us" };
	static const uint64_t ns_per[] = { 1000000000ull, 1000000ull, 1000ull };
	struct sp_span sp = field_span(p, 1);
	struct sp_intlit lit;
	int u;

	if (!sp_intlit_read(p->f[1].text, (uint32_t)strlen(p->f[1].text), &lit)) {
		if (!p->expanded)
			sp = (struct sp_span){ sp.begin + lit.err_off, sp.begin + lit.err_off + lit.err_len };
		sp_diag_at(p->d, SP_DIAG_ERROR, sp, "invalid %s period: %s", what, lit.msg);
		sp_diag_note(p->d, sp, "a period is a duration (1s, 100ms, 500us) or nanoseconds");
		return false;
	}
	if (lit.value < 1000000000ull / MAX_HZ) {
		sp_diag_at(p->d, SP_DIAG_ERROR, sp, "%s period '%s' is shorter than 10us (%d Hz)%s",
			   what, p->f[1].text, MAX_HZ, lit.duration ? "" : ": a bare number is in "
			   "nanoseconds; write a unit, e.g. 10ms");
		return false;
	}
	for (u = 0; u < 2 && lit.value % ns_per[u]; u++)
		;
	p->at->unit = units[u];
	p->at->value = lit.value / ns_per[u];
	p->at->has_value = true;
	return true;
}

/* profile:UNIT:N and interval:UNIT:N, or the two-field profile:DURATION */
static bool parse_rate(struct ap *p, int kind)
{
	static const char *const units[] = { "hz", "s", "ms", "us" };
	static const uint64_t ns_per[] = { 0, 1000000000ull, 1000000ull, 1000ull };
	const char *what = kind == SP_PK_PROFILE ? "profile" : "interval";
	char desc[64];
	const char *hint;
	uint64_t v;
	int u;

	if (!need_fields(p, kind, 2, 3))
		return false;
	if (p->n == 2 && (p->f[1].text[0] < '0' || p->f[1].text[0] > '9')) {
		for (u = 0; u < 4 && strcmp(p->f[1].text, units[u]); u++)
			;
		if (u < 4) /* profile:hz */
			return need_fields(p, kind, 3, 3);
	}
	if (p->n == 2)
		return parse_period(p, what);
	for (u = 0; u < 4 && strcmp(p->f[1].text, units[u]); u++)
		;
	if (u == 4) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 1),
			   "unknown %s unit '%s', expected hz, s, ms or us", what, p->f[1].text);
		hint = sp_did_you_mean(p->f[1].text, units, 4);
		if (hint)
			sp_diag_note(p->d, field_span(p, 1), "did you mean '%s'?", hint);
		return false;
	}
	snprintf(desc, sizeof(desc), "%s %s", what, u == 0 ? "frequency" : "period");
	if (!parse_count(p, 2, desc, &v))
		return false;
	if (u == 0 && v > MAX_HZ) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 2),
			   "%s frequency %llu is above the limit of %d Hz", what,
			   (unsigned long long)v, MAX_HZ);
		return false;
	}
	if (u > 0 && (v > UINT64_MAX / ns_per[u] || v * ns_per[u] < 1000000000ull / MAX_HZ)) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 2),
			   v > UINT64_MAX / ns_per[u] ? "%s period %llu%s is too long"
						   : "%s period %llu%s is shorter than 10us (%d Hz)",
			   what, (unsigned long long)v, units[u], MAX_HZ);
		return false;
	}
	p->at->unit = units[u];
	p->at->value = v;
	p->at->has_value = true;
	return true;
}

static bool parse_event(struct ap *p, int kind, const char *const (*evs)[2], int nev)
{
	const char *cands[64];
	const char *hint, *name;
	int i, nc = 0;

	if (!need_fields(p, kind, 2, 3))
		return false;
	name = p->f[1].text;
	for (i = 0; i < nev; i++) {
		if (!strcmp(name, evs[i][0]) || (evs[i][1] && !strcmp(name, evs[i][1]))) {
			p->at->target = evs[i][0];
			break;
		}
		cands[nc++] = evs[i][0];
		if (evs[i][1])
			cands[nc++] = evs[i][1];
	}
	if (i == nev) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 1), "unknown %s event '%s'",
			   sp_probe_type_name(kind), name);
		hint = sp_did_you_mean(name, cands, nc);
		if (hint)
			sp_diag_note(p->d, field_span(p, 1), "did you mean '%s'?", hint);
		return false;
	}
	if (p->n == 3) {
		if (!parse_count(p, 2, "event period", &p->at->value))
			return false;
		p->at->has_value = true;
	}
	return true;
}

/* "FUNC"+OFFSET: the name in quotes, the offset after them. */
static const char *unquote_offset(struct ap *p, const char *func, const char **plus)
{
	const char *q = func[0] == '"' ? strchr(func + 1, '"') : NULL;

	*plus = strrchr(func, '+');
	if (!q || q[1] != '+')
		return func;
	*plus = q + 1;
	return sp_arena_strndup(p->arena, func + 1, (size_t)(q - func - 1));
}

/* FUNC, FUNC+OFFSET, "FUNC"+OFFSET, 0xADDR or a decimal address into at->func / offset. */
static bool parse_func(struct ap *p, int i, const char *func, bool ret)
{
	const char *plus, *name = unquote_offset(p, func, &plus);
	char *end;

	/* 0xADDR, or an address in decimal (bpftrace: uprobe:/bin/bash:10) */
	if (!ret && (!strncmp(func, "0x", 2) ||
		     (func[0] >= '1' && func[0] <= '9' && !func[strspn(func, "0123456789")]))) {
		p->at->offset = strtoull(func, &end, func[1] == 'x' ? 16 : 10);
		if (*end || (func[1] == 'x' && !func[2]))
			goto out_bad;
		p->at->is_addr = true;
		p->at->has_offset = true;
		return true;
	}
	if (plus && plus != func && plus[1] >= '0' && plus[1] <= '9') {
		if (ret) {
			sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i),
				   "%s cannot take an offset ('%s')", p->at->provider, func);
			return false;
		}
		p->at->offset = strtoull(plus + 1, &end, 0);
		if (*end)
			goto out_bad;
		p->at->has_offset = true;
		p->at->func = name != func ? name
					   : sp_arena_strndup(p->arena, func, (size_t)(plus - func));
		return true;
	}
	p->at->func = func;
	return true;
out_bad:
	sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, i), "invalid address or offset in '%s'", func);
	return false;
}

/* watchpoint:FUNC+argN: FUNC (a glob) of the -p/-c target's program, N
 * from 0 to 5; FUNC in at->func, N in at->offset. */
static bool parse_func_arg(struct ap *p)
{
	const char *text = p->f[1].text, *plus = strrchr(text, '+');
	char *end;
	unsigned long n;

	if (plus == text || strncmp(plus + 1, "arg", 3) != 0) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 1),
			   "expected FUNCTION+argN or an address, not '%s'", text);
		return false;
	}
	n = strtoul(plus + 4, &end, 10);
	if (!isdigit((unsigned char)plus[4]) || *end || n > 5) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 1),
			   "'%s': the argument must be arg0 to arg5 (those in registers)", text);
		return false;
	}
	p->at->func = sp_arena_strndup(p->arena, text, (size_t)(plus - text));
	p->at->offset = n;
	return true;
}

/* watchpoint:ADDR:LEN:MODE or watchpoint:FUNC+argN:LEN:MODE: LEN 1, 2, 4
 * or 8; MODE of r, w and x, each once, in a combination x86's debug
 * registers watch (w, rw, x), as bpftrace 0.17 checks. Sorted mode in
 * at->unit, length in at->value, address (or argument number) in
 * at->offset. */
static bool parse_watchpoint(struct ap *p, int kind)
{
	static const char *const modes[] = { "w", "rw", "x" };
	char mode[4] = "";
	const char *m;
	uint64_t len;
	int nm = 0;

	if (!need_fields(p, kind, 4, 4))
		return false;
	if (strchr(p->f[1].text, '+')) {
		if (!parse_func_arg(p))
			return false;
	} else if (!parse_count(p, 1, "watchpoint address", &p->at->offset)) {
		return false;
	}
	if (!parse_count(p, 2, "watchpoint length", &len))
		return false;
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 2),
			   "watchpoint length must be 1, 2, 4 or 8, not %llu", (unsigned long long)len);
		return false;
	}
	for (const char *c = "rwx"; *c; c++)
		if (strchr(p->f[3].text, *c))
			mode[nm++] = *c;
	for (m = p->f[3].text; *m && strchr("rwx", *m) && strchr(m + 1, *m) == NULL; m++)
		;
	for (size_t i = 0; !*m && i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(mode, modes[i])) {
			p->at->unit = sp_arena_strndup(p->arena, mode, strlen(mode));
			p->at->value = len;
			p->at->has_value = true;
			p->at->is_addr = p->at->func == NULL;
			return true;
		}
	}
	sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 3),
		   "invalid watchpoint mode '%s': r, w and x at most once each, and x86 "
		   "watches w, rw or x", p->f[3].text);
	return false;
}

static bool parse_fields(struct ap *p, int kind)
{
	struct sp_attach *at = p->at;

	switch (kind) {
	case SP_PK_BEGIN:
	case SP_PK_END:
		return need_fields(p, kind, 1, 1);
	case SP_PK_PROFILE:
	case SP_PK_INTERVAL:
		return parse_rate(p, kind);
	case SP_PK_SOFTWARE:
		return parse_event(p, kind, software_events,
				   (int)(sizeof(software_events) / sizeof(software_events[0])));
	case SP_PK_HARDWARE:
		return parse_event(p, kind, hardware_events,
				   (int)(sizeof(hardware_events) / sizeof(hardware_events[0])));
	case SP_PK_UPROBE:
	case SP_PK_URETPROBE:
		if (!need_fields(p, kind, 3, 0))
			return false;
		at->target = p->f[1].text;
		return parse_func(p, 2, rest_from(p, 2, at->raw), kind == SP_PK_URETPROBE);
	case SP_PK_USDT:
		if (!need_fields(p, kind, 3, 4))
			return false;
		at->target = p->f[1].text;
		at->ns = p->n == 4 ? p->f[2].text : NULL;
		at->func = p->f[p->n - 1].text;
		return true;
	case SP_PK_TRACEPOINT:
		if (!need_fields(p, kind, 3, 3))
			return false;
		at->target = p->f[1].text;
		at->func = p->f[2].text;
		return true;
	case SP_PK_WATCHPOINT:
	case SP_PK_ASYNCWATCHPOINT:
		return parse_watchpoint(p, kind);
	case SP_PK_ITER: /* iter:NAME[:PIN], bpftrace's kernel iterators (task, task_file...);
			  * PIN a file on the BPF file system, relative to /sys/fs/bpf */
		if (!need_fields(p, kind, 2, 3))
			return false;
		at->func = p->f[1].text;
		at->target = p->n == 3 ? p->f[2].text : NULL;
		return true;
	case SP_PK_RAWTRACEPOINT:
	case SP_PK_FENTRY:
	case SP_PK_FEXIT:
		if (!need_fields(p, kind, 2, 3))
			return false;
		at->target = p->n == 3 ? p->f[1].text : NULL;
		at->func = p->f[p->n - 1].text;
		return true;
	default: /* kprobe, kretprobe: [MODULE:]FUNCTION */
		if (!need_fields(p, kind, 2, 3))
			return false;
		at->target = p->n == 3 ? p->f[1].text : NULL;
		if (at->target && !known_module(at->target)) {
			sp_diag_at(p->d, SP_DIAG_ERROR, field_span(p, 1), "no kernel module '%s': a %s "
				   "probe type requires 1 argument, or a loaded module and a function "
				   "(%s:[MODULE:]FUNCTION)", at->target, sp_probe_type_name(kind),
				   sp_probe_type_name(kind));
			return false;
		}
		if (!parse_func(p, p->n - 1, p->f[p->n - 1].text, kind == SP_PK_KRETPROBE))
			return false;
		return kind != SP_PK_KRETPROBE || !banned_kretprobe(p, at->func);
	}
}

/* Replaces $N by positional parameter N ("" when not given), as
 * bpftrace does for "interval:ms:$1". */
static const char *expand(struct sp_arena *a, const char *raw, int nparams, char **params)
{
	size_t cap = strlen(raw) + 1, n = 0;
	const char *p;
	char *out;

	for (int i = 0; i < nparams; i++)
		cap += strlen(params[i]);
	out = sp_arena_alloc(a, cap);
	for (p = raw; *p; ) {
		if (p[0] == '$' && p[1] >= '0' && p[1] <= '9') {
			long k = strtol(p + 1, (char **)&p, 10);
			const char *v = k >= 1 && k <= nparams ? params[k - 1] : "";

			if (n + strlen(v) < cap) {
				memcpy(out + n, v, strlen(v));
				n += strlen(v);
			}
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

int sp_attach_parse(struct sp_arena *a, struct sp_diag *d, struct sp_node *node, int nparams,
		    char **params)
{
	struct ap p = { .arena = a, .d = d, .node = node, .at = node->attach,
			.expanded = node->attach->expanded };
	int kind;

	if (strchr(p.at->raw, '$')) {
		p.at->raw = expand(a, p.at->raw, nparams, params);
		p.expanded = true;
	}
	split(&p, p.at->raw);
	kind = find_kind(&p);
	if (kind < 0)
		return -1;
	p.at->provider = sp_probe_type_name(kind);
	if (!parse_fields(&p, kind))
		p.at->provider = NULL; /* half-parsed: sema must not use its fields */
	return kind;
}
