/* runtime/report/svg.c: sprof's own interactive flame graph (SVG + JS).
 *
 * Stacks are merged into a tree (root at the bottom, siblings in alphabetical
 * order, x = share of the samples, like flamegraph.pl's layout) and written
 * as one self-contained SVG: every frame is a <g> holding a <title> tooltip
 * (name, samples, percent), a <rect> and its text, cut to fit with "..". The
 * embedded script zooms on click (ancestors stay as faded full-width bars,
 * "Reset Zoom" or Escape undoes it), searches by regular expression (plain
 * substring when the pattern does not compile; Ctrl-F, the Search button or
 * ?s=term) highlighting matches and showing the share of samples matched.
 * Colours tell frame kinds apart: user frames warm yellow, kernel frames
 * orange-red, interpreted (Python) frames green, key parts (comm, pid) blue,
 * unresolved frames grey; the shade
 * comes from a hash of the name so a function keeps its colour.
 *
 * Stacks deeper than 1,024 frames end in one "[truncated]" frame, so the
 * layout's recursion is bounded; children are found by hash, so building
 * the tree is linear in siblings; totals saturate rather than wrap.
 *
 * The differential flame graph (`sprof diff`) is the same tree and the same
 * writer: widths are the new profile's samples, and each node also carries
 * its samples in the base profile; the fill then tells the change of the
 * node's share of all samples measured against sampling noise: a
 * two-proportion z test on the counts (z = change of share / its standard
 * error under "no change", sqrt(p(1-p)(1/N+1/M)) with p the pooled share).
 * |z| < 3 is noise and stays white; from 3 red (grew) or blue (shrank)
 * deepens until |z| = 10. Two profiles of one workload are then white
 * rather than coloured by whatever changed most. The tooltip shows the
 * share before and after and z.
 *
 * The script and its style are runtime/report/web/flame.js and flame.css,
 * embedded at build time (web.h).
 *
 * Written from scratch: flamegraph.pl's licence (CDDL) keeps it out of the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"
#include "runtime/report/web.h"
#include "base/vec.h"

#define FRAME_H 16
#define PAD 10
#define TOP_H 44   /* title and buttons above the frames */
#define BOTTOM_H 28 /* details line below */
#define MIN_W 0.1  /* frames narrower than this (px) are left out */
#define FONT_W 7.0 /* average glyph width of 12px Verdana, as the script assumes */


/* --- the merged tree ------------------------------------------------------------ */

/* Frames deeper than this are merged into one "[truncated]" frame: a
 * 100,000-frame stack overflowed the recursive layout, and a graph 1,024
 * frames high (16 kpx) is past reading anyway. */
#define MAX_DEPTH 1024
#define INDEX_FROM 16 /* a node with this many children looks them up by hash */

struct node {
	char *name;
	enum sp_pe_kind kind;
	uint64_t total; /* saturating: totals past 2^64-1 stay there, never wrap */
	uint64_t base;  /* diff: samples in the base profile */
	int n, cap;
	struct node **kids;
	struct node **idx; /* open addressing over kids, idx_cap a power of 2 */
	int idx_cap;
};

