/* runtime/report/http.h: the smallest HTTP/1.1 client that talks to ClickHouse.
 *
 * One request per connection (Connection: close), plain TCP, optional
 * Basic authentication, a Content-Length body; the answer's status and body
 * (chunked transfer decoded). Reading waits as long as bytes keep coming,
 * within the limits the request sets. Enough for ClickHouse's HTTP interface; not
 * a general client (no TLS, no redirects, no keep-alive).
 */
#ifndef SPROF_RUNTIME_REPORT_HTTP_H
#define SPROF_RUNTIME_REPORT_HTTP_H

#include <stddef.h>

struct sp_http_req {
	const char *host;
	int port;
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
};

struct sp_http_resp {
	int status;
	char *body;           /* NUL-terminated, malloc'd */
	size_t len;
};

/* POSTs the request. 0 with resp filled (any status), or -errno when no
 * answer came; err gets a reason ("cannot connect: Connection refused");
 * -ETIME when total_ms passed. */
int sp_http_post(const struct sp_http_req *r, struct sp_http_resp *resp, char *err, size_t errlen);
void sp_http_resp_free(struct sp_http_resp *resp);
/* Appends s percent-encoded (RFC 3986 unreserved kept) to a malloc'd string. */
char *sp_url_encode(const char *s);

#endif
