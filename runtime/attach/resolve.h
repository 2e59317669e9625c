/* runtime/attach/resolve.h: from what a user writes in an attach point to a file and offsets.
 *
 * Targets: a path (used as is), a library name ("libc", "libc.so.6":
 * through the traced process's mappings with -p, then /etc/ld.so.cache), or
 * a bare program name (through $PATH). Functions: one ELF's function symbols
 * (.symtab and .dynsym merged), matched by glob against the mangled name,
 * the demangled name, or the demangled name without its parameter list, and
 * turned into the file offsets the kernel's uprobe API takes.

 */
#ifndef SPROF_RUNTIME_ATTACH_RESOLVE_H
#define SPROF_RUNTIME_ATTACH_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/glob.h" /* sp_glob_match, sp_has_wildcard */

/* Find the file behind `name`: 0 and the path in `out`, or -ENOENT. With
 * pid > 0, libraries and programs mapped by that process come first. */
int sp_resolve_binary(const char *name, pid_t pid, char *out, size_t outlen);
/* Library lookup in /etc/ld.so.cache ("libc" or "libc.so.6" style names);
 * `cache` overrides the file (tests). 0 or -ENOENT. */
int sp_ldcache_lookup(const char *name, const char *cache, char *out, size_t outlen);
/* Every file-backed executable mapping of `pid`, deduplicated: *paths is a
 * malloc'd array of malloc'd strings. 0 or -errno. */
int sp_pid_objects(pid_t pid, char ***paths, int *n);
void sp_strv_free(char **v, int n);
/* A path with wildcards ("/usr/lib/x86_64-linux-gnu/libssl*.so*"): true. */
bool sp_is_path_glob(const char *target);
/* The regular files a path glob matches, sorted (glob(3)); *paths as for
 * sp_pid_objects; *n may be 0. 0 or -errno. */
int sp_resolve_glob(const char *pattern, char ***paths, int *n);

#include "runtime/elf/funcs.h" /* sp_funcs: function symbols by name */

/* probe_uprobe.c: call for every uprobe/uretprobe program between
 * bpf_object__open and bpf_object__load. Where the kernel has uprobe_multi
 * links (6.6+) it marks the program for them, so a wildcard over hundreds of
 * functions attaches as one link and detaches in one grace period instead
 * of ~0.1 s per function. 0 or -errno; a no-op on older kernels. */
struct bpf_program;
struct sp_plan_probe;
struct sp_attach_ctx;
int sp_uprobe_prepare(const struct sp_plan_probe *p, struct bpf_program *prog,
		      struct sp_attach_ctx *ctx);

/* Offsets of one file for one uprobe_multi link. refs (USDT semaphores'
 * file offsets) and cookies may be NULL. */
struct sp_umulti {
	const char *path;
	const uint64_t *offs, *refs, *cookies;
	uint32_t cnt;
	bool ret;
	pid_t pid;
};

/* One link for all of m's offsets: through `prog` itself when prepared,
 * else through a uprobe_multi copy of it when there are at least min_copy
 * offsets and the kernel has the link type. Returns the link fd (close it
 * to detach), -EOPNOTSUPP when the caller should attach one by one, or
 * -errno. */
int sp_uprobe_multi_attach(struct bpf_program *prog, const struct sp_umulti *m, int min_copy);

#endif
