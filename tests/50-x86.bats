#!/usr/bin/env bats
# tests/50-x86.bats: the x86 backend for register kernels (rake-isel-x86,
# rake-ra, rake-emit, rake-verify --object, and rakec's -c, -S,
# --emit-mir, --verify-native and --emit-header) on x86-sse2, x86-avx2 and
# x86-avx512.
#
#   spec        every file of scratches, rakes and tines in the spec pages
#               and tests/shared/conformance verifies where it checks
#               (tests/check/spec-blocks.txt) and is rejected with the
#               spec's reason elsewhere
#   diff        kernels called from C through their header
#               (tools/kernel-harness) against rake-interp --kernels, every
#               lane bit for bit (any NaN equals any NaN), with --contract
#               on x86-avx2 and x86-avx512: every operation of the subset
#               (tests/x86/ops.rk, lanes-N.rk, fma.rk) on special and
#               random inputs, then at least 10,000 random kernels from
#               tools/gen-kernels (tests/x86/run-diff, random-batch)
#   abi         the calling convention from C (tests/x86/abi)
#   verifier    objects altered by hand, each rejected by its rule
#   cli         output names, atomic outputs, RAKE_X86_AS, whole
#               programs, deterministic output
#   fpflags     inactive lanes raise no floating-point exception (MXCSR)
#   repro       tests/x86/repro: fixed bugs stay fixed, open ones reported
#
# AVX-512 code runs only where /proc/cpuinfo has avx512f; elsewhere it is
# compiled and verified, and the test says it skipped the execution.
#
# Vary the random run with RAKE_X86_SEED (default 1), RAKE_X86_BATCHES
# (batches per profile, default 8) and RAKE_X86_KERNELS (kernels per
# batch, default 450); RAKE_X86_MIN_KERNELS (default 10000) is the least
# number of random kernels the run must compile and verify.
# RAKE_X86_NO_AVX512=1 runs the suite as on a CPU without AVX-512.
load lib/common

X86=(x86-sse2 x86-avx2 x86-avx512)
T=$RAKE_ROOT/tests/x86
SEED=${RAKE_X86_SEED:-1}
BATCHES=${RAKE_X86_BATCHES:-8}
KERNELS=${RAKE_X86_KERNELS:-450}
MIN_KERNELS=${RAKE_X86_MIN_KERNELS:-10000}

