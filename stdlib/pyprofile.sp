#!/usr/bin/env sprof
// On-CPU profile of a Python program at 99 Hz: user stacks with the Python
// functions spliced in where the interpreter runs them (CPython 3.8-3.13),
// so time in C extensions shows under the Python function that called them.
// sprof -c 'python3 app.py' pyprofile -o app.svg
// (pystack instead of ustack keeps only the Python frames)
profile:hz:99 { @[ustack] = count(); }
