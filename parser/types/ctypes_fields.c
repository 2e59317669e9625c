/* parser/types/ctypes_fields.c: a record's fields by name.
 *
 * Above the registry (ctypes.c) and BTF import (ctypes_btf.c): a record
 * that a script names but does not define (`struct task_struct`) is
 * completed from BTF on its first field lookup, so the registry itself
 * never calls into BTF. Anonymous struct and union members are looked
 * into, as C does.
 */
#include <string.h>

#include "parser/types/ctypes.h"

const struct sp_cfield *sp_record_field(struct sp_ctypes *ct, struct sp_record *r,
					const char *name, uint32_t *off)
{
	int i;

	if (!sp_ctypes_complete(ct, r))
		return NULL;
	for (i = 0; i < r->nfields; i++) {
		const struct sp_cfield *f = &r->fields[i];

		if (f->name && !strcmp(f->name, name)) {
			*off = f->offset;
			return f;
		}
	}
	for (i = 0; i < r->nfields; i++) {
		const struct sp_cfield *f = &r->fields[i], *in;
		uint32_t sub;

		if (f->name || f->type->kind != SP_T_RECORD)
			continue;
		in = sp_record_field(ct, f->type->rec, name, &sub);
		if (in) {
			*off = f->offset + sub;
			return in;
		}
	}
	return NULL;
}

int sp_record_field_names(struct sp_ctypes *ct, struct sp_record *r, const char **out, int max)
{
	int i, n = 0;

	if (!sp_ctypes_complete(ct, r))
		return 0;
	for (i = 0; i < r->nfields && n < max; i++) {
		const struct sp_cfield *f = &r->fields[i];

		if (f->name)
			out[n++] = f->name;
		else if (f->type->kind == SP_T_RECORD)
			n += sp_record_field_names(ct, f->type->rec, out + n, max - n);
	}
	return n;
}
