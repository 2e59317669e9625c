/* runtime/langs/hotspot.c: HotSpot JVM processes registered for the BPF walker, Java methods named.
 *
 * A process is a JVM when it maps a libjvm.so exporting HotSpot's
 * self-description for debuggers (the serviceability agent): the arrays
 * gHotSpotVMStructs (type, field, offset or static address), gHotSpotVMTypes
 * (type, size) and gHotSpotVMIntConstants, each entry's layout given by the
 * gHotSpotVM*Offset and *ArrayStride symbols beside them. Debian's builds
 * fill all of them when the JVM starts (they are in .bss before), so they
 * are read from the live process, again on each snapshot of its mappings
 * until the JVM has started and its code cache exists. No table of JDK
 * versions is kept here: where a field has another name in another JDK
 * both are looked for (CodeBlob::_code_begin before JDK 23, _code_offset
 * after). One layout fact is not published: an interpreter frame keeps its
 * Method* one word below its last-sp slot (frame_x86.hpp, every JDK since
 * 8), so its place is interpreter_frame_last_sp_offset - 1. A JVM that
 * lacks an entry gets one warning naming its version and the entry, and
 * native frames only.
 *
 * Names are what Java prints in a stack trace: the holder class's name
 * with dots (java.util.HashMap), a dot, the method's name; the file is the
 * class's SourceFile attribute. Anything unreadable shows
 * "[unknown java frame]", never garbage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "abi/hotspot.h"
#include "abi/interp.h"
#include "runtime/langs/hotspot.h"
#include "runtime/langs/interp_common.h"
#include "runtime/langs/interp_walker.h"
#include "runtime/stacks/procmaps.h"

#define UNKNOWN_FRAME "[unknown java frame]"
#define MAX_NAME 1024
#define MAX_ENTRIES 20000 /* VMStructs entries read before giving up (JDK 25: 1200) */

_Static_assert((int)SP_HS_ST_WALKS == (int)SP_PY_ST_WALKS &&
	       (int)SP_HS_ST_TRUNCATED == (int)SP_PY_ST_TRUNCATED &&
	       (int)SP_HS_ST_READERR == (int)SP_PY_ST_READERR,
	       "hs_stats and py_stats differ");

/* The symbols read: the tables and their entries' layout. The first marks a JVM. */
#define HS_SYMS(X)                                                                     \
	X(STRUCTS, "gHotSpotVMStructs")                                                \
	X(S_TYPE, "gHotSpotVMStructEntryTypeNameOffset")                               \
	X(S_FIELD, "gHotSpotVMStructEntryFieldNameOffset")                             \
	X(S_TSTR, "gHotSpotVMStructEntryTypeStringOffset")                             \
	X(S_STATIC, "gHotSpotVMStructEntryIsStaticOffset")                             \
	X(S_OFF, "gHotSpotVMStructEntryOffsetOffset")                                  \
	X(S_ADDR, "gHotSpotVMStructEntryAddressOffset")                                \
	X(S_STRIDE, "gHotSpotVMStructEntryArrayStride")                                \
	X(TYPES, "gHotSpotVMTypes")                                                    \
	X(T_TYPE, "gHotSpotVMTypeEntryTypeNameOffset")                                 \
	X(T_SIZE, "gHotSpotVMTypeEntrySizeOffset")                                     \
	X(T_STRIDE, "gHotSpotVMTypeEntryArrayStride")                                  \
	X(INTS, "gHotSpotVMIntConstants")                                              \
	X(I_NAME, "gHotSpotVMIntConstantEntryNameOffset")                              \
	X(I_VALUE, "gHotSpotVMIntConstantEntryValueOffset")                            \
	X(I_STRIDE, "gHotSpotVMIntConstantEntryArrayStride")
#define HS_ENUM(id, name) Y_##id,
enum { HS_SYMS(HS_ENUM) NSYMS };
#define HS_SNAME(id, name) name,
static const char *const sym_names[NSYMS] = { HS_SYMS(HS_SNAME) };

