/* runtime/elf/demangle.c: C++ and Rust names demangled (see demangle.h). */
#define _GNU_SOURCE
#include "runtime/elf/demangle.h"
#include "runtime/elf/demangle_rust.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* abi::__cxa_demangle from libstdc++: already loaded in sprof (LLVM is C++);
 * opened on demand elsewhere (tests). Resolved once per process. */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler(void)
{
	static cxa_demangle_fn fn;
	static bool tried;
	void *h;

	if (tried)
		return fn;
	tried = true;
	fn = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!fn && (h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL)))
		fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
	return fn;
}

/* Rust's legacy mangling is Itanium with a "::h<16 hex>" hash last: drop it. */
static void strip_rust_hash(char *s)
{
	size_t n = strlen(s);
	char *h = n > 19 ? s + n - 19 : NULL;

	if (!h || strncmp(h, "::h", 3) != 0)
		return;
	for (int i = 3; i < 19; i++)
		if (!isxdigit((unsigned char)h[i]))
			return;
	*h = '\0';
}

char *sp_demangle(const char *mangled)
{
	cxa_demangle_fn fn;
	int status = 0;
	char *out;

	/* Rust first: legacy names are Itanium-shaped but need their escapes decoded */
	out = sp_rust_demangle(mangled);
	if (out || strncmp(mangled, "_Z", 2) != 0 || !(fn = demangler()))
		return out;
	out = fn(mangled, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	strip_rust_hash(out);
	return out;
}
