/* runtime/store/http.c: one HTTP(S) POST to ClickHouse, through libcurl.
 *
 * ClickHouse's HTTP interface takes inserts and queries as POSTs with the
 * SQL in the query string or the body. libcurl (Debian's libcurl4, built
 * with OpenSSL) does the transport: TLS with a CA file and a client
 * certificate, proxies from the environment (https_proxy, no_proxy),
 * chunked answers, Basic authentication. docs/fleet.md says why it replaced
 * sprof's own HTTP/1.1 client.
 *
 * Time limits: connecting and each wait for the answer's next bytes have
 * timeout_ms (or recv_ms); a report's query may aggregate for minutes
 * before its first byte (18.16 sends no progress headers), so it waits
 * without a receive limit (recv_ms -1): TCP keep-alive probes (after 15 s
 * idle, every 5 s) end the wait when the peer is gone, and total_ms, when
 * set, bounds the whole request (-ETIME): a server that trickles a byte a
 * second satisfies every per-wait limit. An answer is kept up to
 * max_answer bytes (-EFBIG past them): a server that floods cannot make
 * sprof's memory grow without end.
 *
 * libcurl is opened with dlopen at the first request, not linked: with the
 * libraries it pulls in (TLS, Kerberos, LDAP, SSH, IDN: some 30) it cost
 * every start of sprof ~6 ms of CPU in ld.so and their constructors, ~9 ms
 * of wall time (issue 27), and most runs never export.
 */
#define CURL_DISABLE_TYPECHECK /* calls go through the pointers below */
#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/store/http.h"
#include "base/vec.h"

char *sp_url_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(strlen(s) * 3 + 1), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~", *p)) {
			*o++ = (char)*p;
			continue;
		}
		*o++ = '%';
		*o++ = hex[*p >> 4];
		*o++ = hex[*p & 15];
	}
	*o = '\0';
	return out;
}

#define LIBCURL "libcurl.so.4" /* Debian's libcurl4 */

/* The libcurl functions sprof calls, from LIBCURL. */
static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *h);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode rc);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} cu;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;
static char curl_load_err[256]; /* why LIBCURL could not be used; "" when it could */

/* Each function of cu from the library h; false (and why) when one is missing. */
static bool curl_syms(void *h)
{
	static const struct { const char *name; size_t off; } syms[] = {
#define SYM(f) { "curl_" #f, offsetof(__typeof__(cu), f) }
		SYM(global_init), SYM(easy_init), SYM(easy_setopt), SYM(easy_perform),
		SYM(easy_getinfo), SYM(easy_cleanup), SYM(easy_strerror), SYM(slist_append),
		SYM(slist_free_all),
#undef SYM
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			snprintf(curl_load_err, sizeof(curl_load_err), "%s has no %s", LIBCURL,
				 syms[i].name);
			return false;
		}
		memcpy((char *)&cu + syms[i].off, &f, sizeof(f));
	}
	return true;
}

static void curl_init(void)
{
	void *h = dlopen(LIBCURL, RTLD_NOW | RTLD_LOCAL);

	curl_init_rc = CURLE_FAILED_INIT;
	if (!h) {
		snprintf(curl_load_err, sizeof(curl_load_err), "cannot load %s (Debian: apt install "
			 "libcurl4): %s", LIBCURL, dlerror());
		return;
	}
	if (!curl_syms(h))
		return; /* h stays open: nothing else would use it */
	curl_init_rc = cu.global_init(CURL_GLOBAL_DEFAULT);
}

#define MAX_ANSWER (256u << 20) /* max_answer's default */

struct body {
	char *p;
	size_t n, cap, max;
	bool nomem, too_big;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
	struct body *b = user;
	size_t n = size * nmemb;

	if (n > b->max - b->n) { /* an endless answer took 4.2 GB */
		b->too_big = true;
		return 0;
	}
	if (SP_GROW(b->p, b->cap, b->n + n + 1, 8192)) {
		b->nomem = true;
		return 0;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
	return n;
}

static char *request_url(const struct sp_http_req *r)
{
	bool v6 = strchr(r->host, ':') != NULL;
	size_t n = strlen(r->host) + strlen(r->target) + 32;
	char *url = malloc(n);

	if (url)
		snprintf(url, n, "%s://%s%s%s:%d%s", r->tls ? "https" : "http", v6 ? "[" : "", r->host,
			 v6 ? "]" : "", r->port, r->target);
	return url;
}

static void set_options(CURL *h, const struct sp_http_req *r, struct body *b, struct curl_slist *hdr,
			char *errbuf)
{
	int recv_ms = r->recv_ms ? r->recv_ms : r->timeout_ms;

	cu.easy_setopt(h, CURLOPT_POST, 1L);
	cu.easy_setopt(h, CURLOPT_POSTFIELDS, r->body);
	cu.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len);
	cu.easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	cu.easy_setopt(h, CURLOPT_USERAGENT, "sprof");
	cu.easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* the exporter sends from a thread of its own */
	cu.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	cu.easy_setopt(h, CURLOPT_WRITEDATA, b);
	cu.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	cu.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)r->timeout_ms);
	if (r->total_ms > 0)
		cu.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)r->total_ms);
	if (recv_ms > 0) { /* no byte for recv_ms: the server is gone */
		cu.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
		cu.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)((recv_ms + 999) / 1000));
	}
	cu.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	cu.easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 15L);
	cu.easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 5L);
	if (r->user) {
		cu.easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		cu.easy_setopt(h, CURLOPT_USERNAME, r->user);
		cu.easy_setopt(h, CURLOPT_PASSWORD, r->password ? r->password : "");
	}
	if (r->ca_file)
		cu.easy_setopt(h, CURLOPT_CAINFO, r->ca_file);
	if (r->cert_file)
		cu.easy_setopt(h, CURLOPT_SSLCERT, r->cert_file);
	if (r->key_file)
		cu.easy_setopt(h, CURLOPT_SSLKEY, r->key_file);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libcurl's outcome as -errno and a reason naming the server. */