/* The fields read (type, field, another name of the field or NULL, another
 * type that declares it or NULL): an offset, or the address of a static one. */
#define HS_FIELDS(X)                                                                   \
	X(HEAPS, "CodeCache", "_heaps", NULL, NULL)                                    \
	X(MEMORY, "CodeHeap", "_memory", NULL, NULL)                                   \
	X(SEGMAP, "CodeHeap", "_segmap", NULL, NULL)                                   \
	X(LOG2SEG, "CodeHeap", "_log2_segment_size", NULL, NULL)                       \
	X(VS_LOW, "VirtualSpace", "_low_boundary", NULL, NULL)                         \
	X(VS_HIGH, "VirtualSpace", "_high_boundary", NULL, NULL)                       \
	X(GA_LEN, "GrowableArrayBase", "_len", NULL, NULL)                             \
	X(GA_DATA, "GrowableArray<int>", "_data", NULL, NULL)                          \
	X(CB_NAME, "CodeBlob", "_name", NULL, NULL)                                    \
	X(CB_FRAME, "CodeBlob", "_frame_size", NULL, NULL)                             \
	X(CB_COMPLETE, "CodeBlob", "_frame_complete_offset", NULL, NULL)               \
	X(CB_CODE, "CodeBlob", "_code_offset", "_code_begin", NULL)                    \
	X(NM_METHOD, "nmethod", "_method", NULL, "CompiledMethod") /* JDK 17, 21 */    \
	X(M_CONST, "Method", "_constMethod", NULL, NULL)                               \
	X(CM_CP, "ConstMethod", "_constants", NULL, NULL)                              \
	X(CM_NAME, "ConstMethod", "_name_index", NULL, NULL)                           \
	X(CP_HOLDER, "ConstantPool", "_pool_holder", NULL, NULL)                       \
	X(CP_SOURCE, "ConstantPool", "_source_file_name_index", NULL, NULL)            \
	X(K_NAME, "Klass", "_name", NULL, NULL)                                        \
	X(SYM_LEN, "Symbol", "_length", NULL, NULL)                                    \
	X(SYM_BODY, "Symbol", "_body", NULL, NULL)                                     \
	X(RELEASE, "Abstract_VM_Version", "_s_vm_release", NULL, NULL)
#define HS_FENUM(id, ...) F_##id,
enum { HS_FIELDS(HS_FENUM) NFIELDS };
#define HS_FDESC(id, t, f, alt, atype) { t, f, alt, atype },
static const struct {
	const char *type, *field, *alt, *atype;
} fields[NFIELDS] = { HS_FIELDS(HS_FDESC) };
#define FIRST_OPTIONAL F_RELEASE /* the version: not needed */

/* The types whose size is read, and the constants. */
enum { T_HEAPBLOCK, T_CP, NTYPES };
static const char *const type_names[NTYPES] = { "HeapBlock", "ConstantPool" };
enum { K_SENDER_SP, K_LAST_SP, NCONSTS };
static const char *const const_names[NCONSTS] = { "frame::interpreter_frame_sender_sp_offset",
						  "frame::interpreter_frame_last_sp_offset" };

/* What the tables told of one JVM. */
struct hsdesc {
	uint64_t f[NFIELDS]; /* offset, or address when static */
	bool has_f[NFIELDS];
	bool alt[NFIELDS];   /* found under its other name */
	int complete_size;   /* bytes of CodeBlob::_frame_complete_offset */
	uint64_t t[NTYPES];
	int64_t k[NCONSTS];
	bool has_t[NTYPES], has_k[NCONSTS];
};

struct hsproc {
	struct sp_iproc ip; /* mark: &gHotSpotVMStructs it was looked at with */
	/* what naming a Method* reads */
	uint16_t m_const, cm_cp, cm_name, cp_holder, cp_source, k_name, sym_len, sym_body;
	uint32_t cp_size;
};

struct sp_hotspot {
	struct sp_iwalker iw; /* codes: struct sp_icode */
};

