/* parser/types/types.h: the types the semantic pass gives every expression.
 *
 * Sizes are the in-kernel sizes codegen lays out in map keys and values;
 * the runtime learns them through the plan, never from this header.
 */
#ifndef SPROF_PARSER_TYPES_TYPES_H
#define SPROF_PARSER_TYPES_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/plan.h" /* enum sp_agg_kind, enum sp_stack_mode: the runtime reads them too */

struct sp_arena;

#define SP_TYPE_KINDS(X)                         \
	X(NONE, "none")     /* not typed / error */ \
	X(VOID, "void")     /* statements, exit() */ \
	X(INT, "int")       /* size 1,2,4,8; is_signed */ \
	X(STRING, "string") /* size: fixed buffer bytes incl. NUL */ \
	X(USTACK, "ustack") /* stack_limit, stack_mode */ \
	X(KSTACK, "kstack")                          \
	X(TUPLE, "tuple")   /* elems */               \
	X(PTR, "ptr")       /* pointer: pointee (NULL: untyped), user */ \
	X(AGG, "agg")       /* aggregation value: agg */ \
	X(USYM, "usym")     /* address printed as a user symbol */ \
	X(KSYM, "ksym")     /* address printed as a kernel symbol */ \
	X(BUF, "buffer")    /* size: bytes of data (buf(p, n)) */ \
	X(TIMESTAMP, "timestamp") /* strftime(fmt, ns): ns printed as time */ \
	X(INET, "inet")     /* ntop([af,] addr): size 4 or 16 address bytes */ \
	X(RECORD, "record") /* C struct or union: rec; size rec->size */ \
	X(ARRAY, "array")   /* C array: elem[count]; size elem->size * count */ \
	X(TEXT, "text")     /* u64 user space prints as text; fmt says how: \
	                     * username, strerror, cgroup_path[:FILTER], macaddr */

enum sp_type_kind {
#define X(k, s) SP_T_##k,
	SP_TYPE_KINDS(X)
#undef X
};

#define SP_DEFAULT_STACK_LIMIT 127
#define SP_DEFAULT_STRLEN 64
#define SP_MAX_STRING 1024 /* --strlen and string literals: at most this many bytes */

struct sp_record;

struct sp_type {
	enum sp_type_kind kind;
	uint32_t size;        /* bytes in a key/value slot */
	bool is_signed;
	int stack_limit;      /* USTACK/KSTACK */
	enum sp_stack_mode stack_mode;
	enum sp_agg_kind agg; /* AGG */
	int64_t lhist_min, lhist_max, lhist_step; /* AGG LHIST; TSERIES: interval, num, SP_TS_* */
	int nelems;           /* TUPLE */
	const char **names;   /* TUPLE of a record (a=1, b="x"): field names, else NULL */
	struct sp_type **elems;
	struct sp_type *pointee; /* PTR (NULL: untyped, e.g. arg0); ARRAY: element */
	bool user;            /* PTR: points into user memory (uprobe/usdt arguments),
	                       * else kernel memory (curtask, tracepoints, BTF types) */
	uint32_t count;       /* ARRAY: elements */
	struct sp_record *rec; /* RECORD */
	const char *fmt;      /* TIMESTAMP: the strftime format; TEXT: how to print */
	uint32_t src_size;    /* INT of a variable: the size of the value first assigned
	                       * (variables are 64-bit; bswap($port) swaps that many bytes) */
};

struct sp_type *sp_type_new(struct sp_arena *a, enum sp_type_kind kind);
struct sp_type *sp_type_int(struct sp_arena *a, uint32_t size, bool is_signed);
struct sp_type *sp_type_string(struct sp_arena *a, uint32_t size);
/* bool (bpftrace 0.24+): an INT of one byte, 0 or 1, whose fmt "bool" makes
 * it print as true/false; arithmetic on it gives plain integers. */
struct sp_type *sp_type_bool(struct sp_arena *a);
bool sp_type_is_bool(const struct sp_type *t);
/* An enum's value (bpftrace 0.27): an INT whose fmt names the enum and its
 * enumerators, "enum NAME:ONE=1,TWO=2" (NAME empty when anonymous), so it
 * prints as the enumerator of its value; arithmetic gives plain integers. */
struct sp_type *sp_type_enum(struct sp_arena *a, uint32_t size, bool is_signed, const char *fmt);
bool sp_type_is_enum(const struct sp_type *t);
/* An INT printed by name (bool, enum): t's kind of integer of `size` bytes,
 * as a variable or map slot widens it, keeping the names. */
struct sp_type *sp_type_int_like(struct sp_arena *a, const struct sp_type *t, uint32_t size);
bool sp_type_equal(const struct sp_type *x, const struct sp_type *y);
/* "u64", "s32", "string[64]", "ustack", "(u64, string[16])", "count" ... into buf. */
const char *sp_type_str(const struct sp_type *t, char *buf, int len);

struct sp_type *sp_type_tuple(struct sp_arena *a, int n, struct sp_type **elems);
/* t (a tuple made from like's elements) keeps like's record field names */
struct sp_type *sp_type_record_of(struct sp_type *t, const struct sp_type *like);
struct sp_type *sp_type_agg(struct sp_arena *a, enum sp_agg_kind agg);
struct sp_type *sp_type_stack(struct sp_arena *a, enum sp_type_kind kind, int limit,
			      enum sp_stack_mode mode);
const char *sp_agg_name(enum sp_agg_kind agg);
/* Pointer to `to` (NULL: untyped) in user or kernel memory. */
struct sp_type *sp_type_ptr(struct sp_arena *a, struct sp_type *to, bool user);
struct sp_type *sp_type_array(struct sp_arena *a, struct sp_type *elem, uint32_t count);
struct sp_type *sp_type_record(struct sp_arena *a, struct sp_record *rec);
/* Bytes of a C object of type t (records and arrays included; 0 when
 * incomplete or void). */
uint32_t sp_type_csize(const struct sp_type *t);
/* Its alignment in map memory and tuples (codegen's layout, C's for
 * integers, pointers and records; 1 for strings and buffers). */
uint32_t sp_type_align(const struct sp_type *t);
/* INT, or NONE (an earlier error, not reported again). */
bool sp_type_is_int(const struct sp_type *t);
bool sp_type_is_none(const struct sp_type *t);
/* Same shape; ints of any size/sign and strings of any size are
 * compatible (map slots widen to the largest). */
bool sp_type_compatible(const struct sp_type *x, const struct sp_type *y);

#endif
