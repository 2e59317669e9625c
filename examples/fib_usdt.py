# A Python program that turns on CPython 3.11's function__entry probe for
# sprof --interp usdt (docs/language.md): a profile hook that does nothing.
import sys, threading, time
sys.setprofile(lambda *a: None)
threading.setprofile(lambda *a: None)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def main():
    end = time.time() + 1
    while time.time() < end:
        fib(12)


main()
