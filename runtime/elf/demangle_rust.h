/* runtime/elf/demangle_rust.h: Rust symbol names, legacy and v0, as rustfilt prints them.
 *
 * __cxa_demangle reads Rust's legacy names as Itanium C++ and leaves the
 * escapes in (`_$LT$impl$u20$...`), and knows nothing of v0 (`_R...`), so
 * Rust names get their own demangler. The output is rustfilt's (and
 * `c++filt -i`'s): the legacy `::h<16 hex>` hash and v0 crate
 * disambiguators are dropped, a `.llvm.N` suffix is dropped, another `.x`
 * suffix is kept. Pure C; one growing output buffer (at most 64 KiB), bounded
 * recursion and work, so malformed or hostile names cost little and never
 * crash: they are simply not demangled.
 */
#ifndef SPROF_RUNTIME_ELF_DEMANGLE_RUST_H
#define SPROF_RUNTIME_ELF_DEMANGLE_RUST_H

/* The demangled name, malloc'd; NULL when `mangled` is not a Rust name
 * (a legacy name must end in the `17h<16 hex>E` hash element) or is
 * malformed, or on allocation failure. */
char *sp_rust_demangle(const char *mangled);

#endif
