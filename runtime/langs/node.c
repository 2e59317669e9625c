/* runtime/langs/node.c: node processes registered for the BPF walker, JS functions named.
 *
 * A process is node when its executable (nodesource's and Debian's
 * /usr/bin/node) or a libnode.so it maps exports V8's postmortem
 * constants, the v8dbg_* symbols V8 builds for debuggers (531 in node
 * 20's V8 11.3): frame slot offsets (v8dbg_off_fp_*), object field offsets
 * (v8dbg_class_<Class>__<field>__<type>), instance type numbers
 * (v8dbg_type_*) and tag constants. Their values are read from the
 * process (some are zero and live in .bss), so no table of versions is
 * kept here: a V8 that lacks one of them gets one warning naming its
 * version and the missing constants, and native frames only.
 *
 * Names are what Node prints in its stack traces: the function's name
 * from its SharedFunctionInfo (name_or_scope_info: a String, or a
 * ScopeInfo whose function-name slot follows its context locals; when
 * empty, the name V8 inferred for a function expression, Module._compile),
 * "<anonymous>" when it has none, and the file is its Script's name (a path, or
 * node:internal/... for node's own modules). Strings are read in every
 * representation V8 keeps them in (sequential one- or two-byte, cons,
 * thin, sliced); anything unreadable shows "[unknown js frame]", never
 * garbage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/interp.h"
#include "abi/node.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/langs/node.h"
#include "runtime/stacks/procmaps.h"

#define MAX_STR 1024
#define STR_DEPTH 8 /* cons/thin/sliced strings followed */
#define UNKNOWN_FRAME "[unknown js frame]"
#define ANON_FRAME "<anonymous>"

_Static_assert((int)SP_ND_ST_WALKS == (int)SP_PY_ST_WALKS &&
	       (int)SP_ND_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_ND_ST_READERR == (int)SP_PY_ST_READERR,
	       "nd_stats and py_stats differ");

/* The constants read, by name (V8 13 renamed some fields' type suffix:
 * the later names are tried when the first is missing); the first marks
 * a V8. */
#define ND_CONSTS(X)                                                                   \
	X(HEAP_TAG, "v8dbg_HeapObjectTag")                                             \
	X(HEAP_TAG_MASK, "v8dbg_HeapObjectTagMask")                                    \
	X(FP_FUNCTION, "v8dbg_off_fp_function")                                        \
	X(FP_CONTEXT, "v8dbg_off_fp_context")                                          \
	X(FN_SHARED, "v8dbg_class_JSFunction__shared__SharedFunctionInfo")             \
	X(OBJ_MAP, "v8dbg_class_HeapObject__map__Map")                                 \
	X(MAP_TYPE, "v8dbg_class_Map__instance_type__uint16_t")                        \
	X(SFI_NAME, "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object",     \
	  "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_NameOrScopeInfoT_") \
	X(SFI_SCRIPT, "v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject", \
	  "v8dbg_class_SharedFunctionInfo__script__Tagged_HeapObject_")                \
	X(SCRIPT_NAME, "v8dbg_class_Script__name__Object")                             \
	X(T_SFI, "v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE")           \
	X(T_SCRIPT, "v8dbg_type_Script__SCRIPT_TYPE")                                  \
	X(T_SCOPE, "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE")                            \
	X(FIRST_NONSTRING, "v8dbg_FirstNonstringType")                                 \
	X(STR_LEN, "v8dbg_class_String__length__int32_t")                              \
	X(STR_REP_MASK, "v8dbg_StringRepresentationMask")                              \
	X(STR_ENC_MASK, "v8dbg_StringEncodingMask")                                    \
	X(ONE_BYTE, "v8dbg_OneByteStringTag")                                          \
	X(SEQ, "v8dbg_SeqStringTag")                                                   \
	X(CONS, "v8dbg_ConsStringTag")                                                 \
	X(THIN, "v8dbg_ThinStringTag")                                                 \
	X(SLICED, "v8dbg_SlicedStringTag")                                             \
	X(SEQ1_CHARS, "v8dbg_class_SeqOneByteString__chars__char")                     \
	X(SEQ2_CHARS, "v8dbg_class_SeqTwoByteString__chars__char")                     \
	X(CONS_FIRST, "v8dbg_class_ConsString__first__String")                         \
	X(CONS_SECOND, "v8dbg_class_ConsString__second__String")                       \
	X(THIN_ACTUAL, "v8dbg_class_ThinString__actual__String")                       \
	X(SLICED_PARENT, "v8dbg_class_SlicedString__parent__String")                   \
	X(SLICED_OFFSET, "v8dbg_class_SlicedString__offset__SMI")                      \
	X(SI_NLOCALS, "v8dbg_scopeinfo_idx_ncontextlocals")                            \
	X(SI_FIRST_VARS, "v8dbg_scopeinfo_idx_first_vars")                             \
	X(TAGGED_SIZE, "v8dbg_TaggedSize")                                             \
	X(SMI_SHIFT, "v8dbg_SmiShiftSize")                                             \
	X(V_MAJOR, "_ZN2v88internal7Version6major_E")                                  \
	X(V_MINOR, "_ZN2v88internal7Version6minor_E")                                  \
	X(V_BUILD, "_ZN2v88internal7Version6build_E")                                  \
	X(V_PATCH, "_ZN2v88internal7Version6patch_E")                                  \
	X(METADATA, "_ZN4node11per_process8metadataE")

