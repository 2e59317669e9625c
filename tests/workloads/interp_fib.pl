# A Perl program with a known call chain, for docs/language.md's example:
# <main> -> main::main -> main::outer -> main::fib (recursive), for about
# one second of CPU time (builtins only: perl-base runs it).
use strict;
use warnings;

sub cpu { my @t = times; return $t[0] + $t[1] }

sub fib {
    my $n = shift;
    return $n if $n < 2;
    return fib($n - 1) + fib($n - 2);
}

sub outer {
    my $limit = shift;
    my $end = cpu() + $limit;
    fib(15) while cpu() < $end;
}

sub main {
    my $total = shift;
    my $end = cpu() + $total;
    outer(0.05) while cpu() < $end;
}

main(@ARGV ? $ARGV[0] : 1);
