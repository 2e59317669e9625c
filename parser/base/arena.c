/* parser/base/arena.c: the compile arena, a chain of bump-allocated chunks.
 *
 * Everything a compile creates (tokens' text, nodes, types, strings) is
 * allocated here and freed at once, so the front end never frees piecemeal
 * and never leaks on error paths. Chunks start small (the typical script is
 * a few hundred bytes) so start-up stays cheap.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "parser/base/arena.h"

#define ARENA_CHUNK 8192
#define ARENA_ALIGN 16

struct chunk {
	struct chunk *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	max_align_t data[];
};

struct sp_arena {
	struct chunk *head;
};

static void oom(void)
{
	sp_err("out of memory\n");
	exit(2);
}

static struct chunk *chunk_new(size_t min)
{
	size_t size = min > ARENA_CHUNK ? min : ARENA_CHUNK;
	struct chunk *c = malloc(sizeof(*c) + size);

	if (!c)
		oom();
	c->next = NULL;
	c->size = size;
	c->used = 0;
	return c;
}

struct sp_arena *sp_arena_new(void)
{
	struct sp_arena *a = calloc(1, sizeof(*a));

	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

void sp_arena_destroy(struct sp_arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *sp_arena_alloc(struct sp_arena *a, size_t size)
{
	struct chunk *c = a->head;
	size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (need < size)
		oom();
	if (!c || c->size - c->used < need) {
		c = chunk_new(need);
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += need;
	memset(p, 0, size);
	return p;
}

char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n)
{
	char *p = sp_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *sp_arena_strdup(struct sp_arena *a, const char *s)
{
	return sp_arena_strndup(a, s, strlen(s));
}

char *sp_arena_printf(struct sp_arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	p = sp_arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