#define ND_ENUM(id, ...) C_##id,
enum { ND_CONSTS(ND_ENUM) NCONSTS };
#define ND_NAME(id, name, ...) name,
static const char *const const_names[NCONSTS] = { ND_CONSTS(ND_NAME) };
/* every name, alternatives too, and the constant each stands for */
#define ND_ALL(id, ...) __VA_ARGS__,
static const char *const all_names[] = { ND_CONSTS(ND_ALL) };
#define NALL (sizeof(all_names) / sizeof(all_names[0]))
#define ND_COUNT1(id, ...) (sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(const char *)),
static const unsigned char nalt[NCONSTS] = { ND_CONSTS(ND_COUNT1) };
#define FIRST_VERSION C_V_MAJOR /* the rest name the version: not needed */

struct ndproc {
	struct sp_iproc ip;   /* mark: &v8dbg_HeapObjectTag it was looked at with */
	int64_t c[NCONSTS];   /* the constants' values */
};

struct sp_node {
	struct sp_iwalker iw; /* codes: struct sp_icode */
};

/* --- process memory ------------------------------------------------------------------- */

static bool is_heap(const struct ndproc *p, uint64_t v)
{
	return v > 4096 && (v & (uint64_t)p->c[C_HEAP_TAG_MASK]) == (uint64_t)p->c[C_HEAP_TAG];
}

/* Address of field off of the tagged object obj. */
static uint64_t field(const struct ndproc *p, uint64_t obj, int64_t off)
{
	return obj - (uint64_t)p->c[C_HEAP_TAG] + (uint64_t)off;
}

/* The instance type of the object at obj, -1 when unreadable. */
static int obj_type(const struct ndproc *p, uint64_t obj)
{
	uint64_t map;
	uint16_t t;

	if (!is_heap(p, obj) || !is_heap(p, map = sp_rd64(p->ip.pid, field(p, obj, p->c[C_OBJ_MAP]))) ||
	    sp_rmem(p->ip.pid, field(p, map, p->c[C_MAP_TYPE]), &t, sizeof(t)))
		return -1;
	return t;
}

struct sbuf {
	char s[MAX_STR * 3 + 1]; /* UTF-8 of MAX_STR UTF-16 units */
	size_t n;
	bool bad;
};

static void put_unit(struct sbuf *b, unsigned u)
{
	if (u < 0x20 || u == 0x7f) {
		b->bad = true;
		return;
	}
	if (u < 0x80) {
		b->s[b->n++] = (char)u;
	} else if (u < 0x800) {
		b->s[b->n++] = (char)(0xc0 | u >> 6);
		b->s[b->n++] = (char)(0x80 | (u & 0x3f));
	} else {
		b->s[b->n++] = (char)(0xe0 | u >> 12);
		b->s[b->n++] = (char)(0x80 | ((u >> 6) & 0x3f));
		b->s[b->n++] = (char)(0x80 | (u & 0x3f));
	}
}

