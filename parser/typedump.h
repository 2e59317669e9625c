/* parser/typedump.h: `-d types`, what sema decided.
 *
 * The typed tree (`-d ast`) shows a type on every expression; this is the
 * summary a reader wants first: each map with its key and value types, and
 * each probe's scratch variables with theirs, after every widening and
 * unification sema did.
 */
#ifndef SPROF_PARSER_TYPEDUMP_H
#define SPROF_PARSER_TYPEDUMP_H

#include <stdio.h>

struct sp_node;

void sp_types_dump(FILE *f, const struct sp_node *prog);

#endif