setup_file() {
    if [ -f "$RAKE_ROOT/tools/gen-kernels/main.c" ]; then
        cc -O2 -std=c11 -o "$BATS_FILE_TMPDIR/gen-kernels" "$RAKE_ROOT"/tools/gen-kernels/*.c
    fi
}

# RAKE_X86_NO_AVX512=1 plays a CPU without AVX-512 (to try the skips).
has_avx512() { [ -z "${RAKE_X86_NO_AVX512:-}" ] && grep -qw avx512f /proc/cpuinfo; }
no_avx512_reason="this CPU has no avx512f (/proc/cpuinfo): AVX-512 code compiled and verified, not run"

lanes_of() {
    case $1 in x86-sse2) echo 4 ;; x86-avx2) echo 8 ;; x86-avx512) echo 16 ;; esac
}

cflags_of() {
    case $1 in x86-sse2) echo "-msse2" ;; x86-avx2) echo "-mavx2 -mfma" ;; x86-avx512) echo "-mavx512f" ;; esac
}

# A file of kernels only (no run, slow code, state or constants).
kernel_file() { ! grep -qE '^(run|slow|state|const)[[:space:]]' "$1"; }

# --- spec ----------------------------------------------------------------------

# verify_or_reject FILE PROFILE CHECKS REASON: rakec --verify-native accepts
# FILE on PROFILE if CHECKS is 1, else rejects it (exit 1) with REASON in
# its first line and no object left; prints a failure, returns 1.
verify_or_reject() {
    local f=$1 p=$2 checks=$3 reason=$4 d=$BATS_TEST_TMPDIR/v rc=0
    mkdir -p "$d"
    rm -f "$d"/*
    "$BIN/rakec" --verify-native --target "$p" "$f" -o "$d/k.o" >"$d/out" 2>&1 || rc=$?
    if [ "$checks" = 1 ]; then
        [ "$rc" -eq 0 ] && [ -s "$d/k.o" ] && return 0
        echo "$(basename "$f") on $p: --verify-native fails (exit $rc): $(head -n 3 "$d/out")"
        return 1
    fi
    if [ "$rc" -ne 1 ]; then
        echo "$(basename "$f") on $p: should be rejected, exit $rc: $(head -n 2 "$d/out")"
        return 1
    fi
    if [ -z "$reason" ] || [[ $(head -n 1 "$d/out") != *"$reason"* ]]; then
        echo "$(basename "$f") on $p: rejected, but not with '$reason': $(head -n 1 "$d/out")"
        return 1
    fi
    if ls "$d" | grep -q '^k\.o'; then
        echo "$(basename "$f") on $p: rejected, but left $(ls "$d" | grep '^k\.o')"
        return 1
    fi
}

@test "x86 spec: every block of scratches, rakes and tines verifies on each x86 profile where it checks, and is rejected with the spec's reason elsewhere" {
    local dir=$BATS_TEST_TMPDIR/spec f name listed on reason p n=0 bad=0
    "$RAKE_ROOT/tools/extract-spec-blocks" "$dir" "$SHARED"/spec/*.md >"$BATS_TEST_TMPDIR/blocks"
    while IFS= read -r f; do
        kernel_file "$f" || continue
        name=$(basename "$f")
        listed=$(grep -E "^$name[[:space:]]" "$RAKE_ROOT/tests/check/spec-blocks.txt") || {
            echo "$name is not in tests/check/spec-blocks.txt"
            bad=$((bad + 1))
            continue
        }
        read -r _ on reason <<<"$listed"
        for p in "${X86[@]}"; do
            n=$((n + 1))
            if [ "$on" = all ] || [[ ",$on," == *",$p,"* ]]; then
                verify_or_reject "$f" "$p" 1 "" || bad=$((bad + 1))
            else
                verify_or_reject "$f" "$p" 0 "$reason" || bad=$((bad + 1))
            fi
        done
    done <"$BATS_TEST_TMPDIR/blocks"
    echo "# $n block-profile pairs, $bad wrong" >&3
    [ "$n" -ge 45 ]
    [ "$bad" -eq 0 ]
}

@test "x86 spec: each conformance file of kernels verifies on the x86 profiles its header lists and is rejected elsewhere" {
    local f p list n=0 bad=0
    for f in "$SHARED"/conformance/*.rk; do
        kernel_file "$f" || continue
        list=" $(sed -n 's/^~~ compiles: //p; s/^~~ targets: //p' "$f" | tr '\n' ' ') "
        [[ $list == *" any "* ]] && list=" ${X86[*]} "
        for p in "${X86[@]}"; do
            n=$((n + 1))
            if [[ $list == *" $p "* ]]; then
                verify_or_reject "$f" "$p" 1 "" || bad=$((bad + 1))
            else
                verify_or_reject "$f" "$p" 0 "$p can't compile" || bad=$((bad + 1))
            fi
        done
    done
    echo "# $n file-profile pairs, $bad wrong" >&3
    [ "$n" -ge 3 ]
    [ "$bad" -eq 0 ]
}

# --- differential execution of every operation -------------------------------------

# diff_file PROFILE FILE CALLS-PER-KERNEL: run-diff with calls from the
# harness; fails on a mismatch; skips the run (only) without avx512f.
diff_file() {
    local p=$1 f=$2 k=$3 d out
    d=$BATS_TEST_TMPDIR/$p-$(basename "$f" .rk)
    run "$T/run-diff" --profile "$p" --dir "$d" --rk "$f" --make-calls "$k" --seed "$SEED"
    if [ "$status" -ne 0 ]; then
        echo "$output"
        return 1
    fi
    echo "# ${lines[${#lines[@]} - 1]#run-diff: }" >&3
}

diff_profile() {
    local p=$1 n
    n=$(lanes_of "$p")
    diff_file "$p" "$T/ops.rk" 120
    diff_file "$p" "$T/lanes-$n.rk" 60
    [ "$p" = x86-sse2 ] || diff_file "$p" "$T/fma.rk" 300
    diff_file "$p" "$T/masked.rk" 200
    if [ "$p" = x86-avx512 ] && ! has_avx512; then
        skip "$no_avx512_reason"
    fi
}

@test "x86 diff: every operation of the subset on x86-sse2, called through the header, equals rake-interp" {
    diff_profile x86-sse2
}

@test "x86 diff: every operation of the subset on x86-avx2, called through the header, equals rake-interp --contract" {
    diff_profile x86-avx2
}

@test "x86 diff: every operation of the subset on x86-avx512, called through the header, equals rake-interp --contract (run only with avx512f)" {
    diff_profile x86-avx512
}

@test "x86 diff: fused multiply-adds differ from the uncontracted semantics, so --contract is what the AVX2 comparison checks" {
    local d=$BATS_TEST_TMPDIR/contract
    "$T/run-diff" --profile x86-avx2 --dir "$d" --rk "$T/fma.rk" --make-calls 300 --seed "$SEED" >/dev/null
    "$BIN/rake-interp" --kernels "$d/k.calls" <"$d/k.check.json" >"$d/plain.expect"
    run "$d/harness" --expect "$d/plain.expect" <"$d/k.calls"
    [ "$status" -eq 1 ]
    [[ ${lines[${#lines[@]} - 1]} =~ ^harness:\ [0-9]+\ calls,\ [0-9]+\ lanes\ compared,\ [1-9][0-9]*\ mismatches$ ]]
}

@test "x86 diff: the harness reports a wrong lane, takes any NaN for any NaN, and checks masks and the full eax of a bool" {
    local d=$BATS_TEST_TMPDIR/self
    mkdir -p "$d"
    cat >"$d/k.rk" <<'EOF'
scratch add(a: f32s, b: f32s) -> f32s:
  a + b
scratch lt(a: f32s, b: f32s) -> mask:
  a < b
scratch flag(<c: bool>) -> bool:
  <c>
scratch ident(a: u32s) -> u32s:
  a
EOF
    "$BIN/rakec" --verify-native --target x86-sse2 "$d/k.rk" -o "$d/k.o"
    "$BIN/rakec" --emit-header "$d/k.h" --target x86-sse2 "$d/k.rk"
    "$BIN/rakec" --emit-mir --target x86-sse2 "$d/k.rk" -o "$d/k.mir"
    "$RAKE_ROOT/tools/kernel-harness" "$d/k.h" 4 --mir "$d/k.mir" >"$d/h.c"
    cc -O0 -msse2 -o "$d/h" "$d/h.c" "$d/k.o"
    cat >"$d/calls" <<'EOF'
add 3f800000,7fc00000,7f800001,0 3f800000,0,0,80000000
lt 0,3f800000,7fc00000,0 3f800000,3f800000,0,80000000
flag 1
flag 0
flag 1
ident 80000000,ffffffff,0,1
EOF
    run "$d/h" <"$d/calls"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "add 40000000,7fc00000,7fc00001,0" ]
    [ "${lines[1]}" = "lt 1,0,0,0" ]
    [ "${lines[2]}" = "flag 1" ] && [ "${lines[3]}" = "flag 0" ] && [ "${lines[4]}" = "flag 1" ]
    [ "${lines[5]}" = "ident 80000000,ffffffff,0,1" ]
    # other NaN payloads are equal; a changed lane is not
    printf '%s\n' "add 40000000,ffc00000,7f800001,0" "lt 1,0,0,0" "flag 1" "flag 0" "flag 1" \
        "ident 80000000,ffffffff,0,1" >"$d/ok.expect"
    run "$d/h" --expect "$d/ok.expect" <"$d/calls"
    [ "$status" -eq 0 ]
    [ "$output" = "harness: 6 calls, 15 lanes compared, 0 mismatches" ]
    printf '%s\n' "add 40000000,7fc00000,7fc00001,0" "lt 1,0,0,1" "flag 1" "flag 0" "flag 0" \
        "ident 80000000,fffffffe,0,1" >"$d/bad.expect"
    run "$d/h" --expect "$d/bad.expect" <"$d/calls"
    [ "$status" -eq 1 ]
    [[ $output == *"mismatch on calls line 2: lt "*"differing lanes: 3"* ]]
    [[ $output == *"mismatch on calls line 5: flag 1"*"differing lanes: (the scalar)"* ]]
    [[ $output == *"mismatch on calls line 6: ident "*"differing lanes: 1"* ]]
    [ "${lines[${#lines[@]} - 1]}" = "harness: 6 calls, 15 lanes compared, 3 mismatches" ]
    # malformed calls are errors, not mismatches
    run "$d/h" <<<"add 1,2,3 1,2,3,4"
    [ "$status" -eq 2 ]
    [[ $output == *"calls line 1: '1,2,3' has the wrong number of lanes"* ]]
    run "$d/h" <<<"lt 0,0,0,0 0,0,0,0 0"
    [ "$status" -eq 2 ]
    [[ $output == *"lt takes 2 arguments, the line gives 3"* ]]
    run "$d/h" <<<"nothing 0"
    [ "$status" -eq 2 ]
    # a header that the MIR listing contradicts is refused
    sed 's/^scratch lt(rack<f32> a/scratch lt(rack<i32> a/' "$d/k.mir" >"$d/bad.mir"
    run "$RAKE_ROOT/tools/kernel-harness" "$d/k.h" 4 --mir "$d/bad.mir"
    [ "$status" -eq 2 ]
    [[ $output == *"lt: parameter 1 is __m128 in the header but not in the MIR listing"* ]]
}

# --- differential execution of random kernels --------------------------------------

@test "x86 diff: at least 10,000 random kernels from tools/gen-kernels, compiled, verified and run against rake-interp, without a mismatch" {
    [ -x "$BATS_FILE_TMPDIR/gen-kernels" ] || skip "tools/gen-kernels/ is not in the tree yet"
    local d=$BATS_TEST_TMPDIR/random b p s opt jobs=$BATS_TEST_TMPDIR/jobs
    mkdir -p "$d"
    : >"$jobs"
    for ((b = 0; b < BATCHES; b++)); do
        for p in "${X86[@]}"; do
            s=$((SEED * 1000 + b))
            # on the contracting profiles (compared with rake-interp
            # --contract) multiply-adds may contract, and every other batch
            # seeks them
            opt=-
            [ "$p" = x86-sse2 ] || opt=--contracting-ok
            [ "$p" = x86-sse2 ] || [ $((b % 2)) -eq 0 ] || opt=--contract-rich
            echo "$p $s $KERNELS $d/$p-$s $opt" >>"$jobs"
        done
    done
    # two at a time (the machine has two cores)
    local status_all=0
    xargs -P 2 -L 1 sh -c 'o=$6; [ "$o" != - ] || o=; "$0" "$1" "$2" "$3" "$4" "$5" $o >"$5.log" 2>&1 || echo "$5" >"$5.failed"' \
        "$T/random-batch" "$BATS_FILE_TMPDIR/gen-kernels" <"$jobs" || status_all=$?
    local gen=0 rej=0 ker=0 calls=0 mis=0 known=0 ran=0 failed=0 line
    for log in "$d"/*.log; do
        line=$(grep '^batch: ' "$log" || true)
        if [ -z "$line" ] || [ -f "${log%.log}.failed" ]; then
            failed=$((failed + 1))
            echo "--- ${log%.log}:"
            grep -v '^verified with a known bug:\|^rejected for register pressure:' "$log" | head -n 40
            [ -z "$line" ] && continue
        fi
        read -r g r k c m kb <<<"$(sed 's/^batch: [^:]*: \([0-9]*\) generated, \([0-9]*\) rejected, \([0-9]*\) kernels, \([0-9]*\) calls, \([0-9?]*\) mismatches, \([0-9]*\) with.*/\1 \2 \3 \4 \5 \6/' <<<"$line")"
        gen=$((gen + g)) rej=$((rej + r)) ker=$((ker + k)) calls=$((calls + c)) known=$((known + kb))
        [ "$m" = "?" ] || mis=$((mis + m))
        [[ $line != *", ran" ]] || ran=$((ran + k))
    done
    for p in "${X86[@]}"; do
        local pg=0 pr=0
        for log in "$d/$p"-*.log; do
            line=$(grep '^batch: ' "$log" || true)
            [ -n "$line" ] || continue
            pg=$((pg + $(sed 's/^[^:]*: [^:]*: \([0-9]*\) generated.*/\1/' <<<"$line")))
            pr=$((pr + $(sed 's/^[^:]*: [^:]*: [0-9]* generated, \([0-9]*\) rejected.*/\1/' <<<"$line")))
        done
        echo "# $p: $pg generated, $pr rejected (by the allocator: more values live at once than registers)" >&3
    done
    echo "# random kernels: $gen generated, $rej rejected, $ker compiled and verified, $ran run ($calls calls), $mis mismatches; $known functions verified but for a known verifier bug" >&3
    has_avx512 || echo "# x86-avx512: $no_avx512_reason" >&3
    [ "$failed" -eq 0 ]
    [ "$mis" -eq 0 ]
    [ "$ker" -ge "$MIN_KERNELS" ] || {
        echo "only $ker random kernels compiled and verified (at least $MIN_KERNELS wanted)"
        false
    }
}