/* Appends chars [from, from+len) of the String str to b. */
static void read_str(const struct ndproc *p, uint64_t str, int32_t from, int32_t len,
		     struct sbuf *b, int depth)
{
	int type = obj_type(p, str), rep, one;
	int32_t slen = 0;
	uint8_t raw[MAX_STR * 2];

	if (type < 0 || type >= p->c[C_FIRST_NONSTRING] || depth > STR_DEPTH ||
	    sp_rmem(p->ip.pid, field(p, str, p->c[C_STR_LEN]), &slen, sizeof(slen)) || slen < 0 ||
	    from < 0 || len < 0 || from + len > slen || b->n / 3 + (size_t)len > MAX_STR) {
		b->bad = true;
		return;
	}
	rep = type & (int)p->c[C_STR_REP_MASK];
	one = (type & (int)p->c[C_STR_ENC_MASK]) == p->c[C_ONE_BYTE];
	if (rep == p->c[C_SEQ]) {
		uint64_t at = field(p, str, one ? p->c[C_SEQ1_CHARS] : p->c[C_SEQ2_CHARS]);

		if (len && sp_rmem(p->ip.pid, at + (uint64_t)from * (one ? 1 : 2), raw,
				   (size_t)len * (one ? 1 : 2))) {
			b->bad = true;
			return;
		}
		for (int32_t i = 0; i < len && !b->bad; i++)
			put_unit(b, one ? raw[i] : (unsigned)(raw[2 * i] | raw[2 * i + 1] << 8));
	} else if (rep == p->c[C_CONS]) {
		uint64_t first = sp_rd64(p->ip.pid, field(p, str, p->c[C_CONS_FIRST]));
		uint64_t second = sp_rd64(p->ip.pid, field(p, str, p->c[C_CONS_SECOND]));
		int32_t flen = 0;

		if (sp_rmem(p->ip.pid, field(p, first, p->c[C_STR_LEN]), &flen, sizeof(flen)) ||
		    flen < 0 || flen > slen) {
			b->bad = true;
			return;
		}
		if (from < flen)
			read_str(p, first, from, (from + len <= flen ? len : flen - from), b, depth + 1);
		if (from + len > flen)
			read_str(p, second, from > flen ? from - flen : 0,
				 from + len - (from > flen ? from : flen), b, depth + 1);
	} else if (rep == p->c[C_THIN]) {
		read_str(p, sp_rd64(p->ip.pid, field(p, str, p->c[C_THIN_ACTUAL])), from, len, b, depth + 1);
	} else if (rep == p->c[C_SLICED]) {
		uint64_t off = sp_rd64(p->ip.pid, field(p, str, p->c[C_SLICED_OFFSET]));

		read_str(p, sp_rd64(p->ip.pid, field(p, str, p->c[C_SLICED_PARENT])),
			 from + (int32_t)(off >> (p->c[C_SMI_SHIFT] + 1)), len, b, depth + 1);
	} else {
		b->bad = true; /* external strings: their bytes are outside the heap */
	}
}

/* The String str, malloc'd; NULL when it is none or unreadable. */
static char *js_string(const struct ndproc *p, uint64_t str)
{
	struct sbuf *b = calloc(1, sizeof(*b));
	int32_t len = 0;
	char *s = NULL;

	if (b && !sp_rmem(p->ip.pid, field(p, str, p->c[C_STR_LEN]), &len, sizeof(len)) && len >= 0 &&
	    len <= MAX_STR) {
		read_str(p, str, 0, len, b, 0);
		if (!b->bad)
			s = strndup(b->s, b->n);
	}
	free(b);
	return s;
}

static bool is_string(const struct ndproc *p, uint64_t v)
{
	int t = obj_type(p, v);

	return t >= 0 && t < p->c[C_FIRST_NONSTRING];
}

/* A function's name from its name_or_scope_info: the String, or the
 * function-name slot of the ScopeInfo (after the context locals' names
 * and infos); "" when it has none. NULL when unreadable. */
