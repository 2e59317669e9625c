/* parser/base/arena.h: one bump allocator per compile.
 *
 * Tokens, nodes, types and strings of a compile live in one arena and are
 * freed together with sp_arena_destroy(). Allocation never fails silently:
 * on out-of-memory the process prints a message and exits, because a
 * compiler that half-built a tree has nothing useful left to do.
 */
#ifndef SPROF_PARSER_BASE_ARENA_H
#define SPROF_PARSER_BASE_ARENA_H

#include <stddef.h>

struct sp_arena;

struct sp_arena *sp_arena_new(void);
void sp_arena_destroy(struct sp_arena *a); /* accepts NULL */
void *sp_arena_alloc(struct sp_arena *a, size_t size); /* zeroed, 16-aligned */
char *sp_arena_strdup(struct sp_arena *a, const char *s);
char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n);
char *sp_arena_printf(struct sp_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
