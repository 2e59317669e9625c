/* runtime/store/serve.c: `sprof serve`, see serve.h.
 *
 * One thread: poll the listening socket (so SIGINT ends the loop within
 * half a second), accept, read the request line and headers (16 KiB, 5 s at
 * most), answer, close. Answers are small (JSON of aggregated rows, one
 * SVG); the aggregation is ClickHouse's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/fdio.h"
#include "runtime/store/serve.h"
#include "runtime/store/ch_conn.h"
#include "runtime/store/clickhouse.h"
#include "runtime/report/diff.h"
#include "runtime/report/impl.h"
#include "runtime/report/web.h"

#define REQ_MAX 16384
#define MAX_SERIES 9 /* timeline keys shown; the rest is "other" */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct server {
	struct sp_ch_conn c;
	const char *url;
	uint64_t timeout_ms;
	bool quiet;
};

/* An answer being built: body in a memstream. */
struct answer {
	int status;
	const char *type;
	char *body;
	size_t len;
	FILE *f;
};

static FILE *answer_start(struct answer *a, int status, const char *type)
{
	a->status = status;
	a->type = type;
	a->f = open_memstream(&a->body, &a->len);
	return a->f;
}

static void answer_error(struct answer *a, int status, const char *msg)
{
	if (a->f)
		fclose(a->f);
	free(a->body);
	a->body = NULL;
	a->len = 0;
	if (!answer_start(a, status, "application/json"))
		return;
	fputs("{\"error\": ", a->f);
	sp_json_str(a->f, msg);
	fputs("}\n", a->f);
}

static const char *status_text(int s)
{
	switch (s) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 502: return "Bad Gateway";
	default: return "Internal Server Error";
	}
}

static void answer_send(int fd, struct answer *a)
{
	char head[256];
	int n;

	if (a->f && fclose(a->f) != 0)
		a->len = 0;
	a->f = NULL;
	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
					 "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
					 "Connection: close\r\n\r\n",
		     a->status, status_text(a->status), a->type, a->len);
	/* an error: the browser went away, nothing to tell it */
	if (sp_write_all(fd, head, (size_t)n) == 0)
		sp_write_all(fd, a->body ? a->body : "", a->len);
	free(a->body);
}

/* --- the query string -------------------------------------------------------- */

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The value of key in "a=1&b=x%20y", percent-decoded into buf; NULL when absent. */
static const char *param(const char *query, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		size_t o = 0;

		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		for (p += kl + 1; *p && *p != '&' && o + 1 < len; p++) {
			if (*p == '%' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
				buf[o++] = (char)(hexval(p[1]) * 16 + hexval(p[2]));
				p += 2;
			} else {
				buf[o++] = *p == '+' ? ' ' : *p;
			}
		}
		buf[o] = '\0';
		return buf;
	}
	return NULL;
}

static uint64_t param_u64(const char *query, const char *key, uint64_t def)
{
	char buf[32], *end;
	const char *v = param(query, key, buf, sizeof(buf));
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	return *end ? def : n;
}

/* A range and its filters, as the page sends them (b: the base of a diff). */
struct view {
	uint64_t from, to;
	char host[256], comm[256];
};

static void view_of(const char *query, const char *prefix, const struct view *dflt, struct view *v)
{
	char key[16];

	snprintf(key, sizeof(key), "%sfrom", prefix);
	v->from = param_u64(query, key, dflt ? dflt->from : 0);
	snprintf(key, sizeof(key), "%sto", prefix);
	v->to = param_u64(query, key, dflt ? dflt->to : 0);
	snprintf(key, sizeof(key), "%shost", prefix);
	if (!param(query, key, v->host, sizeof(v->host)))
		snprintf(v->host, sizeof(v->host), "%s", dflt ? dflt->host : "");
	snprintf(key, sizeof(key), "%scomm", prefix);
	if (!param(query, key, v->comm, sizeof(v->comm)))
		snprintf(v->comm, sizeof(v->comm), "%s", dflt ? dflt->comm : "");
}

/* A string as a quoted SQL literal. */
static void sql_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fprintf(f, *s == '\'' || *s == '\\' ? "\\%c" : "%c", *s);
	fputc('\'', f);
}

