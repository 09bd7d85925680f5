#!/usr/bin/env bats
# tests/56-cgen.bats: rake-cgen, the slow tier of a whole program as C.
#
#   the oracle programs
#       every tests/interp, tests/shared/conformance and tests/cgen program
#       with `slow main` that checks on x86-avx2 and calls no run or kernel
#       is compiled (rake-parse | rake-check | rake-cgen, then cc -std=c11
#       -O2 -Wall -Wextra -Werror -DRAKE_PRINT_RESULT) and run; its stdout,
#       stderr and exit status must be byte for byte those of `rakec
#       --interpret --target x86-avx2` (trap programs included; a
#       `~~ env:` header applies to both).
#   run calls
#       programs whose run calls trap before the run starts (stack counts,
#       aliasing) give the interpreter's trap with no-op runs from --asm.
#   the unit
#       clang and gcc accept it with -Wall -Wextra -Werror; ASan and UBSan
#       find nothing; the same input gives the same bytes; --asm text is
#       embedded opaquely; the CLI contract; located refusals.
load lib/common

TARGET=x86-avx2

setup() {
    cd "$RAKE_ROOT"
    T=$BATS_TEST_TMPDIR
    failures=()
}

report() {
    if [ ${#failures[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${failures[@]}" >&2
        return 1
    fi
}

# checked FILE [PROFILE]: rake.checked for FILE on stdout
checked() {
    "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target "${2:-$TARGET}"
}

# oracle_programs: the programs the C unit can run alone
oracle_programs() {
    local f
    for f in tests/interp/*.rk "$SHARED"/conformance/*.rk tests/cgen/*.rk; do
        grep -q '^slow main' "$f" || continue
        # externs need the user's C and unions the interpreter refuses
        # (tests/57 runs both); `native: undefined` is C's undefined behaviour
        grep -qE '^(extern |union |~~ native: undefined)' "$f" && continue
        checked "$f" >"$T/c.json" 2>/dev/null || continue
        grep -qE '"note": "(run|scratch|rake)"' "$T/c.json" && continue
        echo "$f"
    done
}

# build FILE OUT [CFLAGS...]: compile FILE's unit into OUT
build() {
    local f=$1 out=$2
    shift 2
    checked "$f" >"$T/c.json" && "$BIN/rake-cgen" <"$T/c.json" >"$out.c" &&
        cc -std=c11 -O2 -Wall -Wextra -Werror -DRAKE_PRINT_RESULT -DRAKE_ARGV0_SOURCE "$@" \
            -o "$out" "$out.c" -lm
}

# same FILE EXE: EXE and the interpreter agree byte for byte on FILE
same() {
    local f=$1 exe=$2 envs rc1=0 rc2=0
    envs=$(sed -n 's/^~~ env: *//p' "$f" | head -n 1)
    env $envs "$exe" >"$T/o1" 2>"$T/e1" || rc1=$?
    env $envs "$BIN/rakec" --interpret --target "$TARGET" "$f" >"$T/o2" 2>"$T/e2" || rc2=$?
    if [ "$rc1" != "$rc2" ] || ! cmp -s "$T/o1" "$T/o2" || ! cmp -s "$T/e1" "$T/e2"; then
        failures+=("$f: exit $rc1 vs $rc2; stdout '$(head -c 80 "$T/o1")' vs '$(head -c 80 "$T/o2")'; stderr '$(head -n 1 "$T/e1")' vs '$(head -n 1 "$T/e2")'")
    fi
}

@test "compiled slow code behaves byte for byte as rakec --interpret" {
    local f n=0 traps=0
    for f in $(oracle_programs); do
        n=$((n + 1))
        case $f in */trap_*) traps=$((traps + 1)) ;; esac
        if ! build "$f" "$T/prog" 2>"$T/err"; then
            failures+=("$f: doesn't build: $(head -n 3 "$T/err")")
            continue
        fi
        same "$f" "$T/prog"
    done
    report
    [ "$n" -ge 37 ] && [ "$traps" -ge 25 ]
    echo "# $n programs, $traps of them traps" >&3
}

@test "run calls trap before the run starts as the interpreter does (no-op runs from --asm)" {
    local f n
    for f in tests/interp/trap_stack_counts.rk tests/interp/trap_result_overlap.rk \
        tests/interp/trap_result_columns.rk tests/interp/trap_result_columns_shifted.rk; do
        checked "$f" >"$T/c.json"
        "$BIN/rake-cgen" <"$T/c.json" >"$T/u.c"
        # each declared run (its symbol in the asm label) becomes `ret`
        sed -n 's/^void rk_native_[A-Za-z_0-9]*(.*__asm__("\([A-Za-z_0-9]*\)");$/\1/p' "$T/u.c" | while read -r n; do
            printf '\t.globl %s\n\t.type %s, @function\n%s:\n\tret\n' "$n" "$n" "$n"
        done >"$T/runs.s"
        [ -s "$T/runs.s" ]
        "$BIN/rake-cgen" --asm "$T/runs.s" <"$T/c.json" >"$T/p.c"
        cc -std=c11 -O2 -Wall -Wextra -Werror -DRAKE_PRINT_RESULT -o "$T/p" "$T/p.c" -lm
        same "$f" "$T/p"
    done
    report
}

@test "the C boundary: descriptors and prototypes of the runs slow code calls" {
    checked tests/interp/stacks_slow.rk >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    assert_output --partial $'struct rake_stack_P_v2 {\n    int64_t count;\n    float *x;\n    int32_t *n;\n};'
    assert_output --partial 'void rk_native_bump(struct rake_stack_P_v2 *) __asm__("bump");'
    assert_output --partial 'void rk_native_sum(const struct rake_stack_P_v2 *, struct rake_stack_Q_v2 *) __asm__("sum");'
    [ "$(grep -c '^void rk_native_sum(' <<<"$output")" -eq 1 ]
}

@test "units compile cleanly under clang and gcc with -Wall -Wextra -Werror" {
    command -v clang >/dev/null || skip "no clang"
    local f cc
    for f in $(oracle_programs) tests/interp/stacks_slow.rk tests/interp/mut_arrays.rk; do
        checked "$f" >"$T/c.json"
        "$BIN/rake-cgen" <"$T/c.json" >"$T/u.c"
        for cc in gcc clang; do
            $cc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$T/u.o" "$T/u.c" 2>"$T/err" ||
                failures+=("$f: $cc: $(grep -m 1 error "$T/err")")
        done
    done
    report
}

@test "compiled units run clean under ASan and UBSan" {
    local f
    for f in tests/cgen/slow_mix.rk tests/interp/slow_values.rk tests/interp/slow_builtins.rk \
        tests/interp/short_circuit.rk tests/interp/trap_copy_arena.rk \
        tests/interp/trap_index_slow_store.rk tests/interp/trap_overflow_i64.rk; do
        if ! build "$f" "$T/san" -g -fsanitize=address,undefined -fno-sanitize-recover=all \
            2>"$T/err"; then
            failures+=("$f: doesn't build: $(head -n 1 "$T/err")")
            continue
        fi
        same "$f" "$T/san"
        if grep -qE 'Sanitizer|runtime error:' "$T/e1"; then
            failures+=("$f: $(grep -m 1 -E 'Sanitizer|runtime error:' "$T/e1")")
        fi
    done
    report
}

@test "without RAKE_PRINT_RESULT main's result is the exit status and stdout stays empty" {
    cat >"$T/r.rk" <<'EOF'
slow main() -> i32:
  return 6 * 7
EOF
    checked "$T/r.rk" >"$T/c.json"
    "$BIN/rake-cgen" <"$T/c.json" >"$T/r.c"
    cc -std=c11 -O2 -o "$T/r" "$T/r.c" -lm
    run "$T/r"
    [ "$status" -eq 42 ]
    [ -z "$output" ]
}

@test "a program without slow main gets no C main" {
    checked "$SHARED"/conformance/stacks_particles.rk >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    refute_output --partial 'int main('
}

@test "the same input gives byte-identical C, headed by its source and target" {
    checked tests/cgen/slow_mix.rk >"$T/c.json"
    "$BIN/rake-cgen" <"$T/c.json" >"$T/a.c"
    "$BIN/rake-cgen" <"$T/c.json" >"$T/b.c"
    cmp "$T/a.c" "$T/b.c"
    head -n 1 "$T/a.c" | grep -qF 'Generated by rake-cgen from tests/cgen/slow_mix.rk (target x86-avx2)'
}

@test "--asm text goes verbatim and opaque into one top-level __asm__" {
    cat >"$T/k.s" <<'EOF'
	# a "quoted" comment with a backslash \ and ?? and */ inside
	.globl rk_probe_asm
	.type rk_probe_asm, @function
rk_probe_asm:
	movl $42, %eax
	ret
EOF
    checked tests/cgen/slow_mix.rk >"$T/c.json"
    "$BIN/rake-cgen" --asm "$T/k.s" <"$T/c.json" >"$T/k.c"
    [ "$(grep -c '__asm__(' "$T/k.c")" -eq 1 ]
    grep -qF '"\t# a \"quoted\" comment with a backslash \\ and \?\? and */ inside\n"' "$T/k.c"
    cc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$T/k.o" "$T/k.c"
    nm "$T/k.o" | grep -q ' T rk_probe_asm$'
    # without --asm, no asm at all
    "$BIN/rake-cgen" <"$T/c.json" >"$T/n.c"
    ! grep -q '__asm__' "$T/n.c"
}

@test "CLI: wrong IR kind, version or JSON exit 2 located on stdin; unknown options show usage" {
    run "$BIN/rake-cgen" <<<'{"ir": "rake.ast", "version": 1, "source": "f.rk", "decls": []}'
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" =~ ^rake-cgen:\ \<stdin\>:[0-9]+:[0-9]+:\  ]]
    run "$BIN/rake-cgen" <<<'{"ir": "rake.checked", "version": 9, "source": "f.rk", "target": "x86-avx2", "decls": []}'
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" =~ ^rake-cgen:\ \<stdin\>:[0-9]+:[0-9]+:\  ]]
    run "$BIN/rake-cgen" <<<'{"ir": '
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" =~ ^rake-cgen:\ \<stdin\>:[0-9]+:[0-9]+:\  ]]
    run "$BIN/rake-cgen" --bogus </dev/null
    [ "$status" -eq 2 ]
    [ "$output" = "rake-cgen: unknown option '--bogus' (usage: rake-cgen [--asm FILE.s | --header-runs] < rake.checked > unit.c)" ]
    run "$BIN/rake-cgen" --asm "$T/missing.s" </dev/null
    [ "$status" -eq 2 ]
}

@test "calls to general runs without native code are located errors, nothing on stdout; slow blocks in runs become helpers" {
    cat >"$T/g.rk" <<'EOF'
run fill(out: mut []f32, <n: i32>):
  for <i: i32> from <0> up to <n>:
    out[<i>] <- <1.0>

slow main() -> i32:
  a: [8]f32 := [0.0; 8]
  fill(a, <8>)
  return 0
EOF
    # wasm-simd128 has no native code (tests/58-cgen-general.bats has the
    # physical profiles' calls)
    checked "$T/g.rk" wasm-simd128 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "$T/g.rk:7:3: error: rake-cgen: calling general run 'fill' on wasm-simd128: slow code calls general runs natively on x86 and aarch64 profiles only" ]]
    "$BIN/rake-cgen" <"$T/c.json" 2>/dev/null >"$T/out" || true
    [ ! -s "$T/out" ]
    cat >"$T/s.rk" <<'EOF'
