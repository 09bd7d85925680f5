#!/usr/bin/env bats
# tests/40-nir-diff.bats: the native-IR evaluator against the tree
# interpreter, on random kernels.
#
# tools/gen-kernels/ (built here) writes random, well-typed scratches and
# rakes (global and local tines, through blocks with and without else,
# sweeps with gaps and `_`, fused bindings, helpers they call, every
# operation of the f32s/i32s/u32s subset) for a profile, and calls for
# them whose inputs mix special values (signed zeros, infinities, quiet and
# signalling NaNs, subnormals, 2^23/2^31/2^32 boundaries, ties, integer
# extremes, shift counts >= 32) with ordinary and random ones.  For each
# profile, batches of kernels go through rake-parse, rake-check, rake-lower
# and rake-opt; `rake-interp --kernels` runs every call in the tree
# interpreter and `rake-interp --nir` in the optimised native IR, and the
# results must agree bit for bit, except that any NaN equals any NaN in an
# f32 result (`gen-kernels --compare`).  A generated kernel that a pass
# rejects fails the test loudly, with the message and the kernel: the
# generator must write only valid kernels.  One batch per profile also
# goes through the sanitizer builds of the passes (build-asan/bin).
#
# Contraction: x86-avx2, x86-avx512 and aarch64-neon contract a multiply
# and an add in one fused region.  `rake-interp --contract` is to emulate
# that; a probe (tests/nirdiff/contract-probe.rk) tells whether it does.
# Until it does, the kernels for those profiles have no f32 multiply
# feeding an f32 add in one fused region, and the contraction test skips;
# once it does, those profiles compare with --contract (and their kernels
# may contract: gen-kernels --contracting-ok), and the contraction test
# runs contraction-rich kernels.
#
# Known bugs get reproducers in tests/nirdiff/repro/ (see the README
# there); the generator avoids each (an option of gen-kernels lifts each
# workaround) and the last test says which still reproduce.  A bug fixed
# so that both evaluators agree lifts its workaround here automatically.
# tests/nirdiff/regress/ holds the fixed ones, which must stay fixed.
#
# Vary the run with RAKE_NIRDIFF_SEED (default 1) and RAKE_NIRDIFF_BATCHES
# (batches of 50 kernels per profile, default 6).  To rerun one batch by
# hand, see the command printed with a failure.
load lib/common

SEED=${RAKE_NIRDIFF_SEED:-1}
BATCHES=${RAKE_NIRDIFF_BATCHES:-6}
KERNELS=50 # per batch
CALLS=8    # per kernel
MIN_KERNELS=1000
PROFILES=(x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128)
ND=$RAKE_ROOT/tests/nirdiff

PASS_NAMES=(rake-parse rake-check rake-lower rake-opt rake-interp)

