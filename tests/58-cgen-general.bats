#!/usr/bin/env bats
# tests/58-cgen-general.bats: general runs seen from rake-cgen, the slow
# tier as C (docs/slow-tier.md).
#
#   the call        slow code calls a general run on a physical profile
#                   through the C boundary of spec page 03 (each view as
#                   pointer and i32 count, uniforms by value), with no
#                   check before the call; elsewhere it is a located error
load lib/common

setup() {
    cd "$RAKE_ROOT"
    T=$BATS_TEST_TMPDIR
}

# checked_native FILE PROFILE: rake.checked for FILE on a physical
# PROFILE.  While rake-check refuses general runs natively (the profile
# table marks them work in progress), FILE is checked on wasm-simd128,
# whose f32 racks have x86-sse2's four lanes, and the document is
# relabelled: rake-cgen and rake-interp read only the target's name.
# NATIVE_CHECK says which happened.
checked_native() {
    NATIVE_CHECK=yes
    if ! "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target "$2" 2>/dev/null; then
        NATIVE_CHECK=no
        "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target wasm-simd128 |
            sed -E "s/(\"target\": ?)\"wasm-simd128\"/\\1\"$2\"/"
    fi
}

@test "slow code calls a general run with each view as pointer and count, uniforms by value, nothing checked first" {
    checked_native tests/interp/general_run.rk x86-sse2 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    assert_output --partial 'void rk_native_prefix(const float *, int32_t, float *, int32_t, int32_t) __asm__("prefix");'
    assert_output --partial 'void rk_native_steps(float *, int32_t, int32_t, int32_t) __asm__("steps");'
    # prefix(x, o, <8>): the arrays as views of all their elements
    assert_output --partial 'rk_native_prefix(rk_t'
    grep -qE '^    (rk_t[0-9]+) = \(struct rk_view_f32\)\{rk_v[0-9]+_x\.e, 8\};$' <<<"$output"
    grep -qE 'rk_native_prefix\((rk_t[0-9]+)\.p, \(int32_t\)\1\.n, (rk_t[0-9]+)\.p, \(int32_t\)\2\.n, \(\(int32_t\)8LL\)\);' <<<"$output"
    # declared once however often it is called; no precondition check
    [ "$(grep -c '^void rk_native_prefix(' <<<"$output")" -eq 1 ]
    refute_output --partial 'rk_run_counts(&'
    refute_output --partial '    rk_run_shares('
    # a view argument passes its own pointer and count
    cat >"$T/v.rk" <<'EOF'
run twice(x: []i32, out: mut []i32, <n: i32>):
  for <i: i32> from <0> up to <n> by <4>:
    out[<i>] <- x[<i>] * <2>

slow main() -> i32:
  a: [12]i32 := [3; 12]
  b: [12]i32 := [0; 12]
  twice(slice(a, 4, 8), slice(b, 0, 8), <8>)
  return b[7]
EOF
    checked_native "$T/v.rk" x86-avx2 >"$T/v.json"
    run "$BIN/rake-cgen" <"$T/v.json"
    assert_success
    assert_output --partial 'void rk_native_twice(const int32_t *, int32_t, int32_t *, int32_t, int32_t) __asm__("twice");'
    grep -qE 'rk_native_twice\((rk_t[0-9]+)\.p, \(int32_t\)\1\.n, (rk_t[0-9]+)\.p, \(int32_t\)\2\.n, \(\(int32_t\)8LL\)\);' <<<"$output"
}

@test "the unit of a program calling general runs compiles cleanly under gcc and clang on every physical profile" {
    local p cc
    for p in x86-sse2 x86-avx2 x86-avx512 aarch64-neon; do
        checked_native tests/interp/general_run.rk "$p" >"$T/c.json"
        "$BIN/rake-cgen" <"$T/c.json" >"$T/u.c"
        for cc in gcc clang; do
            command -v "$cc" >/dev/null || continue
            "$cc" -std=c11 -O2 -Wall -Wextra -Werror -c -o "$T/u.o" "$T/u.c"
        done
    done
}

@test "calling a general run on a profile without native code, or a stack run taking a view, is a located error" {
    "$BIN/rake-parse" tests/interp/general_run.rk |
        "$BIN/rake-check" --target wasm-simd128 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "tests/interp/general_run.rk:47:3: error: rake-cgen: calling general run 'prefix' on wasm-simd128: slow code calls general runs natively on x86 and aarch64 profiles only" ]
    "$BIN/rake-cgen" <"$T/c.json" 2>/dev/null >"$T/out" || true
    [ ! -s "$T/out" ]
    # nor does a stack run taking a view (its overlap with the result isn't
    # checked before the call yet)
    "$BIN/rake-parse" tests/interp/trap_result_overlap_view.rk |
        "$BIN/rake-check" --target wasm-simd128 >"$T/v.json"
    run "$BIN/rake-cgen" <"$T/v.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "tests/interp/trap_result_overlap_view.rk:16:9: error: rake-cgen: the stack run 'mix' takes the view 't': views in stack runs are work in progress natively" ]
}