# --- the calling convention ------------------------------------------------------------

@test "x86 abi: the MIR listing and its args table put each argument where System V does (the spec's scaled_sum and bounded_values on AVX2)" {
    local d=$BATS_TEST_TMPDIR/abi
    mkdir -p "$d"
    "$BIN/rakec" --emit-mir --target x86-avx2 "$T/abi/abi.rk" -o "$d/abi.mir"
    grep -qxF 'scratch scaled_sum(rack<f32> a in %ymm0, f32 scale in %xmm1, rack<f32> b in %ymm2) -> rack<f32> in %ymm0:' "$d/abi.mir"
    grep -qxF 'scratch bounded_values(u32 low in %edi, rack<u32> values in %ymm0, u32 high in %esi) -> rack<u32> in %ymm0:' "$d/abi.mir"
    grep -qxF 'scratch six_ints(i32 a in %edi, i32 b in %esi, u32 c in %edx, u32 d in %ecx, i32 e in %r8d, bool f in %r9d, rack<u32> v in %ymm0) -> rack<u32> in %ymm0:' "$d/abi.mir"
    grep -qxF 'scratch eight_vectors(rack<f32> a in %ymm0, rack<f32> b in %ymm1, rack<f32> c in %ymm2, rack<f32> d in %ymm3, f32 e in %xmm4, rack<f32> f in %ymm5, rack<i32> g in %ymm6, mask<32> h in %ymm7) -> rack<f32> in %ymm0:' "$d/abi.mir"
    grep -qxF 'scratch interleaved(i32 i in %edi, rack<f32> a in %ymm0, u32 j in %esi, f32 s in %xmm1, rack<f32> b in %ymm2, bool k in %edx) -> rack<f32> in %ymm0:' "$d/abi.mir"
    grep -qxF 'scratch every_positive(rack<f32> values in %ymm0) -> bool in %eax:' "$d/abi.mir"
    grep -qxF 'scratch fourth(rack<f32> values in %ymm0) -> f32 in %xmm0:' "$d/abi.mir"
    # the allocated rake.mir's args table says the same
    "$BIN/rakec" --stop-after ra --target x86-avx2 "$T/abi/abi.rk" -o "$d/abi.json"
    python3 -c '
import json, sys
fs = {f["name"]: f for f in json.load(open(sys.argv[1]))["functions"]}
print(" ".join(a["reg"] for a in fs["scaled_sum"]["args"]), fs["scaled_sum"]["result"]["reg"])
print(" ".join(a["reg"] for a in fs["bounded_values"]["args"]), fs["bounded_values"]["result"]["reg"])
print(fs["positive_bits"]["result"]["reg"], fs["fourth"]["result"]["reg"])' "$d/abi.json" >"$d/args"
    [ "$(sed -n 1p "$d/args")" = "ymm0 xmm1 ymm2 ymm0" ]
    [ "$(sed -n 2p "$d/args")" = "edi ymm0 esi ymm0" ]
    [ "$(sed -n 3p "$d/args")" = "eax xmm0" ]
    # and on the other profiles, with their register widths
    "$BIN/rakec" --emit-mir --target x86-sse2 "$T/abi/abi.rk" -o "$d/sse2.mir"
    grep -qxF 'scratch scaled_sum(rack<f32> a in %xmm0, f32 scale in %xmm1, rack<f32> b in %xmm2) -> rack<f32> in %xmm0:' "$d/sse2.mir"
    "$BIN/rakec" --emit-mir --target x86-avx512 "$T/abi/abi.rk" -o "$d/avx512.mir"
    grep -qxF 'scratch scaled_sum(rack<f32> a in %zmm0, f32 scale in %xmm1, rack<f32> b in %zmm2) -> rack<f32> in %zmm0:' "$d/avx512.mir"
    grep -qxF 'scratch bounded_values(u32 low in %edi, rack<u32> values in %zmm0, u32 high in %esi) -> rack<u32> in %zmm0:' "$d/avx512.mir"
    # a Boolean keeps only its value bit at entry: shifted left, then arithmetically right, by 31
    sed -n '/^scratch pick(/,/^$/p' "$d/abi.mir" | grep -A3 'vmovd .*%edi' >"$d/pick-entry"
    grep -q 'vpslld .*\$31' "$d/pick-entry" && grep -q 'vpsrad .*\$31' "$d/pick-entry"
}

abi_profile() {
    local p=$1 d=$BATS_TEST_TMPDIR/abi-$1
    mkdir -p "$d"
    "$BIN/rakec" --emit-header "$d/abi.h" --target "$p" "$T/abi/abi.rk"
    "$BIN/rakec" --verify-native --target "$p" "$T/abi/abi.rk" -o "$d/abi.o"
    # shellcheck disable=SC2046
    cc -std=c11 -O1 -Wall -Wextra -Werror -ffp-contract=off $(cflags_of "$p") -I"$d" \
        -o "$d/abi" "$T/abi/abi.c" "$d/abi.o"
    if [ "$p" = x86-avx512 ] && ! has_avx512; then
        skip "$no_avx512_reason"
    fi
    run "$d/abi"
    echo "$output"
    [ "$status" -eq 0 ]
    echo "# $p: ${lines[${#lines[@]} - 1]}" >&3
}

@test "x86 abi: C calls on x86-sse2: uniforms between racks, integer uniforms, bools with garbage upper bits, eax results" {
    abi_profile x86-sse2
}

@test "x86 abi: C calls on x86-avx2: uniforms between racks, integer uniforms, bools with garbage upper bits, eax results" {
    abi_profile x86-avx2
}

@test "x86 abi: C calls on x86-avx512 (run only with avx512f): uniforms between racks, integer uniforms, bools with garbage upper bits, eax results" {
    abi_profile x86-avx512
}

