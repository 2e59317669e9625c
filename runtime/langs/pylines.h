/* runtime/langs/pylines.h: CPython line tables -> the line of a bytecode offset.
 *
 * A Python frame is sampled as (code object, bytecode offset); the line is
 * looked up in the code object's line table, whose format changed twice:
 * 3.8/3.9 co_lnotab and 3.10 co_linetable are (bytes delta, line delta)
 * pairs read two ways (Objects/lnotab_notes.txt), 3.11+ has the location
 * entries of Objects/locations.md. Pure functions on
 * bytes copied out of the process, so they are unit tested on tables made
 * by real interpreters (tests/unit/test_pylines.c).
 */
#ifndef SPROF_RUNTIME_LANGS_PYLINES_H
#define SPROF_RUNTIME_LANGS_PYLINES_H

#include <stddef.h>
#include <stdint.h>

/* The line of the instruction at `unit` (offset in 2-byte code units) for
 * CPython 3.`minor`'s table `tab` of code starting at `firstlineno`; 0 when
 * the instruction has no line or the table does not reach it. */
int sp_py_line(int minor, const uint8_t *tab, size_t len, int firstlineno, uint32_t unit);

#endif