/* --- the process's tables ----------------------------------------------------------------- */

/* The NUL-terminated string at addr into buf (size bytes); false when unreadable. */
static bool read_cstr(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	/* a string near the end of its mapping: read less */
	for (size_t n = size - 1; n >= 8; n /= 2) {
		if (addr && !sp_rmem(pid, addr, buf, n)) {
			buf[n] = 0;
			return strnlen(buf, n) < n || n == size - 1;
		}
	}
	return false;
}

static uint64_t at(const unsigned char *e, uint64_t off)
{
	uint64_t v;

	memcpy(&v, e + off, sizeof(v));
	return v;
}

/* Whether the entries' layout y[first..last] (offsets of u64 or smaller
 * members) fits in their stride y[stride], itself at most max bytes. */
static bool fits(const uint64_t *y, int stride, int first, int last, size_t max)
{
	if (y[stride] < 8 || y[stride] > max)
		return false;
	for (int i = first; i <= last; i++)
		if (y[i] > y[stride] - 8)
			return false;
	return true;
}

/* Walks the VMStructs array: the fields of fields[] into d. */
static void read_structs(pid_t pid, const uint64_t *y, struct hsdesc *d)
{
	uint64_t a = y[Y_STRUCTS], stride = y[Y_S_STRIDE];
	unsigned char e[256];
	char type[128], field[128], tstr[32];

	if (!fits(y, Y_S_STRIDE, Y_S_TYPE, Y_S_ADDR, sizeof(e)))
		return;
	for (int n = 0; n < MAX_ENTRIES; n++, a += stride) {
		if (sp_rmem(pid, a, e, stride) || !at(e, y[Y_S_TYPE]))
			return; /* the array ends with an entry of NULL names */
		if (!read_cstr(pid, at(e, y[Y_S_TYPE]), type, sizeof(type)))
			continue;
		for (int i = 0; i < NFIELDS; i++) {
			int st;

			if (d->has_f[i] ||
			    (strcmp(type, fields[i].type) &&
			     (!fields[i].atype || strcmp(type, fields[i].atype))) ||
			    !read_cstr(pid, at(e, y[Y_S_FIELD]), field, sizeof(field)))
				continue;
			if (strcmp(field, fields[i].field) &&
			    (!fields[i].alt || strcmp(field, fields[i].alt)))
				continue;
			memcpy(&st, e + y[Y_S_STATIC], sizeof(st));
			d->f[i] = st ? at(e, y[Y_S_ADDR]) : at(e, y[Y_S_OFF]);
			d->has_f[i] = true;
			d->alt[i] = strcmp(field, fields[i].field) != 0;
			if (i == F_CB_COMPLETE)
				d->complete_size =
					read_cstr(pid, at(e, y[Y_S_TSTR]), tstr, sizeof(tstr)) &&
							!strcmp(tstr, "int16_t") ? 2 : 4;
		}
	}
}

/* Walks the VMTypes array (sizes) and the int constants into d. */
static void read_types(pid_t pid, const uint64_t *y, struct hsdesc *d)
{
	unsigned char e[256];
	char name[128];
	uint64_t a = y[Y_TYPES];

	for (int n = 0; fits(y, Y_T_STRIDE, Y_T_TYPE, Y_T_SIZE, sizeof(e)) && n < MAX_ENTRIES;
	     n++, a += y[Y_T_STRIDE]) {
		if (sp_rmem(pid, a, e, y[Y_T_STRIDE]) || !at(e, y[Y_T_TYPE]))
			break;
		if (!read_cstr(pid, at(e, y[Y_T_TYPE]), name, sizeof(name)))
			continue;
		for (int i = 0; i < NTYPES; i++)
			if (!d->has_t[i] && !strcmp(name, type_names[i])) {
				d->t[i] = at(e, y[Y_T_SIZE]);
				d->has_t[i] = true;
			}
	}
	a = y[Y_INTS];
	for (int n = 0; fits(y, Y_I_STRIDE, Y_I_NAME, Y_I_VALUE, sizeof(e)) && n < MAX_ENTRIES;
	     n++, a += y[Y_I_STRIDE]) {
		int32_t v;

		if (sp_rmem(pid, a, e, y[Y_I_STRIDE]) || !at(e, y[Y_I_NAME]))
			break;
		if (!read_cstr(pid, at(e, y[Y_I_NAME]), name, sizeof(name)))
			continue;
		memcpy(&v, e + y[Y_I_VALUE], sizeof(v));
		for (int i = 0; i < NCONSTS; i++)
			if (!d->has_k[i] && !strcmp(name, const_names[i])) {
				d->k[i] = v;
				d->has_k[i] = true;
			}
	}
}