static char *function_name(const struct ndproc *p, uint64_t name)
{
	int64_t ts = p->c[C_TAGGED_SIZE];
	uint64_t n, slot;

	if (is_string(p, name))
		return js_string(p, name);
	if (obj_type(p, name) != p->c[C_T_SCOPE])
		return strdup(""); /* a SMI: no ScopeInfo, no name */
	/* slot i of a ScopeInfo is at TaggedSize * (1 + i): the map is first */
	n = sp_rd64(p->ip.pid, field(p, name, ts * (1 + p->c[C_SI_NLOCALS]))) >> (p->c[C_SMI_SHIFT] + 1);
	if (n > 4096)
		return NULL;
	/* more than 75 locals keep their names in a hash table: one slot */
	slot = (uint64_t)p->c[C_SI_FIRST_VARS] + (n > 75 ? 1 + n : 2 * n);
	/* the function variable's name, then (when it is empty or absent)
	 * the name V8 inferred (`Module._compile` for a function expression
	 * assigned to Module.prototype._compile), as Error.stack prints them */
	for (int i = 0; i < 3; i++) {
		uint64_t v = sp_rd64(p->ip.pid, field(p, name, ts * (int64_t)(1 + slot + (uint64_t)i)));
		char *s = is_string(p, v) ? js_string(p, v) : NULL;

		if (s && s[0])
			return s;
		free(s);
	}
	return strdup("");
}

/* The file of the SFI sfi: its Script's name; NULL when it has none. */
static char *script_name(const struct ndproc *p, uint64_t sfi)
{
	uint64_t script = sp_rd64(p->ip.pid, field(p, sfi, p->c[C_SFI_SCRIPT]));

	if (obj_type(p, script) != p->c[C_T_SCRIPT])
		return NULL;
	return js_string(p, sp_rd64(p->ip.pid, field(p, script, p->c[C_SCRIPT_NAME])));
}

/* --- processes -------------------------------------------------------------------------- */

static struct ndproc *proc_get(const struct sp_node *nd, pid_t pid)
{
	return (struct ndproc *)sp_iwalker__proc(&nd->iw, pid);
}

/* One file named *node* (the executable or a libnode): 1 when it exports
 * V8's constants; addrs (NCONSTS) gets their addresses in the process,
 * each the first of its names the file defines. */
static int probe_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	uint64_t all[NALL], *addrs = arg;
	size_t k = 0;

	if (!sp_interp_symbols(pid, m, all_names, all, (int)NALL))
		return 0;
	for (int i = 0; i < NCONSTS; i++) {
		addrs[i] = 0;
		for (int j = 0; j < nalt[i]; j++, k++)
			addrs[i] = addrs[i] ? addrs[i] : all[k];
	}
	return 1;
}

/* Reads the constants at addrs into p->c; "missing " and the names of
 * the walk's that are missing, comma-separated, into why (empty when none). */
static void read_consts(struct ndproc *p, const uint64_t *addrs, char *why, size_t size)
{
	size_t n = 0;

	why[0] = 0;
	for (int i = 0; i < NCONSTS; i++) {
		int32_t v = 0;

		if (!addrs[i] || sp_rmem(p->ip.pid, addrs[i], &v, sizeof(v))) {
			if (i < FIRST_VERSION && n < size)
				n += (size_t)snprintf(why + n, size - n, "%s%s",
						      n ? ", " : "missing ", const_names[i]);
			continue;
		}
		p->c[i] = v;
	}
}

/* "node 20.20.2 (V8 11.3.244.8)", what of it the process tells: node's
 * version is node::per_process::metadata.versions.node, a std::string
 * (libstdc++: data pointer, then length) at the struct's start, set by a
 * static constructor (empty in a process -c registers at its exec: then
 * "node (V8 11.3.244.8)"); V8's are constants in .data. */
static void version_text(const struct ndproc *p, const uint64_t *addrs, char *out, size_t size)
{
	char nv[33] = "";
	uint64_t s[2] = { 0, 0 };
	int n;

	if (!addrs[C_METADATA] || sp_rmem(p->ip.pid, addrs[C_METADATA], s, sizeof(s)) || !s[1] ||
	    s[1] >= sizeof(nv) || sp_rmem(p->ip.pid, s[0], nv, (size_t)s[1]) ||
	    strspn(nv, "0123456789.") != (size_t)s[1])
		memset(nv, 0, sizeof(nv));
	n = snprintf(out, size, "node%s%s", nv[0] ? " " : "", nv);
	if (addrs[C_V_MAJOR] && addrs[C_V_MINOR] && addrs[C_V_BUILD] && addrs[C_V_PATCH] && n > 0 &&
	    (size_t)n < size)
		snprintf(out + n, size - (size_t)n, " (V8 %d.%d.%d.%d)", (int)p->c[C_V_MAJOR],
			 (int)p->c[C_V_MINOR], (int)p->c[C_V_BUILD], (int)p->c[C_V_PATCH]);
}

