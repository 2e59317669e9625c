#!/usr/bin/env sprof
// purpose: on-CPU profile of a Python program: user stacks with its Python functions spliced in
// param hz int 99: samples per second on each CPU
// On-CPU profile of a Python program (99 Hz by default): user stacks with the Python
// functions spliced in where the interpreter runs them (CPython 3.8-3.14),
// so time in C extensions shows under the Python function that called them.
// sprof -c 'python3 app.py' pyprofile -o app.svg
// (pystack instead of ustack keeps only the Python frames)
profile:hz:$hz { @[ustack] = count(); }
