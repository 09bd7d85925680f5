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

@test "bench-probes: count_mix builds and times count's loop beside its parts on every profile the CPU has" {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/count_mix" \
        "$RAKE_ROOT/bench/probes/count_mix.c"
    run "$BATS_TEST_TMPDIR/count_mix" --quick
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"GHz; 4096 floats in L1"* ]]
    local row
    for row in "avx2 rake" "avx2 loads" "avx2 compares" "avx2 int compare"; do
        if grep -qw avx2 /proc/cpuinfo; then
            echo "$output" | grep -q "^$row .* cycles a step of 32 floats" || { echo "no row $row"; return 1; }
        fi
    done
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
        echo "$output" | grep -q "^avx512 rake .* cycles a step of 64 floats"
        echo "$output" | grep -q "^avx512 popcount .* cycles a step of 64 floats"
    else
        [[ $output == *"avx512: not on this CPU, skipped"* ]]
    fi
}

# rakec_loop KERNEL PROFILE LANES: the mnemonics of the loop rakec writes
# for bench/kernels/KERNEL.rk on PROFILE, one a line: from the last
# aligned label a jl jumps back to, up to that jl (labels left out; a
# general run's fast copy is its last loop).
rakec_loop() {
    local k=$1 p=$2 l=$3
    sed "s/FOUR_RACKS/$((4 * l))/g; s/THREE_RACKS/$((3 * l))/g; s/TWO_RACKS/$((2 * l))/g; s/LANES/$l/g" \
        "$RAKE_ROOT/bench/kernels/$k.rk" >"$BATS_TEST_TMPDIR/$k.rk"
    "$BIN/rakec" -S --no-report --target "$p" -o "$BATS_TEST_TMPDIR/$k.s" "$BATS_TEST_TMPDIR/$k.rk"
    awk '/^\t\.p2align 5$/ {getline; if ($0 ~ /^\.L.*:$/) {lab = substr($0, 1, length($0) - 1); n = 0; on = 1; next}}
         on && /^\t[a-z]/ {body[++n] = $1; if ($0 ~ ("\tjl\t" lab "$")) {out = ""; for (i = 1; i <= n; i++) out = out body[i] "\n"; on = 0}}
         END {printf "%s", out}' \
        "$BATS_TEST_TMPDIR/$k.s"
}

@test "bench-probes: count_mix's 'rake' rows are the loops rakec writes for count" {
    run rakec_loop count x86-avx2 8
    echo "$output"
    [ "$output" = "$(printf 'vcmpps\nvpsubd\n%.0s' 1 2 3 4; printf 'addq\ncmpq\njl')" ]
    grep -q 'CMP(0, "%%ymm1") CMP(32, "%%ymm2") CMP(64, "%%ymm3") CMP(96, "%%ymm4")' "$RAKE_ROOT/bench/probes/count_mix.c"
    run rakec_loop count x86-avx512 16
    echo "$output"
    [ "$output" = "$(printf 'vcmpps\nvpaddd\n%.0s' 1 2 3 4; printf 'addq\ncmpq\njl')" ]
}

@test "bench-probes: advance_mix builds, times advance's loop beside its memory operations, and its 'rake' row is rakec's loop" {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/advance_mix" \
        "$RAKE_ROOT/bench/probes/advance_mix.c"
    run "$BATS_TEST_TMPDIR/advance_mix" --quick
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
        local r n
        for r in rake memory loads; do
            for n in 1024 4096; do
                echo "$output" | grep -q "^$r  *$n particles .* cycles a rack of 8" || { echo "no row $r $n"; return 1; }
            done
        done
    else
        [[ $output == *"avx2: not on this CPU, skipped"* ]]
    fi
    # two racks a step, each: the u8 column widened, five loads (two as
    # the FMAs' operands), the compare and three blends and stores
    local rack='vpmovzxbd vmovups vmovaps vfmadd231ps vmovups vmovaps vfmadd231ps vmovups vaddps vpcmpeqd vblendvps vmovups vblendvps vmovups vblendvps vmovups'
    run rakec_loop advance x86-avx2 8
    echo "$output"
    [ "$(echo $output)" = "$rack $rack addq cmpq jl" ]
    # the probe's rack, in its order
    [ "$(sed -n '/^#define RAKE(O, B)/,/^LOOP(rake/p' "$RAKE_ROOT/bench/probes/advance_mix.c" |
        grep -o '"[a-z0-9]* \|\\n *[a-z0-9]* ' | sed 's/^"//; s/^\\n *//' | xargs)" = "$rack" ]
}

