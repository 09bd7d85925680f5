#!/usr/bin/env bats
# tests/53-general-runs.bats: native general runs (runs over views) on
# x86-sse2, x86-avx2 and x86-avx512, against the interpreter.
#
#   conformance  the spec's general-run programs: the expected result on
#                x86-sse2 (4 lanes, as they were written), and on every
#                profile exactly what `rakec --interpret --target P`
#                prints (wider profiles read past the 4-element arrays,
#                so they trap, with the same message and location)
#   programs     tests/runs/general/*.rk with 0, 1, 3 and 5 arguments
#                (main's argc chooses the bounds, indices and steps), so
#                each runs both the fast copy of a loop (bounds checked
#                once before it) and the checked copy (checked where each
#                access happens), in bounds and out: stdout, stderr and
#                the exit status equal the interpreter's
#   code         the fast copy of a loop has no check in it; a failed
#                check reaches rk_trap_LINE_COL through a trampoline
#   refusals     what native general runs don't do is a located error
#   random       tools/gen-general's programs (RAKE_GENERAL_SEED, default
#                1; RAKE_GENERAL_FILES, default 16) the same way, with 0,
#                1, 3 and 5 arguments; a program the allocator refuses
#                (more general values live than registers) is counted,
#                and no more than one in eight may be
#
# AVX-512 code runs only where /proc/cpuinfo has avx512f; elsewhere it is
# compiled and verified, and the test says it skipped the execution.
load lib/common

GEN=$RAKE_ROOT/tests/runs/general
GENERAL_SEED=${RAKE_GENERAL_SEED:-1}
GENERAL_FILES=${RAKE_GENERAL_FILES:-16}
CONF=(fallbacks_safe_root runs_running_sum sweeps_grade tines_safe_root)
export RAKE_NATIVE_CFLAGS=${RAKE_NATIVE_CFLAGS:--O1}

has_avx512() { [ -z "${RAKE_X86_NO_AVX512:-}" ] && grep -qw avx512f /proc/cpuinfo; }

# same PROFILE FILE ARGS...: --run and --interpret agree on everything.
same() {
    local p=$1 f=$2
    shift 2
    local want got ws=0 gs=0
    want=$("$BIN/rakec" --interpret --target "$p" "$f" -- "$@" 2>&1) || ws=$?
    got=$("$BIN/rakec" --run --no-report --target "$p" "$f" -- "$@" 2>&1) || gs=$?
    # each program runs: its result, or a trap (status 1, "trap:"); a
    # compile error on both sides would compare equal and test nothing
    if [ "$ws" != 0 ] && [[ $want != *": trap: "* ]]; then
        echo "$f on $p with $# argument(s): --interpret doesn't run it (status $ws): $want"
        return 1
    fi
    if [ "$want" != "$got" ] || [ "$ws" != "$gs" ]; then
        echo "$f on $p with $# argument(s):"
        echo "  --interpret (status $ws): $want"
        echo "  --run       (status $gs): $got"
        return 1
    fi
}

