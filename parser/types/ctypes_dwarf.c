/* parser/types/ctypes_dwarf.c: a u-probed function's parameters from DWARF.
 *
 * `args.NAME` / `args->NAME` in a uprobe names a parameter of the probed
 * function, typed from the binary's debug info (.debug_info, read with
 * elfutils' libdw), as in bpftrace. Parameters map to arg0, arg1 ... in
 * declaration order (the System V integer argument registers), so a
 * parameter of more than 8 bytes (a struct by value) or beyond the sixth
 * is refused by sema.
 *
 * Types convert like BTF's (ctypes_btf.c): base types keep size and sign,
 * char arrays become strings, pointers point into user memory, typedefs
 * and qualifiers are looked through. Structs and unions become records of
 * the script's registry under their tag; one the script defined itself is
 * kept as written. Records are converted eagerly, pointees included, up to
 * a fixed depth (deeper pointers are untyped).
 *
 * The same walk spells each parameter's C type for `-lv` listings.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parser/base/arena.h"
#include "parser/types/ctypes.h"
#include "parser/types/listargs.h"

#define MAX_DEPTH 12

static struct sp_type *conv(struct sp_ctypes *ct, Dwarf_Die *die, int depth);

/* The DIE named by DW_AT_type, or false (void). */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(die, DW_AT_type, &at) && dwarf_formref_die(&at, out);
}

static uint64_t udata(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
	Dwarf_Attribute at;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &at) || dwarf_formudata(&at, &v))
		return dflt;
	return v;
}

static struct sp_type *base_type(struct sp_ctypes *ct, Dwarf_Die *die)
{
	uint64_t size = udata(die, DW_AT_byte_size, 8), enc = udata(die, DW_AT_encoding, 0);
	bool sgn = enc == DW_ATE_signed || enc == DW_ATE_signed_char;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = size > 8 ? 8 : 4;
	return sp_type_int(ct->a, (uint32_t)size, sgn);
}

static struct sp_type *array_type(struct sp_ctypes *ct, Dwarf_Die *die, int depth)
{
	Dwarf_Die et, sub;
	struct sp_type *elem;
	uint64_t count = 0;

	if (dwarf_child(die, &sub) == 0 && dwarf_tag(&sub) == DW_TAG_subrange_type)
		count = dwarf_hasattr(&sub, DW_AT_count) ? udata(&sub, DW_AT_count, 0)
							  : udata(&sub, DW_AT_upper_bound, (uint64_t)-1) + 1;
	elem = type_of(die, &et) ? conv(ct, &et, depth + 1) : sp_type_int(ct->a, 1, false);
	if (elem->kind == SP_T_INT && elem->size == 1 && elem->is_signed && count > 0)
		return sp_type_string(ct->a, (uint32_t)count);
	return sp_type_array(ct->a, elem, (uint32_t)count);
}

static void member(struct sp_ctypes *ct, Dwarf_Die *m, struct sp_cfield *f, int depth)
{
	const char *name = dwarf_diename(m);
	Dwarf_Die t;
	uint64_t bit;

	f->name = name ? sp_arena_strdup(ct->a, name) : NULL;
	f->type = type_of(m, &t) ? conv(ct, &t, depth + 1) : sp_type_int(ct->a, 4, true);
	f->bit_size = (uint8_t)udata(m, DW_AT_bit_size, 0);
	if (dwarf_hasattr(m, DW_AT_data_bit_offset)) {
		bit = udata(m, DW_AT_data_bit_offset, 0);
	} else {
		bit = udata(m, DW_AT_data_member_location, 0) * 8;
		if (f->bit_size && dwarf_hasattr(m, DW_AT_bit_offset)) /* DWARF 2/3, big-endian bits */
			bit += udata(m, DW_AT_byte_size, f->type->size) * 8 -
			       udata(m, DW_AT_bit_offset, 0) - f->bit_size;
	}
	f->offset = (uint32_t)(bit / 8);
	f->bit_off = f->bit_size ? (uint8_t)(bit % 8) : 0;
}