/* The view's host and comm filters as an SQL condition (malloc'd), or NULL for none. */
static char *view_where(const struct view *v)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f;

	if (!v->host[0] && !v->comm[0])
		return NULL;
	f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	if (v->host[0]) {
		fputs("host = ", f);
		sql_str(f, v->host);
	}
	if (v->comm[0]) {
		fputs(v->host[0] ? " AND comm = " : "comm = ", f);
		sql_str(f, v->comm);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* --- ClickHouse -------------------------------------------------------------------- */

/* Runs sql; 0 with the TabSeparated answer in *body (malloc'd), else -errno
 * with the reason in the answer. */
static int query(struct server *s, const char *sql, char **body, struct answer *a)
{
	struct sp_http_resp resp = { 0 };
	char err[512] = "";
	int e = sp_ch_exec(&s->c, sql, NULL, 0, &resp, err, sizeof(err));

	if (e) {
		answer_error(a, 502, err[0] ? err : strerror(-e));
		sp_http_resp_free(&resp);
		return e;
	}
	*body = resp.body;
	resp.body = NULL;
	sp_http_resp_free(&resp);
	return 0;
}

/* The next TabSeparated field of *line (unescaped), "" at the end. */
static char *field(char **line)
{
	char *p = *line, *t;

	if (!p)
		return "";
	t = strchr(p, '\t');
	if (t) {
		*t = '\0';
		*line = t + 1;
	} else {
		*line = NULL;
	}
	sp_ch_unescape(p);
	return p;
}

/* The view's stacks, aggregated by ClickHouse, as paths (root first). */
static int fetch_paths(struct server *s, const struct view *v, struct sp_path **paths, int *n,
		       struct answer *a)
{
	struct sp_clickhouse_query q = { .url = s->url, .since_at = v->from, .until_at = v->to,
					 .timeout_ms = s->timeout_ms };
	struct sp_profile prof = { 0 };
	char *where = view_where(v);
	int e;

	*paths = NULL;
	*n = 0;
	q.where = where;
	e = sp_clickhouse_fetch(&q, &prof);
	free(where);
	if (e) {
		answer_error(a, 502, "the query failed (sprof serve's output says why)");
		return e;
	}
	e = prof.nmaps ? sp_map_paths(&prof.maps[0], false, paths, n) : 0;
	sp_clickhouse_profile_free(&prof);
	if (e)
		answer_error(a, 500, strerror(-e));
	return e;
}

/* --- the endpoints ------------------------------------------------------------------- */

/* The next line of a TabSeparated answer (its '\n' cut), or NULL at the end. */
static char *next_line(char **rest)
{
	char *l = *rest, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl)
		*nl++ = '\0';
	*rest = nl;
	return l;
}

static void summary(struct server *s, struct answer *a)
{
	static const char *const cols[] = { "host", "comm" };
	char sql[512], name[300], *body = NULL, *rest, *l;
	FILE *f;

	snprintf(sql, sizeof(sql), "SELECT toUInt32(min(time)), toUInt32(max(time)), sum(count) FROM %s.%s "
				   "FORMAT TabSeparated", s->c.db, s->c.table);
	if (query(s, sql, &body, a))
		return;
	f = answer_start(a, 200, "application/json");
	if (!f) {
		free(body);
		return;
	}
	rest = body;
	l = next_line(&rest);
	snprintf(name, sizeof(name), "%s.%s", s->c.db, s->c.table);
	fputs("{\"table\": ", f);
	sp_json_str(f, name);
	fprintf(f, ", \"first\": %llu", strtoull(l ? field(&l) : "0", NULL, 10));
	fprintf(f, ", \"last\": %llu", strtoull(l ? field(&l) : "0", NULL, 10));
	fprintf(f, ", \"samples\": %llu", strtoull(l ? field(&l) : "0", NULL, 10));
	free(body);
	for (int c = 0; c < 2; c++) {
		bool first = true;

		snprintf(sql, sizeof(sql), "SELECT %s, sum(count) AS n FROM %s.%s GROUP BY %s ORDER BY n DESC "
					   "LIMIT 200 FORMAT TabSeparated", cols[c], s->c.db, s->c.table, cols[c]);
		body = NULL;
		if (query(s, sql, &body, a))
			return; /* the answer is the error now */
		fprintf(f, ", \"%ss\": [", cols[c]);
		for (rest = body; (l = next_line(&rest)); first = false) {
			const char *key = field(&l);

			fputs(first ? "[" : ", [", f);
			sp_json_str(f, key);
			fprintf(f, ", %llu]", strtoull(field(&l), NULL, 10));
		}
		fputs("]", f);
		free(body);
	}
	fputs("}\n", f);
}

/* A step for about 120 bars over `span` seconds, on a round value. */
static uint64_t timeline_step(uint64_t span)
{
	static const uint64_t steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
					  7200, 21600, 43200, 86400 };
	uint64_t want = span / 120;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] >= want)
			return steps[i];
	return (want / 86400 + 1) * 86400;
}