/* The descriptors' values (the tables' addresses, offsets and strides)
 * into y; false when the JVM has not filled them yet. */
static bool read_syms(pid_t pid, const uint64_t *addrs, uint64_t *y)
{
	for (int i = 0; i < NSYMS; i++)
		if (!addrs[i] || sp_rmem(pid, addrs[i], &y[i], sizeof(y[i])))
			return false;
	return y[Y_STRUCTS] && y[Y_TYPES] && y[Y_INTS] && y[Y_S_STRIDE];
}

/* "missing X::y, ..." of the entries the walk needs into why; empty when none. */
static void missing(const struct hsdesc *d, char *why, size_t size)
{
	size_t n = 0;

	why[0] = 0;
#define HS_MISS(cond, ...)                                                                  \
	if (!(cond) && n < size)                                                            \
		n += (size_t)snprintf(why + n, size - n, "%s", n ? ", " : "missing "),      \
		     n < size ? n += (size_t)snprintf(why + n, size - n, __VA_ARGS__) : 0;
	for (int i = 0; i < FIRST_OPTIONAL; i++)
		HS_MISS(d->has_f[i], "%s::%s", fields[i].type, fields[i].field)
	for (int i = 0; i < NTYPES; i++)
		HS_MISS(d->has_t[i], "type %s", type_names[i])
	for (int i = 0; i < NCONSTS; i++)
		HS_MISS(d->has_k[i], "%s", const_names[i])
#undef HS_MISS
}

/* The code heaps into w; "..." into why when they cannot be used. 0 when
 * the code cache is not made yet (the JVM is starting). */
static int read_heaps(pid_t pid, const struct hsdesc *d, struct sp_hs_proc *w, char *why,
		      size_t size)
{
	uint64_t arr = sp_rd64(pid, d->f[F_HEAPS]), data;
	int32_t len = 0;

	if (!arr || sp_rmem(pid, arr + d->f[F_GA_LEN], &len, sizeof(len)) || len <= 0)
		return 0;
	if (len > SP_HS_MAX_HEAPS) {
		snprintf(why, size, "%d code heaps (at most %d)", (int)len, SP_HS_MAX_HEAPS);
		return -1;
	}
	data = sp_rd64(pid, arr + d->f[F_GA_DATA]);
	for (int i = 0; i < len; i++) {
		uint64_t h = sp_rd64(pid, data + 8 * (uint64_t)i);
		struct sp_hs_heap *hp = &w->heap[i];
		int32_t l2 = 0;

		hp->low = sp_rd64(pid, h + d->f[F_MEMORY] + d->f[F_VS_LOW]);
		hp->high = sp_rd64(pid, h + d->f[F_MEMORY] + d->f[F_VS_HIGH]);
		hp->segmap = sp_rd64(pid, h + d->f[F_SEGMAP] + d->f[F_VS_LOW]);
		if (!h || !hp->low || hp->high <= hp->low || !hp->segmap ||
		    sp_rmem(pid, h + d->f[F_LOG2SEG], &l2, sizeof(l2)) || l2 < 4 || l2 > 16)
			return 0;
		hp->log2_seg = (uint32_t)l2;
	}
	w->nheaps = (uint32_t)len;
	return 1;
}

