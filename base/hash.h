/* base/hash.h: the hashes user space uses (the BPF side has its own mix
 * in bpf/common.bpf.c for stack ids). */
#ifndef SPROF_BASE_HASH_H
#define SPROF_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over a NUL-terminated string: interning tables. */
static inline uint64_t sp_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* FNV-1a over bytes, continuing from h (start with SP_HASH_INIT). */
#define SP_HASH_INIT 1469598103934665603ull
static inline uint64_t sp_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* A 64-bit finalizer (murmur3's fmix64): integer keys of open-addressing tables. */
static inline uint64_t sp_hash_u64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif
