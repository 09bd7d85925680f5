#!/usr/bin/env bats
# tests/52-native-runs.bats: native stack runs on x86-sse2, x86-avx2 and
# x86-avx512 (rake-isel-x86's run.c), the object verifier on them, and
# the kernel report.
#
#   patterns    every selection pattern of one rack (16 on SSE2, 256 on
#               AVX2, a fixed random 4,096 of AVX-512's 65,536) through
#               compaction and masked update; tails of every count from 0
#               to three racks plus one; u8, i16, i32 and f32 columns
#               compacted together; a run reading a second stack.  Each
#               column ends at an inaccessible page, so touching one record
#               past the count faults (tests/native/patterns.c).
#   compiles    the conformance programs marked `compiles:` for x86 build
#               and verify on every x86 profile
#   verifier    a run altered by one byte in a branch offset, an address
#               operand or an embedded literal, or given a call, is rejected
#   refusals    what native runs don't do yet is a located error
#   report      the kernel report, line for line as spec page 03 shows it
#
# AVX-512 code runs only where /proc/cpuinfo has avx512f; elsewhere it is
# compiled and verified, and the test says it skipped the execution.
load lib/common

X86=(x86-sse2 x86-avx2 x86-avx512)
NT=$RAKE_ROOT/tests/native

has_avx512() { [ -z "${RAKE_X86_NO_AVX512:-}" ] && grep -qw avx512f /proc/cpuinfo; }
no_avx512_reason="this CPU has no avx512f (/proc/cpuinfo): AVX-512 code compiled and verified, not run"

lanes_of() {
    case $1 in x86-sse2) echo 4 ;; x86-avx2) echo 8 ;; x86-avx512) echo 16 ;; esac
}

# build_patterns PROFILE: the runs' object, verified, and the harness.
build_patterns() {
    local p=$1 d=$BATS_TEST_TMPDIR/$1
    mkdir -p "$d"
    "$BIN/rakec" --verify-native --no-report --target "$p" "$NT/patterns.rk" -o "$d/runs.o"
    cc -O1 -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror "$NT/patterns.c" "$d/runs.o" -o "$d/patterns"
}

patterns() {
    local p=$1 mode=$2
    build_patterns "$p"
    if [ "$p" = x86-avx512 ] && ! has_avx512; then
        skip "$no_avx512_reason"
    fi
    run "$BATS_TEST_TMPDIR/$p/patterns" "$(lanes_of "$p")" "$mode"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *" cases" ]]
}

@test "native runs: every selection pattern of one rack on x86-sse2 (16)" {
    patterns x86-sse2 select
    [ "$output" = "96 cases" ]
}

@test "native runs: every selection pattern of one rack on x86-avx2 (256)" {
    patterns x86-avx2 select
    [ "$output" = "1536 cases" ]
}

@test "native runs: 4,096 selection patterns of one rack on x86-avx512 (run only with avx512f)" {
    patterns x86-avx512 select
    [ "$output" = "24576 cases" ]
}

@test "native runs: tails of 0 to three racks plus one record, every profile" {
    for p in x86-sse2 x86-avx2; do
        patterns "$p" tails
    done
    patterns x86-avx512 tails
}

@test "native runs: the page fence catches a run touching one record past its columns" {
    build_patterns x86-avx2
    PATTERNS_SHORT=1 run "$BATS_TEST_TMPDIR/x86-avx2/patterns" 8 tails
    [ "$status" -ne 0 ]
    [[ $output != *" cases" ]]
}

@test "native runs: the conformance programs for x86 compile and verify on every x86 profile" {
    local n=0
    for f in "$SHARED"/conformance/*.rk; do
        grep -q '^~~ compiles:.*x86' "$f" || continue
        for p in "${X86[@]}"; do
            grep -q "^~~ compiles:.* $p" "$f" || grep -q "^~~ compiles: $p" "$f" || continue
            run "$BIN/rakec" --verify-native --no-report --target "$p" "$f" -o "$BATS_TEST_TMPDIR/o.o"
            echo "$f $p: $output"
            [ "$status" -eq 0 ]
            n=$((n + 1))
        done
    done
    [ "$n" -ge 12 ]
}

# --- whole programs: --run against --interpret ----------------------------------

# code_programs: every program of the conformance suite, tests/ and
# examples/ with `slow main` that declares a run or a kernel (the others
# are tests/56-cgen.bats's oracle programs), has an `expect` or `trap`
# header, and whose `~~ targets:` (if any) include x86; one of each content.
code_programs() {
    local f t seen=" " sum
    for f in "$SHARED"/conformance/*.rk $(find "$RAKE_ROOT/tests" "$RAKE_ROOT/examples" -name '*.rk' | sort); do
        grep -q '^slow main' "$f" && grep -qE '^(scratch|rake|run) ' "$f" || continue
        grep -qE '^~~ (expect|trap):' "$f" || case $f in */examples/*) ;; *) continue ;; esac
        t=$(sed -n 's/^~~ targets: *//p' "$f" | head -n 1)
        [ -z "$t" ] || [[ " $t " == *" any "* || " $t " == *" x86-"* ]] || continue
        sum=$(cksum <"$f" | cut -d' ' -f1)
        [[ $seen == *" $sum "* ]] && continue
        seen+="$sum "
        echo "$f"
    done
}

# run_vs_interpret FILE PROFILE: --run's stdout, stderr and status against
# --interpret's (a `~~ env:` header applies to both); differences are
# appended to $T/failures.
run_vs_interpret() {
    local f=$1 p=$2 envs rc1=0 rc2=0 d=$BATS_TEST_TMPDIR
    envs=$(sed -n 's/^~~ env: *//p' "$f" | head -n 1)
    env $envs "$BIN/rakec" --run --target "$p" "$f" >"$d/o1" 2>"$d/e1" || rc1=$?
    env $envs "$BIN/rakec" --interpret --target "$p" "$f" >"$d/o2" 2>"$d/e2" || rc2=$?
    if [ "$rc1" != "$rc2" ] || ! cmp -s "$d/o1" "$d/o2" || ! cmp -s "$d/e1" "$d/e2"; then
        echo "$f $p: exit $rc1 vs $rc2; stdout '$(head -c 60 "$d/o1")' vs '$(head -c 60 "$d/o2")'; stderr '$(head -n 1 "$d/e1")' vs '$(head -n 1 "$d/e2")'" >>"$d/failures"
    fi
}