/* The offsets BPF reads into w, and "..." into why when one does not fit. */
static void fill_offsets(const struct hsdesc *d, struct sp_hs_proc *w, char *why, size_t size)
{
	static const int in16[] = { F_CB_NAME, F_CB_FRAME, F_CB_COMPLETE, F_CB_CODE, F_NM_METHOD };
	int64_t im = d->k[K_LAST_SP] - 1, is = d->k[K_SENDER_SP];

	for (size_t i = 0; i < sizeof(in16) / sizeof(in16[0]); i++)
		if (d->f[in16[i]] > 0xffff) {
			snprintf(why, size, "%s::%s at %llu", fields[in16[i]].type,
				 fields[in16[i]].field, (unsigned long long)d->f[in16[i]]);
			return;
		}
	/* bpf/hotspot.bpf.c reads the 4 words below an interpreter frame's fp */
	if (im < -4 || im >= 0 || is < -4 || is >= 0 || d->t[T_HEAPBLOCK] > 64) {
		snprintf(why, size, "an interpreter frame's Method* at fp%+d words", (int)im);
		return;
	}
	w->block_hdr = (uint16_t)d->t[T_HEAPBLOCK];
	w->cb_name = (uint16_t)d->f[F_CB_NAME];
	w->cb_frame_size = (uint16_t)d->f[F_CB_FRAME];
	w->cb_complete = (uint16_t)d->f[F_CB_COMPLETE];
	w->cb_code = (uint16_t)d->f[F_CB_CODE];
	w->nm_method = (uint16_t)d->f[F_NM_METHOD];
	w->complete_size = (uint8_t)d->complete_size;
	w->code_is_ptr = d->alt[F_CB_CODE];
	w->i_method = (int8_t)im;
	w->i_sender_sp = (int8_t)is;
}

/* "HotSpot 25.0.5+11-Debian-1", what of it the process tells. */
static void version_text(pid_t pid, const struct hsdesc *d, char *out, size_t size)
{
	char rel[64];

	if (d->has_f[F_RELEASE] && read_cstr(pid, sp_rd64(pid, d->f[F_RELEASE]), rel, sizeof(rel)) &&
	    rel[0] && sp_printable(rel, strlen(rel)))
		snprintf(out, size, "HotSpot %s", rel);
	else
		snprintf(out, size, "HotSpot (version unknown)");
}

/* --- processes -------------------------------------------------------------------------- */

static struct hsproc *proc_get(const struct sp_hotspot *hs, pid_t pid)
{
	return (struct hsproc *)sp_iwalker__proc(&hs->iw, pid);
}

/* One file named *jvm* (libjvm.so): 1 when it exports gHotSpotVMStructs;
 * addrs (NSYMS) gets the descriptors' addresses in the process. */
static int probe_file(pid_t pid, const struct sp_procmap *m, void *arg)
{
	return sp_interp_symbols(pid, m, sym_names, arg, NSYMS) ? 1 : 0;
}

static void keep_naming(struct hsproc *p, const struct hsdesc *d)
{
	p->m_const = (uint16_t)d->f[F_M_CONST];
	p->cm_cp = (uint16_t)d->f[F_CM_CP];
	p->cm_name = (uint16_t)d->f[F_CM_NAME];
	p->cp_holder = (uint16_t)d->f[F_CP_HOLDER];
	p->cp_source = (uint16_t)d->f[F_CP_SOURCE];
	p->k_name = (uint16_t)d->f[F_K_NAME];
	p->sym_len = (uint16_t)d->f[F_SYM_LEN];
	p->sym_body = (uint16_t)d->f[F_SYM_BODY];
	p->cp_size = (uint32_t)d->t[T_CP];
}

