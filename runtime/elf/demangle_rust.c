/* runtime/elf/demangle_rust.c: Rust legacy (`_ZN...17h<hash>E`) and v0 (`_R...`) demangling.
 *
 * Written from the v0 spec (https://doc.rust-lang.org/rustc/symbol-mangling/v0.html,
 * RFC 2603) and rustc's legacy encoder (compiler/rustc_symbol_mangling/src/legacy.rs);
 * the printed form is rustc-demangle's alternate one, which rustfilt and
 * `c++filt -i` print: no hashes, no crate disambiguators, no const types.
 *
 * The v0 parser prints as it parses. Parts that are parsed but not shown
 * (an impl's own path, the instantiating crate) run with printing off, and
 * then back references are not followed: their target was checked when
 * first read, and following them unprinted could take exponential time.
 * Recursion depth, steps and output size are capped; any violation makes
 * the whole name undemangled (NULL), never a crash or a partial name.
 */
#include "runtime/elf/demangle_rust.h"

#include "base/vec.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUT   65536   /* bytes of output */
#define MAX_DEPTH 256     /* nested paths, types and consts */
#define MAX_STEPS 100000  /* paths, types and consts parsed, backrefs included */
#define MAX_PUNY  256     /* code points of one punycode identifier */

struct rd_out {
	char *buf;
	size_t len, cap;
	bool bad;               /* out of memory or over MAX_OUT */
};

