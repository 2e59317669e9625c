/* runtime/store/serve.h: `sprof serve URL`, a fleet's profiles in a browser.
 *
 * A small HTTP server over the ClickHouse table `--export` fills: a page
 * (runtime/report/web/, embedded at build time, no network needed) with a
 * timeline of samples by host or program, a range selected on it drawn as
 * a flame graph (the svg writer's, with its search and zoom) and a table of
 * the functions that take the most time, and two ranges or two filters
 * compared as a differential flame graph. Every view is a link (the state
 * is the URL's fragment). The answers are aggregated in ClickHouse (GROUP
 * BY); sprof only lays them out. One request at a time, each read within
 * 5 s; it listens on 127.0.0.1 unless told otherwise.
 *
 * The JSON and SVG endpoints (docs/fleet.md):
 *   /api/summary                  first and last row time, hosts, programs
 *   /api/timeline?from&to&by&host&comm   samples per step, one series per key
 *   /api/flame.svg?from&to&host&comm     the flame graph of the range
 *   /api/top?from&to&host&comm&n         functions by total and self samples
 *   /api/diff.svg?...&bfrom&bto&bhost&bcomm   NEW (from..to) against BASE
 *   /api/difftop?...                      functions by change of share
 * from/to are seconds since the epoch (UTC).
 */
#ifndef SPROF_RUNTIME_STORE_SERVE_H
#define SPROF_RUNTIME_STORE_SERVE_H

#include <stdbool.h>
#include <stdint.h>

struct sp_serve_opts {
	const char *url;      /* clickhouse://... */
	const char *listen;   /* "HOST:PORT", "PORT" or NULL: 127.0.0.1:4040 */
	uint64_t timeout_ms;  /* each query's limit on the server; 0: 60 s */
	bool quiet;           /* no line per request */
};

/* Serves until SIGINT or SIGTERM; 0, or -errno with a message (the
 * address cannot be bound, the table cannot be read). */
int sp_serve(const struct sp_serve_opts *o);

#endif