static void fill_record(struct sp_ctypes *ct, struct sp_record *r, Dwarf_Die *die, int depth)
{
	struct sp_cfield fields[256];
	Dwarf_Die m;
	int n = 0;

	r->filling = true;
	if (dwarf_child(die, &m) == 0) {
		do {
			/* a C++ base class is an anonymous member: its fields show
			 * through, as anonymous structs' do */
			if ((dwarf_tag(&m) == DW_TAG_member || dwarf_tag(&m) == DW_TAG_inheritance) &&
			    n < 256)
				member(ct, &m, &fields[n++], depth);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	r->fields = sp_arena_alloc(ct->a, (size_t)(n ? n : 1) * sizeof(*fields));
	memcpy(r->fields, fields, (size_t)n * sizeof(*fields));
	r->nfields = n;
	r->size = (uint32_t)udata(die, DW_AT_byte_size, 0);
	r->align = sp_record_natural_align(r);
	r->complete = true;
	r->filling = false;
}

static struct sp_type *record_type(struct sp_ctypes *ct, Dwarf_Die *die, int depth)
{
	bool is_union = dwarf_tag(die) == DW_TAG_union_type;
	const char *name = dwarf_diename(die);
	struct sp_record *r;

	if (name) {
		r = sp_ctypes_record(ct, name, is_union);
	} else {
		r = sp_arena_alloc(ct->a, sizeof(*r));
		r->name = "";
		r->is_union = is_union;
	}
	if (!r->complete && !r->filling && !dwarf_hasattr(die, DW_AT_declaration))
		fill_record(ct, r, die, depth);
	return sp_type_record(ct->a, r);
}

static struct sp_type *conv(struct sp_ctypes *ct, Dwarf_Die *die, int depth)
{
	Dwarf_Die t;

	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		return base_type(ct, die);
	case DW_TAG_enumeration_type:
		return sp_type_int(ct->a, (uint32_t)udata(die, DW_AT_byte_size, 4), false);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type: /* C++ references are pointers underneath */
	case DW_TAG_rvalue_reference_type:
		if (depth > MAX_DEPTH || !type_of(die, &t))
			return sp_type_ptr(ct->a, NULL, true);
		if (dwarf_tag(&t) == DW_TAG_subroutine_type)
			return sp_type_ptr(ct->a, NULL, true);
		return sp_type_ptr(ct->a, conv(ct, &t, depth + 1), true);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		return record_type(ct, die, depth);
	case DW_TAG_array_type:
		return array_type(ct, die, depth);
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return type_of(die, &t) ? conv(ct, &t, depth) : sp_type_new(ct->a, SP_T_VOID);
	default:
		return sp_type_new(ct->a, SP_T_VOID);
	}
}

/* Integer registers a parameter of this type takes in the System V
 * x86-64 ABI: 0 for floating point (in xmm registers) and for aggregates
 * over 16 bytes (in memory), 2 for 9..16-byte aggregates, else 1. */
static int int_regs(Dwarf_Die *die)
{
	Dwarf_Die t = *die;
	uint64_t size;

	for (int i = 0; i < MAX_DEPTH; i++) {
		int tag = dwarf_tag(&t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type)
			break;
		if (!type_of(&t, &t))
			return 1;
	}
	if (dwarf_tag(&t) == DW_TAG_base_type && udata(&t, DW_AT_encoding, 0) == DW_ATE_float)
		return 0;
	if (dwarf_tag(&t) != DW_TAG_structure_type && dwarf_tag(&t) != DW_TAG_union_type &&
	    dwarf_tag(&t) != DW_TAG_class_type)
		return 1;
	size = udata(&t, DW_AT_byte_size, 0);
	return size > 16 ? 0 : size > 8 ? 2 : 1;
}

/* --- C spelling for listings ------------------------------------------------------ */

static void spell(Dwarf_Die *die, char *buf, size_t len, int depth)
{
	const char *name = dwarf_diename(die);
	size_t n = strlen(buf);
	Dwarf_Die t;
	bool has = type_of(die, &t);

	if (n + 1 >= len || depth > MAX_DEPTH)
		return;
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (has)
			spell(&t, buf, len, depth + 1);
		else
			snprintf(buf + n, len - n, "void");
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s", dwarf_tag(die) == DW_TAG_pointer_type ? "*" :
			 dwarf_tag(die) == DW_TAG_reference_type ? "&" : "&&");
		return;
	case DW_TAG_class_type:
		snprintf(buf + n, len - n, "class %s", name ? name : "");
		return;
	case DW_TAG_const_type:
		snprintf(buf + n, len - n, "const ");
		if (has)
			spell(&t, buf, len, depth + 1);
		else
			snprintf(buf + strlen(buf), len - strlen(buf), "void");
		return;
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		if (has)
			spell(&t, buf, len, depth + 1);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		snprintf(buf + n, len - n, "%s %s",
			 dwarf_tag(die) == DW_TAG_structure_type ? "struct" :
			 dwarf_tag(die) == DW_TAG_union_type ? "union" : "enum", name ? name : "");
		return;
	default:
		snprintf(buf + n, len - n, "%s", name ? name : "?");
	}
}