static void out_put(struct rd_out *o, const char *s, size_t n)
{
	if (o->bad || o->len + n + 1 > MAX_OUT || SP_GROW(o->buf, o->cap, o->len + n + 1, 128)) {
		o->bad = true;
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void out_str(struct rd_out *o, const char *s)
{
	out_put(o, s, strlen(s));
}

/* Code point `c` as UTF-8; false when not a Unicode scalar value. */
static bool out_utf8(struct rd_out *o, uint32_t c)
{
	char b[4];

	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return false;
	if (c < 0x80) {
		b[0] = (char)c;
		out_put(o, b, 1);
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		out_put(o, b, 2);
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		out_put(o, b, 3);
	} else {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		out_put(o, b, 4);
	}
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A `.llvm.<hex/@>` part (LLVM's cross-module renaming, different in every
 * build) is dropped, also before another suffix (`.llvm.N.cold`): returns
 * where it starts (or n), and in *tail what follows it. */
static size_t strip_llvm(const char *s, size_t n, const char **tail)
{
	const char *l = strstr(s, ".llvm."), *p;

	*tail = s + n;
	if (!l)
		return n;
	for (p = l + 6; hexval(*p) >= 0 || (*p >= 'A' && *p <= 'F') || *p == '@'; p++)
		;
	if (p == l + 6 || (*p && *p != '.'))
		return n;
	*tail = p;
	return (size_t)(l - s);
}

/* ---- legacy: _ZN {len ident} 17h<16 hex> E ------------------------------------------ */

static const struct {
	const char *esc, *out;
} legacy_escapes[] = {
	{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" }, { "GT", ">" },
	{ "LP", "(" }, { "RP", ")" }, { "C", "," },
};

/* `$...$` at s (n bytes left): appends it and returns its length, or 0. */
static size_t legacy_escape(struct rd_out *o, const char *s, size_t n)
{
	const char *end = memchr(s + 1, '$', n - 1);
	size_t len = end ? (size_t)(end - s - 1) : 0;
	uint32_t c = 0;

	if (!end || len == 0)
		return 0;
	for (size_t i = 0; i < sizeof(legacy_escapes) / sizeof(legacy_escapes[0]); i++)
		if (strlen(legacy_escapes[i].esc) == len && memcmp(s + 1, legacy_escapes[i].esc, len) == 0) {
			out_str(o, legacy_escapes[i].out);
			return len + 2;
		}
	if (s[1] != 'u' || len < 2 || len > 7)
		return 0;
	for (size_t i = 2; i <= len; i++) {
		if (hexval(s[i]) < 0)
			return 0;
		c = c << 4 | (uint32_t)hexval(s[i]);
	}
	if (c < 0x20 || c == 0x7f || !out_utf8(o, c))
		return 0;
	return len + 2;
}

/* One path element: escapes decoded, ".." is "::"; a bad escape leaves the rest as is. */
static void legacy_elem(struct rd_out *o, const char *s, size_t n)
{
	if (n >= 2 && s[0] == '_' && s[1] == '$')
		s++, n--;
	while (n) {
		size_t k = 1;

		if (s[0] == '.' && n >= 2 && s[1] == '.') {
			out_str(o, "::");
			k = 2;
		} else if (s[0] == '$') {
			k = legacy_escape(o, s, n);
			if (!k) {
				out_put(o, s, n);
				return;
			}
		} else {
			while (k < n && s[k] != '$' && s[k] != '.')
				k++;
			out_put(o, s, k);
		}
		s += k;
		n -= k;
	}
}

static bool is_legacy_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return false;
	for (size_t i = 1; i < n; i++)
		if (hexval(s[i]) < 0)
			return false;
	return true;
}

static bool legacy_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.';
}

/* Elements from s: their count, or -1 when malformed; *end is past the 'E'. */
static int legacy_scan(const char *s, size_t n, size_t *end, size_t *last, size_t *lastlen)
{
	size_t i = 0;
	int count = 0;

	while (i < n && s[i] != 'E') {
		size_t len = 0;

		if (s[i] < '1' || s[i] > '9')
			return -1;
		while (i < n && s[i] >= '0' && s[i] <= '9' && len < n)
			len = len * 10 + (size_t)(s[i++] - '0');
		if (len > n - i)
			return -1;
		for (size_t k = 0; k < len; k++)
			if (!legacy_char_ok(s[i + k]))
				return -1;
		*last = i;
		*lastlen = len;
		i += len;
		count++;
	}
	if (i >= n)
		return -1;
	*end = i + 1;
	return count;
}

static char *legacy_demangle(const char *sym, size_t n)
{
	struct rd_out o = { 0 };
	size_t end, last = 0, lastlen = 0, i = 3;
	int count = legacy_scan(sym + 3, n - 3, &end, &last, &lastlen);

	if (count < 2 || !is_legacy_hash(sym + 3 + last, lastlen) ||
	    (end + 3 < n && sym[end + 3] != '.'))
		return NULL;
	for (int k = 0; k < count - 1; k++) {
		size_t len = 0;

		while (sym[i] >= '0' && sym[i] <= '9')
			len = len * 10 + (size_t)(sym[i++] - '0');
		if (k)
			out_str(&o, "::");
		legacy_elem(&o, sym + i, len);
		i += len;
	}
	out_put(&o, sym + end + 3, n - end - 3); /* a kept ".suffix" */
	if (o.bad || !o.buf) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

/* ---- v0: _R [version] path [instantiating-crate] ------------------------------------ */

struct rd {
	const char *s;          /* the name after "_R" */
	size_t n, pos;
	int depth, quiet;       /* quiet > 0: parse without printing */
	long steps;
	uint64_t lifetimes;     /* bound lifetimes in scope (binders) */
	bool bad;
	struct rd_out *o;
};

struct ident {
	const char *ascii, *puny;
	size_t alen, plen;
};

static void print(struct rd *r, const char *s)
{
	if (!r->quiet)
		out_str(r->o, s);
}

static void print_n(struct rd *r, const char *s, size_t n)
{
	if (!r->quiet)
		out_put(r->o, s, n);
}

static bool fail(struct rd *r)
{
	r->bad = true;
	return false;
}

static char peek(const struct rd *r)
{
	return r->pos < r->n ? r->s[r->pos] : '\0';
}

static bool eat(struct rd *r, char c)
{
	if (peek(r) != c)
		return false;
	r->pos++;
	return true;
}

static char next(struct rd *r)
{
	return r->pos < r->n ? r->s[r->pos++] : (fail(r), '\0');
}

static bool enter(struct rd *r)
{
	if (r->bad || ++r->depth > MAX_DEPTH || ++r->steps > MAX_STEPS)
		return fail(r);
	return true;
}

/* base-62-number: "_" is 0, else digits then "_" are the value + 1. */
static uint64_t base62(struct rd *r)
{
	uint64_t v = 0;
	char c;

	if (eat(r, '_'))
		return 0;
	while ((c = next(r)) != '_') {
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			d = c - 'A' + 36;
		else
			return fail(r), 0;
		if (v > (UINT64_MAX - (uint64_t)d) / 62)
			return fail(r), 0;
		v = v * 62 + (uint64_t)d;
	}
	if (v == UINT64_MAX)
		return fail(r), 0;
	return v + 1;
}

/* [tag base-62-number]: 0 when absent, else the number + 1. */
static uint64_t opt_base62(struct rd *r, char tag)
{
	uint64_t v;

	if (!eat(r, tag))
		return 0;
	v = base62(r);
	if (v == UINT64_MAX)
		return fail(r), 0;
	return v + 1;
}

static uint64_t decimal(struct rd *r)
{
	uint64_t v = 0;

	if (peek(r) < '0' || peek(r) > '9')
		return fail(r), 0;
	if (eat(r, '0'))
		return 0;
	while (peek(r) >= '0' && peek(r) <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return fail(r), 0;
		v = v * 10 + (uint64_t)(next(r) - '0');
	}
	return v;
}

/* undisambiguated-identifier = ["u"] decimal ["_"] bytes; punycode after the last '_'. */
static bool ident(struct rd *r, struct ident *id)
{
	bool puny = eat(r, 'u');
	uint64_t len = decimal(r);

	eat(r, '_');
	if (r->bad || len > r->n - r->pos)
		return fail(r);
	id->ascii = r->s + r->pos;
	id->alen = (size_t)len;
	id->puny = NULL;
	id->plen = 0;
	r->pos += (size_t)len;
	if (puny) {
		const char *u = NULL;

		for (size_t i = 0; i < id->alen; i++)
			if (id->ascii[i] == '_')
				u = id->ascii + i;
		id->puny = u ? u + 1 : id->ascii;
		id->plen = id->alen - (size_t)(id->puny - id->ascii);
		id->alen = u ? (size_t)(u - id->ascii) : 0;
		if (!id->plen)
			return fail(r);
	}
	return true;
}

static uint32_t puny_adapt(uint32_t delta, uint32_t points, bool first)
{
	uint32_t k = 0;

	delta = first ? delta / 700 : delta / 2;
	delta += delta / points;
	while (delta > 35 * 26 / 2) {
		delta /= 35;
		k += 36;
	}
	return k + 36 * delta / (delta + 38);
}

/* RFC 3492 decoding of one identifier; the number of code points, or -1. */
static int punycode(const struct ident *id, uint32_t *cp)
{
	uint32_t n = 128, bias = 72, len = 0;
	uint64_t i = 0;
	size_t p = 0;

	if (id->alen > MAX_PUNY)
		return -1;
	for (; len < id->alen; len++)
		cp[len] = (unsigned char)id->ascii[len];
	while (p < id->plen) {
		uint64_t old = i, w = 1;

		for (uint32_t k = 36;; k += 36) {
			char c = p < id->plen ? id->puny[p++] : '\0';
			uint32_t d, t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;

			if (c >= 'a' && c <= 'z')
				d = (uint32_t)(c - 'a');
			else if (c >= '0' && c <= '9')
				d = (uint32_t)(c - '0') + 26;
			else
				return -1;
			i += d * w;
			if (i > 0x7fffffff)
				return -1;
			if (d < t)
				break;
			w *= 36 - t;
			if (w > 0x7fffffff)
				return -1;
		}
		bias = puny_adapt((uint32_t)(i - old), len + 1, old == 0);
		n += (uint32_t)(i / (len + 1));
		i %= len + 1;
		if (n > 0x10ffff || len >= MAX_PUNY)
			return -1;
		memmove(cp + i + 1, cp + i, (len - i) * sizeof(*cp));
		cp[i++] = n;
		len++;
	}
	return (int)len;
}

static void print_ident(struct rd *r, const struct ident *id)
{
	uint32_t cp[MAX_PUNY];
	int n;

	if (r->quiet)
		return;
	if (!id->puny) {
		print_n(r, id->ascii, id->alen);
		return;
	}
	n = punycode(id, cp);
	for (int i = 0; i < n; i++)
		if (!out_utf8(r->o, cp[i]))
			n = -1;
	if (n < 0)
		fail(r);
}

static bool ident_empty(const struct ident *id)
{
	return id->alen == 0 && id->plen == 0;
}

static void print_u64(struct rd *r, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	print(r, b);
}

static void print_lifetime(struct rd *r, uint64_t lt)
{
	char b[24];

	if (lt == 0) {
		print(r, "'_");
		return;
	}
	if (lt > r->lifetimes) {
		fail(r);
		return;
	}
	if (r->lifetimes - lt < 26)
		snprintf(b, sizeof(b), "'%c", (char)('a' + (r->lifetimes - lt)));
	else
		snprintf(b, sizeof(b), "'_%llu", (unsigned long long)(r->lifetimes - lt));
	print(r, b);
}

static bool path(struct rd *r, bool in_value);
static bool type(struct rd *r);
static bool konst(struct rd *r, bool in_value);

/* backref = "B" base-62-number: an earlier position in the name (after "_R"). */
static bool backref(struct rd *r, bool (*fn)(struct rd *, bool), bool arg)
{
	size_t at = r->pos - 1, save;
	uint64_t to = base62(r);
	bool ok;

	if (r->bad || to >= at)
		return fail(r);
	if (r->quiet)
		return true;
	save = r->pos;
	r->pos = (size_t)to;
	ok = fn(r, arg);
	r->pos = save;
	return ok;
}

static bool type_arg(struct rd *r, bool unused)
{
	(void)unused;
	return type(r);
}

/* binder = "G" base-62-number: for<'a, ...> around `fn`, and `dyn` bounds. */
static uint64_t binder(struct rd *r)
{
	uint64_t n = opt_base62(r, 'G'), old = r->lifetimes;

	if (n > 1000)
		return fail(r), old;
	if (n) {
		print(r, "for<");
		for (uint64_t i = 0; i < n; i++) {
			if (i)
				print(r, ", ");
			r->lifetimes++;
			print_lifetime(r, 1);
		}
		print(r, "> ");
	}
	return old;
}

static bool generic_arg(struct rd *r)
{
	if (eat(r, 'L')) {
		print_lifetime(r, base62(r));
		return !r->bad;
	}
	if (eat(r, 'K'))
		return konst(r, false);
	return type(r);
}

/* {generic-arg} "E", comma-separated. */
static bool generic_args(struct rd *r, int n)
{
	for (; !r->bad && !eat(r, 'E'); n++) {
		if (n)
			print(r, ", ");
		if (!generic_arg(r))
			return false;
	}
	return !r->bad;
}

static bool path_crate(struct rd *r)
{
	struct ident id;

	opt_base62(r, 's');
	if (!ident(r, &id))
		return false;
	print_ident(r, &id);
	return true;
}

static bool path_nested(struct rd *r, bool in_value)
{
	char ns = next(r);
	struct ident id;
	uint64_t dis;

	if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z')) || !path(r, in_value))
		return fail(r);
	dis = opt_base62(r, 's');
	if (!ident(r, &id))
		return false;
	if (ns >= 'A' && ns <= 'Z') {
		char b[2] = { ns, '\0' };

		print(r, "::{");
		print(r, ns == 'C' ? "closure" : ns == 'S' ? "shim" : b);
		if (!ident_empty(&id)) {
			print(r, ":");
			print_ident(r, &id);
		}
		print(r, "#");
		print_u64(r, dis);
		print(r, "}");
	} else if (!ident_empty(&id)) {
		print(r, "::");
		print_ident(r, &id);
	}
	return !r->bad;
}

/* M, X, Y: <T>, <T as Trait>; the impl's own path (M, X) is not shown. */
static bool path_impl(struct rd *r, char tag)
{
	if (tag != 'Y') {
		opt_base62(r, 's');
		r->quiet++;
		path(r, false);
		r->quiet--;
	}
	print(r, "<");
	if (!type(r))
		return false;
	if (tag != 'M') {
		print(r, " as ");
		if (!path(r, false))
			return false;
	}
	print(r, ">");
	return !r->bad;
}

static bool path(struct rd *r, bool in_value)
{
	char tag;
	bool ok = false;

	if (!enter(r))
		return false;
	tag = next(r);
	switch (tag) {
	case 'C':
		ok = path_crate(r);
		break;
	case 'N':
		ok = path_nested(r, in_value);
		break;
	case 'M': case 'X': case 'Y':
		ok = path_impl(r, tag);
		break;
	case 'I':
		ok = path(r, in_value);
		if (ok) {
			print(r, in_value ? "::<" : "<");
			ok = generic_args(r, 0);
			print(r, ">");
		}
		break;
	case 'B':
		ok = backref(r, path, in_value);
		break;
	default:
		fail(r);
	}
	r->depth--;
	return ok && !r->bad;
}

static const char *basic_type(char c)
{
	static const char *const names[26] = {
		['a' - 'a'] = "i8", ['b' - 'a'] = "bool", ['c' - 'a'] = "char", ['d' - 'a'] = "f64",
		['e' - 'a'] = "str", ['f' - 'a'] = "f32", ['h' - 'a'] = "u8", ['i' - 'a'] = "isize",
		['j' - 'a'] = "usize", ['l' - 'a'] = "i32", ['m' - 'a'] = "u32", ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_", ['s' - 'a'] = "i16", ['t' - 'a'] = "u16",
		['u' - 'a'] = "()", ['v' - 'a'] = "...", ['x' - 'a'] = "i64", ['y' - 'a'] = "u64",
		['z' - 'a'] = "!",
	};
	return c >= 'a' && c <= 'z' ? names[c - 'a'] : NULL;
}

/* "T" {type} "E": (a, b), and (a,) for one. */
static bool type_tuple(struct rd *r)
{
	int n = 0;

	print(r, "(");
	for (; !r->bad && !eat(r, 'E'); n++) {
		if (n)
			print(r, ", ");
		if (!type(r))
			return false;
	}
	print(r, n == 1 ? ",)" : ")");
	return !r->bad;
}

/* fn-sig = [binder] ["U"] ["K" abi] {type} "E" type */
static bool type_fn(struct rd *r)
{
	uint64_t old = binder(r);

	if (eat(r, 'U'))
		print(r, "unsafe ");
	if (eat(r, 'K')) {
		print(r, "extern \"");
		if (eat(r, 'C')) {
			print(r, "C");
		} else {
			struct ident id;

			if (!ident(r, &id) || id.puny)
				return fail(r);
			for (size_t i = 0; i < id.alen; i++)
				print_n(r, id.ascii[i] == '_' ? "-" : id.ascii + i, 1);
		}
		print(r, "\" ");
	}
	print(r, "fn(");
	for (int n = 0; !r->bad && !eat(r, 'E'); n++) {
		if (n)
			print(r, ", ");
		if (!type(r))
			return false;
	}
	print(r, ")");
	if (!eat(r, 'u')) {
		print(r, " -> ");
		if (!type(r))
			return false;
	}
	r->lifetimes = old;
	return !r->bad;
}

/* A dyn trait's path with its generics left open for assoc bindings; true when open. */
static bool path_open(struct rd *r, bool *open)
{
	bool ok;

	*open = false;
	if (!enter(r))
		return false;
	if (eat(r, 'B')) {
		size_t at = r->pos - 1, save;
		uint64_t to = base62(r);

		if (r->bad || to >= at || r->quiet) {
			r->depth--;
			return r->bad || to >= at ? fail(r) : true;
		}
		save = r->pos;
		r->pos = (size_t)to;
		ok = path_open(r, open);
		r->pos = save;
	} else if (eat(r, 'I')) {
		ok = path(r, false);
		print(r, "<");
		ok = ok && generic_args(r, 0);
		*open = true;
	} else {
		ok = path(r, false);
	}
	r->depth--;
	return ok && !r->bad;
}

/* dyn-trait = path {"p" undisambiguated-identifier type} */
static bool dyn_trait(struct rd *r)
{
	bool open;

	if (!path_open(r, &open))
		return false;
	while (eat(r, 'p')) {
		struct ident id;

		print(r, open ? ", " : "<");
		open = true;
		if (!ident(r, &id))
			return false;
		print_ident(r, &id);
		print(r, " = ");
		if (!type(r))
			return false;
	}
	if (open)
		print(r, ">");
	return !r->bad;
}

/* "D" dyn-bounds lifetime */
static bool type_dyn(struct rd *r)
{
	uint64_t old, lt;

	print(r, "dyn ");
	old = binder(r);
	for (int n = 0; !r->bad && !eat(r, 'E'); n++) {
		if (n)
			print(r, " + ");
		if (!dyn_trait(r))
			return false;
	}
	r->lifetimes = old;
	if (!eat(r, 'L'))
		return fail(r);
	lt = base62(r);
	if (lt) {
		print(r, " + ");
		print_lifetime(r, lt);
	}
	return !r->bad;
}

static bool type_ref(struct rd *r, char tag)
{
	print(r, "&");
	if (eat(r, 'L')) {
		uint64_t lt = base62(r);

		if (lt) {
			print_lifetime(r, lt);
			print(r, " ");
		}
	}
	if (tag == 'Q')
		print(r, "mut ");
	return type(r);
}

static bool type_body(struct rd *r, char tag)
{
	switch (tag) {
	case 'R': case 'Q':
		return type_ref(r, tag);
	case 'P': case 'O':
		print(r, tag == 'P' ? "*const " : "*mut ");
		return type(r);
	case 'A': case 'S':
		print(r, "[");
		if (!type(r))
			return false;
		if (tag == 'A') {
			print(r, "; ");
			if (!konst(r, true))
				return false;
		}
		print(r, "]");
		return !r->bad;
	case 'T':
		return type_tuple(r);
	case 'F':
		return type_fn(r);
	case 'D':
		return type_dyn(r);
	case 'B':
		return backref(r, type_arg, false);
	}
	r->pos--; /* a path */
	return path(r, false);
}

static bool type(struct rd *r)
{
	const char *basic;
	char tag;
	bool ok;

	if (!enter(r))
		return false;
	tag = next(r);
	basic = basic_type(tag);
	if (basic) {
		print(r, basic);
		ok = true;
	} else {
		ok = !r->bad && type_body(r, tag);
	}
	r->depth--;
	return ok && !r->bad;
}

/* const-data = ["n"] {hex-digit} "_": decimal when it fits 64 bits, else 0x... */
static bool const_int(struct rd *r, uint64_t *val, bool print_it)
{
	size_t start = r->pos, n;
	uint64_t v = 0;

	while (hexval(peek(r)) >= 0)
		r->pos++;
	n = r->pos - start;
	if (!eat(r, '_'))
		return fail(r);
	for (size_t i = 0; i < n && n <= 16; i++)
		v = v << 4 | (uint64_t)hexval(r->s[start + i]);
	if (val)
		*val = v;
	if (!print_it)
		return n <= 16 || fail(r);
	if (n <= 16) {
		print_u64(r, v);
	} else {
		print(r, "0x");
		print_n(r, r->s + start, n);
	}
	return true;
}

static void print_char(struct rd *r, uint32_t c, char quote)
{
	char b[16];

	if (c == (uint32_t)quote || c == '\\') {
		b[0] = '\\';
		b[1] = (char)c;
		print_n(r, b, 2);
	} else if (c == '\n' || c == '\t' || c == '\r' || c == '\0') {
		print(r, c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : "\\0");
	} else if (c < 0x20 || c == 0x7f) {
		snprintf(b, sizeof(b), "\\u{%x}", (unsigned)c);
		print(r, b);
	} else if (!r->quiet && !out_utf8(r->o, c)) {
		fail(r);
	}
}

/* 'e': a string as hex bytes (UTF-8), printed "..." */
static bool const_str(struct rd *r)
{
	uint32_t c = 0;
	int need = 0;

	print(r, "\"");
	while (!eat(r, '_')) {
		int hi = hexval(next(r)), lo = hexval(next(r));
		unsigned byte;

		if (hi < 0 || lo < 0)
			return fail(r);
		byte = (unsigned)(hi << 4 | lo);
		if (need) {
			if ((byte & 0xc0) != 0x80)
				return fail(r);
			c = c << 6 | (byte & 0x3f);
			need--;
		} else if (byte < 0x80) {
			c = byte;
		} else if ((byte & 0xe0) == 0xc0 || (byte & 0xf0) == 0xe0 || (byte & 0xf8) == 0xf0) {
			need = (byte & 0xe0) == 0xc0 ? 1 : (byte & 0xf0) == 0xe0 ? 2 : 3;
			c = byte & (0x3f >> need);
			continue;
		} else {
			return fail(r);
		}
		if (!need)
			print_char(r, c, '"');
	}
	print(r, "\"");
	return !need || fail(r);
}

/* "A"/"T" {const} "E": [a, b] or (a, b) and (a,) */
static bool const_seq(struct rd *r, char tag)
{
	int n = 0;

	print(r, tag == 'A' ? "[" : "(");
	for (; !r->bad && !eat(r, 'E'); n++) {
		if (n)
			print(r, ", ");
		if (!konst(r, true))
			return false;
	}
	print(r, tag == 'A' ? "]" : n == 1 ? ",)" : ")");
	return !r->bad;
}

static bool const_body(struct rd *r, char tag)
{
	uint64_t v;

	if (strchr("hmtyoj", tag))
		return const_int(r, NULL, true);
	if (strchr("aslxni", tag)) {
		if (eat(r, 'n'))
			print(r, "-");
		return const_int(r, NULL, true);
	}
	switch (tag) {
	case 'p':
		print(r, "_");
		return true;
	case 'b':
		if (!const_int(r, &v, false) || v > 1)
			return fail(r);
		print(r, v ? "true" : "false");
		return true;
	case 'c':
		if (!const_int(r, &v, false) || v > 0x10ffff)
			return fail(r);
		print(r, "'");
		print_char(r, (uint32_t)v, '\'');
		print(r, "'");
		return !r->bad;
	case 'e':
		return const_str(r);
	case 'R': case 'Q':
		print(r, tag == 'R' ? "&" : "&mut ");
		return konst(r, true);
	case 'A': case 'T':
		return const_seq(r, tag);
	}
	return fail(r); /* 'V' (struct values) and unknown tags */
}

/* const = type const-data | "p" | backref; composite values in braces where a type may go. */
static bool konst(struct rd *r, bool in_value)
{
	char tag;
	bool ok, brace;

	if (!enter(r))
		return false;
	tag = next(r);
	if (tag == 'B') {
		ok = backref(r, konst, in_value);
		r->depth--;
		return ok;
	}
	brace = !in_value && strchr("RQAT", tag) && tag;
	if (brace)
		print(r, "{");
	ok = !r->bad && const_body(r, tag);
	if (brace)
		print(r, "}");
	r->depth--;
	return ok && !r->bad;
}

static bool v0_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static char *v0_demangle(const char *sym, size_t n)
{
	struct rd_out o = { 0 };
	struct rd r = { .s = sym + 2, .o = &o };
	size_t len = 2;

	while (len < n && v0_char_ok(sym[len]))
		len++;
	if (len < n && sym[len] != '.')
		return NULL;
	r.n = len - 2;
	if (peek(&r) >= '0' && peek(&r) <= '9' && decimal(&r) != 0)
		return NULL; /* an encoding version this demangler does not know */
	if (path(&r, true) && r.pos < r.n && peek(&r) >= 'A' && peek(&r) <= 'Z') {
		r.quiet++; /* the instantiating crate */
		path(&r, false);
	}
	out_put(&o, sym + len, n - len); /* a kept ".suffix" */
	if (r.bad || r.pos != r.n || o.bad || !o.buf) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

static char *append(char *out, const char *tail)
{
	size_t a, b = strlen(tail);
	char *n;

	if (!out || !b)
		return out;
	a = strlen(out);
	n = a + b < MAX_OUT ? realloc(out, a + b + 1) : NULL;
	if (!n) {
		free(out);
		return NULL;
	}
	memcpy(n + a, tail, b + 1);
	return n;
}

char *sp_rust_demangle(const char *mangled)
{
	const char *tail;
	size_t n;

	if (!mangled)
		return NULL;
	n = strip_llvm(mangled, strlen(mangled), &tail);
	if (n > 2 && strncmp(mangled, "_R", 2) == 0)
		return append(v0_demangle(mangled, n), tail);
	if (n > 4 && strncmp(mangled, "_ZN", 3) == 0)
		return append(legacy_demangle(mangled, n), tail);
	return NULL;
}
