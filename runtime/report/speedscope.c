/* runtime/report/speedscope.c: stack maps as a speedscope file.
 *
 * speedscope's file format (src/lib/file-format-spec.ts; the schema is in
 * tests/data/speedscope-schema.json): frames shared by every profile, then
 * one "sampled" profile per map and process (the user stack's pid) with
 * root-first frame indices and a weight per sample; the heaviest profile is
 * the one speedscope opens on. Frames are named like the
 * flame graph's: key parts first, kernel frames marked " [kernel]",
 * functions inlined into their caller " (inlined)",
 * unresolved ones "[unknown]"; the source file is given when known (not the
 * sampled line, which would split a function into one frame per line).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/report/impl.h"

struct ss_ctx {
	FILE *f;
	struct sp_intern ids;   /* frame key -> index + 1 */
	char *frames;           /* the "frames" array's members, written last */
	size_t frames_len;
	FILE *fr;
	int nprofiles;
	int heaviest;           /* index of the profile with the most weight */
	uint64_t heaviest_total;
};

static const char *frame_name(const struct sp_pelem *e, char *buf, size_t len)
{
	if (e->kind != SP_PE_KERNEL && e->kind != SP_PE_INLINE)
		return e->name;
	snprintf(buf, len, e->kind == SP_PE_KERNEL ? "%s [kernel]" : "%s (inlined)", e->name);
	return buf;
}

/* Index of a frame in shared.frames, adding it when new; -1 on ENOMEM. */
static int64_t frame_index(struct ss_ctx *c, const struct sp_pelem *e)
{
	const struct sp_frame *f = e->frame;
	char buf[600], key[1200];
	const char *name = frame_name(e, buf, sizeof(buf));
	bool fresh;
	uint64_t id;

	snprintf(key, sizeof(key), "%d|%s|%s", (int)e->kind, name, f && f->srcfile ? f->srcfile : "");
	id = sp_intern(&c->ids, key, &fresh);
	if (!id)
		return -1;
	if (fresh) {
		fputs(id > 1 ? ",\n{\"name\": " : "{\"name\": ", c->fr);
		sp_json_str(c->fr, name);
		if (f && f->sym && f->srcfile)
			fputs(", \"file\": ", c->fr), sp_json_str(c->fr, f->srcfile);
		fputc('}', c->fr);
	}
	return (int64_t)id - 1;
}

static int write_sample(struct ss_ctx *c, const struct sp_path *p, bool first)
{
	fputs(first ? "[" : ",[", c->f);
	for (int i = 0; i < p->n; i++) {
		int64_t k = frame_index(c, &p->el[i]);

		if (k < 0)
			return -ENOMEM;
		fprintf(c->f, i ? ",%" PRId64 : "%" PRId64, k);
	}
	fputc(']', c->f);
	return 0;
}

static int write_profile(struct ss_ctx *c, const char *map, uint32_t pid, const struct sp_path *paths, int n)
{
	uint64_t total = 0;
	bool first = true;
	char name[300];
	int err = 0;

	for (int i = 0; i < n; i++)
		if (paths[i].pid == pid)
			total += paths[i].weight;
	if (total > c->heaviest_total) {
		c->heaviest_total = total;
		c->heaviest = c->nprofiles;
	}
	if (pid)
		snprintf(name, sizeof(name), "%s pid %u", map, pid);
	else
		snprintf(name, sizeof(name), "%s", map);
	fputs(c->nprofiles++ ? ",\n{\"type\": \"sampled\", \"name\": " : "{\"type\": \"sampled\", \"name\": ", c->f);
	sp_json_str(c->f, name);
	fprintf(c->f, ", \"unit\": \"none\", \"startValue\": 0, \"endValue\": %" PRIu64 ",\n\"samples\": [", total);
	for (int i = 0; i < n && !err; i++)
		if (paths[i].pid == pid) {
			err = write_sample(c, &paths[i], first);
			first = false;
		}
	fputs("],\n\"weights\": [", c->f);
	first = true;
	for (int i = 0; i < n; i++)
		if (paths[i].pid == pid) {
			fprintf(c->f, first ? "%" PRIu64 : ",%" PRIu64, paths[i].weight);
			first = false;
		}
	fputs("]}", c->f);
	return err;
}

/* One profile per distinct pid, in pid order. */
static int write_map(struct ss_ctx *c, const struct sp_mapdata *m)
{
	const char *name = m->map && m->map->name ? m->map->name : "@";
	struct sp_path *paths = NULL;
	int n = 0, err = sp_map_paths(m, true, &paths, &n);

	for (int i = 0; i < n && !err; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = paths[j].pid == paths[i].pid;
		if (!seen)
			err = write_profile(c, name, paths[i].pid, paths, n);
	}
	sp_paths_free(paths, n);
	return err;
}

int sp_report_speedscope(FILE *f, const struct sp_profile *p, const struct sp_mapdata **maps, int nmaps)
{
	struct ss_ctx c = { .f = f };
	int err = 0;

	c.fr = open_memstream(&c.frames, &c.frames_len);
	if (!c.fr)
		return -errno;
	fputs("{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\": \"sprof\", \"name\": \"sprof\",\n"
	      "\"profiles\": [\n", f);
	for (int i = 0; i < nmaps && !err; i++)
		err = write_map(&c, maps[i]);
	if (fclose(c.fr) != 0 && !err)
		err = -ENOMEM;
	fputs("],\n\"shared\": {\"frames\": [\n", f);
	fwrite(c.frames, 1, c.frames_len, f);
	fprintf(f, "]},\n\"activeProfileIndex\": %d}\n", c.heaviest);
	free(c.frames);
	sp_intern_free(&c.ids);
	(void)p;
	return err;
}
