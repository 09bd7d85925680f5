#!/usr/bin/env bats
# tests/31-wasm-spec.bats: the WebAssembly SIMD spec tests as Rake programs.
#
# tools/wast2rake turns every assertion of tests/shared/data/
# wasm-simd-spec-tests/*.wast that maps onto a Rake operation on 32-bit
# lanes into a check in a generated program (a general run applying the
# operation, a slow main comparing every lane bit for bit), and classifies
# every other one by a line of tests/interp/wast-skips.txt, which says why.
# Each program's main returns 0, or FAILS * 10000 + FIRST; NNN.lines maps
# FIRST back to the .wast line.  tests/interp/wast-selfcheck.wast holds
# deliberately wrong expectations, which must be caught.
load lib/common

WAST_DIR=tests/shared/data/wasm-simd-spec-tests
SKIPS=tests/interp/wast-skips.txt
MIN_PASSED=3000

setup_file() {
    cd "$RAKE_ROOT"
    GEN=$BATS_FILE_TMPDIR/gen
    mkdir -p "$GEN"
    local rc=0
    tools/wast2rake -s "$SKIPS" "$GEN" "$SHARED"/data/wasm-simd-spec-tests/*.wast \
        >"$BATS_FILE_TMPDIR/summary" 2>"$BATS_FILE_TMPDIR/gen.err" || rc=$?
    echo "$rc" >"$BATS_FILE_TMPDIR/gen.rc"
    export GEN
}

setup() {
    cd "$RAKE_ROOT"
}

# run_programs RAKEC DIR: run every program of DIR/index.tsv; print one
# line per failing program with the .wast line of its first failure;
# set `passed` to the number of assertions in programs that returned 0.
run_programs() {
    local rakec=$1 dir=$2 prog n file instr out fails first where
    passed=0
    bad=()
    while IFS=$'\t' read -r prog n file instr; do
        out=$("$rakec" --interpret "$dir/$prog" 2>&1) || true
        if [ "$out" = 0 ]; then
            passed=$((passed + n))
            continue
        fi
        if [[ "$out" =~ ^[0-9]+$ ]]; then
            fails=$((out / 10000))
            first=$((out % 10000))
            where=$(sed -n "${first}p" "$dir/${prog%.rk}.lines")
            bad+=("$prog ($instr): $fails of $n assertions fail, first at $where")
        else
            bad+=("$prog ($instr): $(printf '%s' "$out" | head -n 3)")
        fi
    done <"$dir/index.tsv"
}

@test "wast2rake maps or classifies every assertion, and every skip class is used" {
    cat "$BATS_FILE_TMPDIR/gen.err" >&2
    [ "$(cat "$BATS_FILE_TMPDIR/gen.rc")" = 0 ]
    [ -s "$GEN/index.tsv" ]
    echo "# $(cat "$BATS_FILE_TMPDIR/summary")" >&3
}

@test "every mapped wasm SIMD assertion holds in rakec --interpret" {
    [ -s "$GEN/index.tsv" ] || skip "generation failed"
    run_programs "$BIN/rakec" "$GEN"
    if [ ${#bad[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${bad[@]}" >&2
        return 1
    fi
    echo "# $passed wasm SIMD assertions passed ($(wc -l <"$GEN/index.tsv") programs)" >&3
    [ "$passed" -ge "$MIN_PASSED" ]
}

@test "every mapped wasm SIMD assertion holds under the sanitizer build" {
    [ -s "$GEN/index.tsv" ] || skip "generation failed"
    [ -x "$ASAN_BIN/rake-interp" ] || {
        echo "no $ASAN_BIN/rake-interp: run 'make asan'" >&2
        return 1
    }
    run_programs "$ASAN_BIN/rakec" "$GEN"
    if [ ${#bad[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${bad[@]}" >&2
        return 1
    fi
    [ "$passed" -ge "$MIN_PASSED" ]
}

@test "the skipped classes are the ones tests/interp/wast-skips.txt lists" {
    [ -s "$GEN/skips.tsv" ] || skip "generation failed"
    local count glob what reason total=0
    while IFS=$'\t' read -r count glob what reason; do
        [ "$count" -gt 0 ]
        total=$((total + count))
        echo "# skipped $count: $glob $what" >&3
    done <"$GEN/skips.tsv"
    [ "$total" -gt 0 ]
}

@test "a generated program catches deliberately wrong expectations" {
    local dir=$BATS_TEST_TMPDIR/selfcheck
    mkdir -p "$dir"
    run tools/wast2rake "$dir" tests/interp/wast-selfcheck.wast
    assert_success
    # add: assertions 2, 4 and 5 are wrong; min: 1; shl: 2; lt_u: 1
    local want=("30002" "10001" "10002" "10001") i=0 prog n file instr out
    while IFS=$'\t' read -r prog n file instr; do
        out=$("$BIN/rakec" --interpret "$dir/$prog" 2>&1) || true
        if [ "$out" != "${want[$i]}" ]; then
            echo "$prog ($instr): got '$out', want ${want[$i]}" >&2
            return 1
        fi
        i=$((i + 1))
    done <"$dir/index.tsv"
    [ "$i" = 4 ]
    # and the runner reports the .wast line of the first failure
    run_programs "$BIN/rakec" "$dir"
    [ ${#bad[@]} = 4 ]
    [[ "${bad[0]}" == *"3 of 6 assertions fail, first at wast-selfcheck.wast:17 f32x4.add"* ]]
}
