/* base/glob.h: wildcard matching for attach points ('*' and '?'). */
#ifndef SPROF_BASE_GLOB_H
#define SPROF_BASE_GLOB_H

#include <stdbool.h>

/* '*' matches any run of characters, '?' one character; nothing else is special. */
bool sp_glob_match(const char *pat, const char *s);
/* True when s has a '*' or '?'. */
bool sp_has_wildcard(const char *s);

#endif