@test "x86 abi: a ninth SSE-class argument or a seventh integer argument is rejected, naming the kernel and the stack" {
    local d=$BATS_TEST_TMPDIR/toomany p
    mkdir -p "$d"
    for p in "${X86[@]}"; do
        run "$BIN/rakec" -c --target "$p" "$T/abi/too-many-vectors.rk" -o "$d/v.o"
        [ "$status" -eq 1 ]
        [[ ${lines[0]} == *"too-many-vectors.rk:2:1: error: nine needs a 9th SSE-class argument register; System V passes eight in registers, and Rake never passes arguments on the stack" ]]
        run "$BIN/rakec" -c --target "$p" "$T/abi/too-many-ints.rk" -o "$d/i.o"
        [ "$status" -eq 1 ]
        [[ ${lines[0]} == *"too-many-ints.rk:2:1: error: seven needs a 7th integer argument register; System V passes six in registers, and Rake never passes arguments on the stack" ]]
        [ -z "$(ls "$d")" ]
    done
}

@test "x86 masked: AVX-512 writes a select's one-operation arm under the select's mask, with no blend and no sanitizing of the arm's operands (masked.rk runs against rake-interp above)" {
    local d=$BATS_TEST_TMPDIR
    "$BIN/rakec" -S --no-report --target x86-avx512 -o "$d/m.s" "$T/masked.rk"
    # the body of each function: its instructions, directives left out
    body() { awk -v f="$1:" '$1 == f {on = 1; next} on && /^[a-z_]+:$/ {on = 0} on && /^\t[a-z]/' "$d/m.s"; }
    ! grep -q vpblendmd "$d/m.s"
    body bump >"$d/bump.s"
    cat "$d/bump.s"
    [ "$(wc -l <"$d/bump.s")" -eq 3 ]
    grep -qE '^	vaddps	%zmm1, %zmm0, %zmm0\{%k[1-7]\}$' "$d/bump.s"
    # the square root's operand is not sanitized: the mask keeps its
    # inactive lanes from raising invalid (tests/x86/fpflags checks MXCSR)
    body pick >"$d/pick.s"
    [ "$(wc -l <"$d/pick.s")" -eq 3 ]
    grep -qE '^	vsqrtps	%zmm1, %zmm0\{%k[1-7]\}$' "$d/pick.s"
    body moved | grep -qE '^	vfmadd231ps	.*\{%k[1-7]\}$'
    [ "$(body nested | wc -l)" -eq 5 ]
    [ "$(body both | wc -l)" -eq 5 ]
    # a rake's through arm zeroed outside its tine: a zeroing mask
    body rooted >"$d/rooted.s"
    [ "$(wc -l <"$d/rooted.s")" -eq 3 ]
    grep -qE '^	vsqrtps	%zmm0, %zmm0\{%k[1-7]\}\{z\}$' "$d/rooted.s"
    # AVX2 has no write masks: its selects stay blends
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$d/a.s" "$T/masked.rk"
    grep -q vblendvps "$d/a.s"
}

@test "x86 fpflags: inactive lanes raise no floating-point exception, an active square root of -1 does (MXCSR, on each profile)" {
    local p d
    for p in "${X86[@]}"; do
        d=$BATS_TEST_TMPDIR/fpflags-$p
        mkdir -p "$d"
        "$BIN/rakec" --emit-header "$d/fpflags.h" --target "$p" "$T/fpflags/fpflags.rk"
        "$BIN/rakec" --verify-native --target "$p" "$T/fpflags/fpflags.rk" -o "$d/f.o"
        # shellcheck disable=SC2046
        cc -std=c11 -O1 -Wall -Wextra -Werror $(cflags_of "$p") -I"$d" -o "$d/fpflags" "$T/fpflags/fpflags.c" "$d/f.o"
        if [ "$p" = x86-avx512 ] && ! has_avx512; then
            echo "# x86-avx512: $no_avx512_reason" >&3
            continue
        fi
        run "$d/fpflags"
        echo "$output"
        [ "$status" -eq 0 ]
        echo "# $p: ${lines[${#lines[@]} - 1]}" >&3
    done
}

# --- the object verifier on altered objects ---------------------------------------------

@test "x86 verify: a malformed object is refused with its defect named; relocations for .text add up over several tables" {
    local d=$BATS_TEST_TMPDIR/elf e
    mkdir -p "$d"
    "$BIN/rakec" -S --no-report --target x86-avx2 examples/kernels.rk -o "$d/k.s"
    "$BIN/rakec" --stop-after ra --target x86-avx2 examples/kernels.rk -o "$d/k.mir.json"
    as --64 "$d/k.s" -o "$d/k.o"
    "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    for e in "truncate:not a little-endian ELF64 file" "executable:not a relocatable object" \
        "headers-beyond:bad section header table" "text-beyond:a section lies outside the file" \
        "text-nobits:.text or .rodata has no contents in the file (NOBITS)" \
        "strtab-nobits:bad symbol table" \
        "symtab-entsize:bad symbol table" "two-symtabs:two symbol tables" \
        "rela-entsize:bad relocation table" "rela-symbol:a relocation names no symbol"; do
        "$T/elf-edit" "$d/k.o" "$d/e.o" "${e%%:*}"
        run "$BIN/rake-verify" --object "$d/e.o" <"$d/k.mir.json"
        [ "$status" -eq 1 ]
        [ "$output" = "rake-verify: elf: $d/e.o: ${e#*:}" ]
        # and reads nothing outside the file (the sanitizer build says so)
        if [ -x "$ASAN_BIN/rake-verify" ]; then
            run "$ASAN_BIN/rake-verify" --object "$d/e.o" <"$d/k.mir.json"
            [ "$status" -eq 1 ]
            [ "$output" = "rake-verify: elf: $d/e.o: ${e#*:}" ]
        fi
    done
    # .text's relocations in two tables (as never writes that; a linker
    # script or another assembler may): every constant load still finds
    # its relocation ...
    "$T/elf-edit" "$d/k.o" "$d/e.o" split-rela
    [ "$(readelf -r "$d/e.o" | grep -c '^Relocation section')" -eq 2 ]
    "$BIN/rake-verify" --object "$d/e.o" <"$d/k.mir.json"
    # ... and without the second table, those it held are missed
    "$T/elf-edit" "$d/k.o" "$d/e.o" lose-rela
    run "$BIN/rake-verify" --object "$d/e.o" <"$d/k.mir.json"
    [ "$status" -eq 1 ]
    [[ $output == *"relocation: a constant operand needs an R_X86_64_PC32 relocation into .rodata"* ]]
}

