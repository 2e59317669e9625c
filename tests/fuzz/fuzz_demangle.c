/* tests/fuzz/fuzz_demangle.c: libFuzzer entry for symbol demangling.
 *
 * The input (up to its first NUL) is a symbol name, given to the Rust
 * demangler (runtime/elf/demangle_rust.c: legacy and v0, bounded recursion
 * and output) directly and with the `_R`/`_ZN` prefixes a real name has, and
 * to sp_demangle (Itanium C++ through __cxa_demangle, then Rust). Names come
 * from whatever binaries a system holds, so any bytes must be safe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/elf/demangle_rust.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/syms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void demangle(const char *prefix, const uint8_t *data, size_t size)
{
	size_t np = strlen(prefix);
	char *s = malloc(np + size + 1);

	memcpy(s, prefix, np);
	memcpy(s + np, data, size);
	s[np + size] = '\0';
	free(sp_rust_demangle(s));
	free(sp_demangle(s));
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	demangle("", data, size);
	if (size < 2 || memcmp(data, "_R", 2) != 0)
		demangle("_R", data, size);
	if (size < 3 || memcmp(data, "_ZN", 3) != 0)
		demangle("_ZN", data, size);
	return 0;
}
