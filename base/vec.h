/* base/vec.h: the one growable-array idiom (Lua's luaM_growvector).
 *
 * Arrays in sprof are a pointer, a count and a capacity of any integer
 * type. SP_GROW makes room for `need` elements, doubling from `first`;
 * on failure the array and its capacity are unchanged, so the caller's
 * cleanup path still frees what it holds.
 *
 *     if (SP_GROW(v->items, v->cap, v->n + 1, 16))
 *             return -ENOMEM;
 *     v->items[v->n++] = x;
 */
#ifndef SPROF_BASE_VEC_H
#define SPROF_BASE_VEC_H

#include <stddef.h>

/* 0, or -ENOMEM (*v and *cap unchanged; also when the size would overflow). */
int sp_grow(void **v, size_t *cap, size_t need, size_t elem, size_t first);

#define SP_GROW(v, cap, need, first)                                              \
	__extension__({                                                           \
		size_t sp_cap_ = (size_t)(cap);                                   \
		void *sp_v_ = (v);                                                \
		int sp_err_ = sp_grow(&sp_v_, &sp_cap_, (size_t)(need), sizeof(*(v)), \
				      (size_t)(first));                           \
		(v) = sp_v_;                                                      \
		(cap) = sp_cap_;                                                  \
		sp_err_;                                                          \
	})

/* A NULL-terminated-free vector of malloc'd strings. */
struct sp_strv {
	char **v;
	size_t n, cap;
};

/* Appends a copy of s. 0 or -ENOMEM. */
int sp_strv_push(struct sp_strv *sv, const char *s);
/* True when an equal string is in sv. */
int sp_strv_has(const struct sp_strv *sv, const char *s);
void sp_strv_clear(struct sp_strv *sv); /* frees the strings and the array */

#endif