/* Why the walk cannot read this V8's frames although it has the
 * constants: NULL when it can. */
static const char *unsupported(const struct ndproc *p, char *buf, size_t size)
{
	/* pointer compression (Electron's and Chrome's V8, not node's) keeps
	 * 32-bit tagged values */
	if (p->c[C_TAGGED_SIZE] != 8) {
		snprintf(buf, size, "tagged values of %d bytes", (int)p->c[C_TAGGED_SIZE]);
		return buf;
	}
	/* bpf/node.bpf.c reads the 32 bytes below a frame's fp */
	for (int i = 0; i < 2; i++) {
		int64_t off = p->c[i ? C_FP_CONTEXT : C_FP_FUNCTION];

		if (off >= 0 || off < -32 || off % 8) {
			snprintf(buf, size, "%s is %d", const_names[i ? C_FP_CONTEXT : C_FP_FUNCTION],
				 (int)off);
			return buf;
		}
	}
	return NULL;
}

static int register_proc(struct sp_iwalker *iw, struct sp_iproc *ip, void *found)
{
	struct ndproc *p = (struct ndproc *)ip;
	const uint64_t *addrs = found;
	char why[512], vs[96];
	struct sp_nd_proc w = { 0 };

	read_consts(p, addrs, why, sizeof(why));
	version_text(p, addrs, vs, sizeof(vs));
	ip->mark = addrs[0];
	if (!why[0])
		unsupported(p, why, sizeof(why));
	if (why[0]) {
		if (!ip->warned)
			sp_warn("pid %d runs %s: no JavaScript frames (%s), "
				"native frames only\n", (int)ip->pid, vs, why);
		ip->warned = true;
		return 0;
	}
	w.fp_function = (int16_t)p->c[C_FP_FUNCTION];
	w.fp_context = (int16_t)p->c[C_FP_CONTEXT];
	w.fn_shared = (uint16_t)p->c[C_FN_SHARED];
	w.obj_map = (uint16_t)p->c[C_OBJ_MAP];
	w.map_type = (uint16_t)p->c[C_MAP_TYPE];
	w.sfi_name = (uint16_t)p->c[C_SFI_NAME];
	w.sfi_type = (uint16_t)p->c[C_T_SFI];
	w.heap_tag = (uint16_t)p->c[C_HEAP_TAG];
	w.heap_tag_mask = (uint16_t)p->c[C_HEAP_TAG_MASK];
	sp_interp_mark_live(iw->live_fd, &iw->live);
	if (bpf_map_update_elem(iw->procs_fd, &ip->pid, &w, BPF_ANY))
		return -errno;
	ip->registered = true;
	return 1;
}

int sp_node__add_maps(struct sp_node *nd, pid_t pid, const struct sp_procmaps *pm)
{
	uint64_t addrs[NCONSTS] = { 0 };

	return sp_iwalker__add_maps((struct sp_iwalker *)nd, pid, pm, addrs);
}

bool sp_node__owns(const struct sp_node *nd, pid_t pid)
{
	struct ndproc *p = nd ? proc_get(nd, pid) : NULL;

	return p && (p->ip.registered || p->ip.mark);
}

/* --- code records ----------------------------------------------------------------------- */

