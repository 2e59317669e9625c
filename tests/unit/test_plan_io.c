/* tests/unit/test_plan_io.c: codegen/plan_io.c, a plan to bytes and back.
 *
 * The script cache (codegen/codegen.c) hands the runtime a plan read from
 * disk instead of the one codegen built, so the reader must give back the
 * same plan (the bytes of the copy equal the original's), and a damaged or
 * cut entry must be refused whole, without a leak or a read past its end
 * (the sanitize tier runs this under ASan and LSan).
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "tests/unit/check.h"

static struct sp_plan_field field(enum sp_field_kind k, uint32_t off, uint32_t size)
{
	struct sp_plan_field f = { .kind = k, .offset = off, .size = size };

	return f;
}

/* A plan with a field of each shape: strings set and NULL, nested tuples,
 * negative numbers, every flag. */
static struct sp_plan *make_plan(void)
{
	struct sp_plan *p = calloc(1, sizeof(*p));
	struct sp_plan_field *e, *inner;

	p->nprobes = 2;
	p->probes = calloc(2, sizeof(*p->probes));
	p->probes[0] = (struct sp_plan_probe){ .type = SP_PROBE_PROFILE, .spec = strdup("profile:hz:99"),
		.prog = strdup("profile_0"), .unit = strdup("hz"), .value = 99, .has_value = true,
		.line = 1, .col = 1, .block = 0 };
	p->probes[1] = (struct sp_plan_probe){ .type = SP_PROBE_TRACEPOINT, .spec = strdup("t:a:b"),
		.prog = strdup("tp_1"), .target = strdup("a"), .func = strdup("b"), .offset = 1ull << 40,
		.has_offset = true, .is_addr = true, .uses_names = true, .sleepable = true,
		.line = 7, .col = 3, .block = -1 };
	p->nmaps = 1;
	p->maps = calloc(1, sizeof(*p->maps));
	p->maps[0] = (struct sp_plan_map){ .name = strdup("@t"), .bpf_name = strdup("m_t"),
		.agg = SP_AGG_LHIST, .key_size = 40, .value_size = 8, .percpu = true, .drain = true,
		.lhist_min = -5, .lhist_max = 100, .lhist_step = 3, .drops_name = strdup("m_t_drops"),
		.declared_max = 77 };
	p->maps[0].key = field(SP_F_TUPLE, 0, 40);
	p->maps[0].key.nelems = 2;
	e = p->maps[0].key.elems = calloc(2, sizeof(*e));
	e[0] = field(SP_F_USTACK, 0, 16);
	e[0].stack_limit = 127;
	e[0].stack_mode = SP_STACK_PERF;
	e[0].name = strdup("ustack");
	e[1] = field(SP_F_RECORD, 16, 24);
	e[1].nelems = 1;
	inner = e[1].elems = calloc(1, sizeof(*inner));
	*inner = field(SP_F_INT, 16, 4);
	inner->is_signed = true;
	inner->member = strdup("x");
	inner->bit_off = 3;
	inner->bit_size = 5;
	p->maps[0].value = field(SP_F_NONE, 0, 0);
	p->nprintfs = 2;
	p->printfs = calloc(2, sizeof(*p->printfs));
	p->printfs[0].fmt = strdup("%s %d\n");
	p->printfs[0].args = field(SP_F_TUPLE, 0, 24);
	p->printfs[0].args.nelems = 1;
	p->printfs[0].args.elems = calloc(1, sizeof(struct sp_plan_field));
	p->printfs[0].args.elems[0] = field(SP_F_TIMESTAMP, 0, 8);
	p->printfs[0].args.elems[0].fmt = strdup("%H");
	p->printfs[1].args = field(SP_F_TEXT, 0, 8); /* print(value): fmt NULL */
	p->uses_ustack = true;
	p->cookie_fallbacks = 2;
	return p;
}

static void test_round_trip(void)
{
	struct sp_plan *p = make_plan(), *q;
	void *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;

	CHECK(sp_plan_to_bytes(p, &a, &na) == 0 && na > 0, "to bytes");
	q = sp_plan_from_bytes(a, na);
	CHECK(q != NULL, "from bytes");
	if (q) {
		CHECK(sp_plan_to_bytes(q, &b, &nb) == 0 && nb == na && !memcmp(a, b, na),
		      "the copy's bytes are the original's");
		CHECK(q->probes[1].target && !strcmp(q->probes[1].target, "a") && !q->probes[0].target,
		      "strings and NULLs");
		CHECK(q->maps[0].key.elems[1].elems[0].bit_size == 5 && q->maps[0].lhist_min == -5 &&
		      q->probes[1].block == -1 && q->printfs[1].fmt == NULL, "values");
		CHECK(q->source_name == NULL, "source name left to the caller");
	}
	free(b);
	sp_plan_free(q);
	/* every shorter entry, a longer one, a bad magic, a huge count: refused whole */
	for (size_t n = 0; n < na; n++) {
		q = sp_plan_from_bytes(a, n);
		CHECK(q == NULL, "cut at %zu of %zu taken", n, na);
		sp_plan_free(q);
	}
	b = malloc(na + 1);
	memcpy(b, a, na);
	((char *)b)[na] = 0;
	q = sp_plan_from_bytes(b, na + 1);
	CHECK(q == NULL, "a byte too many taken");
	sp_plan_free(q);
	((char *)b)[0] ^= 1;
	q = sp_plan_from_bytes(b, na);
	CHECK(q == NULL, "bad magic taken");
	sp_plan_free(q);
	((char *)b)[0] ^= 1;
	memset((char *)b + 4, 0xff, 8); /* the probe count */
	q = sp_plan_from_bytes(b, na);
	CHECK(q == NULL, "a count past the entry taken");
	sp_plan_free(q);
	free(b);
	free(a);
	sp_plan_free(p);
}

int main(void)
{
	test_round_trip();
	printf("test_plan_io: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