struct point {
	uint64_t t, n;
	int key;
};

static int by_key_total(const void *x, const void *y, void *arg)
{
	const uint64_t *tot = arg;
	int a = *(const int *)x, b = *(const int *)y;

	return (tot[a] < tot[b]) - (tot[a] > tot[b]);
}

static void timeline(struct server *s, const char *q, struct answer *a)
{
	struct view v;
	char by[16], *where, *sql = NULL, *body = NULL, *l, *next, **keys = NULL;
	uint64_t step, *tot = NULL;
	struct point *pts = NULL;
	size_t nsql = 0, npts = 0, cap = 0;
	int nkeys = 0, *order = NULL, *rank = NULL;
	FILE *f;

	view_of(q, "", NULL, &v);
	if (!param(q, "by", by, sizeof(by)))
		strcpy(by, "host");
	if (strcmp(by, "host") && strcmp(by, "comm")) {
		answer_error(a, 400, "by is host or comm");
		return;
	}
	if (!v.from || v.to <= v.from) {
		answer_error(a, 400, "from and to (seconds since the epoch, from < to) are needed");
		return;
	}
	step = timeline_step(v.to - v.from);
	where = view_where(&v);
	f = open_memstream(&sql, &nsql);
	if (!f) {
		free(where);
		answer_error(a, 500, "out of memory");
		return;
	}
	fprintf(f, "SELECT intDiv(toUInt32(time), %llu) * %llu AS t, toString(%s) AS k, sum(count) FROM %s.%s "
		   "WHERE time >= toDateTime(%llu) AND time < toDateTime(%llu)%s%s%s GROUP BY t, k ORDER BY t "
		   "FORMAT TabSeparated",
		(unsigned long long)step, (unsigned long long)step, by, s->c.db, s->c.table,
		(unsigned long long)v.from, (unsigned long long)v.to, where ? " AND (" : "",
		where ? where : "", where ? ")" : "");
	free(where);
	if (fclose(f) != 0 || query(s, sql, &body, a)) {
		if (!a->f)
			answer_error(a, 500, "out of memory");
		free(sql);
		return;
	}
	free(sql);
	for (next = body; (l = next_line(&next));) {
		struct point p;
		char *t, *k, *n;
		int i;

		t = field(&l);
		k = field(&l);
		n = field(&l);
		for (i = 0; i < nkeys && strcmp(keys[i], k); i++)
			;
		if (i == nkeys) {
			char **nk = realloc(keys, sizeof(*keys) * (size_t)(nkeys + 1));
			uint64_t *nt = realloc(tot, sizeof(*tot) * (size_t)(nkeys + 1));

			if (nk)
				keys = nk;
			if (nt)
				tot = nt;
			if (!nk || !nt || !(keys[nkeys] = strdup(k)))
				break;
			tot[nkeys++] = 0;
		}
		p = (struct point){ strtoull(t, NULL, 10), strtoull(n, NULL, 10), i };
		tot[i] += p.n;
		if (npts == cap) {
			struct point *np = realloc(pts, sizeof(*pts) * (cap = cap ? cap * 2 : 256));

			if (!np)
				break;
			pts = np;
		}
		pts[npts++] = p;
	}
	free(body);
	order = calloc((size_t)nkeys + 1, sizeof(*order));
	rank = calloc((size_t)nkeys + 1, sizeof(*rank));
	f = order && rank ? answer_start(a, 200, "application/json") : NULL;
	if (f) {
		int shown = nkeys > MAX_SERIES ? MAX_SERIES - 1 : nkeys;

		for (int i = 0; i < nkeys; i++)
			order[i] = i;
		qsort_r(order, (size_t)nkeys, sizeof(*order), by_key_total, tot);
		for (int i = 0; i < nkeys; i++)
			rank[order[i]] = i < shown ? i : shown; /* past the shown ones: "other" */
		fprintf(f, "{\"from\": %llu, \"to\": %llu, \"step\": %llu, \"by\": \"%s\", \"series\": [",
			(unsigned long long)v.from, (unsigned long long)v.to, (unsigned long long)step, by);
		for (int r = 0; r <= shown && r < nkeys + (nkeys > shown); r++) {
			uint64_t last_t = UINT64_MAX, acc = 0;
			bool first = true;

			fputs(r ? ",\n {\"key\": " : "\n {\"key\": ", f);
			sp_json_str(f, r < shown ? keys[order[r]] : "other");
			fputs(", \"points\": [", f);
			for (size_t i = 0; i <= npts; i++) {
				if (i < npts && rank[pts[i].key] != r)
					continue;
				if (last_t != UINT64_MAX && (i == npts || pts[i].t != last_t)) {
					fprintf(f, "%s[%llu, %llu]", first ? "" : ", ",
						(unsigned long long)last_t, (unsigned long long)acc);
					first = false;
					acc = 0;
				}
				if (i < npts) {
					last_t = pts[i].t;
					acc += pts[i].n;
				}
			}
			fputs("]}", f);
		}
		fputs("]}\n", f);
	} else {
		answer_error(a, 500, "out of memory");
	}
	for (int i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(tot);
	free(pts);
	free(order);
	free(rank);
}

static void view_title(char *buf, size_t len, const struct view *v)
{
	char t0[32] = "", t1[32] = "";
	time_t a = (time_t)v->from, b = (time_t)v->to;
	struct tm tm;

	if (v->from && gmtime_r(&a, &tm))
		strftime(t0, sizeof(t0), "%Y-%m-%d %H:%M:%S", &tm);
	if (v->to && gmtime_r(&b, &tm))
		strftime(t1, sizeof(t1), "%H:%M:%S", &tm);
	snprintf(buf, len, "%s%s%s%s%s %s-%s UTC", v->host[0] ? v->host : "all hosts", v->comm[0] ? ", " : "",
		 v->comm, "", "", t0, t1);
}

static void flame(struct server *s, const char *q, struct answer *a, bool diff, bool json)
{
	struct view cur, base;
	struct sp_path *pc = NULL, *pb = NULL;
	int nc = 0, nb = 0, e;
	char title[600], sub[1300], btitle[600];
	struct sp_report_opts ro = { .format = SP_FMT_SVG, .width = 1200, .title = title };
	FILE *f;

	view_of(q, "", NULL, &cur);
	view_of(q, "b", &cur, &base);
	ro.width = (int)param_u64(q, "width", 1200); /* the page's frame */
	if (ro.width < 400 || ro.width > 4000)
		ro.width = 1200;
	if (!cur.from || cur.to <= cur.from || (diff && (!base.from || base.to <= base.from))) {
		answer_error(a, 400, "from and to (and bfrom and bto for a diff) are needed, from < to");
		return;
	}
	if (fetch_paths(s, &cur, &pc, &nc, a))
		return;
	if (diff && fetch_paths(s, &base, &pb, &nb, a)) {
		sp_paths_free(pc, nc);
		return;
	}
	view_title(title, sizeof(title), &cur);
	f = answer_start(a, 200, json ? "application/json" : "image/svg+xml");
	if (!f) {
		e = -ENOMEM;
	} else if (json) {
		e = sp_functions_json(f, diff ? pb : NULL, nb, pc, nc, (int)param_u64(q, "n", 50));
	} else if (diff) {
		view_title(btitle, sizeof(btitle), &base);
		snprintf(sub, sizeof(sub), "%s against %s", title, btitle);
		ro.title = "Differential Flame Graph";
		e = sp_report_svg_paths(f, pc, nc, pb, nb, sub, &ro);
	} else {
		ro.title = "Flame Graph";
		e = sp_report_svg_paths(f, pc, nc, NULL, 0, title, &ro);
	}
	if (e)
		answer_error(a, 500, strerror(-e));
	sp_paths_free(pc, nc);
	sp_paths_free(pb, nb);
}

static void static_file(const char *path, struct answer *a)
{
	const char *name = strcmp(path, "/") ? path + 1 : "index.html", *ext = strrchr(name, '.');
	const char *text = strchr(name, '/') ? NULL : sp_web_text(name);

	if (!text || !ext) {
		answer_error(a, 404, "no such page");
		return;
	}
	if (answer_start(a, 200, !strcmp(ext, ".js") ? "text/javascript; charset=utf-8" :
				 !strcmp(ext, ".css") ? "text/css; charset=utf-8" :
							"text/html; charset=utf-8"))
		fputs(text, a->f);
}

static void route(struct server *s, const char *method, const char *path, const char *q,
		  struct answer *a)
{
	if (strcmp(method, "GET"))
		answer_error(a, 405, "only GET");
	else if (!strcmp(path, "/api/summary"))
		summary(s, a);
	else if (!strcmp(path, "/api/timeline"))
		timeline(s, q, a);
	else if (!strcmp(path, "/api/flame.svg"))
		flame(s, q, a, false, false);
	else if (!strcmp(path, "/api/top"))
		flame(s, q, a, false, true);
	else if (!strcmp(path, "/api/diff.svg"))
		flame(s, q, a, true, false);
	else if (!strcmp(path, "/api/difftop"))
		flame(s, q, a, true, true);
	else
		static_file(path, a);
}

/* Reads the request head: "GET /path?query HTTP/1.1" and headers, to the blank line. */
static int read_head(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0 && errno == EINTR && !stop)
			continue;
		if (r <= 0)
			return -1;
		n += (size_t)r;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return 0;
	}
	return -1; /* a head larger than REQ_MAX */
}