static uint32_t kid_hash(const char *s, enum sp_pe_kind kind)
{
	uint32_t h = 2166136261u ^ (uint32_t)kind; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct node *node_new(const char *name, enum sp_pe_kind kind)
{
	struct node *n = calloc(1, sizeof(*n));

	if (n && !(n->name = strdup(name))) {
		free(n);
		n = NULL;
	}
	if (n)
		n->kind = kind;
	return n;
}

/* Recursion is bounded by MAX_DEPTH + 2. */
static void node_free(struct node *n)
{
	for (int i = 0; n && i < n->n; i++)
		node_free(n->kids[i]);
	if (n) {
		free(n->kids);
		free(n->idx);
		free(n->name);
		free(n);
	}
}

static void idx_put(struct node *p, struct node *c)
{
	uint32_t m = (uint32_t)p->idx_cap - 1, i = kid_hash(c->name, c->kind) & m;

	while (p->idx[i])
		i = (i + 1) & m;
	p->idx[i] = c;
}

/* The children's index at most half full, rebuilt when it grows. */
static int idx_grow(struct node *p)
{
	int cap = p->idx_cap ? p->idx_cap : 64;

	while (cap < 2 * (p->n + 1))
		cap *= 2;
	if (cap == p->idx_cap)
		return 0;
	free(p->idx);
	p->idx = calloc((size_t)cap, sizeof(*p->idx));
	p->idx_cap = p->idx ? cap : 0;
	if (!p->idx)
		return -ENOMEM;
	for (int i = 0; i < p->n; i++)
		idx_put(p, p->kids[i]);
	return 0;
}

static struct node *find_kid(const struct node *p, const char *name, enum sp_pe_kind kind)
{
	if (!p->idx) {
		for (int i = 0; i < p->n; i++)
			if (p->kids[i]->kind == kind && strcmp(p->kids[i]->name, name) == 0)
				return p->kids[i];
		return NULL;
	}
	for (uint32_t m = (uint32_t)p->idx_cap - 1, i = kid_hash(name, kind) & m; p->idx[i]; i = (i + 1) & m)
		if (p->idx[i]->kind == kind && strcmp(p->idx[i]->name, name) == 0)
			return p->idx[i];
	return NULL;
}

/* p's child (name, kind), made when missing: linear in siblings, as a
 * child is found by hash once there are INDEX_FROM of them (a plain scan
 * made 100,000 siblings take 97 s). */
static struct node *node_child(struct node *p, const char *name, enum sp_pe_kind kind)
{
	struct node *c = find_kid(p, name, kind);

	if (c)
		return c;
	if (SP_GROW(p->kids, p->cap, p->n + 1, 4))
		return NULL;
	if (p->n + 1 >= INDEX_FROM && idx_grow(p))
		return NULL;
	c = node_new(name, kind);
	if (!c)
		return NULL;
	p->kids[p->n++] = c;
	if (p->idx)
		idx_put(p, c);
	return c;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Adds a path's weight to its nodes' totals, or (base) to their base counts;
 * frames past MAX_DEPTH count in one "[truncated]" frame. */
static int tree_add(struct node *root, const struct sp_path *p, bool base)
{
	struct node *n = root;

	*(base ? &root->base : &root->total) = sat_add(base ? root->base : root->total, p->weight);
	for (int i = 0; i < p->n && i <= MAX_DEPTH; i++) {
		n = i < MAX_DEPTH ? node_child(n, p->el[i].name, p->el[i].kind) :
				    node_child(n, "[truncated]", SP_PE_LABEL);
		if (!n)
			return -ENOMEM;
		*(base ? &n->base : &n->total) = sat_add(base ? n->base : n->total, p->weight);
	}
	return 0;
}

static int kid_cmp(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : ((int)x->kind > (int)y->kind) - ((int)x->kind < (int)y->kind);
}

static int tree_depth(struct node *n)
{
	int d = 0;

	if (n->n > 1)
		qsort(n->kids, n->n, sizeof(*n->kids), kid_cmp);
	for (int i = 0; i < n->n; i++) {
		int k = tree_depth(n->kids[i]);

		d = k > d ? k : d;
	}
	return d + 1;
}

static int build_tree(const struct sp_mapdata *m, struct node **out)
{
	struct node *root = node_new("all", SP_PE_LABEL);
	int err = root ? 0 : -ENOMEM;

	for (int i = 0; i < m->n && !err; i++) {
		struct sp_path p;

		err = sp_entry_path(m, &m->entries[i], &p);
		if (err)
			break;
		if (p.weight)
			err = tree_add(root, &p, false);
		sp_path_free(&p);
	}
	if (err) {
		node_free(root);
		return err;
	}
	*out = root;
	return 0;
}

/* --- writing ---------------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		size_t u = (unsigned char)*s >= 0x80 ? sp_utf8_len((const unsigned char *)s, strlen(s)) : 1;

		if (u != 1) {
			if (u == 0)
				fputs("\xef\xbf\xbd", f); /* U+FFFD for bytes that are not UTF-8 */
			else
				fwrite(s, 1, u, f);
			s += u ? u - 1 : 0;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
			break;
		}
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void frame_colour(char *buf, size_t len, const struct node *n, bool root)
{
	uint32_t h = name_hash(n->name);
	double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0, c = ((h >> 16) & 0xff) / 255.0;

	if (root)
		snprintf(buf, len, "rgb(200,200,200)");
	else if (n->kind == SP_PE_KERNEL)
		snprintf(buf, len, "rgb(%d,%d,%d)", 220 + (int)(35 * a), 60 + (int)(60 * b), (int)(30 * c));
	else if (n->kind == SP_PE_UNKNOWN)
		snprintf(buf, len, "rgb(%d,%d,%d)", 170 + (int)(30 * a), 170 + (int)(30 * a), 170 + (int)(30 * a));
	else if (n->kind == SP_PE_INTERP) /* interpreted code: greens */
		snprintf(buf, len, "rgb(%d,%d,%d)", 60 + (int)(50 * a), 175 + (int)(55 * b), 80 + (int)(50 * c));
	else if (n->kind == SP_PE_INLINE) /* inlined functions: aqua, flamegraph.pl's */
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + (int)(55 * a), 200 + (int)(55 * b), 200 + (int)(55 * c));
	else if (n->kind == SP_PE_LABEL)
		snprintf(buf, len, "rgb(%d,%d,%d)", 110 + (int)(40 * a), 160 + (int)(40 * b), 220 + (int)(35 * c));
	else
		snprintf(buf, len, "rgb(%d,%d,%d)", 225 + (int)(30 * a), 175 + (int)(65 * b), (int)(60 * c));
}

