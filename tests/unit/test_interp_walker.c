/* tests/unit/test_interp_walker.c: the memory walkers' shared life cycle, without BPF.
 *
 * runtime/langs/interp_walker.c registers, re-registers, unregisters and
 * forgets the processes of perl.c, ruby.c, node.c and php.c; the interp
 * tier runs it on real interpreters, where an exec, a process that goes
 * away or a version with no layouts are rare. Here, on a made-up kind
 * (maps that are not there, so BPF is never reached): a process
 * registered once for a snapshot seen again, again after an exec (the
 * mark moved), unregistered when the interpreter's file is gone; one
 * warned about and not tried again; code records made once per (pid,
 * id); eviction of 40 processes that are gone around one alive, whose
 * record must come through whole; a word named with its line; what
 * sp_printable() lets through.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/langs/interp_walker.h"
#include "runtime/stacks/procmaps.h"
#include "tests/unit/check.h"

#define BAD_MARK 0xbad000

struct fproc {
	struct sp_iproc ip;
	uint64_t extra; /* the walker's own: must survive eviction's moves */
};

struct found {
	uint64_t mark;
};

static int nregister;

static int probe(pid_t pid, const struct sp_procmap *m, void *arg)
{
	(void)pid;
	((struct found *)arg)->mark = m->start;
	return 1;
}

/* As the walkers do, without the map: BAD_MARK has no layouts. */
static int register_fake(struct sp_iwalker *w, struct sp_iproc *ip, void *found)
{
	struct found *f = found;

	(void)w;
	nregister++;
	ip->mark = f->mark;
	if (f->mark == BAD_MARK) {
		ip->warned = true;
		return 0;
	}
	((struct fproc *)ip)->extra = f->mark + (uint64_t)ip->pid;
	ip->registered = true;
	return 1;
}

static const struct sp_iwalker_kind fake_kind = {
	.lang = "fakelang",
	.proc_size = sizeof(struct fproc),
	.probe = probe,
	.found_mark = 0,
	.register_proc = register_fake,
	.unknown_frame = "[unknown fake frame]",
};

/* A pid no process has: above PID_MAX_LIMIT (2^22 on 64-bit kernels). */
static pid_t gone_pid(void)
{
	static pid_t next = (1 << 22) + 1;

	return next++;
}

/* A snapshot with the interpreter's file mapped at start (0: not mapped). */
static int add(struct sp_iwalker *w, pid_t pid, uint64_t start)
{
	struct sp_procmap m = { .start = start, .end = start + 4096, .kind = SP_MAP_FILE,
				.path = start ? "/usr/bin/fakelang3" : "/usr/bin/other" };
	struct sp_procmaps pm = { 1, &m };
	struct found f = { 0 };

	return sp_iwalker__add_maps(w, pid, &pm, &f);
}

static struct sp_iwalker *walker(void)
{
	struct sp_iwalker *w = calloc(1, sizeof(*w));

	if (w) {
		w->k = &fake_kind;
		w->procs_fd = w->stats_fd = w->seen_fd = w->live_fd = -1;
	}
	return w;
}

/* Returns the pid of the process it warned about (gone). */
static pid_t test_procs(struct sp_iwalker *w)
{
	pid_t me = getpid(), gone = gone_pid();
	struct sp_iproc *p;
	int r;

	r = add(w, me, 0x1000);
	CHECK(r == 1 && nregister == 1, "registered: %d after %d calls", r, nregister);
	r = add(w, me, 0x1000);
	CHECK(r == 1 && nregister == 1, "seen again: %d after %d calls", r, nregister);
	r = add(w, me, 0x2000);
	CHECK(r == 1 && nregister == 2, "an exec: %d after %d calls", r, nregister);
	r = add(w, me, 0);
	p = sp_iwalker__proc(w, me);
	CHECK(r == 0 && p && !p->registered, "the file gone: %d, registered %d", r,
	      p ? p->registered : -1);
	r = add(w, me, 0x2000);
	CHECK(r == 1 && nregister == 3, "back: %d after %d calls", r, nregister);
	r = add(w, gone, BAD_MARK);
	CHECK(r == 0 && nregister == 4, "no layouts: %d after %d calls", r, nregister);
	r = add(w, gone, BAD_MARK);
	CHECK(r == 0 && nregister == 4, "warned, not tried again: %d after %d calls", r, nregister);
	CHECK(add(NULL, me, 0x1000) == 0 && add(w, 0, 0x1000) == 0, "no walker, no pid");
	CHECK(sp_iwalker__nprocs(w) == 2, "%d processes", sp_iwalker__nprocs(w));
	return gone;
}

