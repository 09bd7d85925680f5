#!/usr/bin/env bats
# tests/57-c-interop.bats: C interop in native whole programs (rake-cgen's
# ctypes.c and interop.c, rakec's C inputs).
#
#   programs    every tests/c/*.rk program with `slow main` is built and
#               run with `rakec --run` on x86-avx2 and x86-sse2, with the
#               C inputs its `~~ links:` header names (relative to
#               tests/c) and the arguments of its `~~ args:` header after
#               --.  Its stdout, stderr and status must be what its
#               `~~ expect: N` (N and a newline, status 0) or `~~ trap: M`
#               with `~~ at: L:C` (`F:L:C: trap: M` first on stderr, status
#               1) header says.  A program without externs must also give
#               byte for byte what `rakec --interpret` gives (a program
#               with a union: the interpreter must refuse it).  The
#               interpreter's own C-interop programs (tests/interp/c_*.rk,
#               trap_c_*.rk) must give the same output with --run, except
#               those marked `~~ native: undefined` (the interpreter traps
#               on what C leaves undefined, such as reading off an array).
#   the unit    headers included by absolute path, a _Static_assert per
#               declared field of a header record, gcc and clang accept it
#               with -Wall -Wextra -Werror, the same bytes every time, and
#               ASan and UBSan find nothing in the programs.
#   the CLI     C inputs only with --run and --emit-exe; missing inputs,
#               rejected C, and a failed link are errors, exit 1.
#   refusals    what the unit can't express is a located error.
load lib/common

C=tests/c

setup() {
    cd "$RAKE_ROOT"
    T=$BATS_TEST_TMPDIR
}

header() { sed -n "s/^~~ $1: *//p" "$2" | head -n 1; }

# links FILE: the C inputs of FILE, as paths
links() {
    local l
    for l in $(header links "$1"); do printf '%s\n' "$C/$l"; done
}

# expected FILE: writes $T/want.out, $T/want.err1 (stderr's first line) and
# echoes the status the header asks for
expected() {
    local f=$1 v at
    : >"$T/want.out"
    : >"$T/want.err1"
    if v=$(header expect "$f") && [ -n "$v" ]; then
        printf '%s\n' "$v" >"$T/want.out"
        echo 0
        return
    fi
    v=$(header trap "$f")
    at=$(header at "$f")
    printf '%s:%s: trap: %s\n' "$f" "$at" "$v" >"$T/want.err1"
    echo 1
}

# check_program FILE PROFILE: --run against the header, and against
# --interpret when the program has no externs and the interpreter runs it
check_program() {
    local f=$1 p=$2 want rc=0 irc=0
    want=$(expected "$f")
    # shellcheck disable=SC2046
    "$BIN/rakec" --run --no-report --target "$p" "$f" $(links "$f") -- $(header args "$f") \
        >"$T/o" 2>"$T/e" || rc=$?
    if [ "$rc" != "$want" ] || ! cmp -s "$T/o" "$T/want.out" ||
        { [ -s "$T/want.err1" ] && [ "$(head -n 1 "$T/e")" != "$(cat "$T/want.err1")" ]; } ||
        { [ ! -s "$T/want.err1" ] && [ -s "$T/e" ]; }; then
        echo "$f $p: exit $rc (want $want); stdout '$(head -c 60 "$T/o")'; stderr '$(head -n 1 "$T/e")'" >>"$T/failures"
        return
    fi
    grep -q '^extern ' "$f" && return
    # shellcheck disable=SC2046
    "$BIN/rakec" --interpret --target "$p" "$f" -- $(header args "$f") >"$T/io" 2>"$T/ie" || irc=$?
    if grep -q '^union ' "$f"; then
        # the interpreter refuses unions, at the union, before it starts
        grep -q ': error: the interpreter refuses unions' "$T/ie" && [ "$irc" -eq 1 ] ||
            echo "$f $p: --interpret should refuse the union; exit $irc, '$(head -n 1 "$T/ie")'" >>"$T/failures"
    elif [ "$irc" -eq 0 ] || { [ "$irc" -eq 1 ] && grep -q ': trap: ' "$T/ie"; }; then
        if [ "$rc" != "$irc" ] || ! cmp -s "$T/o" "$T/io" || ! cmp -s "$T/e" "$T/ie"; then
            echo "$f $p: --run and --interpret differ: exit $rc vs $irc; stdout '$(head -c 60 "$T/o")' vs '$(head -c 60 "$T/io")'; stderr '$(head -n 1 "$T/e")' vs '$(head -n 1 "$T/ie")'" >>"$T/failures"
        fi
        compared=$((compared + 1))
    else
        echo "$f $p: --interpret can't run it: exit $irc, '$(head -n 1 "$T/ie")'" >>"$T/failures"
    fi
}