@test "bench-probes: normalise_mix builds, times normalise's loop beside its memory operations, and its 'rake' row is rakec's loop" {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/normalise_mix" \
        "$RAKE_ROOT/bench/probes/normalise_mix.c"
    run "$BATS_TEST_TMPDIR/normalise_mix" --quick
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -qw avx2 /proc/cpuinfo; then
        local r
        for r in rake memory nt-stores "f32 copy"; do
            echo "$output" | grep -q "^$r  *[0-9]* M records/s  *[0-9.]* GB/s counted" || { echo "no row $r"; return 1; }
        done
    else
        [[ $output == *"avx2: not on this CPU, skipped"* ]]
    fi
    local rack='vpmovzxbd vcvtdq2ps vmulps vmovups'
    run rakec_loop normalise x86-avx2 8
    echo "$output"
    [ "$(echo $output)" = "$rack $rack addq cmpq jl" ]
    [ "$(sed -n '/^#define RAKE(O, B)/,/^LOOP(rake/p' "$RAKE_ROOT/bench/probes/normalise_mix.c" |
        grep -o '"[a-z0-9]* \|\\n *[a-z0-9]* ' | sed 's/^"//; s/^\\n *//' | xargs)" = "$rack" ]
}

@test "bench-probes: compact_mix builds, times compact's loop with its stores aligned and without them, and its 'rake' row is rakec's loop" {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/compact_mix" \
        "$RAKE_ROOT/bench/probes/compact_mix.c"
    run "$BATS_TEST_TMPDIR/compact_mix" --quick
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -qw avx2 /proc/cpuinfo; then
        local r
        for r in rake aligned no-stores; do
            echo "$output" | grep -q "^$r  *[0-9.]* ns a call .* (kept [0-9]* a call)" || { echo "no row $r"; return 1; }
        done
        # every row keeps the same records (about half of 4,096)
        [ "$(echo "$output" | grep -o 'kept [0-9]*' | sort -u | wc -l)" -eq 1 ]
    else
        [[ $output == *"avx2: not on this CPU, skipped"* ]]
    fi
    # rakec's loop, its operands included, is the probe's "rake" loop
    sed 's/FOUR_RACKS/32/g; s/THREE_RACKS/24/g; s/TWO_RACKS/16/g; s/LANES/8/g' \
        "$RAKE_ROOT/bench/kernels/compact.rk" >"$BATS_TEST_TMPDIR/compact.rk"
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$BATS_TEST_TMPDIR/compact.s" "$BATS_TEST_TMPDIR/compact.rk"
    awk '/\.p2align 5/ {c++; next} c == 1 && /^\t[a-z]/ {print} c == 1 && /\tjl\t/ {exit}' "$BATS_TEST_TMPDIR/compact.s" |
        sed 's/\t/ /g; s/^ //; s/\.Lrk_[a-z_]*\(stored1\|b2\)/L/' | tr -s ' ' >"$BATS_TEST_TMPDIR/rakec.txt"
    cat "$BATS_TEST_TMPDIR/rakec.txt"
    sed -n '/^#define LOOP(name, STORE, KILLSTORE)/,/"jl 1b/p' "$RAKE_ROOT/bench/probes/compact_mix.c" |
        grep -o '"[a-z][^"]*\\n"\|STORE("[a-z0-9]*", "ymm[0-9]")\|^ *KILLSTORE' | sed 's/\\n"$//; s/^"//' |
        sed 's/^STORE("\([a-z0-9]*\)", "\(ymm[0-9]\)")/vmovups %%\2, (%%\1,%%r13,4)/; s/^ *KILLSTORE/vmovq %%xmm1, (%%r9,%%r13,1)/' |
        sed 's/%%/%/g; s/ \([12]\)[fb]$/ L/' | tr -s ' ' >"$BATS_TEST_TMPDIR/probe.txt"
    cat "$BATS_TEST_TMPDIR/probe.txt"
    diff "$BATS_TEST_TMPDIR/rakec.txt" "$BATS_TEST_TMPDIR/probe.txt"
}

@test "bench-probes: safe_root_mix builds, times safe_root's loop beside its square roots alone, and its 'rake' row is rakec's loop" {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/safe_root_mix" \
        "$RAKE_ROOT/bench/probes/safe_root_mix.c"
    run "$BATS_TEST_TMPDIR/safe_root_mix" --quick
    echo "$output"
    [ "$status" -eq 0 ]
    if grep -qw avx2 /proc/cpuinfo; then
        local r
        for r in rake sqrt memory; do
            echo "$output" | grep -q "^$r  *[0-9.]* cycles a rack of 8" || { echo "no row $r"; return 1; }
        done
    else
        [[ $output == *"avx2: not on this CPU, skipped"* ]]
    fi
    local rack='vmovups vcmpps vblendvps vsqrtps vandps vmovups'
    run rakec_loop safe_root x86-avx2 8
    echo "$output"
    [ "$(echo $output)" = "$rack $rack addq cmpq jl" ]
    [ "$(sed -n '/^#define RAKE(O)/,/^LOOP(rake/p' "$RAKE_ROOT/bench/probes/safe_root_mix.c" |
        grep -o '"[a-z0-9]* \|\\n *[a-z0-9]* ' | sed 's/^"//; s/^\\n *//' | xargs)" = "$rack" ]
}