pack P {
  f32: x;
}

run bump(s: stack P) -> stack P:
  let <k: f32> = slow { 2.0 }
  s with { x: s.x * <k> }

slow main() -> i32:
  a: [8]f32 := [1.0; 8]
  s := stack P { x: a }
  s <- bump(s)
  return 0
EOF
    checked "$T/s.rk" >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    [ "$status" -eq 0 ]
    # the block (at 6:18) is a never-inlined helper taking its slots
    [[ "$output" == *'__attribute__((noinline, used)) void rk_slow_6_18(unsigned char *rk_io)'* ]]
    [[ "$output" == *'void rk_native_bump(struct rake_stack_P_v2 *) __asm__("bump");'* ]]
}

@test "kernels keep C keywords as symbols; names of the C library the unit links are located errors" {
    # bitcast_bits.rk calls a scratch named `signed`: the unit declares it
    # under a C name of its own bound by an asm label to the symbol
    checked tests/interp/bitcast_bits.rk >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *' rk_native_signed(int32_t) __asm__("signed");'* ]]
    # a kernel named after a C library function would take its place in
    # the unit's own calls (rk_trap's fprintf, the arena's calloc)
    for name in fprintf calloc sqrtf pthread_create; do
        printf 'scratch %s(<a: f32>) -> f32:\n  <a>\n\nslow main() -> i32:\n  x := %s(<1.0>)\n  return 0\n' "$name" "$name" >"$T/l.rk"
        run "$BIN/rakec" --emit-c --target x86-avx2 -o "$T/l.c" "$T/l.rk"
        [ "$status" -eq 1 ]
        [[ "${lines[0]}" == "$T/l.rk:5:8: error: rake-cgen: '$name' can't be a native function of a whole program: the C library the program links defines that name" ]]
        [ ! -e "$T/l.c" ]
    done
}