@test "C-interop programs give their headers' output with --run on x86-avx2 and x86-sse2, and --interpret's where it runs them" {
    local f p n=0 compared=0 notyet=""
    : >"$T/failures"
    for f in $C/*.rk; do
        grep -q '^slow main' "$f" || continue
        n=$((n + 1))
        for p in x86-avx2 x86-sse2; do
            check_program "$f" "$p"
        done
    done
    cat "$T/failures"
    [ ! -s "$T/failures" ]
    echo "# $n programs on 2 profiles; $compared runs also matched --interpret" >&3
    [ "$n" -ge 7 ]
}

@test "the interpreter's C-interop programs give the same stdout, stderr and status with --run" {
    local f p rc irc n=0
    : >"$T/failures"
    for f in tests/interp/c_*.rk tests/interp/trap_c_*.rk; do
        grep -q '^extern ' "$f" && continue
        # outside Rake's defined semantics: the interpreter traps, C doesn't
        grep -q '^~~ native: undefined' "$f" && continue
        n=$((n + 1))
        for p in x86-avx2 x86-sse2; do
            rc=0 irc=0
            "$BIN/rakec" --run --no-report --target "$p" "$f" -- x yz >"$T/o" 2>"$T/e" || rc=$?
            "$BIN/rakec" --interpret --target "$p" "$f" -- x yz >"$T/io" 2>"$T/ie" || irc=$?
            if [ "$rc" != "$irc" ] || ! cmp -s "$T/o" "$T/io" || ! cmp -s "$T/e" "$T/ie"; then
                echo "$f $p: --run exit $rc '$(head -c 60 "$T/o")' '$(head -n 1 "$T/e")'; --interpret exit $irc '$(head -c 60 "$T/io")' '$(head -n 1 "$T/ie")'" >>"$T/failures"
            fi
        done
    done
    cat "$T/failures"
    [ ! -s "$T/failures" ]
    [ "$n" -ge 6 ]
}

@test "the unit includes headers by absolute path, asserts each header field's size, and compiles cleanly with gcc and clang" {
    local cc
    "$BIN/rakec" --emit-c --no-report --target x86-avx2 -o "$T/u.c" $C/externs.rk
    grep -qxF "#include \"$RAKE_ROOT/tests/c/interop.h\"" "$T/u.c"
    [ "$(grep -c '^#include "/' "$T/u.c")" -eq 1 ]
    grep -qF '_Static_assert(sizeof(((Quad *)0)->v) == sizeof(struct rk_arr_i32_4), "Quad.v: the header'"'"'s member is not the size of [4]i32");' "$T/u.c"
    grep -qF 'static _Alignas(16) const uint8_t rk_e_abc[3] = {' "$T/u.c"
    [ "$(grep -c '^_Static_assert(' "$T/u.c")" -eq 10 ]
    for cc in gcc clang; do
        command -v $cc >/dev/null || continue
        for f in $C/*.rk; do
            "$BIN/rakec" --emit-c --no-report --target x86-avx2 -o "$T/v.c" "$f"
            $cc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$T/v.o" "$T/v.c"
        done
    done
    # from another directory the same unit, byte for byte
    (cd "$T" && "$BIN/rakec" --emit-c --no-report --target x86-avx2 -o "$T/w.c" "$RAKE_ROOT/$C/externs.rk")
    "$BIN/rakec" --emit-c --no-report --target x86-avx2 -o "$T/u2.c" $C/externs.rk
    cmp "$T/u.c" "$T/u2.c"
    diff <(grep '^#include' "$T/u.c") <(grep '^#include' "$T/w.c")
}

@test "a header that disagrees with its record's declaration fails the C compile at the assert" {
    sed 's/record Vec2 from "interop.h" { f32: x; f32: y; }/record Vec2 from "interop.h" { f32: x; f64: y; }/' \
        $C/externs.rk >$C/.disagree.rk
    run "$BIN/rakec" --emit-obj --no-report --target x86-avx2 -o "$T/d.o" $C/.disagree.rk
    rm -f $C/.disagree.rk
    [ "$status" -ne 0 ]
    [[ $output == *"Vec2.y: the header's member is not the size of f64"* ]]
}

@test "C-interop programs run clean under ASan and UBSan" {
    local f
    for f in records pointers fnptrs externs main_args; do
        RAKE_NATIVE_CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all" \
            "$BIN/rakec" --emit-exe --no-report --target x86-avx2 -o "$T/$f" $C/$f.rk $(links $C/$f.rk)
        run "$T/$f" x y
        echo "$f: $output"
        [[ $output != *Sanitizer* && $output != *"runtime error"* ]]
    done
}

@test "C inputs: only with --run and --emit-exe; missing, rejected and unlinked C are errors" {
    run "$BIN/rakec" --emit-c --target x86-avx2 $C/externs.rk $C/interop.c
    [ "$status" -eq 1 ]
    [ "$output" = "Error: C inputs ($C/interop.c) are linked only with --run or --emit-exe" ]
    run "$BIN/rakec" --run --target x86-avx2 $C/externs.rk $C/missing.c
    [ "$status" -eq 1 ]
    [ "$output" = "Error: cannot read $C/missing.c" ]
    run "$BIN/rakec" --run --target x86-avx2 $C/externs.rk $C/records.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: only one input file may be given (got $C/externs.rk and $C/records.rk)" ]
    printf 'int broken(void) { return }\n' >"$T/bad.c"
    run "$BIN/rakec" --run --target x86-avx2 $C/externs.rk "$T/bad.c"
    [ "$status" -eq 1 ]
    [ "${lines[${#lines[@]}-1]}" = "rakec: the C compiler rejected $T/bad.c" ]
    run "$BIN/rakec" --run --target x86-avx2 $C/externs.rk
    [ "$status" -eq 1 ]
    [[ $output == *"undefined reference to"* ]]
    [ "${lines[${#lines[@]}-1]}" = "rakec: linking $C/externs.rk with its C inputs failed (an extern's C comes from .c, .o or .a files given after $C/externs.rk)" ]
    # an object and an archive link as well as the C
    cc -c -O2 -o "$T/interop.o" $C/interop.c
    ar rcs "$T/libinterop.a" "$T/interop.o"
    run "$BIN/rakec" --run --no-report --target x86-avx2 $C/externs.rk "$T/interop.o"
    [ "$status" -eq 0 ] && [ "$output" = 0 ]
    run "$BIN/rakec" --run --no-report --target x86-avx2 $C/externs.rk "$T/libinterop.a"
    [ "$status" -eq 0 ] && [ "$output" = 0 ]
    "$BIN/rakec" --emit-exe --no-report --target x86-avx2 -o "$T/ext" $C/externs.rk $C/interop.c
    run "$T/ext"
    [ "$status" -eq 0 ]
}

@test "main(argc, argv) under --run: the arguments after --, argv[0] the input path" {
    run "$BIN/rakec" --run --no-report --target x86-avx2 $C/main_args.rk -- a bc
    [ "$output" = 4180 ]
    run "$BIN/rakec" --run --no-report --target x86-avx2 $C/main_args.rk -- x
    [ "$status" -ne 0 ] || [ "$output" != 4180 ]
    # an --emit-exe executable sees its own argv[0]
    "$BIN/rakec" --emit-exe --no-report --target x86-avx2 -o "$T/m" $C/main_args.rk
    run "$T/m" a bc
    [ "$status" -eq $(((3000 + 200 + 970 + ${#T} + 2 - 10) % 256)) ]
}

@test "refusals: a Rake-layout record by value to an extern is a located error" {
    cat >"$T/r.rk" <<EOF
record P { f32: x; f32: y; }
extern slow vec_len2(v: P) -> f32 from "$RAKE_ROOT/tests/c/interop.h"

slow main() -> i32:
  return i32(vec_len2(P { x: 1.0, y: 2.0 }))
EOF
    run "$BIN/rakec" --emit-c --target x86-avx2 -o "$T/r.c" "$T/r.rk"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "$T/r.rk:5:14: error: rake-cgen: extern vec_len2 takes record P, which has Rake layout: declare it \`from \"h.h\"\` to share it with C by value" ]
    [ ! -e "$T/r.c" ]
}
