#!/usr/bin/env bats
# tests/60-bench-smoke.bats: the benchmark suite of issue 12 still builds
# and its variants still agree (bench/run --smoke: tiny sizes, a few
# samples).  Performance misses are printed by the benchmark and never
# fail here; a build failure or an output differing from Rake's does.
# The JSON must hold every kernel x variant x profile the machine runs,
# with the Rake variant measured or marked not compiled with rakec's
# reason.
load lib/common

KERNELS=(advance compact_1 compact_50 compact_99 safe_root clamp normalise dot count)

setup_file() {
    export SMOKE_OUT=$BATS_FILE_TMPDIR/out
    BENCH_BUILD=$BATS_FILE_TMPDIR/build RAKEC=$BIN/rakec \
        "$RAKE_ROOT/bench/run" --smoke --out "$SMOKE_OUT" > "$BATS_FILE_TMPDIR/log" 2>&1 \
        || { cat "$BATS_FILE_TMPDIR/log" >&3; return 1; }
}

profiles_run() {
    echo x86-sse2
    grep -qw avx2 /proc/cpuinfo && echo x86-avx2
    grep -qw avx512f /proc/cpuinfo && echo x86-avx512
    return 0
}

@test "bench-smoke: builds, runs, every output agrees, JSON and PNG written" {
    [ -s "$SMOKE_OUT/smoke.json" ]
    [ -s "$SMOKE_OUT/smoke.png" ]
    jq -e '.output_mismatches == 0 and .mode == "smoke"' "$SMOKE_OUT/smoke.json"
    ! grep -q "OUTPUT DIFFERS" "$BATS_FILE_TMPDIR/log"
}

@test "bench-smoke: every kernel x variant x profile the machine runs is in the JSON, Rake's measured" {
    j=$SMOKE_OUT/smoke.json
    for p in $(profiles_run); do
        for k in "${KERNELS[@]}"; do
            n=$(jq --arg k "$k" --arg p "$p" '[.results[] | select(.kernel == $k and .profile == $p)] | length' "$j")
            [ "$n" -ge 1 ] || { echo "no result for $k on $p"; return 1; }
            for v in gcc clang highway; do
                jq -e --arg k "$k" --arg p "$p" --arg v "$v" \
                    'all(.results[] | select(.kernel == $k and .profile == $p); .variants[$v].status == "measured" and (.variants[$v].records_per_s > 0))' "$j" \
                    || { echo "$v not measured for $k on $p"; return 1; }
            done
            # every benchmark kernel compiles natively on every x86
            # profile (dot's seventh integer argument on the stack, count's
            # views): Rake is measured, never refused
            jq -e --arg k "$k" --arg p "$p" \
                'all(.results[] | select(.kernel == $k and .profile == $p); .variants.rake as $r | $r.status == "measured" and $r.records_per_s > 0)' "$j" \
                || { echo "rake not measured for $k on $p"; return 1; }
        done
    done
}

@test "bench-smoke: a row's variants take their samples in turn (sample s of each, then s + 1)" {
    RAKE_BENCH_TRACE=1 "$BATS_FILE_TMPDIR/build/bench" --smoke --sizes 1003 --samples 3 \
        --out "$BATS_FILE_TMPDIR/trace" 2>"$BATS_FILE_TMPDIR/trace.err" >/dev/null
    grep '^sample ' "$BATS_FILE_TMPDIR/trace.err" >"$BATS_FILE_TMPDIR/trace.txt"
    # every kernel's row is traced, with several variants
    for k in "${KERNELS[@]}"; do
        grep -q "^sample $k " "$BATS_FILE_TMPDIR/trace.txt" || { echo "no samples of $k"; return 1; }
    done
    # within a row, line i is sample i / n of variant i % n (n variants)
    awk '{ row = $2 " " $3
           if (row != last) { i = 0; last = row }
           if ($7 < 2 || $4 != int(i / $7) || $5 != i % $7) { print "out of turn: " $0; bad = 1 }
           i++ }
         END { exit bad }' "$BATS_FILE_TMPDIR/trace.txt"
    [ "$(wc -l <"$BATS_FILE_TMPDIR/trace.txt")" -ge 27 ]
}

@test "bench-smoke: a profile the machine can't run is skipped with a printed reason" {
    grep -qw avx512f /proc/cpuinfo && skip "this CPU runs every profile"
    grep -q "skipping x86-avx512: " "$BATS_FILE_TMPDIR/log"
}

@test "bench-smoke: a refused Rake kernel counts as a missed target" {
    j=$SMOKE_OUT/smoke.json
    jq -e 'all(.results[] | select(.variants.rake.status == "not-compiled"); .targets_met == false and (.misses | test("Rake not compiled: ")))' "$j"
}

@test "bench-smoke: a compaction's timed calls take several kill patterns in turn" {
    # a branchy compaction learns one repeated pattern by heart; the
    # smoke sizes (1003, 65541 records) take 262 and 4 patterns
    j=$SMOKE_OUT/smoke.json
    jq -e 'all(.results[] | select(.kernel | startswith("compact")); .data_patterns == (if .records == 1003 then 262 else 4 end))' "$j"
    jq -e 'all(.results[] | select(.kernel | startswith("compact") | not); .data_patterns == 1)' "$j"
    jq -e '[.results[] | select(.kernel | startswith("compact"))] | length >= 6' "$j"
}

@test "bench-smoke: the port bound uses load and store rates measured for each profile run" {
    j=$SMOKE_OUT/smoke.json
    for p in $(profiles_run); do
        jq -e --arg p "$p" '.ports[$p].loads_per_cycle > 0.2 and .ports[$p].stores_per_cycle > 0.1' "$j"
        grep -q "^ports at $p's width: " "$BATS_FILE_TMPDIR/log"
    done
    # a cache row's bound is lanes x clock / the busier port's cycles
    jq -e '.ports as $ports | .core_ghz as $g | all(.results[] | select(.class == "cache");
        ($ports[.profile]) as $q
        | ([.bound.loads_per_rack / $q.loads_per_cycle, .bound.stores_per_rack / $q.stores_per_cycle] | max) as $c
        | ((.lanes * $g * 1e9 / $c) / .bound.records_per_s - 1 | fabs) < 0.01)' "$j"
}
