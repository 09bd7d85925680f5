#!/usr/bin/env bats
# tests/61-insn-counts.bats: tools/insn-counts (issue 12) over every example
# and conformance program on x86-sse2, x86-avx2 and x86-avx512.
#
#   table        the tool builds every program with rakec and clang and
#                prints a row for every kernel and run, on each profile
#   consistent   objdump of Rake's object counts what rakec --counts says
#                (the tool exits 2 on any mismatch)
#   losses       the kernels where Rake is longer than clang's intrinsics
#                (and no rule of bench/intrinsics/rules.txt covers it) are
#                exactly bench/intrinsics/known-losses.txt: a new loss, a
#                loss that grew, or a fixed one fails; regenerate the file
#                with tools/insn-counts --write-losses and review the diff
#   diff         the intrinsics versions of the register kernels compute
#                Rake's lanes and FP flags (NaN, -0, inf, sNaN, ...);
#                AVX-512 execution is skipped, with a message, where
#                /proc/cpuinfo lacks avx512f
#
# The tool runs once (setup_file, about a minute on 2 cores); the tests
# read its output.
load lib/common

setup_file() {
    export RAKEC=${RAKEC:-$BIN/rakec}
    export INSN_COUNTS_NAIVE=0
    out=$BATS_FILE_TMPDIR
    status=0
    "$RAKE_ROOT/tools/insn-counts" --check-losses --diff >"$out/stdout" 2>"$out/stderr" || status=$?
    echo "$status" >"$out/status"
}

@test "insn-counts: the tool ran and every kernel and run has a row on every x86 profile" {
    [ -x "$RAKEC" ] || skip "no $RAKEC (make build)"
    out=$BATS_FILE_TMPDIR
    cat "$out/stderr"
    st=$(cat "$out/status")
    # 0: losses as known; 1: the losses differ (next test); 2: a failure
    [ "$st" -le 1 ]
    grep -q '^| program | kernel | profile | Rake | clang |' "$out/stdout"
    for p in x86-sse2 x86-avx2 x86-avx512; do
        for k in 'kernels | scratch advance' 'kernels | scratch total' 'particles | run survivors' \
                 'stacks_compact_readings | run combine_readings' 'stacks_doubled | run doubled' \
                 'stacks_several | run roots' 'tines_clipped_root | rake clipped_root' \
                 'fallbacks_safe_root | rake safe_root' 'sweeps_grade | rake grade' \
                 'advance | run advance' 'compact | run compact_live' 'clamp | run clamp_counts' \
                 'runs_running_sum | run running_sum' 'safe_roots | run roots' \
                 'fallbacks_safe_root | run roots' 'sweeps_grade | run grades' \
                 'tines_safe_root | run roots' 'dot | run dot_product' 'count | run count_above'; do
            grep -q "^| $k | $p | [0-9]* | [0-9]* |" "$out/stdout" || { echo "no row: $k $p"; false; }
        done
    done
    # every row with a Rake count has a clang count
    ! grep 'no intrinsics version' "$out/stdout"
}

@test "insn-counts: objdump of Rake's objects agrees with rakec --counts" {
    [ -x "$RAKEC" ] || skip "no $RAKEC (make build)"
    ! grep -q 'rakec --counts says' "$BATS_FILE_TMPDIR/stderr"
    [ "$(cat "$BATS_FILE_TMPDIR/status")" -ne 2 ]
}

@test "insn-counts: the losses are bench/intrinsics/known-losses.txt" {
    [ -x "$RAKEC" ] || skip "no $RAKEC (make build)"
    out=$BATS_FILE_TMPDIR
    grep -v '^note:' "$out/stdout" | grep -E '^(new loss|fixed|loss grew)' && false
    grep '^note:' "$out/stdout" || true
    [ "$(cat "$out/status")" -eq 0 ]
}

@test "insn-counts: the intrinsics register kernels compute Rake's lanes and flags" {
    [ -x "$RAKEC" ] || skip "no $RAKEC (make build)"
    out=$BATS_FILE_TMPDIR
    ! grep -q 'differential check .* failed' "$out/stderr"
    grep -q 'kernels x86-sse2: 6 register kernels agree' "$out/stderr"
    grep -q 'kernels x86-avx2: 6 register kernels agree' "$out/stderr"
    if grep -q ' avx512f' /proc/cpuinfo; then
        grep -q 'kernels x86-avx512: 6 register kernels agree' "$out/stderr"
    else
        grep 'avx512 differential check skipped' "$out/stdout"
        skip "no avx512f: AVX-512 kernels compiled and counted, not run"
    fi
}

@test "insn-counts: --check lists each loss and each stale rule and exits 1" {
    [ -x "$RAKEC" ] || skip "no $RAKEC (make build)"
    rules=$BATS_TEST_TMPDIR/rules.txt
    # clipped_root is as long as clang's on AVX2, so a rule for it is stale
    echo 'tines_clipped_root clipped_root x86-avx2 all +1 a-rule -- for the test' >"$rules"
    INSN_COUNTS_RULES=$rules INSN_COUNTS_NAIVE=0 run "$RAKE_ROOT/tools/insn-counts" --quiet --check \
        --only tines_clipped_root --profiles x86-avx2
    [ "$status" -eq 1 ]
    [[ "$output" == *"stale rule: tines_clipped_root clipped_root x86-avx2 all"* ]]
    : >"$rules"
    INSN_COUNTS_RULES=$rules INSN_COUNTS_NAIVE=0 run "$RAKE_ROOT/tools/insn-counts" --quiet --check \
        --only tines_clipped_root --profiles x86-avx2
    [ "$status" -eq 0 ]
    # a kernel longer than clang's with no rule is a loss: the first one
    # bench/intrinsics/known-losses.txt lists (one without a rule's
    # allowance), checked with no rules, is reported and fails the check
    local prog kernel profile measure
    read -r prog kernel profile measure _ < <(grep -v '^#' "$RAKE_ROOT/bench/intrinsics/known-losses.txt" | grep -v 'rule ' | head -n 1)
    [ -n "$profile" ] || skip "known-losses.txt lists no loss: nothing is longer than clang's"
    INSN_COUNTS_RULES=$rules INSN_COUNTS_NAIVE=0 run "$RAKE_ROOT/tools/insn-counts" --check \
        --only "$prog" --profiles "$profile"
    [ "$status" -eq 1 ]
    [[ "$output" == *"loss: $prog $kernel $profile $measure"* ]]
}