@test "native runs: every program calling kernels or runs gives --interpret's output and status with --run on each x86 profile" {
    # the slow tier at -O0 to fit the budget: the kernels and runs are
    # rakec's assembly either way (tests/56-cgen.bats compiles at -O2)
    export RAKE_NATIVE_CFLAGS=-O0
    local f p n=0 traps=0 ran=0 built=0 d=$BATS_TEST_TMPDIR refused="" notyet=""
    : >"$d/failures"
    for f in $(code_programs); do
        n=$((n + 1))
        grep -q '^~~ trap:' "$f" && traps=$((traps + 1))
        for p in "${X86[@]}"; do
            if ! "$BIN/rake-parse" "$f" | "$BIN/rake-check" --target "$p" >/dev/null 2>"$d/check"; then
                # rake-check refuses it on this profile (work in progress, or
                # written for another lane count): --run must give the same
                # located error as --interpret (nothing is executed)
                run_vs_interpret "$f" "$p"
                notyet+="$(basename "$f") on $p: $(head -n 1 "$d/check" | sed 's/^[^ ]* error: //')"$'\n'
                continue
            fi
            if grep -q "^~~ exceeds-registers:.* $p" "$f"; then
                # a program Rake can't hold in this profile's registers:
                # the located refusal, counted and named below
                run "$BIN/rakec" --run --target "$p" "$f"
                [[ $status -eq 1 && ${lines[0]} == *": error: "*" needs more than the "*" registers of $p"* ]] ||
                    echo "$f $p: expected the register refusal, got: $output" >>"$d/failures"
                refused+=" $(basename "$f") ($p)"
                continue
            fi
            if [ "$p" = x86-avx512 ] && ! has_avx512; then
                # compiled and verified, not run
                "$BIN/rakec" --emit-exe --no-report --target "$p" -o "$d/exe" "$f" 2>>"$d/failures" ||
                    echo "$f $p: doesn't build" >>"$d/failures"
                built=$((built + 1))
                continue
            fi
            run_vs_interpret "$f" "$p"
            ran=$((ran + 1))
        done
    done
    cat "$d/failures"
    [ ! -s "$d/failures" ]
    echo "# $n programs ($traps traps) on ${#X86[@]} profiles" >&3
    echo "# $ran program-profile pairs compiled, run and compared; $built compiled and verified only" >&3
    [ -z "$refused" ] || echo "# refused for register pressure, as their headers say:$refused" >&3
    [ -z "$notyet" ] || printf '# refused by rake-check for both --run and --interpret:\n%s\n' "$(sed '/^$/d; s/^/#   /' <<<"$notyet")" >&3
    has_avx512 || echo "# $no_avx512_reason" >&3
    [ "$n" -ge 40 ] && [ "$traps" -ge 12 ] && [ "$((ran + built))" -ge 75 ] && [ "$ran" -ge 50 ]
}

@test "native runs: the C header declares the spec's descriptors and run signatures" {
    cd "$BATS_TEST_TMPDIR"
    "$BIN/rakec" --emit-header h.h --target x86-avx2 "$SHARED/conformance/stacks_several.rk"
    "$BIN/rakec" -c --no-report --target x86-avx2 -o s.o "$SHARED/conformance/stacks_several.rk"
    grep -qxF 'void roots(const struct rake_stack_Samples_v2 *input, struct rake_stack_Roots_v2 *output);' h.h
    grep -qxF 'struct rake_stack_Samples_v2 {' h.h
    # a C caller builds the descriptors, calls the run and reads its result
    cat >use.c <<'EOF'
#include <stdio.h>
#include "h.h"
int main(void)
{
    float in[5] = {4.0f, -1.0f, 9.0f, 0.0f, 2.25f}, out[5] = {7, 7, 7, 7, 7};
    const struct rake_stack_Samples_v2 a = {.count = 5, .value = in};
    struct rake_stack_Roots_v2 b = {.count = 5, .root = out};
    roots(&a, &b);
    printf("%g %g %g %g %g %lld\n", out[0], out[1], out[2], out[3], out[4], (long long)b.count);
    return 0;
}
EOF
    cc -std=c11 -Wall -Wextra -Werror use.c s.o -o use
    run ./use
    [ "$output" = "2 0 3 0 1.5 5" ]
}

# --- the verifier on altered runs ------------------------------------------------

# section_offset OBJ NAME: the file offset of a section.
section_offset() {
    local hex
    hex=$(readelf -S -W "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk -v s="$2" '$1 == s { print $4; exit }')
    echo $((16#$hex))
}

# flip OBJ OFFSET: invert one byte.
flip() {
    local obj=$1 off=$2 b
    b=$(od -An -tu1 -j "$off" -N1 "$obj" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 0x5a)))" | dd of="$obj" bs=1 seek="$off" conv=notrunc status=none
}

# last_byte OBJ FUNC PATTERN: the .text address of the last byte of the
# first instruction of FUNC whose objdump line matches PATTERN (a branch's
# offset, a memory operand's displacement).
last_byte() {
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" -v pat="$3" '
        $2 == f { on = 1; next }
        /^$/ { on = 0 }
        found && on { sub(":", "", $1); print $1; exit }
        on && $0 ~ pat { found = 1 }' | { read -r hex; echo $((16#$hex - 1)); }
}

# altered PROFILE OFFSET-KIND RULE: build tests/native/patterns.rk, flip one
# byte, and expect rake-verify to reject the object naming RULE.
altered() {
    local p=$1 what=$2 d=$BATS_TEST_TMPDIR/alt
    mkdir -p "$d"
    "$BIN/rakec" -c --no-report --target "$p" "$NT/patterns.rk" -o "$d/k.o"
    "$BIN/rakec" --stop-after ra --target "$p" "$NT/patterns.rk" -o "$d/k.mir.json"
    "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    local text at
    text=$(section_offset "$d/k.o" .text)
    case $what in
    branch)  at=$(last_byte "$d/k.o" keep '\tj(l|ge|ne|e|b|a|g|le) ') ;;
    address) at=$(last_byte "$d/k.o" keep 'mov +0x8\(%rdi\)') ;;
    esac
    flip "$d/k.o" $((text + at))
    run "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"keep+"* ]]
}

@test "native runs: rake-verify rejects a run with one byte changed in a branch offset" {
    for p in "${X86[@]}"; do
        altered "$p" branch
    done
}

@test "native runs: rake-verify rejects a run with one byte changed in an address operand" {
    for p in "${X86[@]}"; do
        altered "$p" address
    done
}