static int fail(CURL *h, CURLcode rc, const struct sp_http_req *r, const char *cerr, bool late, char *errbuf,
		size_t errlen)
{
	long oserr = 0;
	const char *why = *cerr ? cerr : cu.easy_strerror(rc);

	cu.easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		snprintf(errbuf, errlen, "cannot resolve '%s': %s", r->host, why);
		return -EHOSTUNREACH;
	case CURLE_COULDNT_CONNECT:
		snprintf(errbuf, errlen, "cannot connect to %s:%d: %s", r->host, r->port,
			 oserr ? strerror((int)oserr) : why);
		return oserr ? -(int)oserr : -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		if (late)
			snprintf(errbuf, errlen, "%s:%d: no whole answer within %d ms", r->host, r->port,
				 r->total_ms);
		else
			snprintf(errbuf, errlen, "%s:%d: %s", r->host, r->port, strerror(ETIMEDOUT));
		return late ? -ETIME : -ETIMEDOUT;
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_UNSUPPORTED_PROTOCOL:
		snprintf(errbuf, errlen, "%s:%d: not an HTTP answer", r->host, r->port);
		return -EPROTO;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
		snprintf(errbuf, errlen, "%s:%d: TLS: %s", r->host, r->port, why);
		return -ECONNABORTED;
	default:
		snprintf(errbuf, errlen, "%s:%d: %s%s", r->host, r->port, oserr ? strerror((int)oserr) : why,
			 r->tls && !r->cert_file && (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR) ?
			 " (does the server want a client certificate? cert=FILE&key=FILE)" : "");
		return oserr ? -(int)oserr : -EIO;
	}
}

int sp_http_post(const struct sp_http_req *r, struct sp_http_resp *resp, char *errbuf, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "", *url;
	struct curl_slist *hdr = NULL;
	struct body b = { .max = r->max_answer ? r->max_answer : MAX_ANSWER };
	int64_t start = now_ms();
	CURLcode rc;
	CURL *h;
	long status = 0;
	int err = 0;

	memset(resp, 0, sizeof(*resp));
	pthread_once(&curl_once, curl_init);
	if (curl_load_err[0]) {
		snprintf(errbuf, errlen, "libcurl: %s", curl_load_err);
		return -ENOPKG;
	}
	if (curl_init_rc != CURLE_OK) {
		snprintf(errbuf, errlen, "libcurl: %s", cu.easy_strerror(curl_init_rc));
		return -EIO;
	}
	url = request_url(r);
	h = url ? cu.easy_init() : NULL;
	hdr = h ? cu.slist_append(NULL, "Expect:") : NULL; /* the body at once, no 100-continue */
	if (!hdr) {
		if (h)
			cu.easy_cleanup(h);
		free(url);
		return -ENOMEM;
	}
	cu.easy_setopt(h, CURLOPT_URL, url);
	set_options(h, r, &b, hdr, cerr);
	rc = cu.easy_perform(h);
	if (rc == CURLE_OK)
		cu.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (b.nomem)
		err = -ENOMEM;
	else if (b.too_big) {
		snprintf(errbuf, errlen, "%s:%d: the answer is larger than %zu MiB", r->host, r->port, b.max >> 20);
		err = -EFBIG;
	}
	else if (rc != CURLE_OK)
		err = fail(h, rc, r, cerr, r->total_ms > 0 && now_ms() - start >= r->total_ms, errbuf, errlen);
	if (!err && !b.p && !(b.p = calloc(1, 1)))
		err = -ENOMEM;
	if (!err) {
		resp->status = (int)status;
		resp->body = b.p;
		resp->len = b.n;
	} else {
		free(b.p);
	}
	cu.slist_free_all(hdr);
	cu.easy_cleanup(h);
	free(url);
	return err;
}

void sp_http_resp_free(struct sp_http_resp *resp)
{
	free(resp->body);
	memset(resp, 0, sizeof(*resp));
}
