/* tests/unit/test_interp_common.c: the interpreter walkers' shared user side, without a process.
 *
 * runtime/langs/interp_common.c holds what the CPython and Ruby walkers
 * both do; the interp tier runs it on real interpreters, where its edge
 * cases are rare. Here: the table of code objects by (pid, id) through
 * several growths and an eviction of a process that is gone (a reaped
 * child) next to one alive (this one); a frame of a known, an unreadable
 * and an unknown code object; and the splicing of words into a native
 * stack: groups in evaluation-loop activations, leaf-side activations
 * kept native (Ruby's idle ones), words no activation took at the root
 * end, no words at all.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/langs/interp_common.h"
#include "tests/unit/check.h"

static int nfreed;

static void code_free(struct sp_icode *c)
{
	free(c->name);
	free(c);
	nfreed++;
}

static struct sp_icode *code_new(pid_t pid, uint32_t id)
{
	struct sp_icode *c = calloc(1, sizeof(*c));

	if (c)
		*c = (struct sp_icode){ .id = id, .pid = pid, .addr = 0x1000 + id, .ok = true };
	return c;
}

/* A pid that no longer exists: a child, exited and reaped. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static void test_codes(void)
{
	struct sp_icodes m = { 0 };
	pid_t me = getpid(), gone = gone_pid();
	const uint32_t n = 3000; /* the table grows from 1024 slots to 8192 */
	bool all = true;

	CHECK(gone > 0, "fork");
	CHECK(!sp_icodes__get(&m, me, 1), "an empty table has nothing");
	for (uint32_t id = 1; id <= n; id++) {
		struct sp_icode *c;

		if (sp_icodes__reserve(&m) || !(c = code_new(id % 2 ? me : gone, id))) {
			all = false;
			break;
		}
		sp_icodes__add(&m, c);
	}
	CHECK(all && m.n == n && m.cap >= 2 * n, "%u added: n %zu cap %zu", n, m.n, m.cap);
	for (uint32_t id = 1; id <= n; id++) {
		struct sp_icode *c = sp_icodes__get(&m, id % 2 ? me : gone, id);

		all = all && c && c->id == id && c->addr == 0x1000 + id;
	}
	CHECK(all, "every record found by (pid, id)");
	CHECK(!sp_icodes__get(&m, gone, 1) && !sp_icodes__get(&m, me, 0) &&
	      !sp_icodes__get(&m, me, n + 1), "no record of another pid, id 0 or an id not added");
	CHECK(sp_icodes__evict(&m, code_free) == 0 && nfreed == (int)n / 2 && m.n == n - n / 2,
	      "the gone process's records freed: %d, %zu left", nfreed, m.n);
	all = true;
	for (uint32_t id = 1; id <= n; id++)
		all = all && (sp_icodes__get(&m, me, id) != NULL) == (id % 2 == 1) &&
		      !sp_icodes__get(&m, gone, id);
	CHECK(all, "this process's records kept after the eviction");
	sp_icodes__free(&m, code_free);
	CHECK(nfreed == (int)n && !m.slots && !m.cap && !sp_icodes__get(&m, me, 1),
	      "all freed: %d", nfreed);
}

static void test_frame(void)
{
	struct sp_icode c = { .id = 7, .addr = 0x4000, .ok = true, .name = "fib", .file = "a.py" };
	struct sp_frame f;
	uint64_t unknown = 0;

	CHECK(sp_interp_frame(&f, &c, "[unknown]", &unknown) && f.addr == 0x4000 &&
	      f.kind == SP_FRAME_INTERP && !strcmp(f.sym, "fib") && !strcmp(f.srcfile, "a.py") &&
	      unknown == 0, "a known code object names its frame");
	c.ok = false;
	CHECK(!sp_interp_frame(&f, &c, "[unknown]", &unknown) && f.addr == 0x4000 &&
	      !strcmp(f.sym, "[unknown]") && !f.srcfile && unknown == 1,
	      "an unreadable one: unknown, at its address");
	CHECK(!sp_interp_frame(&f, NULL, "[unknown]", &unknown) && f.addr == 1 &&
	      !strcmp(f.sym, "[unknown]") && unknown == 2, "none: unknown, address 1 (not 0)");
}

static bool is_eval(void *w, pid_t pid, const struct sp_frame *f)
{
	(void)w, (void)pid;
	return f->sym && !strcmp(f->sym, "eval");
}

/* Names a word "w<id>". */
static void word_frame(void *w, pid_t pid, uint64_t word, struct sp_frame *f)
{
	static char names[8][8];
	uint32_t id = sp_interp_word_id(word);

	(void)w, (void)pid;
	snprintf(names[id % 8], sizeof(names[0]), "w%u", id);
	memset(f, 0, sizeof(*f));
	f->addr = id;
	f->sym = names[id % 8];
	f->kind = SP_FRAME_INTERP;
}

/* The spliced stack of leaf, eval, x, eval, root and words w1 w2| w3| as
 * "a b c ...", with skip. */
static void splice(int skip, int nwords, char *out, size_t size)
{
	const char *nat[] = { "leaf", "eval", "x", "eval", "root" };
	uint64_t words[3];
	struct sp_frame fr[8];
	struct sp_interp_walker iw = { is_eval, word_frame, NULL };
	int n;

	for (int i = 0; i < 3; i++)
		words[i] = (uint64_t)(i + 1) << SP_PY_ID_SHIFT | (i ? SP_PY_GROUP_END : 0);
	memset(fr, 0, sizeof(fr));
	for (int i = 0; i < 5; i++)
		fr[i].sym = nat[i];
	n = sp_interp_splice(&iw, skip, 1, words, nwords, fr, 5);
	out[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "", fr[i].sym);
}

static void test_splice(void)
{
	char s[128];

	splice(0, 3, s, sizeof(s));
	CHECK(!strcmp(s, "leaf w1 w2 x w3 root"), "each activation its group: %s", s);
	splice(1, 3, s, sizeof(s));
	CHECK(!strcmp(s, "leaf eval x w1 w2 root w3"), "one leaf-side activation kept: %s", s);
	splice(2, 3, s, sizeof(s));
	CHECK(!strcmp(s, "leaf eval x eval root w1 w2 w3"), "no activation: at the root end: %s", s);
	splice(0, 0, s, sizeof(s));
	CHECK(!strcmp(s, "leaf eval x eval root"), "no words: the native stack: %s", s);
}

int main(void)
{
	test_codes();
	test_frame();
	test_splice();
	printf("test_interp_common: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
