<?php
// A PHP program with a known call chain, for docs/language.md's example:
// {main} -> main -> outer -> fib (recursive), for about one second of CPU
// time (the CLI's built-ins only).
function cpu() {
    $r = getrusage();
    return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6
        + $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
}

function fib($n) {
    return $n < 2 ? $n : fib($n - 1) + fib($n - 2);
}

function outer($limit) {
    $end = cpu() + $limit;
    $x = 0;
    while (cpu() < $end) $x += fib(15);
    return $x;
}

function main($total) {
    $end = cpu() + $total;
    while (cpu() < $end) outer(0.05);
}

main($argc > 1 ? (float)$argv[1] : 1.0);
