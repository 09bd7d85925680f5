#!/usr/bin/env bats
# tests/47-limits.bats: no silent limits (issue 9).
#
# Every count a program controls (rack locations a loop carries, names a
# slow block captures, fields a `with` replaces, parameters of kernels
# and tines, tines in a cycle) either
# grows to what the program has or is refused with a located error naming
# the limit.  tests/limits/gen writes each program at a given size; the
# sizes are the old fixed limits' edges (64 block arguments, 256
# locations, 64 captures and fields) and ten times them.  Each program is
# a general or stack run interpreted on wasm-simd128, and must give the
# result the suite computes itself both from the interpreter (`rakec
# --interpret`) and from the native-IR evaluator (`rake-interp --nir` on
# the lowered and optimised IR), with the normal and the sanitizer build.
load lib/common

GEN=$RAKE_ROOT/tests/limits/gen
TARGET=wasm-simd128

setup() {
    cd "$RAKE_ROOT"
    d=$BATS_TEST_TMPDIR
}

# agree KIND N WANT: both evaluators, both builds, give WANT.
agree() {
    local kind=$1 n=$2 want=$3 bin got
    "$GEN" "$kind" "$n" >"$d/$kind$n.rk"
    for bin in "$BIN" "$ASAN_BIN"; do
        got=$(RAKE_BIN_DIR=$bin "$BIN/rakec" --interpret --target $TARGET "$d/$kind$n.rk" 2>"$d/err") || {
            echo "$kind $n ($bin): rakec --interpret failed:"; cat "$d/err"; return 1; }
        [ "$got" = "$want" ] || { echo "$kind $n ($bin): interpreter gave $got, want $want"; return 1; }
        "$bin/rake-parse" "$d/$kind$n.rk" | "$bin/rake-check" --target $TARGET >"$d/checked" || return 1
        "$bin/rake-lower" <"$d/checked" >"$d/lowered" 2>"$d/err" || {
            echo "$kind $n ($bin): rake-lower failed:"; cat "$d/err"; return 1; }
        "$bin/rake-opt" <"$d/lowered" >"$d/nir" 2>"$d/err" || {
            echo "$kind $n ($bin): rake-opt failed:"; cat "$d/err"; return 1; }
        got=$("$bin/rake-interp" --nir "$d/nir" <"$d/checked" 2>"$d/err") || {
            echo "$kind $n ($bin): rake-interp --nir failed:"; cat "$d/err"; return 1; }
        [ "$got" = "$want" ] || { echo "$kind $n ($bin): --nir gave $got, want $want"; return 1; }
    done
}

@test "a loop carrying 64 rack locations: the IR evaluator passes every block argument" {
    agree loop 63 $((72 * 63))
    agree loop 64 $((72 * 64))
    agree loop 65 $((72 * 65))
}

@test "a loop carrying 640 rack locations" {
    agree loop 640 $((72 * 640))
}

@test "257 rack locations lower to valid native IR" {
    agree loop 256 $((72 * 256))
    agree loop 257 $((72 * 257))
}

@test "2,570 rack locations" {
    agree loop 2570 $((72 * 2570))
}

@test "the issue's form, a load in the repeat: 257 and 2,570 locations, a bounds check each" {
    # 5,000+ blocks: the verifier's dominators took minutes (nb^3 a pass)
    agree loads 257 $((72 * 257))
    agree loads 2570 $((72 * 2570))
}

@test "a slow block capturing 65 names sees every one" {
    agree capture 64 $((64 * 65))
    agree capture 65 $((65 * 66))
}

@test "a slow block capturing 650 names" {
    agree capture 650 $((650 * 651))
}

@test "with and compact over 65 and 650 fields" {
    local n
    for n in 65 650; do
        agree with $n $((6 * n * (n - 1) + 30 * n + 3000))
    done
}

@test "kernels and tines of 65 and 650 rack parameters see every argument" {
    local n
    for n in 65 650; do
        agree args $n $((30 + 8 * (n - 1)))
    done
}

@test "the lowered loop carries every location as a block parameter" {
    "$GEN" loop 640 >"$d/l.rk"
    bin/rake-parse "$d/l.rk" | bin/rake-check --target $TARGET | bin/rake-lower >"$d/l.nir"
    # the loop header: the index and one parameter per location
    run jq '[.functions[0].blocks[] | (.params // []) | length] | max' "$d/l.nir"
    [ "$status" -eq 0 ]
    [ "$output" -ge 641 ]
}

@test "a cycle of 70 tines is found (the walk went only 64 deep)" {
    "$GEN" cycle 70 >"$d/c.rk"
    run bin/rakec "$d/c.rk"
    [ "$status" -eq 1 ]
    [[ ${lines[0]} == "$d/c.rk:1:"*": error: tine #t0 is recursive"* ]]
}

@test "the lexer's and parser's nesting limits are located errors naming the limit" {
    { printf 'slow main() -> i32:\n  return '; for _ in $(seq 1100); do printf '('; done
      printf '1'; for _ in $(seq 1100); do printf ')'; done; echo; } >"$d/deep.rk"
    run bin/rakec "$d/deep.rk"
    [ "$status" -eq 1 ]
    [[ ${lines[0]} == "$d/deep.rk:2:"*": error: "*"(the limit)"* ]]
}
