/* abi/hotspot.h: HotSpot JVM stacks, the layouts shared by bpf/hotspot.bpf.c and runtime/langs/hotspot.c.
 *
 * User space finds a process that maps a libjvm.so exporting HotSpot's
 * self-description (gHotSpotVMStructs, gHotSpotVMTypes and the constant
 * tables, filled when the JVM starts), reads from it where the code cache's
 * heaps are and the offsets of the few fields a walk reads, and writes one
 * struct sp_hs_proc per process into hs_procs. At sample time BPF starts
 * from the thread's user registers: while the pc is in a code heap it finds
 * the CodeBlob that holds it (the heap's segment map), takes the Method* of
 * an nmethod (compiled by C1 or C2) or of an interpreter frame (fp - 3
 * words), and steps to the caller (an nmethod by its frame size, an
 * interpreter frame by its saved fp and sender sp). One word per Java
 * frame, innermost first: its id names the Method* (announced once per
 * process, SP_EV_INTERP_CODE, struct sp_hs_code_rec), its top 31 bits are
 * the low bits of the frame's return address, which user space matches
 * against the native stack as node's words are (abi/node.h).
 */
#ifndef SPROF_ABI_HOTSPOT_H
#define SPROF_ABI_HOTSPOT_H

#define SP_HS_MAP_PROCS "hs_procs"
#define SP_HS_MAP_STATS "hs_stats"
#define SP_HS_MAP_SEEN "hs_code_seen"
#define SP_HS_MAP_LIVE "hs_live" /* none: BPF looks each pid up in hs_procs */
#define SP_HS_SEEN_MAX 16384     /* hs_code_seen's size */

/* A word: bit 0 the group end (abi/interp.h), the code id in bits 1-32,
 * the return address's low SP_HS_RA_BITS bits above (abi/node.h's). */
#define SP_HS_RA_SHIFT 33
#define SP_HS_RA_BITS 31
#define SP_HS_RA_MASK ((1ull << SP_HS_RA_BITS) - 1)

#define SP_HS_MAX_FRAMES 128 /* Java frames a walk looks at before it gives up */
#define SP_HS_MAX_HEAPS 4    /* code heaps: JDK 9+ has three (segmented code cache) */
#define SP_HS_SEG_HOPS 24    /* segment-map steps back to a block's start */

/* The kinds of CodeBlob a walk tells apart: the first 8 bytes of
 * CodeBlob::_name read as a little-endian u64 (every JDK names them so). */
#define SP_HS_NAME8(a, b, c, d, e, f, g, h)                                              \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)(d) << 24 | \
	 (uint64_t)(e) << 32 | (uint64_t)(f) << 40 | (uint64_t)(g) << 48 | (uint64_t)(h) << 56)
#define SP_HS_NMETHOD SP_HS_NAME8('n', 'm', 'e', 't', 'h', 'o', 'd', 0)   /* C1, C2 */
#define SP_HS_NATIVE SP_HS_NAME8('n', 'a', 't', 'i', 'v', 'e', ' ', 'n')  /* JNI wrapper */
#define SP_HS_INTERP SP_HS_NAME8('I', 'n', 't', 'e', 'r', 'p', 'r', 'e') /* the interpreter */

/* One code heap: its reserved range and the segment map (one byte a segment). */
struct sp_hs_heap {
	uint64_t low, high; /* CodeHeap::_memory's low and high boundary */
	uint64_t segmap;    /* CodeHeap::_segmap's low boundary */
	uint32_t log2_seg;  /* CodeHeap::_log2_segment_size */
	uint32_t pad;
};

/* Where one process's JVM keeps what a walk reads (bytes). */
struct sp_hs_proc {
	struct sp_hs_heap heap[SP_HS_MAX_HEAPS];
	uint32_t nheaps;
	uint16_t block_hdr;      /* sizeof(HeapBlock): the CodeBlob follows it */
	uint16_t cb_name;        /* CodeBlob::_name (const char *) */
	uint16_t cb_frame_size;  /* CodeBlob::_frame_size (int, words) */
	uint16_t cb_complete;    /* CodeBlob::_frame_complete_offset */
	uint16_t cb_code;        /* CodeBlob::_code_offset (int), or _code_begin (address) */
	uint16_t nm_method;      /* nmethod::_method (Method *) */
	uint8_t complete_size;   /* 2 (int16_t, JDK 23+) or 4 (int) */
	uint8_t code_is_ptr;     /* cb_code is _code_begin (JDK before 23) */
	int8_t i_method;         /* an interpreter frame's Method*: fp + i_method words (-3) */
	int8_t i_sender_sp;      /* its caller's sp: fp + i_sender_sp words (-1) */
	uint8_t pad[4];
};

/* hs_stats (per-CPU u64 counters), abi/interp.h's indices. */
enum sp_hs_stat {
	SP_HS_ST_WALKS,      /* samples of a known JVM process */
	SP_HS_ST_NOTHREAD,   /* no user registers, or the pc not in Java code */
	SP_HS_ST_TRUNCATED,  /* more frames than room in the stack */
	SP_HS_ST_READERR,    /* a frame could not be read (stack cut there) */
	SP_HS_ST_FRAMES,     /* Java frames stored */
	SP_HS_ST_CODE_RETRY, /* records the full ring buffer refused (sent again later) */
	SP_HS_ST_CODE_SENT,  /* records sent */
	SP_HS_NSTATS
};

/* SP_EV_INTERP_CODE record of a JVM process (after struct sp_event_hdr:
 * id the pid, arg the Method*): BPF's new id for the Method*; user space
 * reads its class and method names when it arrives. */
struct sp_hs_code_rec {
	uint32_t id;
	uint32_t pad;
	uint64_t method;
	uint64_t magic; /* SP_HS_REC_MAGIC: tells it from other walkers' records */
};
#define SP_HS_REC_MAGIC 0x6873737072736631ull

/* Key of hs_code_seen (value: the id). */
struct sp_hs_code_key {
	uint64_t method;
	uint32_t pid;
	uint32_t pad;
};

#endif