void sp_node__note_code(struct sp_node *nd, pid_t pid, uint64_t addr, const void *rec, size_t len)
{
	struct sp_nd_code_rec r;
	struct ndproc *p;
	struct sp_icode *c;
	char *name;

	if (!nd || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	p = proc_get(nd, pid);
	if (r.magic != SP_ND_REC_MAGIC || !p || !p->ip.registered ||
	    !(c = sp_iwalker__new_code(&nd->iw, pid, r.id, addr, sizeof(*c))))
		return;
	name = function_name(p, r.name);
	if (name && !name[0]) {
		free(name);
		name = strdup(ANON_FRAME);
	}
	c->name = name;
	c->file = script_name(p, r.sfi);
	c->ok = c->name != NULL;
	sp_icodes__add(&nd->iw.codes, c);
}

/* --- frames ----------------------------------------------------------------------------- */

/* The index of the first frame of the physical frame (its inlined
 * functions first) that ends at index i. */
static int group_start(const struct sp_frame *f, int i)
{
	while (i > 0 && f[i - 1].addr == f[i].addr && f[i - 1].inlined)
		i--;
	return i;
}

/* Whether f is the code of a JS function: JIT code (no symbol, no file)
 * or the interpreter's and the baseline compiler's entry. */
static bool is_js_code(const struct sp_frame *f)
{
	if (!f->sym)
		return !f->module;
	return strncmp(f->sym, "Builtins_InterpreterEntryTrampoline", 35) == 0 ||
	       strncmp(f->sym, "Builtins_Baseline", 17) == 0;
}

/* The index of the native frame after cur that returns to the return
 * address of word (its caller's); nnative when none. */
static int caller_of(const struct sp_frame *nat, int nnative, int cur, uint64_t word)
{
	uint64_t ra = (word >> SP_ND_RA_SHIFT) & SP_ND_RA_MASK;
	int j = cur + 1;

	while (j < nnative && (nat[j].addr & SP_ND_RA_MASK) != ra)
		j++;
	return j;
}

/* Whether a word from k on has its caller among the native frames after cur. */
static bool any_placed(const struct sp_frame *nat, int nnative, int cur, const uint64_t *words,
		       int k, int ninterp)
{
	for (; k < ninterp; k++)
		if (caller_of(nat, nnative, cur, words[k]) < nnative)
			return true;
	return false;
}

int sp_node__splice(struct sp_node *nd, pid_t pid, const uint64_t *words, int ninterp,
		    struct sp_frame *frames, int nnative)
{
	struct sp_frame *nat;
	int n = 0, cur = 0, k;

	if (!nd || ninterp <= 0)
		return nnative;
	nat = malloc(sizeof(*nat) * (size_t)(nnative ? nnative : 1));
	if (!nat)
		return nnative;
	memcpy(nat, frames, sizeof(*nat) * (size_t)nnative);
	for (k = 0; k < ninterp; k++) {
		struct sp_icode *c = sp_icodes__get(&nd->iw.codes, pid, sp_interp_word_id(words[k]));
		/* the native frame that returns to the word's return address is
		 * its caller's; the one before it ran this function's code */
		int j = caller_of(nat, nnative, cur, words[k]), g;

		if (j >= nnative) {
			/* beyond the native frames the unwinder kept (a stack
			 * deeper than its limit): these go at the root end */
			if (!any_placed(nat, nnative, cur, words, k + 1, ninterp))
				break;
			continue; /* a frame caught in its prologue: its caller's pc */
		}
		g = group_start(nat, j - 1);
		if (g < cur)
			g = j; /* no native frame of its own: inserted */
		while (cur < g)
			frames[n++] = nat[cur++];
		sp_interp_frame(&frames[n], c, UNKNOWN_FRAME, &nd->iw.unknown);
		n++;
		cur = j;
	}
	/* with words left over, the native frames after the last placed one
	 * include the code of the first of them: V8's, not native */
	for (; cur < nnative; cur++)
		if (k >= ninterp || !is_js_code(&nat[cur]))
			frames[n++] = nat[cur];
	for (; k < ninterp; k++) {
		sp_interp_frame(&frames[n],
				sp_icodes__get(&nd->iw.codes, pid, sp_interp_word_id(words[k])),
				UNKNOWN_FRAME, &nd->iw.unknown);
		n++;
	}
	free(nat);
	return n;
}

/* --- life cycle ------------------------------------------------------------------------- */

static const struct sp_iwalker_kind node_kind = {
	.lang = "node",
	SP_IWALKER_ABI(ND, nd),
	.proc_size = sizeof(struct ndproc),
	.probe = probe_file,
	.found_mark = 0, /* addrs[0] */
	.register_proc = register_proc,
	.unknown_frame = UNKNOWN_FRAME, /* frames placed by sp_node__splice */
	.unread = "functions that could not be read",
};

struct sp_node *sp_node__open(struct bpf_object *obj)
{
	return sp_iwalker__open(obj, &node_kind, sizeof(struct sp_node));
}