static int register_proc(struct sp_iwalker *iw, struct sp_iproc *ip, void *found)
{
	struct hsproc *p = (struct hsproc *)ip;
	const uint64_t *addrs = found;
	uint64_t y[NSYMS];
	struct hsdesc *d;
	struct sp_hs_proc w = { 0 };
	char why[512] = "", vs[96];
	int r = 0;

	/* not started yet: no mark, so the next snapshot tries again */
	if (!read_syms(ip->pid, addrs, y))
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	read_structs(ip->pid, y, d);
	read_types(ip->pid, y, d);
	version_text(ip->pid, d, vs, sizeof(vs));
	missing(d, why, sizeof(why));
	if (!why[0])
		fill_offsets(d, &w, why, sizeof(why));
	if (!why[0] && (r = read_heaps(ip->pid, d, &w, why, sizeof(why))) == 0) {
		free(d); /* the code cache is not there yet: tried again later */
		return 0;
	}
	keep_naming(p, d);
	free(d);
	ip->mark = addrs[0];
	if (why[0]) {
		if (!ip->warned)
			sp_warn("pid %d runs %s: no Java frames (%s), "
				"native frames only\n", (int)ip->pid, vs, why);
		ip->warned = true;
		return 0;
	}
	/* no hs_live to set: BPF looks every pid up in hs_procs (bpf/hotspot.bpf.c) */
	if (bpf_map_update_elem(iw->procs_fd, &ip->pid, &w, BPF_ANY))
		return -errno;
	ip->registered = true;
	return 1;
}

int sp_hotspot__add_maps(struct sp_hotspot *hs, pid_t pid, const struct sp_procmaps *pm)
{
	uint64_t addrs[NSYMS] = { 0 };

	return sp_iwalker__add_maps((struct sp_iwalker *)hs, pid, pm, addrs);
}

bool sp_hotspot__owns(const struct sp_hotspot *hs, pid_t pid)
{
	struct hsproc *p = hs ? proc_get(hs, pid) : NULL;

	return p && (p->ip.registered || p->ip.mark);
}

/* --- code records ----------------------------------------------------------------------- */

/* The Symbol at sym, malloc'd with '/' made '.' when dots; NULL unreadable. */
static char *symbol(const struct hsproc *p, uint64_t sym, bool dots)
{
	uint16_t len = 0;
	char *s;

	if (sym < 4096 || sp_rmem(p->ip.pid, sym + p->sym_len, &len, sizeof(len)) || !len ||
	    len > MAX_NAME || !(s = malloc((size_t)len + 1)))
		return NULL;
	if (sp_rmem(p->ip.pid, sym + p->sym_body, s, len) || !sp_printable(s, len)) {
		free(s);
		return NULL;
	}
	s[len] = 0;
	for (char *c = s; dots && *c; c++)
		*c = *c == '/' ? '.' : *c;
	return s;
}

/* The Symbol at index idx of the constant pool cp (its u2 index at cp + off). */
static uint64_t cp_symbol(const struct hsproc *p, uint64_t cp, uint64_t idx_at)
{
	uint16_t idx = 0;

	if (sp_rmem(p->ip.pid, idx_at, &idx, sizeof(idx)) || !idx)
		return 0;
	return sp_rd64(p->ip.pid, cp + p->cp_size + 8 * (uint64_t)idx);
}

/* "pkg.Class.method" of the Method* m and its source file; false unread. */
static bool method_names(const struct hsproc *p, uint64_t m, char **name, char **file)
{
	uint64_t cm = sp_rd64(p->ip.pid, m + p->m_const);
	uint64_t cp = cm ? sp_rd64(p->ip.pid, cm + p->cm_cp) : 0;
	uint64_t k = cp ? sp_rd64(p->ip.pid, cp + p->cp_holder) : 0;
	char *cls = k ? symbol(p, sp_rd64(p->ip.pid, k + p->k_name), true) : NULL;
	char *meth = cls ? symbol(p, cp_symbol(p, cp, cm + p->cm_name), false) : NULL;

	if (cls && meth && asprintf(name, "%s.%s", cls, meth) > 0)
		*file = symbol(p, cp_symbol(p, cp, cp + p->cp_source), false);
	else
		*name = NULL;
	free(cls);
	free(meth);
	return *name != NULL;
}

