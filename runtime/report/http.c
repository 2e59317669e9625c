/* runtime/report/http.c: a one-request HTTP/1.1 client over a TCP socket.
 *
 * Written for ClickHouse's HTTP interface (inserts and queries are POSTs
 * with the SQL in the query string or the body), so sprof needs no HTTP
 * library: resolve, connect with a timeout, send the request with
 * Connection: close, read to EOF, split status line, headers and body, and
 * undo chunked transfer encoding, which ClickHouse uses for its answers.
 *
 * A report's query may aggregate for minutes before its first byte (18.16
 * sends no progress headers), so an answer is awaited without a receive
 * limit by default: TCP keep-alive probes (after 15 s idle, every 5 s, 5
 * unanswered ones) end the wait when the peer is gone, and total_ms, when
 * set, bounds the whole request.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "runtime/report/http.h"
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

static void base64(const char *in, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(in), i = 0;

	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)(unsigned char)in[i] << 16 | (uint32_t)(unsigned char)in[i + 1] << 8 |
			     (unsigned char)in[i + 2];

		*out++ = tab[v >> 18], *out++ = tab[(v >> 12) & 63], *out++ = tab[(v >> 6) & 63], *out++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)(unsigned char)in[i] << 16 | (i + 1 < n ? (uint32_t)(unsigned char)in[i + 1] << 8 : 0);

		*out++ = tab[v >> 18], *out++ = tab[(v >> 12) & 63];
		*out++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

static int wait_fd(int fd, short ev, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n = poll(&p, 1, timeout_ms);

	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

static int connect_one(const struct addrinfo *a, int timeout_ms)
{
	int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol), err = 0;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS)
		err = -errno;
	if (!err)
		err = wait_fd(fd, POLLOUT, timeout_ms);
	if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0)
		err = -err;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

static int dial(const struct sp_http_req *r, char *errbuf, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	char port[16];
	int fd = -ENOENT, gai;

	snprintf(port, sizeof(port), "%d", r->port);
	gai = getaddrinfo(r->host, port, &hints, &res);
	if (gai) {
		snprintf(errbuf, errlen, "cannot resolve '%s': %s", r->host, gai_strerror(gai));
		return -EHOSTUNREACH;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		fd = connect_one(a, r->timeout_ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(errbuf, errlen, "cannot connect to %s:%d: %s", r->host, r->port, strerror(-fd));
	return fd;
}

static int send_all(int fd, const char *p, size_t n, int timeout_ms)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int err = wait_fd(fd, POLLOUT, timeout_ms);

			if (err)
				return err;
			continue;
		}
		if (k < 0 && errno != EINTR)
			return -errno;
		if (k > 0)
			p += k, n -= (size_t)k;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The wait for the next bytes: the receive limit, cut to what is left of
 * the whole request's; -ETIME when that is spent. */
static int recv_wait(int recv_ms, int64_t deadline)
{
	int64_t left;

	if (!deadline)
		return recv_ms;
	left = deadline - now_ms();
	if (left <= 0)
		return -ETIME;
	return recv_ms < 0 || left < recv_ms ? (int)left : recv_ms;
}

static void keepalive(int fd)
{
	int on = 1, idle = 15, intvl = 5, cnt = 5;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

static int recv_all(int fd, char **buf, size_t *len, int recv_ms, int64_t deadline)
{
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		ssize_t k;
		int err;

		if (SP_GROW(*buf, cap, *len + 4097, 8192))
			return -ENOMEM;
		k = recv(fd, *buf + *len, cap - *len - 1, 0);
		if (k > 0) {
			*len += (size_t)k;
			continue;
		}
		if (k == 0 || (errno == ECONNRESET && *len > 0)) /* an answer, then a reset */
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		err = recv_wait(recv_ms, deadline);
		if (err == -ETIME)
			return err;
		err = wait_fd(fd, POLLIN, err);
		if (err == -ETIMEDOUT && deadline && now_ms() >= deadline)
			err = -ETIME;
		if (err)
			return err;
	}
	(*buf)[*len] = '\0';
	return 0;
}

