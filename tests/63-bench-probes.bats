#!/usr/bin/env bats
# tests/63-bench-probes.bats: the probes of bench/probes (make
# bench-probes), which time a kernel's loop, as rakec writes it, beside
# parts of it, so docs/performance.md can say what bounds each kernel
# that misses a target.  Each probe builds with -Werror and runs quickly
# (--quick) with every row it prints; its "rake" loop is still the loop
# rakec writes for the kernel of bench/kernels (mnemonics, or for the
# compaction every operand).  Timings are printed, never judged here.
load lib/common

P=$RAKE_ROOT/bench/probes

# probe NAME: build bench/probes/NAME.c and run it quickly ($output).
probe() {
    cc -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/$1" "$P/$1.c"
    run "$BATS_TEST_TMPDIR/$1" --quick
    echo "$output"
    [ "$status" -eq 0 ]
}

# has_rows PATTERN ROW...: each ROW has a line, ROW then PATTERN.
has_rows() {
    local pattern=$1 r
    shift
    for r in "$@"; do
        echo "$output" | grep -q "^$r  *$pattern" || { echo "no row '$r'"; return 1; }
    done
}

# probe_rack FILE MACRO: the mnemonics of the rack FILE's `#define MACRO`
# writes, in order, on one line.
probe_rack() {
    sed -n "/^#define $2/,/^LOOP/p" "$P/$1" |
        grep -o '"[a-z0-9]* \|\\n *[a-z0-9]* ' | sed 's/^"//; s/^\\n *//' | xargs
}

# rakec_asm KERNEL PROFILE LANES: rakec -S of bench/kernels/KERNEL.rk
# with its lane counts written in; the assembly's path.
rakec_asm() {
    local k=$1 p=$2 l=$3
    sed "s/FOUR_RACKS/$((4 * l))/g; s/THREE_RACKS/$((3 * l))/g; s/TWO_RACKS/$((2 * l))/g; s/LANES/$l/g" \
        "$RAKE_ROOT/bench/kernels/$k.rk" >"$BATS_TEST_TMPDIR/$k.rk"
    "$BIN/rakec" -S --no-report --target "$p" -o "$BATS_TEST_TMPDIR/$k.$p.s" "$BATS_TEST_TMPDIR/$k.rk"
    echo "$BATS_TEST_TMPDIR/$k.$p.s"
}

# rakec_loop KERNEL PROFILE LANES: the mnemonics of the loop rakec writes,
# one a line: from the last aligned label a jl jumps back to, up to that
# jl (labels left out; a general run's fast copy is its last loop).
rakec_loop() {
    local s
    s=$(rakec_asm "$@")
    awk '/^\t\.p2align 5$/ {getline; if ($0 ~ /^\.L.*:$/) {lab = substr($0, 1, length($0) - 1); n = 0; on = 1; next}}
         on && /^\t[a-z]/ {body[++n] = $1; if ($0 ~ ("\tjl\t" lab "$")) {out = ""; for (i = 1; i <= n; i++) out = out body[i] "\n"; on = 0}}
         END {printf "%s", out}' "$s"
}

# avx2_rows FLAGS PATTERN ROW...: on a CPU with every flag of FLAGS each
# ROW has its line (has_rows); on another the probe said it skipped.
avx2_rows() {
    local f
    for f in $1; do
        grep -qw "$f" /proc/cpuinfo || { [[ $output == *"avx2: not on this CPU, skipped"* ]]; return; }
    done
    shift
    has_rows "$@"
}

# same_rack KERNEL FILE MACRO RACK: rakec's AVX2 loop for KERNEL is two
# RACKs and the step, and FILE's `#define MACRO` writes RACK.
same_rack() {
    run rakec_loop "$1" x86-avx2 8
    echo "$output"
    [ "$(echo $output)" = "$4 $4 addq cmpq jl" ]
    [ "$(probe_rack "$2" "$3")" = "$4" ]
}

@test "count_mix: count's loop beside its parts, on AVX2 and (where the CPU has it) AVX-512" {
    probe count_mix
    [[ $output == *"GHz; 4096 floats in L1"* ]]
    avx2_rows avx2 ".* cycles a step of 32 floats" "avx2 rake" "avx2 loads" "avx2 compares" \
        "avx2 split loads" "avx2 grouped" "avx2 orps" "avx2 int compare"
    if grep -qw avx512f /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
        has_rows ".* cycles a step of 64 floats" "avx512 rake" "avx512 loads" "avx512 compares" \
            "avx512 vpmovm2d" "avx512 popcount"
    else
        [[ $output == *"avx512: not on this CPU, skipped"* ]]
    fi
}

