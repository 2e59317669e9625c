/* runtime/objcache.h: compiled BPF objects kept on disk by content key.
 *
 * Optimizing and emitting a stack-taking program costs LLVM about 0.17 s
 * of CPU, the same on every start of the same one-liner. codegen names
 * each object by the SHA-256 of what made it (codegen/codegen.h,
 * sp_codegen_cache); this store keeps them in one directory, so the next
 * start of the same script on the same kernel and binary loads the object
 * instead of compiling it. By the script's key (the typed program, its
 * options, this binary and the kernel) it keeps the plan too and the key
 * of its object, so a warm start does no LLVM work at all.
 *
 * The objects are loaded into the kernel as root, so the store trusts
 * only a directory and files owned by the user running sprof and writable
 * by no one else; each file ends with the SHA-256 of its object, checked
 * on every read. Writes go to a private temporary file renamed into place;
 * the oldest objects go once the store passes its size. Nothing here ever
 * fails a run: an unusable store only means compiling.
 */
#ifndef SPROF_RUNTIME_OBJCACHE_H
#define SPROF_RUNTIME_OBJCACHE_H

#include <stddef.h>
#include <stdint.h>

struct sp_objcache;

/* The store in dir, created (mode 0700, with its parent) when missing.
 * NULL and errno: EPERM when dir is another user's or writable by others,
 * or what mkdir/open said. */
struct sp_objcache *sp_objcache_open(const char *dir, uint64_t max_bytes);
void sp_objcache_close(struct sp_objcache *c);

/* 0 and *obj (malloc'd) for what is stored under key (64 hex digits) as
 * ext (".o": a BPF object; ".plan": a script's plan and its object's key,
 * codegen/codegen.c); -ENOENT when there is none, -EBADMSG when the file is
 * damaged (it is removed), -EINVAL for another key or ext. */
int sp_objcache_get(struct sp_objcache *c, const char *key, const char *ext, void **obj,
		    size_t *len);
/* Stores obj under key as ext, then trims the store to its size; 0 or -errno. */
int sp_objcache_put(struct sp_objcache *c, const char *key, const char *ext, const void *obj,
		    size_t len);

/* What besides a script and its options makes its code, for the script
 * key (codegen/codegen.h, sp_codegen_cache.host): this binary's GNU build
 * id (its size and mtime when it has none), the kernel's uname (release and
 * build), the size and mtime of its BTF and the possible CPUs. A new
 * binary or kernel is a miss; no LLVM work, a few system calls. */
const char *sp_objcache_host(char *buf, size_t size);

/* The default directory: /var/cache/sprof for root, else
 * $XDG_CACHE_HOME/sprof or $HOME/.cache/sprof (NULL when none is set).
 * The values of the two variables come from the caller. */
const char *sp_objcache_default_dir(char *buf, size_t size, const char *xdg_cache_home,
				    const char *home);

#endif
