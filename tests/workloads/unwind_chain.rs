// tests/workloads/unwind_chain.rs: tests/workloads/unwind_chain.c's call chain in Rust.
//
// main -> chain_outer -> chain_mid -> chain_leaf, none inlined (every caller
// uses the result), the leaf burning CPU. Built `rustc -O -g`: rustc links
// with lld's segment layout (the text segment's p_vaddr - p_offset is not 0)
// and omits frame pointers, so only .eh_frame gives the chain.
//
//   unwind_chain_rs [SECONDS]      (default 2)
use std::time::Instant;

// std::hint::black_box is Rust 1.66+; Debian 12's rustc is 1.63
#[inline(always)]
fn black_box(x: u64) -> u64 {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn chain_leaf(seed: u64) -> u64 {
    let mut h = seed;
    for i in 0..200000u64 {
        h = (h ^ i).wrapping_mul(1099511628211);
    }
    black_box(h)
}

#[inline(never)]
fn chain_mid(seed: u64) -> u64 {
    let a = chain_leaf(seed);
    black_box(a ^ (seed >> 3))
}

#[inline(never)]
fn chain_outer(seed: u64) -> u64 {
    let a = chain_mid(seed + 1);
    black_box(a.wrapping_add(seed.wrapping_mul(7)))
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let t = Instant::now();
    let mut seed = 1u64;
    let mut sink = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        sink = sink.wrapping_add(chain_outer(seed));
        seed += 1;
    }
    black_box(sink);
}