static void handle(struct server *s, int fd)
{
	struct timeval tv = { .tv_sec = 5 };
	struct answer a = { 0 };
	char *buf = malloc(REQ_MAX), method[8], target[4096], *q;
	struct timespec t0, t1;

	if (!buf)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (read_head(fd, buf, REQ_MAX) || sscanf(buf, "%7s %4095s", method, target) != 2) {
		answer_error(&a, 400, "a bad request");
		answer_send(fd, &a);
		free(buf);
		return;
	}
	q = strchr(target, '?');
	if (q)
		*q++ = '\0';
	route(s, method, target, q ? q : "", &a);
	if (!a.f && !a.body)
		answer_error(&a, 500, "out of memory");
	answer_send(fd, &a);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!s->quiet)
		sp_log(SP_LOG_INFO, "sprof serve: %s %s%s%s %d %.0f ms\n", method, target, q ? "?" : "", q ? q : "",
		       a.status, (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(buf);
}

/* "PORT", "HOST:PORT", "[V6]:PORT" -> a bound, listening socket; -errno with a message. */
static int listen_on(const char *spec, char *shown, size_t len)
{
	char host[256] = "127.0.0.1", port[16] = "4040";
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	const char *colon = spec ? strrchr(spec, ':') : NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = -1, one = 1, e;

	if (spec && !colon) {
		snprintf(port, sizeof(port), "%s", spec);
	} else if (spec) {
		size_t hl = (size_t)(colon - spec);

		if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
			spec++;
			hl -= 2;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(hl < sizeof(host) ? hl : sizeof(host) - 1), spec);
		snprintf(port, sizeof(port), "%s", colon + 1);
	}
	e = getaddrinfo(host, port, &hints, &res);
	if (e) {
		sp_log(SP_LOG_ERROR, "sprof serve: cannot listen on %s:%s: %s\n", host, port, gai_strerror(e));
		return -EINVAL;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		e = -errno;
		sp_log(SP_LOG_ERROR, "sprof serve: cannot listen on %s:%s: %s\n", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return e;
	}
	{
		char h[NI_MAXHOST], p[NI_MAXSERV];

		if (!getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p, sizeof(p),
				 NI_NUMERICHOST | NI_NUMERICSERV))
			snprintf(shown, len, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, p);
	}
	freeaddrinfo(res);
	return fd;
}