/* Undoes chunked transfer encoding in place; returns the new length. */
static size_t dechunk(char *b, size_t n)
{
	size_t in = 0, out = 0;

	while (in < n) {
		char *end;
		unsigned long sz = strtoul(b + in, &end, 16);
		char *nl = memchr(b + in, '\n', n - in);

		if (!nl || end == b + in)
			break;
		in = (size_t)(nl - b) + 1;
		if (sz == 0 || sz > n - in)
			break;
		memmove(b + out, b + in, sz);
		out += sz;
		in += sz;
		if (in < n && b[in] == '\r')
			in++;
		if (in < n && b[in] == '\n')
			in++;
	}
	b[out] = '\0';
	return out;
}

static int parse_response(char *raw, size_t n, struct sp_http_resp *resp)
{
	char *hdr_end = strstr(raw, "\r\n\r\n"), *body;
	bool chunked = false;

	if (!hdr_end || sscanf(raw, "HTTP/%*d.%*d %d", &resp->status) != 1)
		return -EPROTO;
	*hdr_end = '\0';
	for (char *h = strstr(raw, "\r\n"); h; h = strstr(h + 2, "\r\n"))
		if (strncasecmp(h + 2, "transfer-encoding:", 18) == 0 && strstr(h + 20, "chunked"))
			chunked = true;
	body = hdr_end + 4;
	resp->len = n - (size_t)(body - raw);
	memmove(raw, body, resp->len + 1);
	if (chunked)
		resp->len = dechunk(raw, resp->len);
	resp->body = raw;
	return 0;
}

static char *request_head(const struct sp_http_req *r)
{
	char auth[512] = "", *head = NULL;
	size_t cap = strlen(r->target) + strlen(r->host) + sizeof(auth) + 256;

	if (r->user) {
		char cred[300];

		snprintf(cred, sizeof(cred), "%s:%s", r->user, r->password ? r->password : "");
		strcpy(auth, "Authorization: Basic ");
		base64(cred, auth + strlen(auth));
		strcat(auth, "\r\n");
	}
	head = malloc(cap);
	if (head)
		snprintf(head, cap, "POST %s HTTP/1.1\r\nHost: %s%s%s:%d\r\nUser-Agent: sprof\r\n%s"
				    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
			 r->target, strchr(r->host, ':') ? "[" : "", r->host, strchr(r->host, ':') ? "]" : "",
			 r->port, auth, r->len);
	return head;
}

int sp_http_post(const struct sp_http_req *r, struct sp_http_resp *resp, char *errbuf, size_t errlen)
{
	char *head = request_head(r), *raw = NULL;
	int64_t deadline = r->total_ms > 0 ? now_ms() + r->total_ms : 0;
	size_t n = 0;
	int fd, err;

	memset(resp, 0, sizeof(*resp));
	if (!head)
		return -ENOMEM;
	fd = dial(r, errbuf, errlen);
	if (fd < 0) {
		free(head);
		return fd;
	}
	keepalive(fd);
	err = send_all(fd, head, strlen(head), r->timeout_ms);
	if (!err && r->len)
		err = send_all(fd, r->body, r->len, r->timeout_ms);
	/* a server refusing the request (a wrong password) may answer and close
	 * while the body is still going out: its answer is read all the same */
	if (!err || err == -EPIPE || err == -ECONNRESET) {
		int rerr = recv_all(fd, &raw, &n, r->recv_ms ? r->recv_ms : r->timeout_ms, deadline);

		if (!err || (!rerr && n > 0))
			err = rerr;
	}
	if (!err)
		err = parse_response(raw, n, resp);
	if (err) {
		snprintf(errbuf, errlen, "%s:%d: %s", r->host, r->port,
			 err == -EPROTO ? "not an HTTP answer" :
			 err == -ETIME ? "no answer within the time limit" : strerror(-err));
		free(raw);
	}
	close(fd);
	free(head);
	return err;
}

void sp_http_resp_free(struct sp_http_resp *resp)
{
	free(resp->body);
	memset(resp, 0, sizeof(*resp));
}
