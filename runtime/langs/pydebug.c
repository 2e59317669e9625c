/* runtime/langs/pydebug.c: _Py_DebugOffsets positions per minor version, and their checks.
 *
 * The positions are word indices into _Py_DebugOffsets (word 0 the cookie,
 * 1 the version, 2 free_threaded), counted from the structure as each
 * release declares it (Include/internal/pycore_runtime.h in 3.13,
 * pycore_debug_offsets.h in 3.14) and checked against what pyenv's 3.13.0
 * and Debian sid's 3.14.10 publish (tests/unit/test_pydebug.c holds both).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/langs/pydebug.h"

enum {
	F_RT_SIZE, F_INTERP_HEAD, F_IS_SIZE, F_THREADS_HEAD, F_TS_SIZE, F_TS_NEXT, F_TS_INTERP,
	F_TS_FRAME, F_TS_NATIVE_TID, F_FR_SIZE, F_FR_PREVIOUS, F_FR_EXECUTABLE, F_FR_INSTR,
	F_FR_OWNER, F_CO_SIZE, F_CO_FILENAME, F_CO_QUALNAME, F_CO_LINETABLE, F_CO_FIRSTLINENO,
	F_CO_CODE, F_UNI_SIZE, F_UNI_ASCII_SIZE, F_N
};

struct layout {
	int minor;
	uint8_t at[F_N]; /* word index of each field */
};

/* 3.14 adds threads_main, code_object_generation and tlbc_generation to the
 * interpreter, stackpointer and tlbc_index to the frame, co_tlbc to the
 * code object and a set group before the dict group. */
static const struct layout layouts[] = {
	{ 13, { 3, 5, 6, 9, 19, 21, 22, 23, 25, 28, 29, 30, 31, 33, 34, 35, 37, 38, 39, 43, 67,
		70 } },
	{ 14, { 3, 5, 6, 9, 22, 24, 25, 26, 28, 31, 32, 33, 34, 36, 39, 40, 42, 43, 44, 48, 77,
		80 } },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static const char *const names[F_N] = {
	"runtime size", "interpreters_head", "interpreter size", "threads_head",
	"thread state size", "thread next", "thread interp", "current_frame", "native_thread_id",
	"frame size", "frame previous", "f_executable", "instr_ptr", "frame owner",
	"code size", "co_filename", "co_qualname", "co_linetable", "co_firstlineno",
	"co_code_adaptive", "str size", "PyASCIIObject size",
};

int sp_pydbg_newest(void)
{
	return layouts[NLAYOUTS - 1].minor;
}

struct check {
	int field, size;  /* a field inside structure size (F_*) */
	unsigned width;   /* bytes it takes; also its alignment */
};

/* Each used field inside its structure, aligned as its type is. */
static const struct check checks[] = {
	{ F_INTERP_HEAD, F_RT_SIZE, 8 },      { F_THREADS_HEAD, F_IS_SIZE, 8 },
	{ F_TS_NEXT, F_TS_SIZE, 8 },          { F_TS_INTERP, F_TS_SIZE, 8 },
	{ F_TS_FRAME, F_TS_SIZE, 8 },         { F_TS_NATIVE_TID, F_TS_SIZE, 8 },
	{ F_FR_PREVIOUS, F_FR_SIZE, 8 },      { F_FR_EXECUTABLE, F_FR_SIZE, 8 },
	{ F_FR_INSTR, F_FR_SIZE, 8 },         { F_FR_OWNER, F_FR_SIZE, 1 },
	{ F_CO_FILENAME, F_CO_SIZE, 8 },      { F_CO_QUALNAME, F_CO_SIZE, 8 },
	{ F_CO_LINETABLE, F_CO_SIZE, 8 },     { F_CO_FIRSTLINENO, F_CO_SIZE, 4 },
	{ F_CO_CODE, F_CO_SIZE, 2 },          { F_UNI_ASCII_SIZE, F_UNI_SIZE, 8 },
};

/* Sizes every build has: structure (F_*), at least, at most. */
static const struct { int field; uint64_t lo, hi; } sizes[] = {
	{ F_RT_SIZE, 256, 1u << 24 }, { F_IS_SIZE, 256, 1u << 24 }, { F_TS_SIZE, 64, 1u << 16 },
	{ F_FR_SIZE, 32, 1024 },      { F_CO_SIZE, 64, 4096 },      { F_UNI_SIZE, 24, 256 },
};

/* Whether the values at l's positions fit; why says what did not. */
static bool fits(const uint64_t *w, const struct layout *l, char *why, size_t len)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v = w[l->at[sizes[i].field]];

		if (v < sizes[i].lo || v > sizes[i].hi) {
			snprintf(why, len, "%s %llu out of range", names[sizes[i].field],
				 (unsigned long long)v);
			return false;
		}
	}
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check *c = &checks[i];
		uint64_t v = w[l->at[c->field]], size = w[l->at[c->size]];

		/* co_code_adaptive ends the code object: it may equal its size;
		 * sizeof(PyASCIIObject) is no field but must fit in the str */
		if (v > UINT16_MAX || v % c->width ||
		    v + (c->field == F_CO_CODE || c->field == F_UNI_ASCII_SIZE ? 0 : c->width) > size) {
			snprintf(why, len, "%s %llu does not fit a %s of %llu", names[c->field],
				 (unsigned long long)v, names[c->size], (unsigned long long)size);
			return false;
		}
	}
	if (w[l->at[F_CO_FILENAME]] == w[l->at[F_CO_QUALNAME]] ||
	    w[l->at[F_FR_PREVIOUS]] == w[l->at[F_FR_EXECUTABLE]] ||
	    w[l->at[F_TS_NEXT]] == w[l->at[F_TS_FRAME]]) {
		snprintf(why, len, "two fields at one offset");
		return false;
	}
	return true;
}

