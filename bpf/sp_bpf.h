/* bpf/sp_bpf.h: shared declarations of the BPF-side helpers (placeholder) */
