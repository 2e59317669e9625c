/* base/sha256.h: SHA-256 (FIPS 180-4), for content keys that must not
 * collide by accident or on purpose: the compiled-object cache
 * (runtime/objcache.c) names each BPF object by the SHA-256 of what made it. */
#ifndef SPROF_BASE_SHA256_H
#define SPROF_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sp_sha256 {
	uint32_t h[8];
	uint64_t len;        /* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void sp_sha256_init(struct sp_sha256 *s);
void sp_sha256_update(struct sp_sha256 *s, const void *p, size_t n);
void sp_sha256_final(struct sp_sha256 *s, unsigned char out[32]);
/* out: 64 lower-case hex digits and a NUL */
void sp_sha256_hex(const unsigned char d[32], char out[65]);

#endif
