#!/usr/bin/env bats
# tests/46-emit.bats: rake-emit's text outputs, the assembly and the C
# header (--emit-header), on inputs that could break them: paths with
# quotes and comment ends, kernel and parameter names that are C keywords.
# Objects, verification and calling kernels from C are tests/50-x86.bats.
load lib/common

setup() {
    W=$BATS_TEST_TMPDIR
    cd "$W"
}

@test "emit: the header's guard comes from the source's name" {
    cp "$RAKE_ROOT/examples/kernels.rk" "my-kernels.2.rk"
    run rakec --target x86-avx2 --emit-header h.h my-kernels.2.rk
    [ "$status" -eq 0 ]
    grep -qx '#ifndef RAKE_MY_KERNELS_2_H' h.h
    grep -qx '#define RAKE_MY_KERNELS_2_H' h.h
    grep -qx '__m256 advance(__m256 positions, __m256 velocities, float dt);' h.h
}

@test "emit: two headers from different sources can be included together" {
    printf 'scratch one(a: f32s) -> f32s:\n  a\n' >a.rk
    printf 'scratch two(a: f32s) -> f32s:\n  a + a\n' >b.rk
    rakec --target x86-sse2 --emit-header a.h a.rk
    rakec --target x86-sse2 --emit-header b.h b.rk
    printf '#include "a.h"\n#include "b.h"\n#include "a.h"\nint main(void) { return 0; }\n' >m.c
    run gcc -msse2 -Wall -Werror -fsyntax-only m.c
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "emit: a path with a quote and a comment end stays inside its string and comment" {
    mkdir 'd"x*'
    printf 'scratch twice(a: f32s) -> f32s:\n  a + a\n' >'d"x*/k.rk'
    run rakec -S --target x86-avx2 -o k.s 'd"x*/k.rk'
    [ "$status" -eq 0 ]
    [ "$(head -n 1 k.s)" = '	.file	"d\042x*/k.rk"' ]
    as --64 k.s -o k.o
    run rakec --target x86-avx2 --emit-header k.h 'd"x*/k.rk'
    [ "$status" -eq 0 ]
    run gcc -mavx2 -Wall -Werror -fsyntax-only -x c k.h
    [ "$status" -eq 0 ] || { echo "$output"; cat k.h; false; }
}

@test "emit: a kernel named like a C keyword has no header, with a located error" {
    printf 'scratch double(a: f32s) -> f32s:\n  a + a\n' >kw.rk
    run rakec --target x86-avx2 --emit-header kw.h kw.rk
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "kw.rk:1:1: error: scratch double can't be declared in C: 'double' is a C keyword or a reserved name; rename it to call it from C" ]
    [ ! -e kw.h ]
    # the object itself is fine: only C can't name it
    run rakec --verify-native --target x86-avx2 -o kw.o kw.rk
    [ "$status" -eq 0 ]
}

@test "emit: a parameter named like a C keyword is declared without its name" {
    printf 'scratch add(a: f32s, int: f32s) -> f32s:\n  a + int\n' >p.rk
    rakec --target x86-avx2 --emit-header p.h p.rk
    grep -qx '__m256 add(__m256 a, __m256);' p.h
    run gcc -mavx2 -Wall -Werror -fsyntax-only -x c p.h
    [ "$status" -eq 0 ]
}

@test "emit: assembly and header are byte-identical across runs" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    for p in x86-sse2 x86-avx2 x86-avx512; do
        rakec -S --target "$p" -o 1.s k.rk
        rakec -S --target "$p" -o 2.s k.rk
        cmp 1.s 2.s
        rakec --target "$p" --emit-header 1.h k.rk
        rakec --target "$p" --emit-header 2.h k.rk
        cmp 1.h 2.h
    done
}
