/* runtime/langs/pydebug.h: CPython 3.13+'s _Py_DebugOffsets, read into the walker's offsets.
 *
 * From 3.13 on, CPython publishes where its structures keep their fields:
 * _PyRuntime starts with _Py_DebugOffsets ("xdebugpy", PY_VERSION_HEX,
 * free_threaded, then one group of u64 per structure, each group opening
 * with the structure's size). The values are the build's own offsetof(),
 * so they are right for any build of a minor version; what sprof must know
 * is only where each value sits in the description, which changes when a
 * minor version adds fields (3.14 added threads_main, two generation
 * counters, stackpointer, tlbc_index, co_tlbc, a set group...).
 *
 * The positions of the values the walker needs are kept per minor version
 * (3.13, 3.14). A newer minor version is read with the newest positions and
 * taken only when the values pass the checks every real build passes
 * (each offset inside its structure's size, sizes in range, pointer fields
 * aligned); otherwise the reason says what did not fit, for the warning.
 * Pure functions on the words read from the process: unit tested on the
 * descriptions real interpreters publish (tests/unit/test_pydebug.c).
 */
#ifndef SPROF_RUNTIME_LANGS_PYDEBUG_H
#define SPROF_RUNTIME_LANGS_PYDEBUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* u64 words of _PyRuntime to read: more than any known description uses. */
#define SP_PYDBG_WORDS 96

struct sp_pydbg {
	uint32_t hexversion;   /* PY_VERSION_HEX the description carries */
	int layout;            /* the minor version whose positions were used */
	bool newer;            /* a minor version newer than any known: checked only */
	uint16_t interp_head;  /* _PyRuntime -> interpreters.head */
	uint16_t threads_head; /* interpreter -> threads.head */
	uint16_t ts_next, ts_interp, ts_frame, ts_native_tid;
	uint16_t fr_previous, fr_executable, fr_instr, fr_owner;
	uint16_t co_filename, co_qualname, co_linetable, co_firstlineno;
	uint16_t co_code;      /* co_code_adaptive: the bytecode instr_ptr points into */
	uint16_t ascii_data;   /* sizeof(PyASCIIObject): a compact ASCII str's data */
	char why[160];         /* what is missing, when sp_pydbg_read() fails */
};

/* Reads the description in words[0..n) (the start of _PyRuntime) of a
 * CPython whose Py_Version is hexversion (0: unknown). 0; -ENOENT when
 * there is no description (no cookie), -ENOTSUP when it cannot be used:
 * a free-threaded build, another version than Py_Version, a layout whose
 * values do not fit (out->why says which). */
int sp_pydbg_read(const uint64_t *words, size_t n, uint32_t hexversion, struct sp_pydbg *out);

/* The newest minor version whose description positions are known. */
int sp_pydbg_newest(void);

#endif