static void take(const uint64_t *w, const struct layout *l, struct sp_pydbg *o)
{
#define V(f) ((uint16_t)w[l->at[f]])
	o->layout = l->minor;
	o->interp_head = V(F_INTERP_HEAD), o->threads_head = V(F_THREADS_HEAD);
	o->ts_next = V(F_TS_NEXT), o->ts_interp = V(F_TS_INTERP), o->ts_frame = V(F_TS_FRAME);
	o->ts_native_tid = V(F_TS_NATIVE_TID), o->fr_previous = V(F_FR_PREVIOUS);
	o->fr_executable = V(F_FR_EXECUTABLE), o->fr_instr = V(F_FR_INSTR);
	o->fr_owner = V(F_FR_OWNER), o->co_filename = V(F_CO_FILENAME);
	o->co_qualname = V(F_CO_QUALNAME), o->co_linetable = V(F_CO_LINETABLE);
	o->co_firstlineno = V(F_CO_FIRSTLINENO), o->co_code = V(F_CO_CODE);
	o->ascii_data = V(F_UNI_ASCII_SIZE);
#undef V
}

/* The positions for minor: its own, or for a newer one the newest known. */
static const struct layout *layout_for(int minor, bool *newer)
{
	*newer = minor > sp_pydbg_newest();
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (layouts[i].minor == minor || (*newer && i == NLAYOUTS - 1))
			return &layouts[i];
	return NULL;
}

int sp_pydbg_read(const uint64_t *w, size_t n, uint32_t hexversion, struct sp_pydbg *o)
{
	const struct layout *l;
	int minor;

	memset(o, 0, sizeof(*o));
	if (n < SP_PYDBG_WORDS || memcmp(w, "xdebugpy", 8) != 0) {
		snprintf(o->why, sizeof(o->why), "no _Py_DebugOffsets ('xdebugpy') at _PyRuntime");
		return -ENOENT;
	}
	o->hexversion = (uint32_t)w[1];
	minor = (int)((w[1] >> 16) & 0xff);
	if ((w[1] >> 24) != 3 || (hexversion && (hexversion >> 16) != (uint32_t)(w[1] >> 16))) {
		snprintf(o->why, sizeof(o->why), "_Py_DebugOffsets of version %#llx, not Py_Version's",
			 (unsigned long long)w[1]);
		return -ENOTSUP;
	}
	if (w[2]) {
		snprintf(o->why, sizeof(o->why), "a free-threaded build (its frames use "
			 "per-thread bytecode)");
		return -ENOTSUP;
	}
	l = layout_for(minor, &o->newer);
	if (!l) {
		snprintf(o->why, sizeof(o->why), "no _Py_DebugOffsets layout for 3.%d", minor);
		return -ENOTSUP;
	}
	if (!fits(w, l, o->why, sizeof(o->why))) {
		if (o->newer) {
			char at[sizeof(o->why)];

			memcpy(at, o->why, sizeof(at));
			snprintf(o->why, sizeof(o->why), "its _Py_DebugOffsets differs from 3.%d's "
				 "(%.100s)", l->minor, at);
		}
		return -ENOTSUP;
	}
	take(w, l, o);
	return 0;
}
