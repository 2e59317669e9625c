/* runtime/elf/demangle.h: symbol names as people read them.
 *
 * One entry for every reader of names (the symbolizer's symbol tables,
 * inline frames from .debug_info, attaching by demangled name): C++
 * through libstdc++'s __cxa_demangle, Rust legacy and v0 names through
 * runtime/elf/demangle_rust.h, the legacy hash suffix dropped.
 */
#ifndef SPROF_RUNTIME_ELF_DEMANGLE_H
#define SPROF_RUNTIME_ELF_DEMANGLE_H

/* C++ (Itanium, __cxa_demangle) or Rust (legacy, v0: demangle_rust.h) demangling;
 * malloc'd result or NULL. */
char *sp_demangle(const char *mangled);

#endif