# tamper PROFILE FILE.rk SED-SCRIPT RULE [MIR-SED-SCRIPT]: assemble the
# kernels' -S output edited by SED-SCRIPT and check it against the
# allocated MIR (from --stop-after ra, edited by MIR-SED-SCRIPT if given):
# the unaltered object verifies, the altered one is rejected with exit 1
# and a message naming RULE.
tamper() {
    local p=$1 rk=$2 edit=$3 rule=$4 medit=${5:-} d=$BATS_TEST_TMPDIR/tamper
    mkdir -p "$d"
    "$BIN/rakec" -S --target "$p" "$rk" -o "$d/k.s"
    "$BIN/rakec" --stop-after ra --target "$p" "$rk" -o "$d/k.mir.json"
    as --64 "$d/k.s" -o "$d/k.o"
    "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    sed -e "$edit" "$d/k.s" >"$d/bad.s"
    if cmp -s "$d/k.s" "$d/bad.s"; then
        echo "the edit changed nothing: $edit"
        return 1
    fi
    cp "$d/k.mir.json" "$d/bad.mir.json"
    if [ -n "$medit" ]; then
        sed -e "$medit" "$d/k.mir.json" >"$d/bad.mir.json"
        ! cmp -s "$d/k.mir.json" "$d/bad.mir.json"
    fi
    as --64 "$d/bad.s" -o "$d/bad.o"
    run "$BIN/rake-verify" --object "$d/bad.o" <"$d/bad.mir.json"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *": $rule: "* ]]
    [[ ${lines[${#lines[@]} - 1]} == "rake-verify: $d/bad.o fails verification" ]]
}

N=$T/negative/kernels.rk

@test "x86 verifier: a call is rejected (control-flow)" {
    tamper x86-sse2 "$N" 's/^add:$/add:\n\tcall\t1f\n1:/' control-flow
}

@test "x86 verifier: a call to a helper is rejected (relocation, control-flow)" {
    tamper x86-avx2 "$N" 's/^add:$/add:\n\tcall\thelper/' control-flow
    [[ $output == *"rake-verify: relocation: "*"against helper"* ]]
}

@test "x86 verifier: a spill to the stack and its reload are rejected (stack)" {
    tamper x86-sse2 "$N" '/^add:/,/ret/s/^\taddps\t\(%xmm[0-9]*\), \(%xmm[0-9]*\)$/&\n\tmovaps\t\2, -16(%rsp)\n\tmovaps\t-16(%rsp), \2/' stack
    tamper x86-avx2 "$N" '/^add:/,/ret/s/^\tvaddps\t\(%ymm[0-9]*\), \(%ymm[0-9]*\), \(%ymm[0-9]*\)$/&\n\tvmovups\t\3, -32(%rsp)\n\tvmovups\t-32(%rsp), \3/' stack
}

@test "x86 verifier: SSE4.1's pminsd in an x86-sse2 object is rejected (isa)" {
    tamper x86-sse2 "$N" '/^imin:/,/ret/s/^\tpcmpgtd\t/\tpminsd\t/' isa
    [[ $output == *"pminsd is not SSE2"* ]]
}

@test "x86 verifier: an extra fused multiply-add in an x86-avx2 object is rejected (fma-count)" {
    tamper x86-avx2 "$N" '/^mul_add:/,/ret/s/^\tvmulps\t/\tvfmadd231ps\t/' fma-count
    [[ $output == *"mul_add: fma-count: 1 fused multiply-adds, but 0 were selected"* ]]
}

@test "x86 verifier: a missing fused multiply-add in an x86-avx2 object is rejected (fma-count)" {
    tamper x86-avx2 "$T/negative/fma.rk" 's/^\tvfmadd231ps\t\(%ymm[0-9]*\), \(%ymm[0-9]*\), \(%ymm[0-9]*\)$/\tvmulps\t\1, \2, %ymm15\n\tvaddps\t%ymm15, \3, \3/' fma-count
    [[ $output == *"fused: fma-count: 0 fused multiply-adds, but 1 were selected"* ]]
}

@test "x86 verifier: scalar addss on a rack is rejected (whole-register)" {
    tamper x86-sse2 "$N" '/^add:/,/ret/s/^\taddps\t/\taddss\t/' whole-register
    tamper x86-avx2 "$N" '/^add:/,/ret/s/^\tvaddps\t%ymm\([0-9]*\), %ymm\([0-9]*\), %ymm\([0-9]*\)$/\tvaddss\t%xmm\1, %xmm\2, %xmm\3/' whole-register
}

@test "x86 verifier: an EVEX instruction in an x86-avx2 object is rejected (isa)" {
    tamper x86-avx2 "$N" '/^add:/,/ret/s/^\tvaddps\t%ymm\([0-9]*\), %ymm\([0-9]*\), %ymm\([0-9]*\)$/\tvaddps\t%zmm\1, %zmm\2, %zmm\3/' isa
    tamper x86-avx2 "$N" '/^add:/,/ret/s/^\tvaddps\t\(.*\)$/\tvaddps\t\1{%k1}/' isa
    [[ $output == *"an x86-avx2 object has no EVEX (AVX-512) instructions"* ]]
}

@test "x86 verifier: a wrong constant in .rodata is rejected (constant)" {
    tamper x86-sse2 "$N" '0,/0x3f000000/s//0x3f000001/' constant
    tamper x86-avx512 "$N" '0,/0x3f000000/s//0xbf000000/' constant
}

@test "x86 verifier: a memory operand other than a constant load is rejected (memory)" {
    # half reads its constant 0.5 from the pool: read other memory instead
    tamper x86-sse2 "$N" 's/^\tmulps\t\.Lrk_half_c0(%rip), \(%xmm[0-9]*\)$/\tmulps\t(%rdi), \1/' memory
}

@test "x86 verifier: a general-register write is rejected (allowlist, selection, scalar-transfer)" {
    # an instruction outside the list
    tamper x86-sse2 "$N" 's/^count:$/count:\n\tnotl\t%ecx/' allowlist
    # the terminal transfer into another register than the selection's eax
    tamper x86-sse2 "$N" 's/^\tmovd\t%xmm\([0-9]*\), %eax$/\tmovd\t%xmm\1, %ecx/' selection
    # and the same in a selection that claims it: only eax is a result
    tamper x86-avx2 "$N" 's/^\tvmovd\t%xmm\([0-9]*\), %eax$/\tvmovd\t%xmm\1, %ecx/' scalar-transfer 's/"reg": "eax",/"reg": "ecx",/'
    [[ $output == *"ecx is written from a vector register; a kernel's only such transfer is its terminal one into its result register"* ]]
}

@test "x86 verifier: nop padding is accepted before a loop head only (allowlist)" {
    local rk=$RAKE_ROOT/bench/kernels/clamp.rk d=$BATS_TEST_TMPDIR
    "$BIN/rakec" -S --no-report --target x86-avx2 "$rk" -o "$d/k.s"
    "$BIN/rakec" --stop-after ra --target x86-avx2 "$rk" -o "$d/k.mir.json"
    # the rotated loop's head (the target of the branch back) is aligned
    grep -A1 '^	\.p2align 5$' "$d/k.s" | grep -q '^\.Lrk_clamp_counts_b2:$'
    grep -q '^	jl	\.Lrk_clamp_counts_b2$' "$d/k.s"
    # more padding there (a nop the assembler didn't need) still verifies
    sed 's/^\.Lrk_clamp_counts_b2:$/\tnop\n\tnopl\t(%rax)\n&/' "$d/k.s" >"$d/pad.s"
    ! cmp -s "$d/k.s" "$d/pad.s"
    as --64 "$d/pad.s" -o "$d/pad.o"
    "$BIN/rake-verify" --object "$d/pad.o" <"$d/k.mir.json"
    # a nop anywhere else is an instruction the selection doesn't have
    tamper x86-avx2 "$rk" 's/^clamp_counts:$/clamp_counts:\n\tnop/' allowlist
    tamper x86-avx2 "$rk" 's/^\(\tjl\t\.Lrk_clamp_counts_b2\)$/\tnop\n\1/' allowlist
}

@test "x86 verifier: two swapped instructions are rejected (selection)" {
    tamper x86-sse2 "$N" '/^imin:/,/ret/{/^\tandps/{N;s/\(.*\)\n\(.*\)/\2\n\1/}}' selection
}

# --- the command line -------------------------------------------------------------------

@test "x86 cli: -c, -S and --verify-native write stem.o and stem.s in the working directory, -o elsewhere; --emit-mir prints; --emit-header writes its file" {
    local d=$BATS_TEST_TMPDIR/names
    mkdir -p "$d/src" "$d/work" "$d/out"
    cp "$T/abi/abi.rk" "$d/src/kern.rk"
    cd "$d/work"
    "$BIN/rakec" -c --target x86-avx2 ../src/kern.rk
    [ -s kern.o ] && [ ! -e ../src/kern.o ]
    "$BIN/rakec" -S --target x86-avx2 ../src/kern.rk
    [ -s kern.s ] && grep -q '^scaled_sum:$' kern.s
    rm kern.o
    "$BIN/rakec" --verify-native --target x86-avx2 ../src/kern.rk
    [ -s kern.o ]
    "$BIN/rakec" -c --target x86-sse2 ../src/kern.rk -o ../out/a.o
    "$BIN/rakec" -S --target x86-sse2 ../src/kern.rk -o ../out/a.s
    "$BIN/rakec" --verify-native --target x86-sse2 ../src/kern.rk -o ../out/v.o
    [ -s ../out/a.o ] && [ -s ../out/a.s ] && [ -s ../out/v.o ]
    cmp ../out/a.o ../out/v.o
    run "$BIN/rakec" --emit-mir --target x86-avx2 ../src/kern.rk
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "scratch scaled_sum("* ]]
    "$BIN/rakec" --emit-mir --target x86-avx2 ../src/kern.rk -o ../out/k.mir
    [ "$(cat ../out/k.mir)" = "$output" ]
    "$BIN/rakec" --emit-header ../out/k.h --target x86-avx512 ../src/kern.rk
    grep -q '^__m512 scaled_sum(__m512 a, float scale, __m512 b);$' ../out/k.h
    grep -q '^__m512i bounded_values(uint32_t low, __m512i values, uint32_t high);$' ../out/k.h
    grep -q '^bool both(bool c, bool d);$' ../out/k.h
    # nothing else appeared
    [ "$(ls | sort | tr '\n' ' ')" = "kern.o kern.s " ]
    [ "$(ls ../out | sort | tr '\n' ' ')" = "a.o a.s k.h k.mir v.o " ]
}

@test "x86 cli: a compile that fails (too many live racks) leaves no output and no partial file, and keeps an old output" {
    local d=$BATS_TEST_TMPDIR/atomic p
    mkdir -p "$d"
    cd "$d"
    echo "old object" >out.o
    echo "old assembly" >out.s
    echo "old header" >out.h
    for p in "${X86[@]}"; do
        for mode in -c -S --verify-native; do
            case $mode in -S) o=out.s ;; *) o=out.o ;; esac
            run "$BIN/rakec" $mode --target "$p" "$T/cli/pressure.rk" -o "$o"
            [ "$status" -eq 1 ]
            [[ $output == *"scratch pressure needs more than"*"vector registers"*"Rake never spills to the stack"* ]]
        done
        run "$BIN/rakec" --emit-header out.h --target "$p" "$T/cli/pressure.rk"
        [ "$status" -eq 1 ]
        run "$BIN/rakec" -c --target "$p" "$T/cli/pressure.rk"
        [ "$status" -eq 1 ]
    done
    # the refusal's notes quote where the live values were computed
    run "$BIN/rakec" -c --target x86-avx2 "$T/cli/pressure.rk" -o out.o
    [[ $output == *"pressure.rk:5:14: note: 1 of them is computed here"$'\n'"  let p0 = a * a"* ]]
    [[ $output == *"pressure.rk: note: 7 of them are arguments or values carried into a block"* ]]
    [ "$(cat out.o)" = "old object" ] && [ "$(cat out.s)" = "old assembly" ] && [ "$(cat out.h)" = "old header" ]
    [ "$(ls | sort | tr '\n' ' ')" = "out.h out.o out.s " ]
}