/* --- finding the function ---------------------------------------------------------- */

struct dw {
	int fd;
	Dwarf *dwarf;
};

static int dw_open(struct dw *d, const char *binary)
{
	d->fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	d->dwarf = dwarf_begin(d->fd, DWARF_C_READ);
	if (!d->dwarf) {
		close(d->fd);
		return -ENODATA;
	}
	return 0;
}

static void dw_close(struct dw *d)
{
	dwarf_end(d->dwarf);
	close(d->fd);
}

/* "shapes::Widget::poke(int)" -> "poke" (the DIE's own name). */
static bool short_name_is(const char *func, const char *name)
{
	const char *base = func, *p;
	size_t n;

	while ((p = strstr(base, "::")) && (!strchr(base, '(') || p < strchr(base, '(')))
		base = p + 2;
	n = strcspn(base, "(");
	return base != func && strlen(name) == n && !strncmp(base, name, n);
}

static bool func_named(Dwarf_Die *die, const char *func)
{
	Dwarf_Attribute at;
	const char *name = dwarf_diename(die), *link;

	if (name && (!strcmp(name, func) || short_name_is(func, name)))
		return true;
	/* C++: uprobes name the mangled symbol; a definition out of its
	 * class refers to the declaration that has it (integrate follows) */
	if (!dwarf_attr_integrate(die, DW_AT_linkage_name, &at) &&
	    !dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		return false;
	link = dwarf_formstring(&at);
	return link && !strcmp(link, func);
}

/* A DIE match() accepts among die's children, namespaces searched too
 * (functions, records and variables are looked up the same way). */
typedef bool (*dw_match_fn)(Dwarf_Die *die, const void *arg);

static bool find_in(Dwarf_Die *die, dw_match_fn match, const void *arg, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 8 || dwarf_child(die, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_namespace &&
		    find_in(&child, match, arg, out, depth + 1))
			return true;
		if (match(&child, arg)) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The first DIE match() accepts, in any compile unit. */
static bool find_die(struct dw *d, dw_match_fn match, const void *arg, Dwarf_Die *out)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	while (dwarf_get_units(d->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		if (find_in(&cudie, match, arg, out, 0))
			return true;
	return false;
}

/* A defining DW_TAG_subprogram named func. */
static bool is_func(Dwarf_Die *die, const void *func)
{
	return dwarf_tag(die) == DW_TAG_subprogram && !dwarf_hasattr(die, DW_AT_declaration) &&
	       func_named(die, func);
}

/* The defining DW_TAG_subprogram DIE of `func` (not a declaration). */
static bool find_func(struct dw *d, const char *func, Dwarf_Die *out)
{
	return find_die(d, is_func, func, out);
}

/* The debug info of `binary` open in d, and its function `func` in fn. */
static int open_func(struct dw *d, const char *binary, const char *func, Dwarf_Die *fn)
{
	int err = dw_open(d, binary);

	if (err)
		return err;
	if (!find_func(d, func, fn)) {
		dw_close(d);
		return -ENOENT;
	}
	return 0;
}

static int read_params(struct sp_ctypes *ct, const char *binary, const char *func,
		       struct sp_cparam **out, int *n)
{
	struct sp_cparam params[64];
	Dwarf_Die fn, p, t;
	int reg = 0, nregs;
	bool has;
	struct dw d;
	int err, k = 0;

	err = open_func(&d, binary, func, &fn);
	if (err)
		return err;
	if (dwarf_child(&fn, &p) == 0) {
		do {
			const char *name = dwarf_diename(&p);

			if (dwarf_tag(&p) != DW_TAG_formal_parameter || k >= 64)
				continue;
			memset(&params[k], 0, sizeof(params[k]));
			params[k].name = sp_arena_strdup(ct->a, name ? name : "");
			has = type_of(&p, &t);
			params[k].type = has ? conv(ct, &t, 0) : sp_type_new(ct->a, SP_T_VOID);
			if (has)
				spell(&t, params[k].ctype, sizeof(params[k].ctype), 0);
			nregs = has ? int_regs(&t) : 1;
			params[k].reg = nregs && reg + nregs <= 6 ? reg : -1;
			reg += nregs;
			k++;
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	dw_close(&d);
	*out = sp_arena_alloc(ct->a, (size_t)(k ? k : 1) * sizeof(**out));
	memcpy(*out, params, (size_t)k * sizeof(*params));
	*n = k;
	return 0;
}

int sp_ctypes_dwarf_params(struct sp_ctypes *ct, const char *binary, const char *func,
			   struct sp_cparam **out, int *n)
{
	if (!ct->dw_binary || strcmp(ct->dw_binary, binary) || strcmp(ct->dw_func, func)) {
		ct->dw_binary = sp_arena_strdup(ct->a, binary);
		ct->dw_func = sp_arena_strdup(ct->a, func);
		ct->dw_params = NULL;
		ct->dw_n = 0;
		ct->dw_err = read_params(ct, binary, func, &ct->dw_params, &ct->dw_n);
	}
	*out = ct->dw_params;
	*n = ct->dw_n;
	return ct->dw_err;
}

/* A defining struct (or class) or union DIE named r->name. */
static bool is_record(Dwarf_Die *die, const void *arg)
{
	const struct sp_record *r = arg;
	int tag = dwarf_tag(die), want = r->is_union ? DW_TAG_union_type : DW_TAG_structure_type;
	const char *n;

	if ((tag != want && !(tag == DW_TAG_class_type && !r->is_union)) ||
	    dwarf_hasattr(die, DW_AT_declaration))
		return false;
	n = dwarf_diename(die);
	return n && !strcmp(n, r->name);
}

bool sp_ctypes_dwarf_record(struct sp_ctypes *ct, const char *binary, struct sp_record *r)
{
	Dwarf_Die die;
	struct dw d;

	if (r->complete || r->filling || dw_open(&d, binary))
		return r->complete;
	if (find_die(&d, is_record, r, &die))
		fill_record(ct, r, &die, 0);
	dw_close(&d);
	return r->complete;
}

/* A variable DIE named `name`, with a type. */
static bool is_var(Dwarf_Die *die, const void *name)
{
	const char *n;

	if (dwarf_tag(die) != DW_TAG_variable || !dwarf_hasattr_integrate(die, DW_AT_type))
		return false;
	n = dwarf_diename(die);
	return n && !strcmp(n, name);
}

struct sp_type *sp_ctypes_dwarf_var(struct sp_ctypes *ct, const char *binary, const char *name)
{
	Dwarf_Die die, td;
	struct sp_type *t = NULL;
	struct dw d;

	if (dw_open(&d, binary))
		return NULL;
	if (find_die(&d, is_var, name, &die) && type_of(&die, &td))
		t = conv(ct, &td, 0);
	dw_close(&d);
	return t && t->kind != SP_T_VOID ? t : NULL;
}

int sp_dwarf_list_params(const char *binary, const char *func, FILE *out)
{
	Dwarf_Die fn, p, t;
	struct dw d;
	int err;

	err = open_func(&d, binary, func, &fn);
	if (err)
		return err;
	if (dwarf_child(&fn, &p) == 0) {
		do {
			const char *name = dwarf_diename(&p);
			char ctype[128] = "";

			if (dwarf_tag(&p) != DW_TAG_formal_parameter)
				continue;
			if (type_of(&p, &t))
				spell(&t, ctype, sizeof(ctype), 0);
			fprintf(out, "    %s %s\n", ctype[0] ? ctype : "void", name ? name : "");
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	dw_close(&d);
	return 0;
}