void sp_hotspot__note_code(struct sp_hotspot *hs, pid_t pid, uint64_t addr, const void *rec,
			   size_t len)
{
	struct sp_hs_code_rec r;
	struct hsproc *p;
	struct sp_icode *c;

	if (!hs || !rec || len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	p = proc_get(hs, pid);
	if (r.magic != SP_HS_REC_MAGIC || !p || !p->ip.registered ||
	    !(c = sp_iwalker__new_code(&hs->iw, pid, r.id, addr, sizeof(*c))))
		return;
	c->ok = method_names(p, r.method, &c->name, &c->file);
	sp_icodes__add(&hs->iw.codes, c);
}

/* --- frames ----------------------------------------------------------------------------- */

/* Whether f ran code of the code cache: an address in no file. */
static bool is_java_code(const struct sp_frame *f)
{
	return !f->sym && !f->module;
}

/* The index of the native frame after cur that is the caller the word
 * returns to (its return address's low bits); nnative when none. */
static int caller_of(const struct sp_frame *nat, int nnative, int cur, uint64_t word)
{
	uint64_t ra = (word >> SP_HS_RA_SHIFT) & SP_HS_RA_MASK;
	int j = cur + 1;

	while (j < nnative && (nat[j].addr & SP_HS_RA_MASK) != ra)
		j++;
	return j;
}

static void java_frame(struct sp_hotspot *hs, pid_t pid, uint64_t word, struct sp_frame *f)
{
	sp_interp_frame(f, sp_icodes__get(&hs->iw.codes, pid, sp_interp_word_id(word)),
			UNKNOWN_FRAME, &hs->iw.unknown);
}

/* Each Java word replaces the native frames from the current one up to
 * the one its return address says is its caller's (the interpreter's or
 * compiled code, in no file). The native unwinder stops in compiled code
 * (no frame pointers there): the words it did not reach follow, and the
 * code-cache frames it guessed past them go. */
int sp_hotspot__splice(struct sp_hotspot *hs, pid_t pid, const uint64_t *words, int ninterp,
		       struct sp_frame *frames, int nnative)
{
	struct sp_frame *nat;
	int n = 0, cur = 0, k;

	if (!hs || ninterp <= 0)
		return nnative;
	nat = malloc(sizeof(*nat) * (size_t)(nnative ? nnative : 1));
	if (!nat)
		return nnative;
	memcpy(nat, frames, sizeof(*nat) * (size_t)nnative);
	for (k = 0; k < ninterp; k++) {
		int j = caller_of(nat, nnative, cur, words[k]);

		if (j >= nnative)
			break;
		/* native frames of libjvm above the Java one (a runtime call) stay */
		while (cur < j && !is_java_code(&nat[cur]))
			frames[n++] = nat[cur++];
		java_frame(hs, pid, words[k], &frames[n++]);
		cur = j;
	}
	if (k < ninterp) {
		while (cur < nnative && !is_java_code(&nat[cur]))
			frames[n++] = nat[cur++];
		for (; k < ninterp; k++)
			java_frame(hs, pid, words[k], &frames[n++]);
		/* what the unwinder made of compiled frames: not the callers' */
		while (cur < nnative && is_java_code(&nat[cur]))
			cur++;
	}
	for (; cur < nnative; cur++)
		frames[n++] = nat[cur];
	free(nat);
	return n;
}

/* --- life cycle ------------------------------------------------------------------------- */

static const struct sp_iwalker_kind hotspot_kind = {
	.lang = "jvm",
	SP_IWALKER_ABI(HS, hs),
	.proc_size = sizeof(struct hsproc),
	.probe = probe_file,
	.found_mark = 0, /* addrs[0] */
	.register_proc = register_proc,
	.unknown_frame = UNKNOWN_FRAME, /* frames placed by sp_hotspot__splice */
	.unread = "methods that could not be read",
};

struct sp_hotspot *sp_hotspot__open(struct bpf_object *obj)
{
	return sp_iwalker__open(obj, &hotspot_kind, sizeof(struct sp_hotspot));
}