@test "x86 cli: a rake refused for registers is lowered again for pressure (rake-lower --low-pressure), compiles, verifies and gives rake-interp's lanes" {
    local d=$BATS_TEST_TMPDIR f=$T/cli/pressure-sweep.rk
    "$BIN/rake-parse" "$f" | "$BIN/rake-check" --target x86-sse2 >"$d/c.json"
    # lowered as usual, rake-ra refuses it and names it in --refused (not
    # computing values again, as in rakec's first allocation)
    run sh -c "'$BIN/rake-lower' <'$d/c.json' | '$BIN/rake-opt' | '$BIN/rake-isel-x86' --profile x86-sse2 |
        '$BIN/rake-ra' --no-recompute --refused '$d/refused' >/dev/null"
    [ "$status" -eq 1 ]
    [[ $output == *"rake k0021_f needs more than the 15 vector registers of x86-sse2"* ]]
    [ "$(cat "$d/refused")" = k0021_f ]
    # lowered for pressure, it fits
    "$BIN/rake-lower" --low-pressure k0021_f <"$d/c.json" | "$BIN/rake-opt" |
        "$BIN/rake-isel-x86" --profile x86-sse2 | "$BIN/rake-ra" >/dev/null
    # rakec does that by itself, and the object verifies; its report says
    # so (AVX2 has the registers: no second lowering there)
    run "$BIN/rakec" --verify-native --no-report --target x86-sse2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    run "$BIN/rakec" -c --target x86-sse2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    [[ $output == *"k0021_f: lowered again for register pressure"* ]]
    run "$BIN/rakec" -c --target x86-avx2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    [[ $output != *"lowered again"* ]]
    run "$T/run-diff" --profile x86-sse2 --dir "$d/diff" --rk "$f" --calls "${f%.rk}.calls"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == *"1 kernels, 0 rejected"*"8 calls"*" 0 mismatches" ]]
    # a function still refused after that is the usual located error, and
    # rake-ra --refused goes on to name every refused function
    sed 's/^scratch pressure(/scratch pressure2(/' "$T/cli/pressure.rk" >"$d/two.rk"
    cat "$T/cli/pressure.rk" >>"$d/two.rk"
    "$BIN/rake-parse" "$d/two.rk" | "$BIN/rake-check" --target x86-avx2 | "$BIN/rake-lower" |
        "$BIN/rake-opt" | "$BIN/rake-isel-x86" --profile x86-avx2 >"$d/two.mir.json"
    : >"$d/refused"
    run "$BIN/rake-ra" --refused "$d/refused" <"$d/two.mir.json"
    [ "$status" -eq 1 ]
    [ "$(grep -c 'needs more than the 16 vector registers' <<<"$output")" -eq 2 ]
    [ "$(tr '\n' ' ' <"$d/refused")" = "pressure2 pressure " ]
    run "$BIN/rake-lower" --low-pressure
    [ "$status" -eq 2 ]
    [[ $output == *"usage: rake-lower [--low-pressure NAME]..."* ]]
}

# sse2_selected FILE OUT [RAKE-LOWER-OPTION...]: FILE's x86-sse2 selection
# (rake.mir, unallocated) in OUT; then refused_without_recompute OUT NAME:
# rake-ra --no-recompute refuses kernel NAME of it for vector registers.
sse2_selected() {
    local f=$1 out=$2
    shift 2
    "$BIN/rake-parse" "$f" | "$BIN/rake-check" --target x86-sse2 | "$BIN/rake-lower" "$@" |
        "$BIN/rake-opt" | "$BIN/rake-isel-x86" --profile x86-sse2 >"$out"
}

refused_without_recompute() {
    run "$BIN/rake-ra" --no-recompute <"$1"
    [ "$status" -eq 1 ]
    [[ $output == *"rake $2 needs more than the 15 vector registers of x86-sse2"* ]]
}

