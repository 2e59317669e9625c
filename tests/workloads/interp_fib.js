// A Node.js program with a known call chain, for docs/language.md's example:
// <anonymous> (the module) -> main -> slow -> fib (recursive), for about one
// second of CPU time.
'use strict';
function cpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }

function fib(n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function slow(limit) {
    const end = cpu() + limit;
    let x = 0;
    while (cpu() < end) x += fib(15);
    return x;
}

function main(total) {
    const end = cpu() + total;
    while (cpu() < end) slow(0.05);
}

main(process.argv[2] ? Number(process.argv[2]) : 1);