@test "native runs: rake-verify rejects a run whose embedded lane-order table differs by one byte" {
    local d=$BATS_TEST_TMPDIR/lit
    mkdir -p "$d"
    "$BIN/rakec" -c --no-report --target x86-avx2 "$NT/patterns.rk" -o "$d/k.o"
    "$BIN/rakec" --stop-after ra --target x86-avx2 "$NT/patterns.rk" -o "$d/k.mir.json"
    "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    # the 2,048-byte table of lane orders, found by its first five entries
    # (patterns 0 to 4 select nothing, lane 0, lane 1, lanes 0 and 1, lane 2)
    local want=0000000000000000000000000000000001000000000000000001000000000000020000000000000000
    local at
    at=$(od -An -v -tx1 "$d/k.o" | tr -d ' \n' | awk -v w="$want" '{ i = index($0, w); if (i) print (i - 1) / 2 }')
    [ -n "$at" ]
    # change the order for the selection pattern 0x2a (lanes 1, 3, 5)
    flip "$d/k.o" $((at + 0x2a * 8 + 1))
    run "$BIN/rake-verify" --object "$d/k.o" <"$d/k.mir.json"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"constant: the loaded constant's bytes differ"* ]]
}

@test "native runs: a run's slow blocks are calls of its own trampolines, and rake-verify checks each target and trampoline" {
    local d=$BATS_TEST_TMPDIR/slow f=$RAKE_ROOT/tests/interp/run_slow_blocks.rk p
    mkdir -p "$d"
    for p in "${X86[@]}"; do
        "$BIN/rakec" -c --no-report --target "$p" "$f" -o "$d/k.o"
        "$BIN/rakec" --stop-after ra --target "$p" "$f" -o "$d/k.mir.json"
        "$BIN/rake-verify" --object "$d/k.o" --whole-program <"$d/k.mir.json"
        # the first call in scale reaches rk_tramp_scale_0; its last
        # displacement byte changed, it reaches somewhere else
        objdump -d "$d/k.o" | grep -q 'call.*<rk_tramp_scale_0>'
        local text at
        text=$(section_offset "$d/k.o" .text)
        at=$(last_byte "$d/k.o" scale 'call.*<rk_tramp_scale_0>')
        flip "$d/k.o" $((text + at))
        run "$BIN/rake-verify" --object "$d/k.o" --whole-program <"$d/k.mir.json"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"scale+"*"control-flow: a run calls only its slow blocks' trampolines: this call doesn't reach rk_tramp_scale_0"* ]]
        # a trampoline that restores r15 from the wrong place
        "$BIN/rakec" -c --no-report --target "$p" "$f" -o "$d/k.o"
        at=$(last_byte "$d/k.o" rk_tramp_scale_0 'mov +0x[0-9a-f]+\(%rsp\),%r15')
        flip "$d/k.o" $((text + at))
        run "$BIN/rake-verify" --object "$d/k.o" --whole-program <"$d/k.mir.json"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"stack: rk_tramp_scale_0 doesn't keep r15 across the slow block"* ]]
    done
}

@test "native runs: rake-verify rejects a run with an added call" {
    local d=$BATS_TEST_TMPDIR/call
    mkdir -p "$d"
    for p in "${X86[@]}"; do
        "$BIN/rakec" -S --no-report --target "$p" "$NT/patterns.rk" -o "$d/k.s"
        "$BIN/rakec" --stop-after ra --target "$p" "$NT/patterns.rk" -o "$d/k.mir.json"
        sed -e '/^bump:$/,/ret/s/^\.Lrk_bump_b2:$/&\n\tcall\tbump/' "$d/k.s" >"$d/bad.s"
        ! cmp -s "$d/k.s" "$d/bad.s"
        as --64 "$d/bad.s" -o "$d/bad.o"
        run "$BIN/rake-verify" --object "$d/bad.o" <"$d/k.mir.json"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"bump+"*"control-flow: a kernel makes no calls"* ||
           $output == *"relocation"* ]]
    done
}

# --- what native runs don't do yet ------------------------------------------------

@test "native runs: reductions in stack runs, slow blocks reading booleans and a loop whose step isn't a literal are located errors" {
    cd "$BATS_TEST_TMPDIR"
    printf 'pack P {\n  f32: v;\n}\nrun total(s: stack P) -> stack P:\n  let <t: f32> = sum(s.v)\n  s with { v: s.v + <t> }\n' >reduce.rk
    run "$BIN/rakec" -c --target x86-sse2 reduce.rk
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "reduce.rk:5:18: error: x86-sse2 can't compile sum yet: reductions, scans, extraction, insertion and shuffles in stack runs are work in progress" ]
    printf 'pack P {\n  f32: v;\n}\nrun r(s: stack P, <b: bool>) -> stack P:\n  let <m: f32> = slow {\n    if b then 1.0 else 2.0\n  }\n  s with { v: s.v + <m> }\n' >slowblock.rk
    run "$BIN/rakec" -c --target x86-avx2 slowblock.rk
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "slowblock.rk:5:18: error: native stack run r: a slow block reading a bool value is work in progress natively (f32, i32 and u32 are implemented)" ]
    [ ! -e general.o ] && [ ! -e reduce.o ] && [ ! -e slowblock.o ]
    printf 'pack P {\n  f32: a;\n}\nrun r(s: stack P, <n: i32>, <st: i32>) -> stack P:\n  x := s.a\n  for <i: i32> from <0> up to <n> by <st>:\n    x <- x + <1.0>\n  s with { a: x }\n' >loop.rk
    run "$BIN/rakec" -c --target x86-sse2 loop.rk
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "loop.rk:6:3: error: x86-sse2 can't compile this yet: native stack run r can trap here (a loop steps forward), and traps inside runs are work in progress natively" ]
    [ ! -e loop.o ]
}

# --- the report ------------------------------------------------------------------------