@test "x86 cli: rake-ra computes a value again where it is next read rather than refuse the rake (--no-recompute refuses it, lowered as usual or for pressure), and the object gives rake-interp's lanes" {
    local d=$BATS_TEST_TMPDIR f=$T/cli/pressure-recompute.rk
    sse2_selected "$f" "$d/m.json"
    refused_without_recompute "$d/m.json" k0298_i
    run "$BIN/rake-ra" --text <"$d/m.json"
    [ "$status" -eq 0 ]
    # the through's mask, negated (one xorps of a mask live anyway), is
    # computed twice: where the rake first needs it, and again before the
    # sweep's arm reads it (the listing marks rake-ra's additions)
    [ "$(grep -c '^ *xorps .*; mask.not %7$' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^ *xorps .*; mask.not %7 (again)$' <<<"$output")" -eq 1 ]
    # lowered for pressure (rakec's second try), it still needs more than
    # fifteen registers, and fits once a select of a2 by that mask (an
    # andnps of two values live anyway) is made again
    sse2_selected "$f" "$d/lp.json" --low-pressure k0298_i
    refused_without_recompute "$d/lp.json" k0298_i
    run "$BIN/rake-ra" --text <"$d/lp.json"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^ *andnps .*; mask.select %9 (again)$' <<<"$output")" -eq 1 ]
    # rake-ra's additions carry "again" in the document (the schema's
    # const true), and the report counts them: a copy and the andnps, a
    # constant
    "$BIN/rake-ra" <"$d/lp.json" >"$d/ra.json"
    tools/validate-ir ir-schema/rake.mir.schema.json "$d/ra.json"
    [ "$(jq '[.functions[].blocks[].code[] | select(.again == true)] | length' "$d/ra.json")" -eq 3 ]
    # rakec does both (lowering for pressure first: it is usually the
    # shorter code), and the object verifies
    run "$BIN/rakec" -c --target x86-sse2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    [[ $output == *"  rake k0298_i: "*" instructions"$'\n'"    registers ran out: 3 instructions repeat a load or a computation (docs/x86.md)"$'\n'"  k0298_i: lowered again for register pressure"* ]]
    # a kernel with registers to spare has neither
    run "$BIN/rakec" -c --target x86-avx2 "$f" -o "$d/k.o"
    [[ $output != *"registers ran out"* ]] && [[ $output != *"lowered again"* ]]
    run "$BIN/rakec" --verify-native --no-report --target x86-sse2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    run "$T/run-diff" --profile x86-sse2 --dir "$d/diff" --rk "$f" --calls "${f%.rk}.calls"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == *"1 kernels, 0 rejected"*"8 calls"*" 0 mismatches" ]]
}

@test "x86 cli: computing a value again follows its dead sources, as many as SSE2's long spellings take, and the object gives rake-interp's lanes" {
    local d=$BATS_TEST_TMPDIR f=$T/cli/pressure-chain.rk
    # refused lowered for pressure, unless values are computed again
    sse2_selected "$f" "$d/lp.json" --low-pressure k0040_m
    refused_without_recompute "$d/lp.json" k0040_m
    run "$BIN/rake-ra" --text <"$d/lp.json"
    [ "$status" -eq 0 ]
    # some value takes more than one instruction to compute again (a
    # computation of several groups: a run of (again) lines longer than
    # one op's copy-and-rewrite pair)
    [ "$(awk '/\(again\)$/ { n++; if (n > max) max = n; next } { n = 0 } END { print max + 0 }' <<<"$output")" -gt 2 ]
    run "$BIN/rakec" -c --target x86-sse2 "$f" -o "$d/k.o"
    [ "$status" -eq 0 ]
    [[ $output == *"    registers ran out: "*"  k0040_m: lowered again for register pressure"* ]]
    run "$T/run-diff" --profile x86-sse2 --dir "$d/diff" --rk "$f" --calls "${f%.rk}.calls"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == *"2 kernels, 0 rejected"*"8 calls"*" 0 mismatches" ]]
}

@test "x86 cli: RAKE_X86_AS names the assembler; an assembler that fails leaves no object" {
    local d=$BATS_TEST_TMPDIR/as
    mkdir -p "$d"
    cd "$d"
    cat >fake-as <<EOF
#!/bin/sh
echo "\$@" >>"$d/as.log"
exec as "\$@"
EOF
    cat >broken-as <<EOF
#!/bin/sh
# writes half an object, then fails
for a in "\$@"; do last=\$a; done
echo partial >"\$last"
exit 1
EOF
    chmod +x fake-as broken-as
    RAKE_X86_AS=$d/fake-as "$BIN/rakec" -c --target x86-avx2 "$T/ops.rk" -o ops.o
    grep -q -- '--64 .*out\.s -o .*out\.o' as.log
    RAKE_X86_AS=$d/fake-as "$BIN/rakec" --verify-native --target x86-sse2 "$T/ops.rk" -o ops2.o
    [ "$(wc -l <as.log)" -eq 2 ]
    "$BIN/rakec" -c --target x86-avx2 "$T/ops.rk" -o plain.o
    cmp ops.o plain.o
    run env RAKE_X86_AS=$d/broken-as "$BIN/rakec" -c --target x86-avx2 "$T/ops.rk" -o broken.o
    [ "$status" -eq 3 ]
    [[ $output == *"the assembler rejected the generated assembly"* ]]
    [ "$(ls | grep -c '^broken\.o')" -eq 0 ]
}

@test "x86 cli: module constants fold into kernels: a file of kernels and constants compiles" {
    local d=$BATS_TEST_TMPDIR/consts
    mkdir -p "$d"
    cd "$d"
    printf 'const scale: f32 = 2.5\nconst bias: i32 = -(3)\n\nscratch f(a: f32s, b: i32s) -> f32s:\n  a * scale + to_f32(b + bias)\n' >k.rk
    for p in "${X86[@]}"; do
        run "$BIN/rakec" --verify-native --target "$p" -o "k-$p.o" k.rk
        [ "$status" -eq 0 ] || { echo "$output"; false; }
    done
    # with state it is a whole program: a C unit holds the state, the
    # kernels are still verified in its object, and there is no main
    printf 'state n: i32 := 0\n' >>k.rk
    run "$BIN/rakec" --verify-native --no-report --target x86-avx2 -o s.o k.rk
    [ "$status" -eq 0 ]
    nm s.o | grep -q ' f$'
    ! nm s.o | grep -q ' T main$'
    run "$BIN/rakec" --run --target x86-avx2 k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "rakec: k.rk has no slow main, so it can't become an executable (-c writes an object)" ]
}

