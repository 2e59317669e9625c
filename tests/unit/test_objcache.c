/* tests/unit/test_objcache.c: SHA-256 and the compiled-object cache, in a scratch directory.
 *
 * base/sha256.c against FIPS 180-4's examples (and one million 'a's fed
 * in uneven pieces, so every buffering path runs); runtime/objcache.c:
 * a round trip, a miss, a damaged file (removed, never returned), keys
 * that are not 64 hex digits, a directory or file that others may write
 * or that is a symbolic link (refused), and trimming that keeps the
 * newest objects within the size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/sha256.h"
#include "runtime/objcache.h"
#include "tests/unit/check.h"

static void hex_of(const void *p, size_t n, char out[65])
{
	struct sp_sha256 h;
	unsigned char d[32];

	sp_sha256_init(&h);
	sp_sha256_update(&h, p, n);
	sp_sha256_final(&h, d);
	sp_sha256_hex(d, out);
}

static void test_sha256(void)
{
	static const char *const abc56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char out[65];
	struct sp_sha256 h;
	unsigned char d[32], chunk[97];
	size_t left = 1000000;

	hex_of("", 0, out);
	CHECK(!strcmp(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
	      "empty: %s", out);
	hex_of("abc", 3, out);
	CHECK(!strcmp(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "abc: %s", out);
	hex_of(abc56, strlen(abc56), out);
	CHECK(!strcmp(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
	      "two blocks of padding: %s", out);
	memset(chunk, 'a', sizeof(chunk));
	sp_sha256_init(&h);
	for (size_t i = 1; left; i = i % 97 + 1) { /* pieces of 1..97 bytes */
		size_t n = left < i ? left : i;

		sp_sha256_update(&h, chunk, n);
		left -= n;
	}
	sp_sha256_final(&h, d);
	sp_sha256_hex(d, out);
	CHECK(!strcmp(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	      "a million a's: %s", out);
}

static char dir[256];

static const char *key(int i)
{
	static char k[65];

	snprintf(k, sizeof(k), "%064x", i);
	return k;
}

static void path_of(const char *k, char *out, size_t size)
{
	snprintf(out, size, "%s/%s.o", dir, k);
}

static void test_round_trip(void)
{
	struct sp_objcache *c = sp_objcache_open(dir, 1 << 20);
	void *obj = NULL;
	size_t len = 0;
	char p[512];
	int fd;

	CHECK(c != NULL, "open %s: %s", dir, strerror(errno));
	if (!c)
		return;
	CHECK(sp_objcache_get(c, key(1), ".o", &obj, &len) == -ENOENT, "miss before put");
	CHECK(sp_objcache_put(c, key(1), ".o", "\x7f" "ELF object", 11) == 0, "put");
	CHECK(sp_objcache_get(c, key(1), ".o", &obj, &len) == 0 && len == 11 &&
	      !memcmp(obj, "\x7f" "ELF object", 11), "round trip");
	free(obj);
	CHECK(sp_objcache_put(c, "../../etc/passwd", ".o", "x", 1) == -EINVAL, "a path is no key");
	CHECK(sp_objcache_get(c, "ABCD", ".o", &obj, &len) == -EINVAL, "short key");
	CHECK(sp_objcache_get(c, key(1), ".plan", &obj, &len) == -ENOENT, "a plan is another entry");
	CHECK(sp_objcache_put(c, key(1), ".plan", "p", 1) == 0, "put a plan");
	CHECK(sp_objcache_get(c, key(1), ".plan", &obj, &len) == 0 && len == 1, "plan round trip");
	free(obj);
	CHECK(sp_objcache_put(c, key(1), "/../x", "x", 1) == -EINVAL, "no other kind of name");
	CHECK(sp_objcache_get(c, key(1), ".o", &obj, &len) == 0 && len == 11, "the object stays");
	free(obj);
	snprintf(p, sizeof(p), "%s/%s.plan", dir, key(1));
	CHECK(unlink(p) == 0, "the plan is a file of its own: %s", p);
	/* a flipped byte: reported and removed */
	path_of(key(1), p, sizeof(p));
	fd = open(p, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "X", 1, 3) == 1, "damage");
	close(fd);
	CHECK(sp_objcache_get(c, key(1), ".o", &obj, &len) == -EBADMSG, "damaged file refused");
	CHECK(access(p, F_OK) != 0, "damaged file removed");
	/* a file others may write is not trusted */
	CHECK(sp_objcache_put(c, key(2), ".o", "abc", 3) == 0, "put 2");
	path_of(key(2), p, sizeof(p));
	chmod(p, 0666);
	CHECK(sp_objcache_get(c, key(2), ".o", &obj, &len) == -EBADMSG, "world-writable file refused");
	/* nor a symbolic link */
	path_of(key(3), p, sizeof(p));
	CHECK(symlink("/etc/hostname", p) == 0, "symlink");
	CHECK(sp_objcache_get(c, key(3), ".o", &obj, &len) == -ELOOP, "symbolic link refused");
	unlink(p);
	sp_objcache_close(c);
}