/* The label as the script's fit() would cut it. */
static void fitted(FILE *f, const char *name, double w)
{
	double cols = floor((w - 6) / FONT_W);
	int n, len = (int)strlen(name);
	char *cut;

	if (!(cols >= 3)) /* also NaN */
		return;
	n = cols > len ? len : (int)cols; /* a wide frame may be wider than any int */
	if (len <= n) {
		xml_text(f, name);
		return;
	}
	cut = strndup(name, n - 2);
	if (cut) {
		xml_text(f, cut);
		fputs("..", f);
	}
	free(cut);
}

struct svg_ctx {
	FILE *f;
	bool diff;        /* colour by change of share against the base counts */
	uint64_t base_total;
	const char *unit; /* "samples" for count maps, else the aggregation ("sum") */
	double scale;  /* px per sample */
	int height;
	uint64_t total;
};

static double share(uint64_t v, uint64_t total)
{
	return total ? (double)v / (double)total : 0.0;
}

static double node_delta(const struct svg_ctx *c, const struct node *n)
{
	return share(n->total, c->total) - share(n->base, c->base_total);
}

/* The change of share in standard errors of sampling noise (0 when either
 * profile is empty or the node is in every sample of both). */
static double node_z(const struct svg_ctx *c, const struct node *n)
{
	double N = (double)c->total, M = (double)c->base_total, p, se;

	if (!c->total || !c->base_total)
		return 0;
	p = ((double)n->total + (double)n->base) / (N + M);
	se = sqrt(p * (1 - p) * (1 / N + 1 / M));
	return se > 0 ? node_delta(c, n) / se : 0;
}

/* Red for a share that grew, blue for one that shrank, past noise (|z| >=
 * Z_NOISE), deeper up to Z_DEEP; white for changes within the noise. */
#define Z_NOISE 3.0
#define Z_DEEP 10.0
static void diff_colour(char *buf, size_t len, const struct svg_ctx *c, const struct node *n)
{
	double z = node_z(c, n), t = (fabs(z) - Z_NOISE) / (Z_DEEP - Z_NOISE);
	int v = 215 - (int)(160 * (t > 1 ? 1 : t));

	if (z >= Z_NOISE)
		snprintf(buf, len, "rgb(255,%d,%d)", v, v);
	else if (z <= -Z_NOISE)
		snprintf(buf, len, "rgb(%d,%d,255)", v, v);
	else
		snprintf(buf, len, "rgb(255,255,255)");
}

static void frame_title(struct svg_ctx *c, const struct node *n)
{
	xml_text(c->f, n->name);
	if (n->kind == SP_PE_KERNEL)
		fputs(" [kernel]", c->f);
	else if (n->kind == SP_PE_INLINE)
		fputs(" (inlined)", c->f);
	if (!c->diff) {
		fprintf(c->f, " (%" PRIu64 " %s, %.2f%%)", n->total, c->unit, 100 * share(n->total, c->total));
		return;
	}
	fprintf(c->f, " (%" PRIu64 " %s, %.2f%%; base %" PRIu64 ", %.2f%%; %+.2f%%, z %+.1f)", n->total,
		c->unit, 100 * share(n->total, c->total), n->base, 100 * share(n->base, c->base_total),
		100 * node_delta(c, n), node_z(c, n));
}

