/* runtime/store/http.h: one HTTP(S) POST to ClickHouse (libcurl underneath).
 *
 * Optional Basic authentication and TLS (a CA file, a client certificate),
 * the body at once; the answer's status and body. Reading waits as long as
 * bytes keep coming, within the limits the request sets.
 */
#ifndef SPROF_RUNTIME_STORE_HTTP_H
#define SPROF_RUNTIME_STORE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct sp_http_req {
	const char *host;
	int port;
	bool tls;             /* https */
	const char *ca_file;  /* TLS: CAs to verify the server with (NULL: the system's) */
	const char *cert_file, *key_file; /* TLS: a client certificate and its key, or NULL */
	const char *target;   /* "/?query=..." (already percent-encoded) */
	const char *user;     /* Basic authentication when set */
	const char *password;
	const void *body;
	size_t len;
	int timeout_ms;       /* connect and each send */
	int recv_ms;          /* each wait for the answer's bytes; 0: timeout_ms;
			       * -1: none (TCP keep-alive probes notice a peer
			       * that is gone) */
	int total_ms;         /* the whole request; 0: no limit */
	size_t max_answer;    /* bytes of answer kept, past them -EFBIG; 0: 256 MiB */
};

struct sp_http_resp {
	int status;
	char *body;           /* NUL-terminated, malloc'd */
	size_t len;
};

/* POSTs the request. 0 with resp filled (any status), or -errno when no
 * answer came; err gets a reason ("cannot connect: Connection refused");
 * -ETIME when total_ms passed, -EFBIG when the answer passed max_answer. */
int sp_http_post(const struct sp_http_req *r, struct sp_http_resp *resp, char *err, size_t errlen);
void sp_http_resp_free(struct sp_http_resp *resp);
/* Appends s percent-encoded (RFC 3986 unreserved kept) to a malloc'd string. */
char *sp_url_encode(const char *s);

#endif
