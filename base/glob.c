/* base/glob.c: the glob matching of attach points and listings.
 *
 * bpftrace's wildcards: '*' matches any run of characters, '?' one
 * character, nothing else is special. Iterative with one backtrack point,
 * so a pattern costs O(len(pat) * len(s)) at worst, never exponential.
 */
#include "base/glob.h"

#include <string.h>

bool sp_has_wildcard(const char *s)
{
	return s && (strchr(s, '*') || strchr(s, '?'));
}

bool sp_glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}