int sp_serve(const struct sp_serve_opts *o)
{
	struct server s = { .url = o->url, .timeout_ms = o->timeout_ms ? o->timeout_ms : 60000,
			    .quiet = o->quiet };
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term, old_pipe;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct answer probe = { 0 };
	char err[512] = "", shown[300] = "?", sql[512], *body = NULL;
	int lfd, e;

	e = sp_ch_conn_parse(o->url, &s.c, err, sizeof(err));
	if (e) {
		sp_log(SP_LOG_ERROR, "sprof serve: %s\n", err);
		return e;
	}
	sp_ch_conn_warn(&s.c, stderr);
	s.c.total_ms = (int)s.timeout_ms;
	/* the table answers before the page is offered */
	snprintf(sql, sizeof(sql), "SELECT count() FROM %s.%s FORMAT TabSeparated", s.c.db, s.c.table);
	if (query(&s, sql, &body, &probe)) {
		if (probe.f)
			fclose(probe.f); /* the reason, as JSON: {"error": "..."} */
		sp_log(SP_LOG_ERROR, "sprof serve: cannot read %s: %.*s", s.c.shown, (int)probe.len,
		       probe.body ? probe.body : "\n");
		free(probe.body);
		sp_ch_conn_free(&s.c);
		return -EIO;
	}
	free(body);
	lfd = listen_on(o->listen, shown, sizeof(shown));
	if (lfd < 0) {
		sp_ch_conn_free(&s.c);
		return lfd;
	}
	stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGPIPE, &ign, &old_pipe);
	printf("sprof serve: http://%s/ shows %s; Ctrl-C stops\n", shown, s.c.shown);
	fflush(stdout);
	while (!stop) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, 500) <= 0)
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		handle(&s, fd);
		close(fd);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	close(lfd);
	sp_ch_conn_free(&s.c);
	return 0;
}
