/* runtime/store/ch_conn.c: ClickHouse URLs and statements over HTTP.
 *
 * A statement goes in the POST body, or, for an INSERT whose rows are the
 * body, in the query string. User and password travel as HTTP Basic
 * authentication, which ClickHouse 18.16 and current releases both accept.
 * A refused statement comes back with a status other than 200 and the
 * server's message as the body ("Code: 193, e.displayText() = ...: Wrong
 * password for user x"); its first line, without the e.what() tail, becomes
 * the error text.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/store/ch_conn.h"

bool sp_ch_ident_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A copy of s with %XX sequences decoded (a password may hold ':' or '/'). */
static char *pct_decode(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (s[0] == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			*o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

/* user[:password]@ before the host, percent-encoded as in any URL. */
static int parse_auth(char *auth, struct sp_ch_conn *c)
{
	char *colon = strchr(auth, ':');

	if (colon)
		*colon = '\0';
	c->user = pct_decode(auth);
	c->password = colon ? pct_decode(colon + 1) : NULL;
	return c->user && (!colon || c->password) ? 0 : -ENOMEM;
}

static int parse_hostport(char *hp, struct sp_ch_conn *c, char *err, size_t errlen)
{
	char *colon = strrchr(hp, ':'), *end;
	long port = c->tls ? 8443 : 8123;

	if (hp[0] == '[') { /* [::1]:8123 */
		char *close = strchr(hp, ']');

		if (!close || (close[1] && close[1] != ':')) {
			snprintf(err, errlen, "bad host '%s'", hp);
			return -EINVAL;
		}
		colon = close[1] ? close + 1 : NULL;
		*close = '\0';
		hp++;
	}
	if (colon) {
		*colon = '\0';
		port = strtol(colon + 1, &end, 10);
		if (end == colon + 1 || *end || port <= 0 || port > 65535) {
			snprintf(err, errlen, "bad port '%s'", colon + 1);
			return -EINVAL;
		}
	}
	if (!*hp) {
		snprintf(err, errlen, "no host");
		return -EINVAL;
	}
	c->host = strdup(hp);
	c->port = (int)port;
	return c->host ? 0 : -ENOMEM;
}

static int parse_table(const char *path, struct sp_ch_conn *c, char *err, size_t errlen)
{
	const char *dot = strchr(path, '.');

	if (!dot) {
		snprintf(err, errlen, "expected /DATABASE.TABLE after the host");
		return -EINVAL;
	}
	c->db = strndup(path, (size_t)(dot - path));
	c->table = strdup(dot + 1);
	if (!c->db || !c->table)
		return -ENOMEM;
	if (!sp_ch_ident_ok(c->db) || !sp_ch_ident_ok(c->table)) {
		snprintf(err, errlen, "database and table names are letters, digits and '_'");
		return -EINVAL;
	}
	return 0;
}

static int make_shown(struct sp_ch_conn *c)
{
	size_t n = strlen(c->host) + strlen(c->db) + strlen(c->table) + (c->user ? strlen(c->user) : 0) + 40;

	c->shown = malloc(n);
	if (!c->shown)
		return -ENOMEM;
	bool v6 = strchr(c->host, ':') != NULL;

	snprintf(c->shown, n, "clickhouse%s://%s%s%s%s%s:%d/%s.%s", c->tls ? "+https" : "",
		 c->user ? c->user : "", c->user ? "@" : "",
		 v6 ? "[" : "", c->host, v6 ? "]" : "", c->port, c->db, c->table);
	return 0;
}

/* The first line of the password file. */
static int read_password(const char *path, struct sp_ch_conn *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		snprintf(err, errlen, "cannot read the password file '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		line = strdup("");
	} else {
		line[strcspn(line, "\r\n")] = '\0';
	}
	c->password = line;
	return line ? 0 : -ENOMEM;
}

static int env_auth(struct sp_ch_conn *c, char *err, size_t errlen)
{
	const char *u = getenv("SPROF_CLICKHOUSE_USER"), *p = getenv("SPROF_CLICKHOUSE_PASSWORD");
	const char *pf = getenv("SPROF_CLICKHOUSE_PASSWORD_FILE");

	if (!c->user && u && *u && !(c->user = strdup(u)))
		return -ENOMEM;
	if (!c->password && pf && *pf)
		return read_password(pf, c, err, errlen);
	if (!c->password && p && !(c->password = strdup(p)))
		return -ENOMEM;
	return 0;
}

/* "ca=FILE&cert=FILE&key=FILE" after the table (percent-encoded), else
 * SPROF_CLICKHOUSE_CA_FILE, _CERT_FILE, _KEY_FILE. */
static int parse_params(char *q, struct sp_ch_conn *c, char *err, size_t errlen)
{
	static const char *const env[] = { "SPROF_CLICKHOUSE_CA_FILE", "SPROF_CLICKHOUSE_CERT_FILE",
					   "SPROF_CLICKHOUSE_KEY_FILE" };
	static const char *const names[] = { "ca", "cert", "key" };
	char **slot[] = { &c->ca_file, &c->cert_file, &c->key_file };
	char *save = NULL;

	for (char *kv = q ? strtok_r(q, "&", &save) : NULL; kv; kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');
		size_t i = 0;

		if (eq)
			*eq = '\0';
		while (i < 3 && strcmp(kv, names[i]) != 0)
			i++;
		if (i == 3 || !eq || !eq[1]) {
			snprintf(err, errlen, "unknown URL parameter '%s' (ca=FILE, cert=FILE, key=FILE)", kv);
			return -EINVAL;
		}
		free(*slot[i]);
		if (!(*slot[i] = pct_decode(eq + 1)))
			return -ENOMEM;
	}
	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(env[i]);

		if (!*slot[i] && v && *v && !(*slot[i] = strdup(v)))
			return -ENOMEM;
	}
	if ((c->ca_file || c->cert_file || c->key_file) && !c->tls) {
		snprintf(err, errlen, "a CA file or client certificate needs clickhouse+https://");
		return -EINVAL;
	}
	return 0;
}

void sp_ch_conn_warn(const struct sp_ch_conn *c, FILE *f)
{
	if (c->password_in_url)
		fprintf(f, "sprof: warning: the password in the URL of %s is visible to every user of this "
			   "machine (ps); put it in a file named by --password-file or "
			   "SPROF_CLICKHOUSE_PASSWORD_FILE\n", c->shown);
}

const char *sp_ch_url_redacted(const char *url, char *buf, size_t len)
{
	const char *auth = strstr(url, "://"), *end, *at, *colon;

	snprintf(buf, len, "%s", url);
	if (!auth)
		return buf;
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	for (at = end; at > auth && at[-1] != '@'; at--)
		;
	if (at == auth)
		return buf; /* no user part */
	colon = memchr(auth, ':', (size_t)(at - 1 - auth));
	if (colon)
		snprintf(buf, len, "%.*s***%s", (int)(colon + 1 - url), url, at - 1);
	return buf;
}

int sp_ch_conn_parse(const char *url, struct sp_ch_conn *c, char *err, size_t errlen)
{
	static const char scheme[] = "clickhouse://", tls_scheme[] = "clickhouse+https://";
	char *rest, *slash, *at, *query;
	int e;

	memset(c, 0, sizeof(*c));
	c->timeout_ms = 10000;
	c->tls = strncmp(url, tls_scheme, sizeof(tls_scheme) - 1) == 0;
	if (!c->tls && strncmp(url, scheme, sizeof(scheme) - 1) != 0) {
		snprintf(err, errlen, "the URL must start with clickhouse:// (HTTP) or clickhouse+https:// (TLS)");
		return -EINVAL;
	}
	rest = strdup(url + (c->tls ? sizeof(tls_scheme) : sizeof(scheme)) - 1);
	if (!rest)
		return -ENOMEM;
	query = strchr(rest, '?');
	if (query)
		*query++ = '\0';
	slash = strchr(rest, '/');
	if (slash)
		*slash = '\0';
	at = strrchr(rest, '@');
	if (at)
		*at = '\0';
	e = at ? parse_auth(rest, c) : 0;
	if (!e)
		e = parse_hostport(at ? at + 1 : rest, c, err, errlen);
	if (!e && !slash) {
		snprintf(err, errlen, "expected /DATABASE.TABLE after the host");
		e = -EINVAL;
	}
	if (!e)
		e = parse_table(slash + 1, c, err, errlen);
	c->password_in_url = !e && c->password && *c->password;
	if (!e)
		e = env_auth(c, err, errlen);
	if (!e)
		e = parse_params(query, c, err, errlen);
	if (!e)
		e = make_shown(c);
	free(rest);
	if (e == -ENOMEM)
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	if (e)
		sp_ch_conn_free(c);
	return e;
}

void sp_ch_conn_free(struct sp_ch_conn *c)
{
	free(c->host);
	free(c->db);
	free(c->table);
	free(c->user);
	free(c->password);
	free(c->shown);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	memset(c, 0, sizeof(*c));
}

/* The server's message: its first line, without ", e.what() = ..." */
static void server_error(const struct sp_http_resp *r, char *err, size_t errlen)
{
	const char *b = r->body && *r->body ? r->body : "(no message)";
	size_t n = strcspn(b, "\r\n");
	const char *what = strstr(b, ", e.what() = ");

	if (what && (size_t)(what - b) < n)
		n = (size_t)(what - b);
	snprintf(err, errlen, "server answered %d: %.*s", r->status, (int)n, b);
}

/* A Distributed query that could not reach a shard: "Code: 279 ...: All
 * connection tries failed. Log: ... Code: 210 ...: Connection refused
 * (127.0.0.1:9001)" (or code 209/210 alone). true with err naming the
 * shard's address and the reason. */
static bool shard_down(const struct sp_http_resp *r, char *err, size_t errlen)
{
	const char *b = r->body ? r->body : "", *net, *open, *close;

	if (strncmp(b, "Code: 279,", 10) != 0 && strncmp(b, "Code: 210,", 10) != 0 &&
	    strncmp(b, "Code: 209,", 10) != 0)
		return false;
	net = strstr(b, "NetException: ");
	if (net && strncmp(b, "Code: 279,", 10) == 0) /* the first try's reason, not the summary */
		net = strstr(net + 14, "NetException: ");
	open = net ? strchr(net, '(') : NULL;
	close = open ? strchr(open, ')') : NULL;
	if (!close || !memchr(open, ':', (size_t)(close - open)) || memchr(net, '\n', (size_t)(open - net)))
		return false;
	net += 14;
	snprintf(err, errlen, "shard %.*s is down: %.*s", (int)(close - open - 1), open + 1,
		 (int)(open - net - (open > net && open[-1] == ' ')), net);
	return true;
}

int sp_ch_exec(const struct sp_ch_conn *c, const char *sql, const void *data, size_t len,
	       struct sp_http_resp *resp, char *err, size_t errlen)
{
	char *q = data ? sp_url_encode(sql) : NULL, *target = NULL;
	const char *params = c->params ? c->params : "";
	struct sp_http_req r = { .host = c->host, .port = c->port, .user = c->user, .password = c->password,
				 .tls = c->tls, .ca_file = c->ca_file, .cert_file = c->cert_file,
				 .key_file = c->key_file, .timeout_ms = c->timeout_ms, .recv_ms = c->recv_ms,
				 .max_answer = c->max_answer,
				 .total_ms = c->total_ms && data ? c->total_ms + (int)(len >> 10) : c->total_ms };
	int e;

	if (data && !q)
		return -ENOMEM;
	target = malloc((q ? strlen(q) : 0) + strlen(params) + 16);
	if (!target) {
		free(q);
		return -ENOMEM;
	}
	sprintf(target, "/?%s%s%s", params, q && *params ? "&" : "", q ? "query=" : "");
	if (q)
		strcat(target, q);
	r.target = target;
	r.body = data ? data : sql;
	r.len = data ? len : strlen(sql);
	e = sp_http_post(&r, resp, err, errlen);
	if (!e && resp->status != 200) {
		int status = resp->status;
		bool down = shard_down(resp, err, errlen);

		if (!down)
			server_error(resp, err, errlen);
		sp_http_resp_free(resp);
		e = down ? -EHOSTDOWN : status == 401 || status == 403 ? -EACCES : -EIO;
	}
	free(target);
	free(q);
	return e;
}

void sp_ch_unescape(char *s)
{
	static const char from[] = "tnrbf0'\\", to[] = "\t\n\r\b\f\0'\\";
	char *o = s;

	for (; *s; s++) {
		const char *k = s[0] == '\\' && s[1] ? strchr(from, s[1]) : NULL;

		if (k) {
			*o++ = to[k - from];
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}