@test "native runs: the kernel report of an AVX2 build of the particles example, line for line" {
    cd "$BATS_TEST_TMPDIR"
    run "$BIN/rakec" -c --target x86-avx2 "$SHARED/conformance/stacks_particles.rk" -o p.o
    [ "$status" -eq 0 ]
    echo "$output"
    [ "${lines[0]}" = "rakec: kernel report for x86-avx2" ]
    [ "${lines[1]}" = "  scratch step: 4 instructions" ]
    [ "${lines[2]}" = "  run advance: 32-bit domain, 8 lanes" ]
    [ "${lines[3]}" = "    reads kill, posx, velx, posy, vely; replaces posx, posy in place" ]
    [ "${lines[4]}" = "    selection: masked by #alive" ]
    [ "${lines[5]}" = "    tail: vmaskmovps for 32-bit columns, guarded lane transfers for compact columns" ]
    [[ ${lines[6]} == "    code: "*" instructions; a full rack: "*" vector operations for 200 bytes moved ("*" per byte)" ]]
    run "$BIN/rakec" -c --no-report --target x86-avx2 "$SHARED/conformance/stacks_particles.rk" -o p.o
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "native runs: the report names each profile's compaction and tail" {
    cd "$BATS_TEST_TMPDIR"
    run "$BIN/rakec" -c --target x86-sse2 "$NT/patterns.rk" -o k.o
    [[ $output == *"selection: compacted by r.sel != <0>: movmskps bits, each column selected against itself rotated by pshufd, twice, under masks from a 16-entry table"* ]]
    [[ $output == *"tail: guarded lane transfers for every column"* ]]
    run "$BIN/rakec" -c --target x86-avx2 "$NT/patterns.rk" -o k.o
    [[ $output == *"vmovmskps bits, vpermps by a 256-entry table of lane orders"* ]]
    run "$BIN/rakec" -c --target x86-avx512 "$NT/patterns.rk" -o k.o
    [[ $output == *"vcompressps under a k mask"* ]]
    [[ $output == *"tail: masked moves under a k register for every column"* ]]
}

# The loop of bench/kernels/clamp.rk (two 32-bit columns) as assembly.
clamp_asm() {
    "$BIN/rakec" -S --no-report --target "$1" -o - "$RAKE_ROOT/bench/kernels/clamp.rk" |
        sed -n '/^clamp_counts:/,/ret$/p'
}

@test "native runs: a run's loop is rotated, unrolled by two racks with one conditional branch back, and its counter steps by an immediate" {
    local p n body head
    for p in "${X86[@]}"; do
        n=$(lanes_of "$p")
        clamp_asm "$p" >"$BATS_TEST_TMPDIR/$p.s"
        body=$(grep -n '^\.Lrk_clamp_counts_b2:' "$BATS_TEST_TMPDIR/$p.s" | cut -d: -f1)
        head=$(grep -n '^\.Lrk_clamp_counts_b1:' "$BATS_TEST_TMPDIR/$p.s" | cut -d: -f1)
        # the test sits after the body, and branches back to it
        [ "$body" -lt "$head" ] || { echo "$p: the loop head comes first"; cat "$BATS_TEST_TMPDIR/$p.s"; return 1; }
        sed -n "$((head + 1)),$((head + 2))p" "$BATS_TEST_TMPDIR/$p.s" | grep -q 'jl	\.Lrk_clamp_counts_b2$'
        # the entry jumps to the test once; nothing inside the loop jumps
        ! sed -n "${body},${head}p" "$BATS_TEST_TMPDIR/$p.s" | grep -q 'jmp'
        # two racks per iteration: the second at an immediate offset from
        # the same index, which steps by both
        sed -n "${body},${head}p" "$BATS_TEST_TMPDIR/$p.s" | grep -q "	$((n * 4))(%r[a-z0-9]*,%r[a-z0-9]*,4)"
        grep -q "	addq	\$$((2 * n)), %r" "$BATS_TEST_TMPDIR/$p.s"
        ! grep -q "	movq	\$$((2 * n)), %r" "$BATS_TEST_TMPDIR/$p.s"
        # the one whole rack left after it runs once, with no loop: a
        # single branch back in the whole function
        [ "$(grep -c '	jl	' "$BATS_TEST_TMPDIR/$p.s")" -eq 1 ]
    done
}

@test "native runs: AVX-512 columns are indexed in the instruction, the index in a register Capstone decodes with any base" {
    clamp_asm x86-avx512 >"$BATS_TEST_TMPDIR/c.s"
    ! grep -q 'leaq' "$BATS_TEST_TMPDIR/c.s"
    local n
    n=$(grep -cE '\(%r[a-z0-9]+,%r(ax|cx|dx|bx|bp|si|di),4\)' "$BATS_TEST_TMPDIR/c.s")
    [ "$n" -eq 16 ] || { echo "expected 16 indexed accesses (8 in the loop of two racks, 4 in the one rack after it, 4 in the tail), got $n"; cat "$BATS_TEST_TMPDIR/c.s"; return 1; }
    ! grep -qE ',%r(8|9|1[0-5]),[0-9]\)' "$BATS_TEST_TMPDIR/c.s"
    # and the selection says so: rake-isel-x86 limits each index (rake.mir "allow")
    "$BIN/rakec" --stop-after isel --target x86-avx512 -o "$BATS_TEST_TMPDIR/c.json" "$RAKE_ROOT/bench/kernels/clamp.rk"
    jq -e '.functions[0].allow | map(select(.regs[0] == "rax")) | length >= 1 and all(.regs == ["rax","rcx","rdx","rbx","rbp","rsi","rdi"])' "$BATS_TEST_TMPDIR/c.json"
    # and the first source beside an indexed operand is in zmm0-15
    # (Capstone 4 reads EVEX.V' as the index's: limit_nds, evex_nds)
    jq -e '.functions[0].allow | map(select(.regs[0] == "zmm0")) | length >= 1 and all(.regs | length == 16 and .[15] == "zmm15")' "$BATS_TEST_TMPDIR/c.json"
    ! grep -qE '	v[a-z0-9]+	-?[0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,[0-9]\), %zmm(1[6-9]|2[0-9]|3[01]), ' "$BATS_TEST_TMPDIR/c.s"
    "$BIN/rakec" --stop-after isel --target x86-avx2 -o "$BATS_TEST_TMPDIR/a.json" "$RAKE_ROOT/bench/kernels/clamp.rk"
    jq -e '.functions[0] | has("allow") | not' "$BATS_TEST_TMPDIR/a.json"
}

# The full-rack loop of bench/kernels/compact.rk (the stretch of its
# backward branch) as assembly.
compact_loop() {
    "$BIN/rakec" -S --no-report --target "$1" -o - "$RAKE_ROOT/bench/kernels/compact.rk" |
        awk '/^\.L.*:$/ {l = $1; sub(":", "", l); start[l] = NR} {line[NR] = $0}
             /\tj[a-z]+\t/ && $1 != "jmp" && ($2 in start) {from = start[$2]; to = NR}
             END {for (i = from; i <= to; i++) print line[i]}'
}

@test "native runs: compaction tests its selection before the first column and skips an empty rack; kept columns load after the test; the kill column stores its packed zeros" {
    local p s=$BATS_TEST_TMPDIR/loop.s first test
    for p in x86-avx2 x86-avx512; do
        compact_loop "$p" >"$s"
        cat "$s"
        # the test (testl of the bits; kortestw of the k register), then
        # a branch past the stores, before any permutation or compress
        test=$(grep -nE '	(testl|kortestw)	' "$s" | head -n 1 | cut -d: -f1)
        first=$(grep -nE '	(vpermps|vcompressps)	' "$s" | head -n 1 | cut -d: -f1)
        [ -n "$test" ] && [ -n "$first" ] && [ "$test" -lt "$first" ]
        sed -n "$((test + 1))p" "$s" | grep -q '	je	\.Lrk_compact_live_stored'
        # the five f32 columns are read only after the test
        [ "$(sed -n "1,${test}p" "$s" | grep -cE '\(%r[a-z0-9]+,%r[a-z0-9]+,4\)')" -eq 0 ]
    done
    # AVX2: each kept column is its vpermps's memory operand; the kill
    # column, which its own selection compares with 0, is neither
    # permuted nor narrowed in the loop: it stores a constant of packed
    # zeros (rake-opt, kept_splat; loaded before the loop)
    compact_loop x86-avx2 >"$s"
    [ "$(grep -cE '	vpermps	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), ' "$s")" -eq 5 ]
    [ "$(grep -c '	vpermps	' "$s")" -eq 5 ]
    ! grep -qE '	(vpshufb|vpermd)	' "$s"
    grep -qE '	vmovq	%xmm[0-9]+, \(%r[a-z0-9]+,%r[a-z0-9]+,1\)$' "$s"
    # AVX-512: compressed in a register, stored whole (never vcompressps to
    # memory); five columns, the kill column's zeros stored as they are
    compact_loop x86-avx512 >"$s"
    ! grep -qE '	vcompressps	%zmm[0-9]+, \(' "$s"
    [ "$(grep -cE '	vcompressps	%zmm[0-9]+, %zmm[0-9]+\{%k[1-7]\}\{z\}$' "$s")" -eq 5 ]
    # SSE2: two rotations per permuted column, five columns
    compact_loop x86-sse2 >"$s"
    [ "$(grep -c '	pshufd	' "$s")" -eq 10 ]
    ! grep -qE '	(packssdw|packsswb)	' "$s"
}

@test "native runs: on AVX2 and AVX-512 a column load read once is its reader's memory operand; never on SSE2" {
    local p
    for p in x86-avx2 x86-avx512; do
        clamp_asm "$p" >"$BATS_TEST_TMPDIR/$p.s"
        grep -qE '	vpmaxsd	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), ' "$BATS_TEST_TMPDIR/$p.s"
        grep -qE '	vpmaxud	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), ' "$BATS_TEST_TMPDIR/$p.s"
    done
    # legacy SSE encodings need aligned memory operands; columns have none
    clamp_asm x86-sse2 >"$BATS_TEST_TMPDIR/sse2.s"
    ! grep -E '	p[a-z]+	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), ' "$BATS_TEST_TMPDIR/sse2.s"
}

@test "native runs: a folded column load is never an aligned move's memory operand (columns have no alignment)" {
    local p
    for p in x86-avx2 x86-avx512; do
        "$BIN/rakec" -S --no-report --target "$p" -o "$BATS_TEST_TMPDIR/$p.s" \
            "$RAKE_ROOT/tests/runs/regress/fold-load-into-aligned-move.rk"
        # the constant pool may be read by vmovaps; a column (base register) may not
        ! grep -E '	v?mov(aps|apd|dqa)[a-z0-9]*	-?[0-9]*\(%r[a-z0-9]+(,%r[a-z0-9]+,[0-9])?\)' "$BATS_TEST_TMPDIR/$p.s"
        grep -q 'vmovaps	\.Lrk_r_c[0-9]*(%rip), %zmm[0-9]*{%k[0-9]}{z}\|vmovups\|vmaskmov\|vpmaskmov' "$BATS_TEST_TMPDIR/$p.s"
    done
}

@test "native runs: a tail moves a compact column one instruction per lane: packed inserts widened once, extracts straight to memory" {
    local s=$BATS_TEST_TMPDIR/t.s
    # loads: four compact columns (i8, i16, u8, u16), seven lanes each on
    # AVX2: a tail holds fewer records than a rack, so its last lane never
    # moves and isn't tested (run.c, active_lanes)
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$s" \
        "$RAKE_ROOT/tests/shared/conformance/stacks_compact_readings.rk"
    [ "$(grep -cE '	vpinsrb	\$[0-6], [0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,1\), %xmm' "$s")" -eq 14 ]
    [ "$(grep -cE '	vpinsrw	\$[0-6], [0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,2\), %xmm' "$s")" -eq 14 ]
    ! grep -qE '	vpinsr[bw]	\$7,' "$s"
    # each column widens once, from a register (the loop's widen from memory)
    for op in vpmovsxbd vpmovsxwd vpmovzxbd vpmovzxwd; do
        [ "$(grep -cE "	$op	%xmm[0-9]+, %ymm" "$s")" -eq 1 ]
    done
    ! grep -qE '	(movsbl|movzbl|movswl|movzwl)	' "$s"
    "$BIN/rakec" -S --no-report --target x86-sse2 -o "$s" \
        "$RAKE_ROOT/tests/shared/conformance/stacks_compact_readings.rk"
    [ "$(grep -cE '	pinsrw	\$[0-2], [0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,2\), %xmm' "$s")" -eq 6 ]
    [ "$(grep -cE '	pinsrw	\$[0-2], %e[a-z]+|	pinsrw	\$[0-2], %r[0-9]+d' "$s")" -eq 6 ]
    ! grep -qE '	pinsrw	\$3,' "$s"
    # stores: a compaction tail's u8 column that the selection reads
    # (seven lanes at most: the kept records of a tail), extracted from
    # the permuted rack straight to memory
    local k=$BATS_TEST_TMPDIR/keep.rk
    printf 'pack P {\n  f32: x;\n  u8: tag;\n}\n\nrun keep(p: stack P) -> stack P:\n  let t = widen(p.tag)\n  compact p where p.x > <0.0> and t != <7>\n' >"$k"
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$s" "$k"
    [ "$(grep -cE '	vpextrb	\$(0|4|8|12), %xmm[0-9]+, [0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,1\)' "$s")" -eq 7 ]
    ! grep -qE '	movb	' "$s"
}

@test "native runs: a compaction tail copies a column it keeps as it is record by record (SSE2; AVX2's compact columns nothing else reads)" {
    local s=$BATS_TEST_TMPDIR/t.s k=$BATS_TEST_TMPDIR/keep.rk
    printf 'pack P {\n  f32: x;\n  u8: tag;\n}\n\nrun keep(p: stack P) -> stack P:\n  compact p where p.x > <0.0>\n' >"$k"
    # AVX2: tag is neither read nor changed: not loaded lane by lane, not
    # permuted, not extracted; each of the tail's seven records, if kept,
    # is one load and one store (x goes by vmaskmovps as before)
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$s" "$k"
    [ "$(grep -cE '	movzbl	[0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,1\), %' "$s")" -eq 7 ]
    [ "$(grep -cE '	movb	%[a-z0-9]+, \(%r[a-z0-9]+,%r[a-z0-9]+,1\)' "$s")" -eq 7 ]
    ! grep -qE '	vpinsrb	|	vpextrb	' "$s"
    # SSE2: x and tag alike, three records at most: x's lanes were loaded,
    # permuted with eight instructions and stored lane by lane before
    "$BIN/rakec" -S --no-report --target x86-sse2 -o "$s" "$k"
    sed -n '/pcmpgtd/,$p' "$s" >"$s.tail"
    cat "$s.tail"
    [ "$(grep -cE '	movl	[0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,4\), %' "$s.tail")" -eq 3 ]
    [ "$(grep -cE '	movzbl	[0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,1\), %' "$s.tail")" -eq 3 ]
    ! grep -qE '	(pextrw|pinsrw|movss|pshufd)	' "$s.tail"
    # the destination is the cursor plus the records kept so far
    [ "$(grep -cE '	addq	\$1, %' "$s.tail")" -eq 2 ]
    # the kill column of compact.rk keeps only records whose kill is 0:
    # its tail stores the constant as an immediate, no extract
    local p
    for p in x86-sse2 x86-avx2; do
        "$BIN/rakec" -S --no-report --target "$p" -o "$s" "$RAKE_ROOT/bench/kernels/compact.rk"
        [ "$(grep -cE '	movb	\$0, [0-9]*\(%r[a-z0-9]+,%r[a-z0-9]+,1\)' "$s")" -eq "$( [ $p = x86-sse2 ] && echo 3 || echo 7)" ]
        ! grep -qE '	v?pextr[bw]	' "$s"
    done
}

# The loop of a general run (the last backward branch's stretch) as assembly.
last_loop() {
    awk '/^\.L.*:$/ {l = $1; sub(":", "", l); start[l] = NR} {line[NR] = $0}
         /\tj[a-z]+\t/ && $1 != "jmp" && ($2 in start) {from = start[$2]; to = NR}
         END {for (i = from; i <= to; i++) print line[i]}' "$1"
}

@test "native runs: a loop's constants are loaded before it and stay in registers; when registers run out rake-ra gives some back" {
    local d=$BATS_TEST_TMPDIR
    # AVX-512 count adds its 1s under the comparison's k mask: from a
    # register loaded before the loop, not a 64-byte pool read per rack
    sed "s/FOUR_RACKS/64/g; s/THREE_RACKS/48/g; s/TWO_RACKS/32/g; s/LANES/16/g" "$RAKE_ROOT/bench/kernels/count.rk" >"$d/count.rk"
    "$BIN/rakec" -S --no-report --target x86-avx512 -o "$d/count.s" "$d/count.rk"
    last_loop "$d/count.s" >"$d/loop.s"
    cat "$d/loop.s"
    [ "$(grep -cE '	vpaddd	%zmm[0-9]+, %zmm[0-9]+, %zmm[0-9]+\{%k[1-7]\}$' "$d/loop.s")" -eq 4 ]
    ! grep -q '(%rip)' "$d/loop.s"
    # eighteen constants and six columns in SSE2's 15 registers: the entry
    # loads some, the loop reads the rest from the pool (folded), and
    # tests/55 runs the program against the interpreter
    local rk=$RAKE_ROOT/tests/runs/regress/hoisted-constants-given-back.rk
    "$BIN/rakec" --emit-mir --no-report --target x86-sse2 -o "$d/m.txt" "$rk"
    awk '/^  B0 entry:/ {e = 1; next} /^  B[0-9]+ / {e = 0} e' "$d/m.txt" >"$d/entry.txt"
    awk '/^  B2 b2:/ {l = 1; next} /^  B[0-9]+ / {l = 0} l' "$d/m.txt" >"$d/body.txt"
    [ "$(grep -cE '^    movaps +=%xmm[0-9]+, C[0-9]+ ' "$d/entry.txt")" -ge 4 ]
    [ "$(grep -cE '^    (mulps|addps) +\+%xmm[0-9]+, C[0-9]+ ' "$d/body.txt")" -ge 4 ]
    # and with AVX-512's 32 registers all of them stay
    "$BIN/rakec" --emit-mir --no-report --target x86-avx512 -o "$d/z.txt" "$rk"
    awk '/^  B2 b2:/ {l = 1; next} /^  B[0-9]+ / {l = 0} l' "$d/z.txt" >"$d/zbody.txt"
    ! grep -qE ', C[0-9]+ ' "$d/zbody.txt"
}

@test "native runs: a tail's first lane moves without a test: rake-lower enters the tail only when records remain" {
    local d=$BATS_TEST_TMPDIR p
    for p in x86-sse2 x86-avx2; do
        "$BIN/rakec" -S --no-report --target "$p" -o "$d/c.s" "$SHARED/conformance/stacks_compact_readings.rk"
        # four compact columns: lanes 1 and up tested, lane 0 never
        ! grep -qE '	testl	\$1, ' "$d/c.s"
        [ "$(grep -cE '	testl	\$2, ' "$d/c.s")" -ge 4 ]
    done
}

@test "native runs: a compaction tail builds its store mask once; a broadcast's upper half is its lower; lane 0's load is no or into zeros" {
    local d=$BATS_TEST_TMPDIR
    # AVX2: one vpcmpgtd for the tail's lanes, one for the kept count's
    # store mask, shared by five vmaskmovps and the kill column's lane bits
    "$BIN/rakec" -S --no-report --target x86-avx2 -o "$d/a.s" "$RAKE_ROOT/bench/kernels/compact.rk"
    [ "$(grep -c '	vpcmpgtd	' "$d/a.s")" -eq 2 ]
    [ "$(grep -c '	vmaskmovps	%ymm[0-9]*, %ymm[0-9]*, (' "$d/a.s")" -eq 5 ]
    ! grep -q '	vperm2f128	' "$d/a.s"
    # SSE2: the kill column's lane 0 is a movzbl, not or-ed into a zeroed
    # register loaded from the pool (the five f32 columns, kept as they
    # are, are copied record by record, never loaded into vectors)
    "$BIN/rakec" -S --no-report --target x86-sse2 -o "$d/s.s" "$RAKE_ROOT/bench/kernels/compact.rk"
    ! grep -A1 -E '	movaps	\.Lrk_[a-z_0-9]+\(%rip\), %xmm' "$d/s.s" | grep -q '	orps	'
    ! grep -qE '	movss	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), %xmm' "$d/s.s"
}

@test "native runs: AVX-512 writes a where clause's arms under the mask: no blend, the FMA accumulates into the position's own register" {
    local d=$BATS_TEST_TMPDIR
    "$BIN/rakec" -S --no-report --target x86-avx512 -o "$d/a.s" "$RAKE_ROOT/bench/kernels/advance.rk"
    last_loop "$d/a.s" >"$d/loop.s"
    cat "$d/loop.s"
    ! grep -q vpblendmd "$d/loop.s"
    ! grep -qE '	vmovaps	%zmm' "$d/loop.s"
    # two racks a trip: posx and posy move, age grows, under the kill test
    [ "$(grep -cE '	vfmadd231ps	.*\{%k[1-7]\}$' "$d/loop.s")" -eq 4 ]
    [ "$(grep -cE '	vaddps	.*\{%k[1-7]\}$' "$d/loop.s")" -eq 2 ]
    [ "$(grep -c '	vpcmpud	' "$d/loop.s")" -eq 2 ]
}

@test "native runs: AVX-512 runs an else arm under a k register too: not (a > b) is one comparison, NGT_UQ for floats" {
    local d=$BATS_TEST_TMPDIR
    printf 'pack P {\n  f32: x, y;\n}\n\nrun r(s: stack P, <k: f32>) -> stack P:\n  tine #big means s.y > <k>\n  s with { x: s.x / s.y } where not #big\n' >"$d/e.rk"
    "$BIN/rakec" -S --no-report --target x86-avx512 -o "$d/e.s" "$d/e.rk"
    last_loop "$d/e.s" >"$d/loop.s"
    cat "$d/loop.s"
    # two racks a trip: the complement compared into k (predicate 0x1a,
    # true on a NaN as not(y > k) is), the division merged into the loaded
    # column under it: no blend, no knotw (vdivps then vpblendmd before)
    [ "$(grep -cE '	vcmpps	\$26, ' "$d/loop.s")" -eq 2 ]
    [ "$(grep -cE '	vdivps	.*\{%k[1-7]\}$' "$d/loop.s")" -eq 2 ]
    ! grep -qE '	(vpblendmd|knotw)	' "$d/loop.s"
    # an unsigned tine's complement: not (n < k) is vpcmpud NLT (5), no
    # vector mask made from the k register to be xor-ed; n's column load
    # is its memory operand, the sources swapped: k LE n (2)
    printf 'pack Q {\n  f32: x;\n  u32: n;\n}\n\nrun q(s: stack Q, <k: u32>) -> stack Q:\n  tine #few means s.n < <k>\n  s with { x: s.x / <3.0> } where not #few\n' >"$d/i.rk"
    "$BIN/rakec" -S --no-report --target x86-avx512 -o "$d/i.s" "$d/i.rk"
    last_loop "$d/i.s" >"$d/iloop.s"
    [ "$(grep -cE '	vpcmpud	\$2, [0-9]*\(%r[0-9a-z]+,%r[0-9a-z]+,4\), %zmm[0-9]+, %k[1-7]$' "$d/iloop.s")" -eq 2 ]
    ! grep -qE '	(vpxord|vmovdqa32|vmovaps)	' "$d/iloop.s"
    # the division came before the column load its k reads: it moves down
    # to its select (maskfuse.c, move_down) and merges under that k
    [ "$(grep -cE '	vdivps	.*\{%k[1-7]\}$' "$d/iloop.s")" -eq 2 ]
    ! grep -qE '	vpblendmd	' "$d/iloop.s"
    # and it computes what the interpreter does, a NaN y included (the
    # complement holds there: x becomes 1 / NaN)
    printf '%s\n' 'slow main() -> i32:' '  x: [19]f32 := [1.0; 19]' \
        '  y: [19]f32 := [0.5, 2.0, 0.125, -1.0, 3.0, 0.25, 8.0, 1.0, 4.0, 0.5, 2.0, 0.0, -1.0, 3.0, 0.25, 8.0, 1.0, 4.0, 0.5]' \
        '  y[3] <- 0.0 / 0.0' '  s := stack P { x: x, y: y }' '  s <- r(s, <1.0>)' \
        '  h: i32 := 0' '  for i from 0 up to 19:' '    v: i32 := 7' '    if s.x[i] = s.x[i]:' \
        '      v <- bitcast(i32, s.x[i])' '    h <- wrap_add(wrap_mul(h, 31), v)' '  return h' >>"$d/e.rk"
    has_avx512 || skip "$no_avx512_reason (the code above was checked)"
    run "$BIN/rakec" --run --no-report --target x86-avx512 "$d/e.rk"
    [ "$status" -eq 0 ]
    local native=$output
    run "$BIN/rakec" --interpret --target x86-avx512 "$d/e.rk"
    [ "$status" -eq 0 ]
    echo "native $native, interpreter $output"
    [ "$output" = "$native" ]
}

# advance_tail PROFILE MARK: bench/kernels/advance.rk's assembly from the
# first line matching MARK (the tail's lanes_below comparison) to the end,
# in $BATS_TEST_TMPDIR/tail.s, and printed
advance_tail() {
    local d=$BATS_TEST_TMPDIR
    "$BIN/rakec" -S --no-report --target "$1" -o "$d/a.s" "$RAKE_ROOT/bench/kernels/advance.rk"
    sed -n "/$2/,\$p" "$d/a.s" >"$d/tail.s"
    cat "$d/tail.s"
}

@test "native runs: an AVX-512 tail computes under its mask: raw operands, folded column loads, the tine compared under the tail's k, no zeroing copies" {
    local d=$BATS_TEST_TMPDIR
    # the tail: from the lanes_below comparison (vpcmpd $6) to the end
    advance_tail x86-avx512 'vpcmpd	\$6'
    # posx and posy move, age grows, each under the tail's k, zeroing, on
    # raw operands: velx, vely and age read from memory under the mask
    # (fault suppression), posx and posy loaded (masked) as accumulators
    [ "$(grep -cE '	vfmadd231ps	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), %zmm0, %zmm[0-9]+\{%k1\}\{z\}$' "$d/tail.s")" -eq 2 ]
    [ "$(grep -cE '	vaddps	\(%r[a-z0-9]+,%r[a-z0-9]+,4\), %zmm0, %zmm[0-9]+\{%k1\}\{z\}$' "$d/tail.s")" -eq 1 ]
    [ "$(grep -cE '	vmovups	\(.*\), %zmm[0-9]+\{%k1\}\{z\}$' "$d/tail.s")" -eq 2 ]
    # no sanitizing (zeroing copies of loaded values or of dt), no vector masks
    ! grep -qE '	vmovaps	%zmm' "$d/tail.s"
    ! grep -qE '	(vpandd|vptestmd)	' "$d/tail.s"
    ! grep -qE '	vmovaps	\.L' "$d/tail.s"
    # the stores' mask: tail & (kill = 0), the comparison written under
    # the tail's k (no kandw of the two, no vector masks)
    [ "$(grep -cE '	vpcmpud	.*, %k[1-7]\{%k1\}$' "$d/tail.s")" -eq 1 ]
    ! grep -q '	kandw	' "$d/tail.s"
    [ "$(grep -cE '	vmovups	%zmm[0-9]+, .*\{%k[1-7]\}$' "$d/tail.s")" -eq 3 ]
}

@test "native runs: an AVX2 tail's masked loads are zero outside the tail already: no and with the tail mask reads one, and dt is sanitized once" {
    local d=$BATS_TEST_TMPDIR
    advance_tail x86-avx2 vpcmpgtd
    [ "$(grep -c '	vmaskmovps	(' "$d/tail.s")" -eq 5 ]
    # the register each instruction writes (AT&T: the last operand); a
    # vandps reading one that vmaskmovps wrote, and nothing rewrote since,
    # would be a sanitizing and the load made unnecessary
    awk -F'\t' '
        $2 == "vandps" {
            split($3, o, ", ")
            if (from[o[1]] == "vmaskmovps" || from[o[2]] == "vmaskmovps") { print "sanitized: " $0; bad = 1 }
        }
        NF >= 3 && $2 ~ /^v/ {
            n = split($3, o, ", ")
            if (o[n] ~ /^%ymm/) from[o[n]] = $2
        }
        END { exit bad }' "$d/tail.s"
    # dt is sanitized once for the three fused regions that read it (it
    # was once per region: three vandps), and the stores' mask is the
    # tail's and the tine's
    [ "$(grep -c '	vandps	' "$d/tail.s")" -eq 2 ]
}

@test "native runs: an SSE2 tail's lane-by-lane loads are zero outside the tail already: no andps sanitizes them" {
    local d=$BATS_TEST_TMPDIR
    advance_tail x86-sse2 pcmpgtd
    # posx, posy and age go into their addps as loaded (11 andps before:
    # each was and-ed with the tail mask it was loaded under), and so do
    # velx and vely into their mulps (0 outside the tail, times dt's
    # benign 1.0, is 0: 8 andps before), and the products into the addps
    # (+0 outside the tail); what is left blends dt with 1.0 once for
    # both mulps (an xorps/andps/xorps blend; the second mulps, blocks of
    # lane-by-lane loads later, reuses it: the block that made it
    # dominates), sanitizes dt for age's addps and makes the stores' mask
    [ "$(grep -c '	andps	' "$d/tail.s")" -eq 3 ]
    [ "$(grep -c '	xorps	' "$d/tail.s")" -eq 2 ]
}

@test "native runs: a tail's arithmetic on its masked loads is zero outside the tail too: no select sanitizes it, nor blends it with 1.0 for a product or square root (SSE2, AVX2)" {
    cd "$BATS_TEST_TMPDIR"
    printf 'pack P {\n  f32: a, b, c;\n  u32: n;\n}\n\nrun r(s: stack P) -> stack P:\n  s with { n: to_u32(s.a + s.b - s.c) }\n' >t.rk
    local p
    for p in x86-sse2 x86-avx2; do
        "$BIN/rakec" --emit-mir --no-report --target "$p" -o t.mir t.rk
        # the tail's loads are 0 outside its mask, so are a + b and
        # a + b - c: neither the sub nor the conversion needs its operand
        # blended with the benign 0 (two mask.selects before)
        grep 'mask.select' t.mir || true
        [ "$(grep -c 'mask.select' t.mir)" -eq 0 ]
    done
    # a product with a uniform and a square root: only <k> is blended with
    # the benign 1.0 (0 times it, and sqrt(+0), raise nothing): one
    # mask.select where there were three
    printf 'pack P {\n  f32: a, b;\n}\n\nrun r(s: stack P, <k: f32>) -> stack P:\n  s with { a: s.a * <k>, b: sqrt(s.b) }\n' >m.rk
    for p in x86-sse2 x86-avx2; do
        "$BIN/rakec" --emit-mir --no-report --target "$p" -o m.mir m.rk
        grep 'mask.select' m.mir || true
        [ "$(grep -c '; mask.select' m.mir)" -eq "$([ $p = x86-sse2 ] && echo 3 || echo 1)" ]
    done
}

@test "native runs: an unsigned comparison with a u32 uniform flips the uniform's bit 31 once, before the loop (SSE2)" {
    local d=$BATS_TEST_TMPDIR
    # clamp_counts compares its u32 column with <ulo> and <uhi>: SSE2 has
    # no unsigned comparison, so both sides get bit 31 flipped; the
    # uniforms' flipped broadcasts are made on entry (two xorps there,
    # none of them in the loop, which flips only the column: 59
    # instructions for two racks; 67 when each rack flipped both uniforms)
    "$BIN/rakec" --emit-mir --no-report --target x86-sse2 -o "$d/m.txt" "$RAKE_ROOT/bench/kernels/clamp.rk"
    awk '/^  B0 entry:/ {e = 1; next} /^  B[0-9]+ / {e = 0} e' "$d/m.txt" >"$d/entry.txt"
    cat "$d/entry.txt"
    [ "$(grep -cE '^    xorps ' "$d/entry.txt")" -eq 2 ]
    run "$BIN/rakec" --counts --target x86-sse2 "$RAKE_ROOT/bench/kernels/clamp.rk"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^"run clamp_counts "[0-9]+" loop 59"$ ]]
}