@test "count_mix: its rake rows are the loops rakec writes for count" {
    run rakec_loop count x86-avx2 8
    echo "$output"
    [ "$output" = "$(printf 'vcmpps\nvpsubd\n%.0s' 1 2 3 4; printf 'addq\ncmpq\njl')" ]
    [ "$(probe_rack count_mix.c CMP)" = "vcmpps vpsubd" ]
    grep -q '^LOOP(avx2_rake, 32, CMP(0, "%%ymm1") CMP(32, "%%ymm2") CMP(64, "%%ymm3") CMP(96, "%%ymm4"),' "$P/count_mix.c"
    run rakec_loop count x86-avx512 16
    echo "$output"
    [ "$output" = "$(printf 'vcmpps\nvpaddd\n%.0s' 1 2 3 4; printf 'addq\ncmpq\njl')" ]
    grep -q '^LOOP_FOR(Z, avx512_rake, 64, KADD(0, "%%zmm16") KADD(64, "%%zmm18") KADD(128, "%%zmm19") KADD(192, "%%zmm20"),' "$P/count_mix.c"
}

@test "advance_mix: advance's loop beside its memory operations at 1 Ki and 4 Ki particles; its rack is rakec's" {
    probe advance_mix
    avx2_rows "avx2 fma" "1024 particles .* cycles a rack of 8" rake memory loads
    avx2_rows "avx2 fma" "4096 particles .* cycles a rack of 8" rake memory loads
    # two racks a step, each: the u8 column widened, five loads (two as
    # the FMAs' operands), the compare and three blends and stores
    local rack='vpmovzxbd vmovups vmovaps vfmadd231ps vmovups vmovaps vfmadd231ps vmovups vaddps vpcmpeqd vblendvps vmovups vblendvps vmovups vblendvps vmovups'
    same_rack advance advance_mix.c 'RAKE(O, B)' "$rack"
}

@test "normalise_mix: normalise's loop beside its memory operations and the copy bound's pattern; its rack is rakec's" {
    probe normalise_mix
    avx2_rows avx2 "[0-9]* M records/s  *[0-9.]* GB/s counted" rake memory nt-stores "f32 copy"
    local rack='vpmovzxbd vcvtdq2ps vmulps vmovups'
    same_rack normalise normalise_mix.c 'RAKE(O, B)' "$rack"
}

@test "safe_root_mix: safe_root's loop beside its square roots alone; its rack is rakec's" {
    probe safe_root_mix
    avx2_rows avx2 "[0-9.]* cycles a rack of 8" rake sqrt memory
    local rack='vmovups vcmpps vblendvps vsqrtps vandps vmovups'
    same_rack safe_root safe_root_mix.c 'RAKE(O)' "$rack"
}

@test "compact_mix: compact's loop with its stores aligned and without them; its loop is rakec's, operands included" {
    probe compact_mix
    avx2_rows "avx2 popcnt" "[0-9.]* ns a call .* (kept [0-9]* a call)" rake aligned no-stores
    # every row keeps the same records (about half of 4,096)
    [[ $output == *"avx2: not on this CPU, skipped"* ]] ||
        [ "$(echo "$output" | grep -o 'kept [0-9]*' | sort -u | wc -l)" -eq 1 ]
    # rakec's loop, its first aligned label to its jl, labels as L
    awk '/\.p2align 5/ {c++; next} c == 1 && /^\t[a-z]/ {print} c == 1 && /\tjl\t/ {exit}' \
        "$(rakec_asm compact x86-avx2 8)" |
        sed 's/\t/ /g; s/^ //; s/\.Lrk_[a-z_]*\(stored1\|b2\)/L/' | tr -s ' ' >"$BATS_TEST_TMPDIR/rakec.txt"
    cat "$BATS_TEST_TMPDIR/rakec.txt"
    # the probe's LOOP with rake's PREP (none), STORE and KILLSTORE written in
    sed -n '/^#define LOOP(name, PREP, STORE, KILLSTORE)/,/"jl 1b/p' "$P/compact_mix.c" |
        grep -o '"[a-z][^"]*\\n"\|STORE("[a-z0-9]*", "ymm[0-9]")\|^ *KILLSTORE' | sed 's/\\n"$//; s/^"//' |
        sed 's/^STORE("\([a-z0-9]*\)", "\(ymm[0-9]\)")/vmovups %%\2, (%%\1,%%r13,4)/; s/^ *KILLSTORE/vmovq %%xmm1, (%%r9,%%r13,1)/' |
        sed 's/%%/%/g; s/ \([12]\)[fb]$/ L/' | tr -s ' ' >"$BATS_TEST_TMPDIR/probe.txt"
    cat "$BATS_TEST_TMPDIR/probe.txt"
    diff "$BATS_TEST_TMPDIR/rakec.txt" "$BATS_TEST_TMPDIR/probe.txt"
    grep -q '^#define AT_CURSOR(col, reg) "vmovups %%" reg ", (%%" col ",%%r13,4)\\n"$' "$P/compact_mix.c"
    grep -q '^#define KILL_AT_CURSOR "vmovq %%xmm1, (%%r9,%%r13,1)\\n"$' "$P/compact_mix.c"
    grep -q '^LOOP(rake, "", AT_CURSOR, KILL_AT_CURSOR)$' "$P/compact_mix.c"
}