static void write_frame(struct svg_ctx *c, const struct node *n, uint64_t start, int depth)
{
	double x = PAD + start * c->scale, w = n->total * c->scale;
	int y = c->height - BOTTOM_H - (depth + 1) * FRAME_H;
	char fill[64];

	if (w < MIN_W)
		return;
	if (c->diff)
		diff_colour(fill, sizeof(fill), c, n);
	else
		frame_colour(fill, sizeof(fill), n, depth == 0);
	fprintf(c->f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\" data-d=\"%d\" data-name=\"",
		start, n->total, depth);
	xml_text(c->f, n->name);
	if (c->diff)
		fprintf(c->f, "\" data-delta=\"%.6f\" data-z=\"%.2f", node_delta(c, n), node_z(c, n));
	fputs("\"><title>", c->f);
	frame_title(c, n);
	fputs("</title>", c->f);
	fprintf(c->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, fill);
	fprintf(c->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
	fitted(c->f, n->name, w);
	fputs("</text></g>\n", c->f);
	for (int i = 0; i < n->n; i++) {
		write_frame(c, n->kids[i], start, depth + 1);
		start = sat_add(start, n->kids[i]->total);
	}
}

static void write_header(FILE *f, const char *subtitle, const struct sp_report_opts *o,
			 const struct svg_ctx *c, int width)
{
	int height = c->height;
	uint64_t total = c->total;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		   "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\" "
		   "data-width=\"%d\" data-pad=\"%d\" data-total=\"%" PRIu64 "\">\n",
		width, height, width, height, width, PAD, total);
	/* the script and style are files of runtime/report/web/, embedded at build time */
	fprintf(f, "<style>\n%s</style>\n<script><![CDATA[\n%s]]></script>\n",
		sp_web_text("flame.css") ? sp_web_text("flame.css") : "",
		sp_web_text("flame.js") ? sp_web_text("flame.js") : "");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f6f6f0\"/>\n");
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"22\" text-anchor=\"middle\">", width / 2);
	xml_text(f, o->title ? o->title : "Flame Graph");
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"38\" text-anchor=\"middle\">", width / 2);
	xml_text(f, subtitle);
	fprintf(f, ": %" PRIu64 " %s", total, c->unit);
	if (c->diff)
		fprintf(f, " (base %" PRIu64 "; red grew, blue shrank)", c->base_total);
	fputs("</text>\n", f);
	/* Buttons are a text over an invisible box that takes the clicks, so
	 * they work whatever the fonts. */
	fprintf(f, "<g id=\"unzoom\" class=\"hide\"><rect x=\"%d\" y=\"6\" width=\"96\" height=\"22\" "
		   "fill=\"none\" pointer-events=\"all\"/><text x=\"%d\" y=\"22\">Reset Zoom</text></g>\n",
		PAD, PAD);
	fprintf(f, "<g id=\"search\"><rect x=\"%d\" y=\"6\" width=\"106\" height=\"22\" fill=\"none\" "
		   "pointer-events=\"all\"/><text x=\"%d\" y=\"22\" text-anchor=\"end\">Search</text></g>\n",
		width - PAD - 106, width - PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 10);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n", width - PAD,
		height - 10);
}

static const char *weight_unit(const struct sp_mapdata *m)
{
	switch (m->map ? m->map->agg : SP_AGG_COUNT) {
	case SP_AGG_SUM:
		return "sum";
	case SP_AGG_MIN:
		return "min";
	case SP_AGG_MAX:
		return "max";
	case SP_AGG_AVG:
	case SP_AGG_STATS:
		return "events";
	case SP_AGG_NONE:
		return "value";
	default:
		return "samples";
	}
}

static void write_svg(struct svg_ctx *c, struct node *root, const char *subtitle,
		      const struct sp_report_opts *o)
{
	int width = o->width > 0 ? o->width : 1200;

	width = width < 200 ? 200 : width;
	c->total = root->total;
	c->base_total = root->base;
	c->height = TOP_H + BOTTOM_H + tree_depth(root) * FRAME_H;
	c->scale = root->total ? (double)(width - 2 * PAD) / root->total : 0;
	write_header(c->f, subtitle, o, c, width);
	fputs("<g id=\"frames\">\n", c->f);
	if (root->total)
		write_frame(c, root, 0, 0);
	fputs("</g>\n</svg>\n", c->f);
}

int sp_report_svg(FILE *f, const struct sp_mapdata *m, const struct sp_report_opts *o)
{
	struct node *root = NULL;
	int err = build_tree(m, &root);
	struct svg_ctx c = { .f = f, .unit = weight_unit(m) };

	if (err)
		return err;
	write_svg(&c, root, m->map && m->map->name ? m->map->name : "@", o);
	node_free(root);
	return 0;
}

int sp_report_svg_paths(FILE *f, const struct sp_path *cur, int ncur, const struct sp_path *base,
			int nbase, const char *subtitle, const struct sp_report_opts *o)
{
	struct node *root = node_new("all", SP_PE_LABEL);
	struct svg_ctx c = { .f = f, .unit = "samples", .diff = base != NULL };
	int err = root ? 0 : -ENOMEM;

	for (int i = 0; i < ncur && !err; i++)
		err = cur[i].weight ? tree_add(root, &cur[i], false) : 0;
	for (int i = 0; i < nbase && !err; i++)
		err = base[i].weight ? tree_add(root, &base[i], true) : 0;
	if (!err)
		write_svg(&c, root, subtitle, o);
	node_free(root);
	return err;
}