@test "native runs: a stack run of 40 columns compiles: rake-ra reloads column pointers from the descriptor when general registers run out" {
    cd "$BATS_TEST_TMPDIR"
    { printf 'pack W {\n  f32: '
      for i in $(seq 0 39); do printf 'c%d%s' "$i" "$([ "$i" -lt 39 ] && echo ', ')"; done
      printf ';\n}\nrun wide(w: stack W) -> stack W:\n  w with { c0: '
      for i in $(seq 0 39); do printf 'w.c%d%s' "$i" "$([ "$i" -lt 39 ] && echo ' + ')"; done
      printf ' }\n'; } >wide.rk
    local p
    for p in x86-sse2 x86-avx2 x86-avx512; do
        "$BIN/rakec" --verify-native --no-report --target "$p" -o "wide-$p.o" wide.rk
        "$BIN/rakec" -S --no-report --target "$p" -o "wide-$p.s" wide.rk
        last_loop "wide-$p.s" >loop.s
        # inside the loop, pointers come from the descriptor (still in rdi)
        [ "$(grep -cE '	movq	[0-9]+\(%rdi\), %r' loop.s)" -ge 40 ]
        # and the report says registers ran out
        run "$BIN/rakec" -c --target "$p" -o "wide-$p.o" wide.rk
        [[ $output == *$'\n'"    registers ran out: "*" instructions repeat a load or a computation (docs/x86.md)"* ]]
    done
    # before, fourteen columns were a located error; tests/55 runs this
    # program natively against the interpreter
    "$BIN/rakec" --verify-native --no-report --target x86-sse2 -o m.o \
        "$RAKE_ROOT/tests/runs/regress/many-columns-pointers-given-back.rk"
}