profile_programs() {
    local p=$1 f fails=0
    if [ "$p" = x86-avx512 ] && ! has_avx512; then
        for f in "$GEN"/*.rk; do
            "$BIN/rakec" --verify-native --no-report --target "$p" "$f" -o "$BATS_TEST_TMPDIR/v.o"
        done
        skip "this CPU has no avx512f (/proc/cpuinfo): AVX-512 general runs compiled and verified, not run"
    fi
    for f in "$GEN"/*.rk; do
        same "$p" "$f" || fails=$((fails + 1))
        same "$p" "$f" a || fails=$((fails + 1))
        same "$p" "$f" a b c || fails=$((fails + 1))
        same "$p" "$f" a b c d e || fails=$((fails + 1))
    done
    [ "$fails" -eq 0 ]
}

@test "general runs: the conformance programs give their expected results on x86-sse2" {
    local c want got
    for c in "${CONF[@]}"; do
        want=$(sed -n 's/^~~ expect: //p' "$SHARED/conformance/$c.rk")
        got=$("$BIN/rakec" --run --no-report --target x86-sse2 "$SHARED/conformance/$c.rk")
        echo "$c: want $want, got $got"
        [ -n "$want" ] && [ "$got" = "$want" ]
    done
}

@test "general runs: the conformance programs match the interpreter on every x86 profile, traps included" {
    local c p
    for p in x86-sse2 x86-avx2 x86-avx512; do
        if [ "$p" = x86-avx512 ] && ! has_avx512; then continue; fi
        for c in "${CONF[@]}"; do
            same "$p" "$SHARED/conformance/$c.rk"
        done
    done
    run "$BIN/rakec" --run --no-report --target x86-avx2 "$SHARED/conformance/runs_running_sum.rk"
    [ "$status" -eq 1 ]
    [[ $output == *"runs_running_sum.rk:7:23: trap: rack load [4, 12) outside 8 elements"* ]]
}

@test "general runs: tests/runs/general on x86-sse2, in bounds and out" {
    profile_programs x86-sse2
}

@test "general runs: tests/runs/general on x86-avx2, in bounds and out" {
    profile_programs x86-avx2
}

@test "general runs: tests/runs/general on x86-avx512 (run only with avx512f)" {
    profile_programs x86-avx512
}

@test "general runs: the fast copy of a loop checks nothing; the checked copy traps through rk_trap" {
    "$BIN/rakec" -S --no-report --target x86-avx2 "$GEN/loads_stores.rk" -o "$BATS_TEST_TMPDIR/l.s"
    local s=$BATS_TEST_TMPDIR/l.s
    # two trap sites, both in the checked copy, each a trampoline call,
    # then ud2: x[<i>] and out[<i>]'s load; the store to out[<i>] checks
    # the range the load just checked, so it can't fail (rake-opt's
    # dominator CSE makes it the same comparison, branch facts decide it)
    [ "$(grep -c 'call	rk_tramp_scale_add_' "$s")" -eq 2 ]
    [ "$(grep -A1 'call	rk_tramp_scale_add_' "$s" | grep -c ud2)" -eq 2 ]
    grep -q 'call	rk_trap_7_14$' "$s"
    grep -q 'call	rk_trap_8_30$' "$s"
    ! grep -q 'call	rk_trap_8_8$' "$s"
    # the fast copy's loop comes last (its head is the function's last
    # aligned label): no trampoline call, no more than its loads and stores
    awk '/^scale_add:/,/\.size\tscale_add,/' "$s" | awk '/\.p2align/ {n = NR} {line[NR] = $0} END {for (i = n + 1; i <= NR; i++) print line[i]}' >"$BATS_TEST_TMPDIR/f.s"
    grep -q 'jl	' "$BATS_TEST_TMPDIR/f.s"
    cat "$BATS_TEST_TMPDIR/f.s"
    ! grep -q 'rk_tramp\|cmov' "$BATS_TEST_TMPDIR/f.s"
    # the loads are the multiply's and add's memory operands; one store
    [ "$(grep -c 'vmovups' "$BATS_TEST_TMPDIR/f.s")" -eq 1 ]
}

@test "general runs: a loop checks each view once before it, from its lowest offset to its highest end" {
    local p nir=$BATS_TEST_TMPDIR/s.nir
    for p in x86-sse2 x86-avx2 x86-avx512 wasm-simd128; do
        "$BIN/rakec" --emit-native-ir --no-report --target "$p" "$GEN/spans.rk" -o "$nir"
        # the block after the loop's a < b test computes the checks: two
        # views, one lower and one upper comparison each (five accesses)
        awk '/^b1:/ {on = 1} on && /cbr/ {exit} on' "$nir" >"$BATS_TEST_TMPDIR/b1"
        cat "$BATS_TEST_TMPDIR/b1"
        [ "$(grep -c 'u.cmp.ge' "$BATS_TEST_TMPDIR/b1")" -eq 2 ]
        [ "$(grep -c 'u.cmp.le' "$BATS_TEST_TMPDIR/b1")" -eq 2 ]
        # x's lowest offset is -3; its highest end is i + 9's element, 10
        # (a rack at i + 2 ends at 2 + lanes: below 10 up to 8 lanes)
        grep -q 'const i64:0xfffffffffffffffd' "$nir"
    done
    "$BIN/rakec" --emit-native-ir --no-report --target x86-avx2 "$GEN/spans.rk" -o "$nir"
    grep -q 'const i64:0x000000000000000a$' "$nir"
    "$BIN/rakec" --emit-native-ir --no-report --target x86-avx512 "$GEN/spans.rk" -o "$nir"
    grep -q 'const i64:0x0000000000000012$' "$nir"
}

@test "general runs: branches that earlier ones decide go, on every profile (facts.rk runs them against the interpreter)" {
    local p nir=$BATS_TEST_TMPDIR/f.nir
    for p in x86-sse2 x86-avx2 x86-avx512 wasm-simd128; do
        "$BIN/rakec" --emit-native-ir --no-report --target "$p" "$GEN/facts.rk" -o "$nir"
        # the arms a < b decides away: - 100.0, * 1000.0 (and the else
        # arm of t > 0's t >= 0: - 1000.0, the same constant)
        ! grep -q 'f32:0x42c80000\|f32:0x447a0000' "$nir" || { echo "$p: a decided arm is left"; cat "$nir"; false; }
        # the arms a NaN keeps open: + 20.0 and + 50.0, in both copies of the loop
        [ "$(grep -c 'f32:0x41a00000' "$nir")" -eq 2 ] && [ "$(grep -c 'f32:0x42480000' "$nir")" -eq 2 ] ||
            { echo "$p: an arm t <= 0 doesn't decide went"; cat "$nir"; false; }
    done
}

@test "general runs: adding select(m, 1, 0) subtracts the mask on SSE2 and AVX2, adds 1 under the k mask on AVX-512 (counts.rk runs it against the interpreter)" {
    local p n s=$BATS_TEST_TMPDIR/count.s
    for p in x86-sse2:4 x86-avx2:8; do
        n=${p#*:} p=${p%:*}
        sed "s/FOUR_RACKS/$((4 * n))/g; s/THREE_RACKS/$((3 * n))/g; s/TWO_RACKS/$((2 * n))/g; s/LANES/$n/g" "$RAKE_ROOT/bench/kernels/count.rk" >"$BATS_TEST_TMPDIR/count.rk"
        "$BIN/rakec" -S --no-report --target "$p" "$BATS_TEST_TMPDIR/count.rk" -o "$s"
        # the fast loop (the last conditional backward branch's): a subtract of the
        # comparison's mask, no add of a 0/1 rack
        awk '/^\.L.*:$/ {l = $1; sub(":", "", l); start[l] = NR} {line[NR] = $0}
             /\tj[a-z]+\t/ && $1 != "jmp" && ($2 in start) {from = start[$2]; to = NR}
             END {for (i = from; i <= to; i++) print line[i]}' "$s" >"$BATS_TEST_TMPDIR/loop.s"
        cat "$BATS_TEST_TMPDIR/loop.s"
        grep -qE '	v?psubd	' "$BATS_TEST_TMPDIR/loop.s"
        ! grep -qE '	v?paddd	' "$BATS_TEST_TMPDIR/loop.s"
    done
    # AVX-512: a merge-masked add of 1s per rack, no zero-masked move
    sed "s/FOUR_RACKS/64/g; s/THREE_RACKS/48/g; s/TWO_RACKS/32/g; s/LANES/16/g" "$RAKE_ROOT/bench/kernels/count.rk" >"$BATS_TEST_TMPDIR/count.rk"
    "$BIN/rakec" -S --no-report --target x86-avx512 "$BATS_TEST_TMPDIR/count.rk" -o "$s"
    awk '/^\.L.*:$/ {l = $1; sub(":", "", l); start[l] = NR} {line[NR] = $0}
         /\tj[a-z]+\t/ && $1 != "jmp" && ($2 in start) {from = start[$2]; to = NR}
         END {for (i = from; i <= to; i++) print line[i]}' "$s" >"$BATS_TEST_TMPDIR/loop.s"
    cat "$BATS_TEST_TMPDIR/loop.s"
    [ "$(grep -cE '	vpaddd	.*\{%k[1-7]\}$' "$BATS_TEST_TMPDIR/loop.s")" -eq 4 ]
    ! grep -q '{z}' "$BATS_TEST_TMPDIR/loop.s"
}

@test "general runs: integer arguments past the sixth are loaded from their stack slots, and rake-verify checks each slot" {
    local d=$BATS_TEST_TMPDIR p
    printf 'run d(x: []f32, y: []f32, out: mut []f32, <n: i32>, <k: u32>):\n  out[<0>] <- x[<0>] + y[<0>] + to_f32(<k>)\n' >"$d/nine.rk"
    for p in x86-sse2 x86-avx2 x86-avx512; do
        "$BIN/rakec" --stop-after ra --target "$p" -o "$d/ra.json" "$d/nine.rk"
        # n and k: the 7th and 8th integer arguments, stack slots 0 and 1
        /usr/bin/python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["functions"][0]["args"]; assert [x.get("stack") for x in a][-2:] == [0, 1], a' "$d/ra.json"
        "$BIN/rake-emit" <"$d/ra.json" >"$d/ok.s"
        as --64 "$d/ok.s" -o "$d/ok.o"
        "$BIN/rake-verify" --object "$d/ok.o" --whole-program <"$d/ra.json"
        # k (n is never read) is read 8 bytes past slot 0, which is past
        # the return address and the pushes
        grep -E $'^\tmovl\t[0-9]+\(%rsp\), %' "$d/ok.s"
        # another slot is a selection violation
        sed -E 's/^(\tmovl\t)([0-9]+)(\(%rsp\))/\1\2+8\3/' "$d/ok.s" >"$d/bad.s"
        ! cmp -s "$d/ok.s" "$d/bad.s"
        as --64 "$d/bad.s" -o "$d/bad.o"
        run "$BIN/rake-verify" --object "$d/bad.o" --whole-program <"$d/ra.json"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"selection"* ]]
    done
}

@test "general runs: when general registers run out, stack arguments and their sign extensions are loaded again from their slots, and rake-verify allows no other read of the stack" {
    local d=$BATS_TEST_TMPDIR p r=$RAKE_ROOT/tests/x86/cli/stack-reload.rk
    for p in x86-sse2 x86-avx2 x86-avx512; do
        "$BIN/rakec" --stop-after ra --target "$p" -o "$d/ra.json" "$r"
        # reloads: rake-ra's, origin stack.arg, marked again; some sign-extend
        [ "$(jq '[.. | objects | select(.origin? == "stack.arg" and .again == true)] | length' "$d/ra.json")" -ge 4 ]
        "$BIN/rake-emit" <"$d/ra.json" >"$d/ok.s"
        grep -qE $'^	movslq	[0-9]+\(%rsp\), %r' "$d/ok.s"
        [ "$(grep -cE '[0-9]+\(%rsp\), %' "$d/ok.s")" -gt 5 ] # more than the five arguments' entry loads
        as --64 "$d/ok.s" -o "$d/ok.o"
        "$BIN/rake-verify" --object "$d/ok.o" --whole-program <"$d/ra.json"
        # a reload from below the arguments (the return address): the stack rule
        jq '([paths(objects and .origin? == "stack.arg")][0]) as $p | setpath($p + ["args", 1, "mem", "disp"]; 0)' \
            "$d/ra.json" >"$d/bad.json"
        "$BIN/rake-emit" <"$d/bad.json" >"$d/bad.s"
        ! cmp -s "$d/ok.s" "$d/bad.s"
        as --64 "$d/bad.s" -o "$d/bad.o"
        run "$BIN/rake-verify" --object "$d/bad.o" --whole-program <"$d/bad.json"
        echo "$output"
        [ "$status" -eq 1 ]
        [[ $output == *"(%rsp), %"*"): stack: "* ]]
        # a reload from anything but the stack pointer is not rake.mir
        jq '([paths(objects and .origin? == "stack.arg")][0]) as $p | setpath($p + ["args", 1, "mem", "base", "reg"]; "rax")' \
            "$d/ra.json" >"$d/base.json"
        run "$BIN/rake-emit" <"$d/base.json"
        [ "$status" -eq 2 ]
        [[ $output == *"a stack.arg instruction reads its slot from the stack pointer"* ]]
        # nor with an index, nor in a kernel (only runs have stack arguments)
        jq '([paths(objects and .origin? == "stack.arg")][0]) as $p | setpath($p + ["args", 1, "mem", "index"]; {"reg": "rax", "class": "gpr"})' \
            "$d/ra.json" >"$d/index.json"
        run "$BIN/rake-emit" <"$d/index.json"
        [ "$status" -eq 2 ]
        [[ $output == *"a stack.arg instruction's slot has no index"* ]]
        jq '.functions[0].kind = "rake"' "$d/ra.json" >"$d/kernel.json"
        run "$BIN/rake-emit" <"$d/kernel.json"
        [ "$status" -eq 2 ]
        [[ $output == *"/origin: only a run has stack arguments to load again"* ]]
    done
}

@test "general runs: what they don't do natively is a located error" {
    printf 'run v(out: mut []f32, <a: f32>, <b: f32>, <c: f32>, <d: f32>, <e: f32>, <f: f32>, <g: f32>, <h: f32>, <i: f32>):\n  out[<0>] <- <i>\n' >"$BATS_TEST_TMPDIR/nine.rk"
    run "$BIN/rakec" -c --no-report --target x86-avx2 "$BATS_TEST_TMPDIR/nine.rk" -o "$BATS_TEST_TMPDIR/nine.o"
    [ "$status" -eq 1 ]
    [[ $output == *"nine.rk:1:1: error: run v has 9 uniform parameters; a native run keeps at most eight in vector registers"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/nine.o" ]
    printf 'run b(x: []u8, out: mut []u8, <n: i32>):\n  out[<0>] <- x[<0>]\n' >"$BATS_TEST_TMPDIR/u8.rk"
    run "$BIN/rakec" -c --no-report --target x86-sse2 "$BATS_TEST_TMPDIR/u8.rk" -o "$BATS_TEST_TMPDIR/u8.o"
    [ "$status" -eq 1 ]
    [[ $output == *"u8.rk:2:"*"error: x86-sse2 can't compile u8s yet"* ]]
    printf 'run g(t: []f32, out: mut []f32, idx: []i32):\n  let k = idx[<0>]\n  out[<0>] <- t[k]\n' >"$BATS_TEST_TMPDIR/g.rk"
    run "$BIN/rakec" -c --no-report --target x86-avx2 "$BATS_TEST_TMPDIR/g.rk" -o "$BATS_TEST_TMPDIR/g.o"
    [ "$status" -eq 1 ]
    [[ $output == *"g.rk:3:16: error: x86-avx2 can't compile gathers yet"* ]]
}

@test "general runs: random programs from tools/gen-general match the interpreter on every x86 profile, in bounds and out" {
    local d=$BATS_TEST_TMPDIR/gen f p pairs=0 refused=0 runs=0 traps=0 fails=0 a
    mkdir -p "$d"
    cc -O2 -std=c11 -o "$BATS_TEST_TMPDIR/gen-general" "$RAKE_ROOT/tools/gen-general/main.c"
    "$BATS_TEST_TMPDIR/gen-general" --seed "$GENERAL_SEED" --files "$GENERAL_FILES" --out "$d"
    for p in x86-sse2 x86-avx2 x86-avx512; do
        for f in "$d"/*.rk; do
            pairs=$((pairs + 1))
            if [ "$p" = x86-avx512 ] && ! has_avx512; then
                "$BIN/rakec" --verify-native --no-report --target "$p" "$f" -o "$d/v.o" 2>"$d/err" ||
                    { grep -q "needs more than the 14 general registers" "$d/err" && refused=$((refused + 1)) && continue; cat "$d/err"; return 1; }
                continue
            fi
            if ! "$BIN/rakec" -c --no-report --target "$p" -o "$d/c.o" "$f" 2>"$d/err"; then
                # the allocator's located refusal is counted; anything else fails
                grep -q "needs more than the 14 general registers" "$d/err" || { echo "$f on $p:"; cat "$d/err"; return 1; }
                refused=$((refused + 1))
                continue
            fi
            for a in 0 1 3 5; do
                runs=$((runs + 1))
                # shellcheck disable=SC2046
                same "$p" "$f" $(seq "$a" | sed 's/^/a/') || { fails=$((fails + 1)); cp "$f" "$BATS_TEST_TMPDIR/failed-$(basename "$f")"; }
                "$BIN/rakec" --interpret --target "$p" "$f" -- $(seq "$a" | sed 's/^/a/') 2>&1 | grep -q ': trap: ' && traps=$((traps + 1))
            done
        done
    done
    echo "# gen-general seed $GENERAL_SEED: $pairs program-profile pairs, $refused refused for general registers, $runs runs ($traps trap), $fails differ" >&3
    has_avx512 || echo "# x86-avx512: this CPU has no avx512f (/proc/cpuinfo): compiled and verified, not run" >&3
    [ "$fails" -eq 0 ]
    [ "$refused" -le $((pairs / 8)) ]
    [ "$runs" -gt 0 ]
}