static void test_trim(void)
{
	struct sp_objcache *c = sp_objcache_open(dir, 3 * (1000 + 32));
	char blob[1000] = { 0 }, p[512];
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	void *obj;
	size_t len;

	if (!c)
		return;
	for (int i = 10; i < 13; i++) {
		CHECK(sp_objcache_put(c, key(i), ".o", blob, sizeof(blob)) == 0, "put %d", i);
		path_of(key(i), p, sizeof(p));
		ts[0].tv_sec = ts[1].tv_sec = 1000000 + i; /* 10 oldest */
		utimensat(AT_FDCWD, p, ts, 0);
	}
	CHECK(sp_objcache_get(c, key(10), ".o", &obj, &len) == 0, "10 is used again: newest");
	free(obj);
	CHECK(sp_objcache_put(c, key(13), ".o", blob, sizeof(blob)) == 0, "put 13");
	CHECK(sp_objcache_get(c, key(11), ".o", &obj, &len) == -ENOENT, "11, the oldest, trimmed");
	for (int i = 10; i < 14; i++) {
		if (i == 11)
			continue;
		CHECK(sp_objcache_get(c, key(i), ".o", &obj, &len) == 0, "%d kept", i);
		free(obj);
	}
	sp_objcache_close(c);
}

static void test_untrusted_dir(void)
{
	char sub[300], buf[300];

	snprintf(sub, sizeof(sub), "%s/open", dir);
	CHECK(mkdir(sub, 0777) == 0 && chmod(sub, 0777) == 0, "mkdir");
	errno = 0;
	CHECK(sp_objcache_open(sub, 1 << 20) == NULL && errno == EPERM,
	      "a directory others may write is refused");
	snprintf(sub, sizeof(sub), "%s/link", dir);
	CHECK(symlink("/tmp", sub) == 0, "symlink");
	CHECK(sp_objcache_open(sub, 1 << 20) == NULL, "a symbolic link is refused");
	snprintf(sub, sizeof(sub), "%s/new/sprof", dir);
	struct sp_objcache *c = sp_objcache_open(sub, 1 << 20);
	CHECK(c != NULL, "parent made too (a new ~/.cache)");
	sp_objcache_close(c);
	CHECK(!strcmp(sp_objcache_default_dir(buf, sizeof(buf), "/x/cache", "/home/u"),
		      geteuid() == 0 ? "/var/cache/sprof" : "/x/cache/sprof"), "default: %s", buf);
}

int main(void)
{
	char cmd[300];

	snprintf(dir, sizeof(dir), "/tmp/sprof-objcache-test-%d", (int)getpid());
	test_sha256();
	test_round_trip();
	test_trim();
	test_untrusted_dir();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	printf("test_objcache: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