setup_file() {
    cc -O2 -std=c11 -o "$BATS_FILE_TMPDIR/gen-kernels" "$RAKE_ROOT"/tools/gen-kernels/*.c
    # Private copies of the passes, in case bin/ is rebuilt during the run
    # (a batch must not mix two builds).
    local from to prog
    for from in "$BIN" "$ASAN_BIN"; do
        to=$BATS_FILE_TMPDIR/bin
        [ "$from" = "$BIN" ] || to=$BATS_FILE_TMPDIR/asan-bin
        mkdir -p "$to"
        for prog in "${PASS_NAMES[@]}"; do
            [ ! -x "$from/$prog" ] || cp "$from/$prog" "$to/$prog"
        done
    done
    BIN=$BATS_FILE_TMPDIR/bin
    repro_status >"$BATS_FILE_TMPDIR/repro-status"
}

setup() {
    GEN=$BATS_FILE_TMPDIR/gen-kernels
    BIN=$BATS_FILE_TMPDIR/bin
    ASAN_BIN=$BATS_FILE_TMPDIR/asan-bin
    [ -x "$GEN" ] || {
        echo "tools/gen-kernels/ did not build"
        return 1
    }
}

is_contracting() { [[ $1 == x86-avx2 || $1 == x86-avx512 || $1 == aarch64-neon ]]; }

# Does `rake-interp --contract` emulate contraction?  (0 yes, 1 no)
contract_emulated() {
    local d=$BATS_FILE_TMPDIR/probe
    if [ ! -f "$d/answer" ]; then
        mkdir -p "$d"
        echo 'fm 3f800800,3f800000,0,0 3f800800,3f800000,0,0 bf801000,0,0,0' >"$d/calls"
        local plain="" fused=""
        if "$BIN/rake-parse" "$ND/contract-probe.rk" 2>/dev/null |
            "$BIN/rake-check" --target aarch64-neon >"$d/checked.json" 2>/dev/null; then
            plain=$("$BIN/rake-interp" --kernels "$d/calls" <"$d/checked.json" 2>/dev/null) || plain=""
            fused=$("$BIN/rake-interp" --contract --kernels "$d/calls" <"$d/checked.json" 2>/dev/null) || fused=""
        fi
        if [ -n "$plain" ] && [ -n "$fused" ] && [ "$plain" != "$fused" ]; then
            echo yes >"$d/answer"
        else
            echo "no (plain: '$plain', --contract: '$fused')" >"$d/answer"
        fi
    fi
    [ "$(cat "$d/answer")" = yes ]
}

# The kernel group of a failure: by the FILE:LINE of a message, by a
# function named @NAME, by the first call with no result (OUT, for an
# evaluator), else by compiling the groups one by one up to PROFILE's
# failing pass.
show_failure() {
    local d=$1 rk=$2 calls=$3 out=$4 p=$5 line name
    line=$(grep -o -m1 "k\.rk:[0-9]*:" "$d/err" | cut -d: -f2)
    name=$(grep -o -m1 "@k[0-9]*_[a-z]" "$d/err" | tr -d @)
    if [ -n "$line" ]; then
        "$GEN" --show "$rk" "$line"
    elif [ -n "$name" ]; then
        "$GEN" --show "$rk" "$name"
    elif [ -n "$out" ]; then
        local n call
        n=$(wc -l <"$out")
        call=$(grep -v '^#' "$calls" | sed -n "$((n + 1))p")
        echo "the first call with no result: $call"
        "$GEN" --show "$rk" "${call%% *}"
    else
        local g=$d/groups f
        mkdir -p "$g"
        awk -v dir="$g" '/^~~ begin /{ f = dir "/" $3 ".rk" } f { print > f } /^~~ end /{ close(f); f = "" }' "$rk"
        for f in "$g"/*.rk; do
            if ! { "$BIN/rake-parse" "$f" | "$BIN/rake-check" --target "$p" |
                "$BIN/rake-lower" | "$BIN/rake-opt"; } >/dev/null 2>&1; then
                echo "the first group that fails alone:"
                "$GEN" --show "$rk" "$(basename "$f" .rk)"
                return
            fi
        done
    fi
}

# batch PROFILE SEED INTERP_OPTION [GEN_OPTION...]: generate a batch of
# kernels for PROFILE, compile them, run every call in both evaluators
# (the tree one with INTERP_OPTION, "" or --contract) and compare.  Prints
# the failure and returns 1 on any difference or error.  The passes come
# from $PASSES (default: the normal build, bin/).
batch() {
    local p=$1 s=$2 iopt=$3 BIN=${PASSES:-$BIN}
    shift 3
    local d=$BATS_TEST_TMPDIR/$p-$s
    mkdir -p "$d"
    local rk=$d/k.rk calls=$d/k.calls
    local again="tools/gen-kernels --seed $s --count $KERNELS --calls $CALLS --profile $p --out-rk k.rk --out-calls k.calls${*:+ $*}"
    "$GEN" --seed "$s" --count "$KERNELS" --calls "$CALLS" --profile "$p" \
        --out-rk "$rk" --out-calls "$calls" "$@" || {
        echo "gen-kernels failed: $again"
        return 1
    }
    local what="" out=""
    if ! "$BIN/rake-parse" "$rk" >"$d/ast.json" 2>"$d/err"; then
        what="rake-parse rejects a generated kernel (a gen-kernels bug)"
    elif ! "$BIN/rake-check" --target "$p" <"$d/ast.json" >"$d/checked.json" 2>"$d/err"; then
        what="rake-check rejects a generated kernel (a gen-kernels bug)"
    elif ! "$BIN/rake-lower" <"$d/checked.json" >"$d/low.json" 2>"$d/err"; then
        what="rake-lower fails on kernels rake-check accepted"
    elif ! "$BIN/rake-opt" <"$d/low.json" >"$d/nir.json" 2>"$d/err"; then
        what="rake-opt fails on kernels rake-lower wrote"
    elif ! "$BIN/rake-interp" $iopt --kernels "$calls" <"$d/checked.json" >"$d/tree.out" 2>"$d/err"; then
        what="rake-interp${iopt:+ $iopt} (the tree interpreter) fails"
        out=$d/tree.out
    elif ! "$BIN/rake-interp" --nir "$d/nir.json" --kernels "$calls" <"$d/checked.json" >"$d/nir.out" 2>"$d/err"; then
        what="rake-interp --nir (the native-IR evaluator) fails"
        out=$d/nir.out
    fi
    if [ -n "$what" ]; then
        echo "$p, seed $s: $what:"
        head -n 12 "$d/err"
        show_failure "$d" "$rk" "$calls" "$out" "$p"
        echo "(regenerate with: $again)"
        return 1
    fi
    if ! "$GEN" --compare "$d/tree.out" "$d/nir.out" "$rk" "$calls" >"$d/cmp"; then
        echo "$p, seed $s: the native IR differs from rake-interp${iopt:+ $iopt} (first: tree, second: native IR):"
        cat "$d/cmp"
        echo "(regenerate with: $again)"
        return 1
    fi
    kernels=$((kernels + KERNELS))
    compared=$((compared + $(grep -o '^[0-9]* calls compared' "$d/cmp" | cut -d' ' -f1)))
}

# --- known bugs ---------------------------------------------------------------

# One line per reproducer: NAME STATUS [GEN_OPTION], STATUS one of
#   open      it still reproduces
#   agrees    fixed: every pass accepts it and the evaluators agree (and
#             give the .expected results, where there are some)
#   rejected  fixed by rake-check rejecting it
repro_status() {
    local rk
    for rk in "$ND"/repro/*.rk; do
        [ -e "$rk" ] || continue
        local base=${rk%.rk} name expect profiles opt
        name=$(basename "$base")
        expect=$(sed -n 's/^~~ expect: //p' "$rk")
        profiles=$(sed -n 's/^~~ profiles: //p' "$rk")
        opt=$(sed -n 's/^~~ gen-option: //p' "$rk")
        local d=$BATS_FILE_TMPDIR/repro/$name p rejected=0 agreed=0 n=0
        mkdir -p "$d"
        for p in $profiles; do
            n=$((n + 1))
            "$BIN/rake-parse" "$rk" >"$d/ast.json" 2>/dev/null || continue
            if ! "$BIN/rake-check" --target "$p" <"$d/ast.json" >"$d/checked.json" 2>/dev/null; then
                rejected=$((rejected + 1))
                continue
            fi
            "$BIN/rake-lower" <"$d/checked.json" 2>/dev/null | "$BIN/rake-opt" >"$d/nir.json" 2>/dev/null || continue
            "$BIN/rake-interp" --kernels "$base.calls" <"$d/checked.json" >"$d/tree.out" 2>/dev/null || continue
            "$BIN/rake-interp" --nir "$d/nir.json" --kernels "$base.calls" <"$d/checked.json" >"$d/nir.out" 2>/dev/null || continue
            "$BATS_FILE_TMPDIR/gen-kernels" --compare "$d/tree.out" "$d/nir.out" "$rk" "$base.calls" >/dev/null || continue
            if [ "$expect" = results ]; then
                "$BATS_FILE_TMPDIR/gen-kernels" --compare "$d/tree.out" "$base.expected" "$rk" "$base.calls" >/dev/null || continue
            fi
            agreed=$((agreed + 1))
        done
        local status=open
        if [ "$rejected" -eq "$n" ]; then
            status=rejected
        elif [ "$agreed" -eq "$n" ] && [ "$expect" != reject ]; then
            status=agrees
        fi
        echo "$name $status $opt"
    done
}

# The gen-kernels options whose bugs are all fixed with agreeing results.
lifted_options() {
    local opts
    opts=$(awk 'NF == 3 { print $3 }' "$BATS_FILE_TMPDIR/repro-status" | sort -u)
    local o
    for o in $opts; do
        awk -v o="$o" '$3 == o && $2 != "agrees" { bad = 1 } END { exit bad }' \
            "$BATS_FILE_TMPDIR/repro-status" && echo "$o"
    done
}

# --- tests ----------------------------------------------------------------------

@test "gen-kernels: the same seed gives the same kernels, another seed others" {
    local d=$BATS_TEST_TMPDIR
    "$GEN" --seed 7 --count 20 --profile x86-avx2 --out-rk "$d/a.rk" --out-calls "$d/a.calls"
    "$GEN" --seed 7 --count 20 --profile x86-avx2 --out-rk "$d/b.rk" --out-calls "$d/b.calls"
    "$GEN" --seed 8 --count 20 --profile x86-avx2 --out-rk "$d/c.rk" --out-calls "$d/c.calls"
    cmp "$d/a.rk" "$d/b.rk"
    cmp "$d/a.calls" "$d/b.calls"
    ! cmp -s "$d/a.rk" "$d/c.rk"
    # each kernel has its calls, with the profile's lane count
    [ "$(grep -c '^~~ begin ' "$d/a.rk")" -eq 20 ]
    [ "$(grep -vc '^#' "$d/a.calls")" -eq $((20 * 8)) ]
    grep -v '^#' "$d/a.calls" | grep -q ' [0-9a-f]*\(,[0-9a-f]*\)\{7\}\( \|$\)'
}

@test "the native IR matches the tree interpreter on random kernels (5 profiles)" {
    local kernels=0 compared=0 p b iopt start=$SECONDS failed=0 lifted
    lifted=$(lifted_options | tr '\n' ' ')
    [ -z "$lifted" ] || echo "# bugs fixed, workarounds lifted: gen-kernels $lifted" >&3
    for p in "${PROFILES[@]}"; do
        local iopt="" gopt=""
        if is_contracting "$p" && contract_emulated; then
            iopt=--contract
            gopt=--contracting-ok
        fi
        for ((b = 0; b < BATCHES; b++)); do
            # shellcheck disable=SC2086
            batch "$p" $((SEED * 1000 + b)) "$iopt" $gopt $lifted || failed=$((failed + 1))
        done
    done
    echo "# $kernels random kernels, $compared calls, on ${#PROFILES[@]} profiles: $failed failing batches ($((SECONDS - start)) s)" >&3
    [ "$failed" -eq 0 ]
    [ "$kernels" -ge "$MIN_KERNELS" ] || {
        echo "only $kernels kernels, expected at least $MIN_KERNELS (RAKE_NIRDIFF_BATCHES=$BATCHES)"
        false
    }
}

@test "the sanitizer builds run a batch per profile with no report" {
    [ -x "$ASAN_BIN/rake-interp" ] && [ -x "$ASAN_BIN/rake-lower" ] && [ -x "$ASAN_BIN/rake-opt" ] ||
        skip "no sanitizer build of the passes in build-asan/bin (make asan)"
    local kernels=0 compared=0 p failed=0 lifted d
    lifted=$(lifted_options | tr '\n' ' ')
    for p in "${PROFILES[@]}"; do
        # Contraction-rich kernels, where nothing contracts or --contract
        # emulates it.  A report aborts the pass (ASAN_OPTIONS and
        # UBSAN_OPTIONS in lib/common), which fails the batch.
        local iopt="" gopt=--contract-rich
        if is_contracting "$p"; then
            contract_emulated && iopt=--contract || gopt=""
        fi
        # shellcheck disable=SC2086
        PASSES=$ASAN_BIN batch "$p" $((SEED * 1000 + 900)) "$iopt" $gopt $lifted || failed=$((failed + 1))
    done
    echo "# $kernels kernels through the sanitizer builds: $failed failing batches" >&3
    [ "$failed" -eq 0 ]
}

@test "contraction-rich kernels match the tree interpreter where nothing contracts (x86-sse2, wasm-simd128)" {
    local kernels=0 compared=0 p b failed=0 lifted
    lifted=$(lifted_options | tr '\n' ' ')
    for p in x86-sse2 wasm-simd128; do
        for ((b = 0; b < 2; b++)); do
            # shellcheck disable=SC2086
            batch "$p" $((SEED * 1000 + 500 + b)) "" --contract-rich $lifted || failed=$((failed + 1))
        done
    done
    echo "# $kernels contraction-rich kernels, $compared calls: $failed failing batches" >&3
    [ "$failed" -eq 0 ]
}

@test "contraction: the native IR matches rake-interp --contract on contraction-rich kernels (x86-avx2, x86-avx512, aarch64-neon)" {
    if ! contract_emulated; then
        skip "rake-interp --contract does not emulate contraction yet: the probe tests/nirdiff/contract-probe.rk gives $(sed 's/^no //' "$BATS_FILE_TMPDIR/probe/answer")"
    fi
    local kernels=0 compared=0 p b failed=0 fmas=0 low=0 lifted
    lifted=$(lifted_options | tr '\n' ' ')
    for p in x86-avx2 x86-avx512 aarch64-neon; do
        for ((b = 0; b < 3; b++)); do
            # shellcheck disable=SC2086
            batch "$p" $((SEED * 1000 + 700 + b)) --contract --contract-rich $lifted || failed=$((failed + 1))
            local d=$BATS_TEST_TMPDIR/$p-$((SEED * 1000 + 700 + b))
            fmas=$((fmas + $(grep -c '"rack.fma"' "$d/nir.json" || true)))
            low=$((low + $(grep -c '"rack.fma"' "$d/low.json" || true)))
        done
    done
    echo "# $kernels contraction-rich kernels, $compared calls, $((fmas - low)) more fused multiply-adds after rake-opt than before: $failed failing batches" >&3
    [ "$failed" -eq 0 ]
    [ "$fmas" -gt "$low" ] # rake-opt did contract
}

@test "fixed bugs stay fixed: tests/nirdiff/regress/ on its profiles" {
    # `~~ expect: agree` (the default): every pass accepts it and the
    # evaluators agree; `results`: and give NAME.expected; `reject`:
    # rake-check rejects it.
    local rk n=0 bad=0
    for rk in "$ND"/regress/*.rk; do
        local base=${rk%.rk} p d expect
        expect=$(sed -n 's/^~~ expect: //p' "$rk")
        for p in $(sed -n 's/^~~ profiles: //p' "$rk"); do
            d=$BATS_TEST_TMPDIR/$(basename "$base")-$p
            mkdir -p "$d"
            n=$((n + 1))
            "$BIN/rake-parse" "$rk" >"$d/ast.json"
            if [ "$expect" = reject ]; then
                if "$BIN/rake-check" --target "$p" <"$d/ast.json" >/dev/null 2>&1; then
                    echo "$rk on $p: rake-check accepts it again"
                    bad=$((bad + 1))
                fi
                continue
            fi
            if ! { "$BIN/rake-check" --target "$p" <"$d/ast.json" >"$d/checked.json" &&
                "$BIN/rake-lower" <"$d/checked.json" >"$d/low.json" &&
                "$BIN/rake-opt" <"$d/low.json" >"$d/nir.json" &&
                "$BIN/rake-interp" --kernels "$base.calls" <"$d/checked.json" >"$d/tree.out" &&
                "$BIN/rake-interp" --nir "$d/nir.json" --kernels "$base.calls" <"$d/checked.json" >"$d/nir.out"; } 2>"$d/err"; then
                echo "$rk on $p: a pass failed:"
                head -n 5 "$d/err"
                bad=$((bad + 1))
            elif ! "$GEN" --compare "$d/tree.out" "$d/nir.out" "$rk" "$base.calls"; then
                echo "$rk on $p: the evaluators differ"
                bad=$((bad + 1))
            elif [ "$expect" = results ] && ! "$GEN" --compare "$d/tree.out" "$base.expected" "$rk" "$base.calls"; then
                echo "$rk on $p: not the expected results (first: rake-interp, second: $base.expected)"
                bad=$((bad + 1))
            fi
        done
    done
    echo "# $n regression runs" >&3
    [ "$bad" -eq 0 ]
}

@test "known bugs: the reproducers in tests/nirdiff/repro/ (skipped while any still reproduces)" {
    local open="" name status opt
    [ -s "$BATS_FILE_TMPDIR/repro-status" ] || echo "# no open reproducers in tests/nirdiff/repro/" >&3
    while read -r name status opt; do
        echo "# repro/$name: $status${opt:+ (gen-kernels $opt)}" >&3
        [ "$status" != open ] || open+=" $name"
    done <"$BATS_FILE_TMPDIR/repro-status"
    [ -z "$open" ] || skip "known bugs (reported), avoided by the generator, still reproduce:$open"
}
