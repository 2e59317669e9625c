/* base/vec.c: growable arrays and string vectors (see vec.h). */
#include "base/vec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sp_grow(void **v, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : (first ? first : 8);
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int sp_strv_push(struct sp_strv *sv, const char *s)
{
	char *copy;

	if (SP_GROW(sv->v, sv->cap, sv->n + 1, 16))
		return -ENOMEM;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	sv->v[sv->n++] = copy;
	return 0;
}

int sp_strv_has(const struct sp_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

void sp_strv_clear(struct sp_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
