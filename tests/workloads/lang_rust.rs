// tests/workloads/lang_rust.rs: a Rust program for the Rust-name tests (tests/tier_langs.py).
//
// rust_leaf, the probed function, is reached through a trait impl of a generic
// struct called from a closure behind `dyn Fn` inside a generic function; a
// HashMap keeps hashbrown's generic code busy too. Its second argument is a
// generic function's address, for usym(). `lang_rust SECS` runs SECS seconds.
// Builds with Debian 12's rustc 1.63 (no std::hint::black_box there).
use std::collections::HashMap;

trait Work {
    fn step(&self, x: u64) -> u64;
}

struct Adder<T>(T);

// Keeps the optimizer from seeing through a value.
#[inline(never)]
fn opaque<T: Copy>(x: T) -> T {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn twice<T: Default + Into<u64>>(x: u64) -> u64 {
    x.wrapping_mul(2) + T::default().into()
}

#[inline(never)]
fn rust_leaf(x: u64, f: fn(u64) -> u64) -> u64 {
    opaque(f)(opaque(x)).wrapping_mul(3)
}

impl<T: Copy + Default + Into<u64>> Work for Adder<T> {
    #[inline(never)]
    fn step(&self, x: u64) -> u64 {
        rust_leaf(x, twice::<T>) + self.0.into()
    }
}

#[inline(never)]
fn drive<W: Work>(w: &W, n: u64, m: &mut HashMap<u64, u64>) -> u64 {
    let f = |i: u64| w.step(i);
    let f: &dyn Fn(u64) -> u64 = opaque(&f);
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(f(i));
        *m.entry(i & 63).or_insert(0) += 1;
    }
    acc
}

fn main() {
    let secs: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let t0 = std::time::Instant::now();
    let mut m = HashMap::new();
    let mut acc = 0u64;
    while t0.elapsed().as_millis() < (secs * 1000) as u128 {
        acc = acc.wrapping_add(drive(&Adder(2u8), 1000, &mut m));
        acc = acc.wrapping_add(drive(&Adder(5u32), 1000, &mut m));
    }
    println!("{} {}", acc, m.len());
}