@test "x86 cli: a failed verification names the output it didn't write" {
    local d=$BATS_TEST_TMPDIR/vfail
    mkdir -p "$d"
    cd "$d"
    # a verifier that finds the object wrong: the real one on a doctored selection
    printf '#!/bin/sh\nsed "s/\\"fmas\\": *1/\\"fmas\\":2/" | "%s/rake-verify" "$@"\n' "$BIN" >fake-verify
    chmod +x fake-verify
    RAKE_PASS_VERIFY=$PWD/fake-verify run "$BIN/rakec" --verify-native --target x86-avx2 -o mine.o "$RAKE_ROOT/examples/kernels.rk"
    [ "$status" -eq 1 ]
    [[ $output == *"rake-verify: mine.o fails verification"* ]]
    [[ ${lines[${#lines[@]} - 1]} == "rakec: mine.o was not written" ]]
    [[ $output != *"/tmp/"* ]]
    [ ! -e mine.o ]
}

@test "x86 cli: a whole program (a run and slow main) builds in every backend mode" {
    local d=$BATS_TEST_TMPDIR/whole p mode
    mkdir -p "$d"
    cd "$d"
    for p in "${X86[@]}"; do
        run "$BIN/rakec" -S --no-report --target "$p" "$T/cli/whole.rk" -o w.s
        [ "$status" -eq 0 ] && grep -q '^doubled:$' w.s && ! grep -q '^main:$' w.s
        run "$BIN/rakec" --emit-mir --target "$p" "$T/cli/whole.rk" -o w.mir
        [ "$status" -eq 0 ] && grep -q 'doubled' w.mir
        run "$BIN/rakec" --emit-c --no-report --target "$p" "$T/cli/whole.rk" -o w.c
        [ "$status" -eq 0 ] && grep -q '^int main(int argc, char \*\*argv)$' w.c
        for mode in -c --verify-native; do
            rm -f w.o
            run "$BIN/rakec" $mode --no-report --target "$p" "$T/cli/whole.rk" -o w.o
            [ "$status" -eq 0 ]
            nm w.o | grep -q ' T main$'
            nm w.o | grep -q ' t doubled$\| T doubled$'
        done
        run "$BIN/rakec" --emit-exe --no-report --target "$p" "$T/cli/whole.rk" -o w
        [ "$status" -eq 0 ] && [ -x w ]
        if [ "$p" != x86-avx512 ] || has_avx512; then
            run ./w
            [ "$status" -eq 2 ] && [ -z "$output" ]
            run "$BIN/rakec" --run --target "$p" "$T/cli/whole.rk"
            [ "$status" -eq 0 ] && [ "$output" = 2 ]
        fi
        run "$BIN/rakec" --emit-header w.h --target "$p" "$T/cli/whole.rk"
        [ "$status" -eq 0 ]
        grep -q '^void doubled(struct rake_stack_Samples_v2 \*samples);$' w.h
    done
}

@test "x86 cli: the same input gives byte-identical .s, .o, header and MIR, whenever and from wherever it is compiled" {
    local d=$BATS_TEST_TMPDIR/det p
    mkdir -p "$d/one" "$d/two" "$d/src"
    cp "$T/ops.rk" "$d/src/ops.rk"
    for p in "${X86[@]}"; do
        (cd "$d/one" && "$BIN/rakec" -S --target "$p" "$d/src/ops.rk" -o k.s &&
            "$BIN/rakec" -c --target "$p" "$d/src/ops.rk" -o k.o &&
            "$BIN/rakec" --emit-header k.h --target "$p" "$d/src/ops.rk" &&
            "$BIN/rakec" --emit-mir --target "$p" "$d/src/ops.rk" -o k.mir)
        (cd "$d/two" && export TMPDIR=$d/two &&
            "$BIN/rakec" -c --target "$p" "$d/src/ops.rk" -o k.o &&
            "$BIN/rakec" -S --target "$p" "$d/src/ops.rk" -o k.s &&
            "$BIN/rakec" --emit-mir --target "$p" "$d/src/ops.rk" -o k.mir &&
            "$BIN/rakec" --emit-header k.h --target "$p" "$d/src/ops.rk")
        cmp "$d/one/k.s" "$d/two/k.s"
        cmp "$d/one/k.o" "$d/two/k.o"
        cmp "$d/one/k.h" "$d/two/k.h"
        cmp "$d/one/k.mir" "$d/two/k.mir"
    done
}

# --- reproducers ---------------------------------------------------------------------------

@test "x86 repro: fixed backend bugs stay fixed; open ones are reported" {
    local f name status_line check profiles p d open=0 fixed=0 bad=0 reproduces
    for f in "$T"/repro/*.rk; do
        name=$(basename "$f" .rk)
        status_line=$(sed -n 's/^~~ status: //p' "$f")
        check=$(sed -n 's/^~~ check: //p' "$f")
        profiles=$(sed -n 's/^~~ profiles: //p' "$f")
        reproduces=
        for p in $profiles; do
            d=$BATS_TEST_TMPDIR/repro-$name-$p
            case $check in
            diff)
                "$T/run-diff" --profile "$p" --dir "$d" --rk "$f" --make-calls 100 --seed "$SEED" >"$d.out" 2>&1 ||
                    reproduces="$reproduces $p" ;;
            verify)
                mkdir -p "$d"
                "$BIN/rakec" --verify-native --target "$p" "$f" -o "$d/k.o" >"$d.out" 2>&1 ||
                    reproduces="$reproduces $p" ;;
            c)
                # NAME.c, compiled with the header and object, exits 1 while
                # the bug reproduces (not run where the CPU lacks the ISA)
                mkdir -p "$d"
                if [ "$p" = x86-avx512 ] && ! has_avx512; then
                    echo "# $name: not run on x86-avx512: $no_avx512_reason" >&3
                    continue
                fi
                { "$BIN/rakec" --emit-header "$d/$name.h" --target "$p" "$f" &&
                    "$BIN/rakec" --verify-native --target "$p" "$f" -o "$d/k.o" &&
                    cc -std=c11 -O1 $(cflags_of "$p") -I"$d" -o "$d/run" "${f%.rk}.c" "$d/k.o"; } >"$d.out" 2>&1 || {
                    echo "$name: doesn't build on $p: $(head -n 3 "$d.out")"
                    bad=$((bad + 1))
                    continue
                }
                "$d/run" >>"$d.out" 2>&1 || reproduces="$reproduces $p" ;;
            *)
                echo "$name: unknown check '$check'"
                bad=$((bad + 1)) ;;
            esac
        done
        if [ "$status_line" = fixed ]; then
            fixed=$((fixed + 1))
            if [ -n "$reproduces" ]; then
                echo "$name (fixed) reproduces again on$reproduces:"
                cat "$BATS_TEST_TMPDIR"/repro-"$name"-*.out | head -n 20
                bad=$((bad + 1))
            fi
        else
            open=$((open + 1))
            if [ -n "$reproduces" ]; then
                echo "# open: $name still reproduces on$reproduces" >&3
            else
                echo "# open: $name no longer reproduces: mark it fixed (and drop its line from tests/x86/known-bugs.txt)" >&3
            fi
        fi
    done
    echo "# $fixed fixed and $open open reproducers" >&3
    [ "$bad" -eq 0 ]
}

# The backend under AddressSanitizer and UBSan: a read past an array or a
# bool loaded from garbage (rake-isel-x86 once read the facts of vreg -1
# for a benign select read raw, seq.c note_zero_through) is reported
# here, whatever code it happened to give.
@test "x86 sanitizers: rake-lower to rake-emit of the sanitizer build on every example, conformance, run and benchmark program and a random batch, each x86 profile, with no report" {
    [ -x "$ASAN_BIN/rake-isel-x86" ] && [ -x "$ASAN_BIN/rake-ra" ] && [ -x "$ASAN_BIN/rake-emit" ] ||
        skip "no sanitizer build of the passes in build-asan/bin (make asan)"
    local f p n=0 d=$BATS_TEST_TMPDIR st first
    for p in "${X86[@]}"; do
        "$BATS_FILE_TMPDIR/gen-kernels" --seed 5 --count 60 --profile "$p" \
            --out-rk "$d/random-$p.rk" --out-calls "$d/random-$p.calls"
    done
    : >"$d/failures"
    for f in "$RAKE_ROOT"/examples/*.rk "$SHARED"/conformance/*.rk "$RAKE_ROOT"/tests/runs/*/*.rk \
        "$RAKE_ROOT"/bench/kernels/*.rk "$d"/random-*.rk; do
        for p in "${X86[@]}"; do
            [[ $f != */random-* || $f == */random-$p.rk ]] || continue
            "$BIN/rake-parse" "$f" 2>/dev/null | "$BIN/rake-check" --target "$p" >"$d/c.json" 2>/dev/null || continue
            {
                "$ASAN_BIN/rake-lower" <"$d/c.json" 2>"$d/err" | "$ASAN_BIN/rake-opt" 2>>"$d/err" |
                    "$ASAN_BIN/rake-isel-x86" --profile "$p" 2>>"$d/err" | "$ASAN_BIN/rake-ra" 2>>"$d/err" |
                    "$ASAN_BIN/rake-emit" >/dev/null 2>>"$d/err"
                st="${PIPESTATUS[*]}"
            } || true
            n=$((n + 1))
            # a program refused for registers stops with status 1 and a
            # located error (the passes after it then read no document);
            # a sanitizer report or an internal error (2 and up) first is a
            # failure
            first=$(tr ' ' '\n' <<<"$st" | grep -v '^0$' | head -n 1)
            if grep -qE 'runtime error|Sanitizer' "$d/err" || [ "${first:-0}" -ge 2 ]; then
                echo "$f $p: status $st" >>"$d/failures"
                head -n 5 "$d/err" >>"$d/failures"
            fi
        done
    done
    echo "$n compiles under the sanitizers"
    [ "$n" -ge 120 ]
    [ ! -s "$d/failures" ] || { cat "$d/failures"; return 1; }
}