@test "C interop: records as structs, header records asserted, pointers, function pointers, externs and embed as C" {
    checked tests/c/externs.rk >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    assert_output --partial "#include \"$RAKE_ROOT/tests/c/interop.h\""
    assert_output --partial $'struct rk_rec_Mine {\n    int32_t a;\n    struct rk_arr_i32_3 b;\n};'
    assert_output --partial '_Static_assert(sizeof(((Vec2 *)0)->x) == sizeof(float), "Vec2.x: the header'"'"'s member is not the size of f32");'
    assert_output --partial 'typedef int32_t (*rk_fnt'
    assert_output --partial 'static _Alignas(16) const uint8_t rk_e_abc[3] = {'
    assert_output --partial 'str_len((const void *)"hello")'
    assert_output --partial 'first_byte((const void *)"A\tB")'
    refute_output --partial 'int32_t add_i32('
    checked tests/c/fnptrs.rk >"$T/f.json"
    run "$BIN/rake-cgen" <"$T/f.json"
    assert_success
    # dot takes its record by pointer; addr(dot) is an adapter taking it by value
    assert_output --partial 'static int32_t rk_fn_dot(__attribute__((unused)) struct rk_rec_Point *rk_v0_p);'
    assert_output --partial $'static int32_t rk_fp_dot(struct rk_rec_Point rk_a0)\n{\n    return rk_fn_dot(&rk_a0);\n}'
    assert_output --partial 'rk_trap('
    assert_output --partial '"call through a null function pointer");'
    checked tests/c/main_args.rk >"$T/m.json"
    run "$BIN/rake-cgen" <"$T/m.json"
    assert_output --partial 'rk_main_result = rk_fn_main((int32_t)rk_argc, (uint8_t **)rk_argv);'
}