static void test_codes_and_evict(struct sp_iwalker *w, pid_t gone)
{
	pid_t me = getpid();
	struct sp_icode *c;
	struct sp_frame f = { 0 };
	struct fproc *p;
	int n;

	c = sp_iwalker__new_code(w, gone, 5, 0x500, sizeof(*c));
	CHECK(c && c->id == 5 && c->pid == gone && c->addr == 0x500, "a code record");
	if (c) {
		c->name = strdup("gone_fn");
		sp_icodes__add(&w->codes, c);
	}
	CHECK(!sp_iwalker__new_code(w, gone, 5, 0x500, sizeof(*c)), "made once per (pid, id)");
	CHECK(!sp_iwalker__new_code(w, gone, 0, 0x500, sizeof(*c)), "no record for id 0");
	c = sp_iwalker__new_code(w, me, 7, 0x700, sizeof(*c));
	if (c) {
		*c = (struct sp_icode){ .id = 7, .pid = me, .addr = 0x700, .ok = true,
					.name = strdup("fib"), .file = strdup("x.fake") };
		sp_icodes__add(&w->codes, c);
	}
	sp_iwalker__line_frame(w, me, (uint64_t)7 << SP_PY_ID_SHIFT | (uint64_t)42 << SP_PY_OFF_SHIFT,
			       &f);
	CHECK(f.sym && !strcmp(f.sym, "fib") && f.srcline == 42 && w->unknown == 0,
	      "a word named: %s:%d", f.sym ? f.sym : "(null)", f.srcline);
	sp_iwalker__line_frame(w, me, (uint64_t)9 << SP_PY_ID_SHIFT, &f);
	CHECK(f.sym && !strcmp(f.sym, "[unknown fake frame]") && w->unknown == 1,
	      "an unknown word: %s", f.sym ? f.sym : "(null)");

	for (int i = 0; i < 40; i++) /* gone on either side of this one: moves and growth */
		add(w, gone_pid(), 0x3000);
	n = sp_iwalker__evict(w);
	p = (struct fproc *)sp_iwalker__proc(w, me);
	CHECK(n == 41, "%d evicted", n);
	CHECK(sp_iwalker__nprocs(w) == 1 && p && p->ip.registered && p->extra == 0x2000 + (uint64_t)me,
	      "the live one kept whole");
	CHECK(!sp_icodes__get(&w->codes, gone, 5) && sp_icodes__get(&w->codes, me, 7),
	      "the gone one's code records freed, the live one's kept");
	CHECK(sp_iwalker__evict(NULL) == 0 && sp_iwalker__nprocs(NULL) == 0, "no walker");
}

static void test_memory(void)
{
	uint64_t x = 0x1122334455667788ull;

	CHECK(sp_rd64(getpid(), (uint64_t)(uintptr_t)&x) == x, "a u64 of this process");
	CHECK(sp_rd64(getpid(), 0) == 0, "address 0: 0");
	CHECK(sp_printable("main.pl", 7) && sp_printable("", 0), "printable");
	CHECK(!sp_printable("a\nb", 3) && !sp_printable("a\x7f", 2) && !sp_printable("\x1b[", 2),
	      "control characters");
	CHECK(sp_printable("caf\xc3\xa9", 5), "UTF-8 bytes pass");
}

int main(void)
{
	struct sp_iwalker *w = walker();

	if (!w)
		return 1;
	test_codes_and_evict(w, test_procs(w));
	test_memory();
	sp_iwalker__destroy(w);
	sp_iwalker__destroy(NULL);
	printf("test_interp_walker: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
