/* runtime/store/ch_conn.h: the connection half of clickhouse.c, shared with
 * its exporter (ch_export.c) and reader (ch_fetch.c): the parsed URL and
 * one SQL statement sent over HTTP with the server's error as text. */
#ifndef SPROF_RUNTIME_STORE_CH_CONN_H
#define SPROF_RUNTIME_STORE_CH_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runtime/store/http.h"

struct sp_ch_conn {
	char *host;
	int port;
	bool tls;              /* clickhouse+https:// */
	char *ca_file, *cert_file, *key_file; /* ?ca=, ?cert=, ?key= or SPROF_CLICKHOUSE_*_FILE */
	bool password_in_url;  /* visible in ps: warn */
	char *db, *table;
	char *user, *password; /* NULL: the server's default user */
	char *shown;           /* the URL without the password, for messages */
	int timeout_ms;        /* connect and send (and receive, unless recv_ms) */
	int recv_ms;           /* each wait for the answer: 0 timeout_ms, -1 none */
	int total_ms;          /* a whole statement, 0: no limit; an insert gets
				* 1 ms more per KiB of rows */
	size_t max_answer;     /* bytes of a statement's answer, 0: 256 MiB */
	const char *params;    /* settings for the server, "a=1&b=2", or NULL */
};

/* url with the password of its user part as "***", in buf: for messages
 * about a URL that did not parse (no password is ever printed). */
const char *sp_ch_url_redacted(const char *url, char *buf, size_t len);

/* "clickhouse://[USER[:PASSWORD]@]HOST[:PORT]/DB.TABLE" (user and password
 * percent-encoded, an IPv6 host in brackets), or clickhouse+https:// for
 * TLS, either with "?ca=FILE&cert=FILE&key=FILE" after the table. Without
 * a password in the URL it comes from the file SPROF_CLICKHOUSE_PASSWORD_FILE
 * names, else SPROF_CLICKHOUSE_PASSWORD; err gets the reason. */
int sp_ch_conn_parse(const char *url, struct sp_ch_conn *c, char *err, size_t errlen);
/* The warning for a password in the URL (every user sees it in ps). */
void sp_ch_conn_warn(const struct sp_ch_conn *c, FILE *f);
void sp_ch_conn_free(struct sp_ch_conn *c);
/* Runs sql (with data as the body of an INSERT when data is set); 0 with
 * the answer in resp (status 200), else -errno with err holding the reason
 * (the server's own message for a refused statement). */
int sp_ch_exec(const struct sp_ch_conn *c, const char *sql, const void *data, size_t len,
	       struct sp_http_resp *resp, char *err, size_t errlen);
/* A name that goes into SQL unquoted: letters, digits and '_'. */
bool sp_ch_ident_ok(const char *s);
/* TabSeparated field unescaping, in place (\t \n \\ \' ...). */
void sp_ch_unescape(char *s);

#endif
