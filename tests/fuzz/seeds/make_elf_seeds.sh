#!/usr/bin/env bash
# Rebuilds the ELF seeds in tests/fuzz/corpus/elf from seeds/*.c (run by hand;
# the binaries are kept in git so every fuzz run starts from the same bytes).
#   tiny_usdt: -Os, a USDT probe with a semaphore, only .debug_line kept of the debug info
#   tiny_mini: -Os, .debug_frame instead of .eh_frame, fully stripped, with a
#              MiniDebugInfo .gnu_debugdata (xz'd symbol table) as Fedora makes it
#   tiny_inline: -Os -g, two nested always_inline functions: DW_TAG_inlined_subroutine
#              chains for runtime/elf/inlines.c
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); out=$here/../corpus/elf; tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ld="-Wl,-z,noseparate-code -Wl,--build-id"
gcc -Os -g1 -fno-omit-frame-pointer $ld -o "$tmp/u" "$here/tiny_usdt.c"
strip --strip-debug --keep-section=.debug_line --keep-section=.debug_line_str -o "$out/tiny_usdt" "$tmp/u"
gcc -Os -g -fno-asynchronous-unwind-tables $ld -o "$tmp/m" "$here/tiny_mini.c"
nm -D "$tmp/m" --format=posix --defined-only | awk '{print $1}' | sort > "$tmp/dyn"
nm "$tmp/m" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" {print $1}' | sort > "$tmp/fn"
comm -13 "$tmp/dyn" "$tmp/fn" > "$tmp/keep"
objcopy --only-keep-debug "$tmp/m" "$tmp/dbg"
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$tmp/keep" "$tmp/dbg" "$tmp/mini"
xz "$tmp/mini"
strip --strip-all --keep-section=.debug_frame -o "$out/tiny_mini" "$tmp/m"
objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$out/tiny_mini"
gcc -Os -g $ld -o "$tmp/i" "$here/tiny_inline.c"
strip --strip-debug --keep-section=.debug_info --keep-section=.debug_abbrev \
      --keep-section=.debug_line --keep-section=.debug_str --keep-section=.debug_line_str \
      --keep-section=.debug_aranges --keep-section=.debug_rnglists -o "$out/tiny_inline" "$tmp/i"
ls -l "$out"
