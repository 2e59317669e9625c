/* parser/builtins.h: the builtins' ids, one per row of stdlib/builtins.def.
 *
 * Sema looks a name up once and stores the id on the BUILTIN or CALL node
 * (sp_node.bi); from there on, sema's checks and codegen's emitters are
 * chosen by id from tables made of the same rows, never by comparing
 * names. A name that is both a variable and a function (ustack, kstack,
 * pystack, rbstack) has two ids: SP_BV_ustack and SP_BF_ustack.
 */
#ifndef SPROF_PARSER_BUILTINS_H
#define SPROF_PARSER_BUILTINS_H

#include <stdbool.h>

enum sp_builtin {
	SP_BI_NONE = 0, /* not a builtin, or not looked up yet */
#define SP_BUILTIN_VAR(name, result, probes, check, emit, doc) SP_BV_##name,
#define SP_BUILTIN_FN(name, min, max, args, result, probes, check, emit, doc) SP_BF_##name,
#include "stdlib/builtins.def"
	SP_BI__COUNT
};

/* The id of a builtin variable (is_fn false) or function; SP_BI_NONE for
 * a name the table does not have. */
enum sp_builtin sp_builtin_lookup(const char *name, bool is_fn);

/* The row's name ("ustack" for both of its ids). */
const char *sp_builtin_name(enum sp_builtin id);

#endif
