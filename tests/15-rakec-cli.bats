#!/usr/bin/env bats
# tests/15-rakec-cli.bats: the rakec command line (docs/cli.md): modes,
# solo forms, option errors, outputs written atomically, --save-temps,
# --stop-after, pass replacement, and the form of its diagnostics.
# The backend modes' own behaviour (-c, -S, --verify-native on every
# profile) is tested in tests/50-x86.bats.

load lib/common

setup() {
    W=$BATS_TEST_TMPDIR
    cp "$RAKE_ROOT/examples/kernels.rk" "$W/k.rk"
    cat >"$W/main.rk" <<'EOF'
slow main() -> i32:
  return 40 + 2
EOF
    cat >"$W/bad.rk" <<'EOF'
scratch f(a: f32s) -> f32s:
  a + nope
EOF
    cd "$W"
}

# ---- solo forms and usage ----------------------------------------------------

@test "cli: no arguments prints the usage and exits 0" {
    run rakec
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "Usage: rakec [MODE] [OPTIONS] FILE.rk [C-INPUTS...] [-- ARGS...]" ]]
}

@test "cli: --help and -h print the usage on stdout" {
    for h in --help -h; do
        run rakec "$h"
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == Usage:* ]]
        [[ "$output" == *"--verify-native"* ]]
    done
}

@test "cli: --version names the compiler and the language version" {
    run rakec --version
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^rakec\ [0-9]+\.[0-9]+\.[0-9]+\ \(Rake\ language\ 0\.7\.0\)$ ]]
}

@test "cli: --print-targets lists every profile of the table" {
    run rakec --print-targets
    [ "$status" -eq 0 ]
    for p in x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128 wasm-simd128-relaxed scalar native; do
        [[ "$output" == *"$p "* ]]
    done
}

@test "cli: solo forms must be used alone" {
    for s in --print-targets --print-capabilities --version --help -h; do
        run rakec "$s" k.rk
        [ "$status" -eq 1 ]
        [ "$output" = "Error: $s must be used alone" ]
        run rakec "$s" --version
        [ "$status" -eq 1 ]
    done
    run rakec --version -- x
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --version must be used alone" ]
}

@test "cli: --json goes only with --print-capabilities" {
    run rakec --print-capabilities --json
    [ "$status" -eq 0 ]
    [[ "$output" == "{"* ]]
    run rakec --json k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --json goes with --print-capabilities" ]
}

# ---- command-line errors ------------------------------------------------------

@test "cli: an unknown option prints its name and the usage, exit 1" {
    run rakec --bogus k.rk
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "Unknown option: --bogus" ]
    [[ "${lines[1]}" == Usage:* ]]
}

@test "cli: no input file" {
    run rakec --interpret
    [ "$status" -eq 1 ]
    [ "$output" = "Error: No input file specified" ]
}

@test "cli: a second input file is an error" {
    cp k.rk k2.rk
    run rakec k.rk k2.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: only one input file may be given (got k.rk and k2.rk)" ]
}

@test "cli: the input must end in .rk and exist" {
    cp k.rk k.txt
    run rakec k.txt
    [ "$status" -eq 1 ]
    [ "$output" = "Unknown file type: k.txt (expected .rk)" ]
    run rakec missing.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: cannot read missing.rk" ]
}

@test "cli: two modes conflict, naming the second" {
    run rakec --interpret --emit-ast main.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --emit-ast conflicts with another emission mode" ]
    run rakec -c -S k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -S conflicts with another emission mode" ]
}

@test "cli: --target is given at most once and must name a profile" {
    run rakec --target x86-avx2 --target x86-sse2 k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --target may be given only once" ]
    run rakec --target bogus k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == "Error: unknown target 'bogus' (the targets: x86-sse2, "* ]]
    [[ "$output" != *"internal error"* ]]
    run rakec --target '.*' k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == "Error: unknown target '.*'"* ]]
}

@test "cli: the scalar profile is rejected as work in progress" {
    run rakec --target scalar k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == *"the scalar profile is work in progress"* ]]
}

@test "cli: --width takes a positive integer equal to the profile's lanes" {
    for w in 0 -4 abc 08 ''; do
        run rakec --width "$w" k.rk
        [ "$status" -eq 1 ]
        [ "$output" = "Error: --width takes a positive integer, got '$w'" ]
    done
    run rakec --width 8 --target x86-sse2 k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == "k.rk: error: --width 8 doesn't match x86-sse2, which has 4 f32 lanes"* ]]
    run rakec --width 4 --target x86-sse2 k.rk
    [ "$status" -eq 0 ]
}

@test "cli: an option missing its value" {
    for o in --target --width -o --output --stop-after --wasm-addressing --emit-header; do
        run rakec k.rk "$o"
        [ "$status" -eq 1 ]
        [ "$output" = "Error: $o needs a value" ]
    done
}

@test "cli: -o is refused with check mode, --emit-tokens and --emit-ast" {
    for m in "" --emit-tokens --emit-ast; do
        run rakec $m -o out k.rk
        [ "$status" -eq 1 ]
        [ "$output" = "Error: -o cannot be used with check mode, --emit-tokens or --emit-ast" ]
    done
    [ ! -e out ]
}

@test "cli: -o must name a writable file, not a directory or the input" {
    run rakec --emit-checked -o '' k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -o needs a file name" ]
    mkdir d
    run rakec --emit-checked -o d k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -o d is a directory" ]
    run rakec --emit-checked -o nodir/x.json k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -o nodir/x.json: no such directory nodir" ]
    cp k.rk before.rk
    run rakec --emit-checked -o ./k.rk k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -o ./k.rk is the input file" ]
    cmp k.rk before.rk
}

@test "cli: --emit-header refuses an empty name, a directory and the input" {
    run rakec --emit-header '' k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --emit-header needs a file name" ]
    run rakec --emit-header . k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --emit-header . is a directory" ]
    run rakec --emit-header k.rk k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --emit-header k.rk is the input file" ]
}

@test "cli: arguments after -- go only with --interpret or --run" {
    run rakec k.rk -- 1 2
    [ "$status" -eq 1 ]
    [ "$output" = "Error: arguments after -- go only with --interpret or --run" ]
    run rakec --interpret main.rk -- 1 2
    [ "$status" -eq 0 ]
    [ "$output" = "42" ]
}

@test "cli: --wasm-addressing takes barrier or plain" {
    run rakec --wasm-addressing plain k.rk
    [ "$status" -eq 0 ]
    run rakec --wasm-addressing fast k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --wasm-addressing takes barrier or plain, got 'fast'" ]
}

@test "cli: modes a profile's backend doesn't have yet say so, and write nothing" {
    for m in --emit-c --emit-exe --run -c; do
        run rakec "$m" --target wasm-simd128 main.rk
        [ "$status" -eq 1 ]
        [[ "$output" == "rakec: wasm-simd128 compiles to C (--emit-c), which is work in progress"* ]]
        run rakec "$m" --target aarch64-neon main.rk
        [ "$status" -eq 1 ]
        [[ "$output" == "rakec: aarch64-neon: code generation for AArch64 is work in progress"* ]]
    done
    [ ! -e main.c ] && [ ! -e main ] && [ ! -e main.o ]
}

# ---- modes ---------------------------------------------------------------------

@test "cli: --counts prints each kernel's and run's verified instruction count" {
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    run rakec --counts --target x86-avx2 p.rk
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^scratch\ step\ [0-9]+$ ]]
    [[ "${lines[1]}" =~ ^run\ advance\ [0-9]+\ loop\ [0-9]+$ ]]
    [[ "${lines[2]}" =~ ^run\ survivors\ [0-9]+\ loop\ [0-9]+$ ]]
    [ "${#lines[@]}" -eq 3 ]
    # the same numbers as the kernel report's
    report=$(rakec -c --target x86-avx2 -o p.o p.rk 2>&1 >/dev/null)
    n=$(echo "${lines[0]}" | cut -d' ' -f3)
    [[ "$report" == *"scratch step: $n instructions"* ]]
    run rakec --counts -o x.txt p.rk
    [ "$status" -eq 1 ]
    [[ "$output" == *"-o cannot be used with it"* ]]
    [ ! -e x.txt ]
}

@test "cli: check mode prints the success line" {
    run rakec k.rk
    [ "$status" -eq 0 ]
    [ "$output" = "Parsed and type-checked k.rk successfully." ]
}

@test "cli: --interpret prints main's value" {
    run rakec --interpret main.rk
    [ "$status" -eq 0 ]
    [ "$output" = "42" ]
    run rakec --interpret k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == *"the program has no slow main to run"* ]]
}

@test "cli: --emit-tokens prints LINE:COL KIND TEXT" {
    run rakec --emit-tokens main.rk
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1:1 keyword slow" ]
    [ "${lines[1]}" = "1:6 ident main" ]
}

@test "cli: --emit-ast and --emit-checked print their documents" {
    run rakec --emit-ast main.rk
    [ "$status" -eq 0 ]
    [[ "$output" == *'"ir": "rake.ast"'* ]]
    run rakec --emit-checked main.rk
    [ "$status" -eq 0 ]
    [[ "$output" == *'"ir": "rake.checked"'* ]]
}

@test "cli: -o writes the file; -o - writes standard output" {
    run rakec --emit-checked -o out.json main.rk
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    grep -q '"ir": "rake.checked"' out.json
    run rakec --emit-checked -o - main.rk
    [ "$status" -eq 0 ]
    [ "$output" = "$(cat out.json)" ]
    [ ! -e ./- ]
}

@test "cli: the same input gives byte-identical outputs" {
    rakec --emit-checked -o a.json k.rk
    rakec --emit-checked -o b.json k.rk
    cmp a.json b.json
    rakec --emit-native-ir --target x86-avx2 -o a.nir k.rk
    rakec --emit-native-ir --target x86-avx2 -o b.nir k.rk
    cmp a.nir b.nir
}

# ---- --stop-after and --save-temps -------------------------------------------------

@test "cli: --stop-after prints each pass's document" {
    for pair in parse:rake.ast check:rake.checked lower:rake.nir opt:rake.nir \
                isel:rake.mir ra:rake.mir; do
        run rakec --stop-after "${pair%%:*}" --target x86-avx2 k.rk
        [ "$status" -eq 0 ]
        [[ "$output" == *"\"ir\": \"${pair#*:}\""* ]]
    done
    run rakec --stop-after isel --target x86-avx2 k.rk
    [[ "$output" == *'"allocated": false'* ]]
    run rakec --stop-after ra --target x86-avx2 k.rk
    [[ "$output" == *'"allocated": true'* ]]
    run rakec --stop-after emit --target x86-avx2 k.rk
    [ "$status" -eq 0 ]
    [[ "$output" == *".globl	advance"* ]]
}

@test "cli: --stop-after takes a pass name, and not with --interpret or the front-end dumps" {
    run rakec --stop-after verify k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --stop-after takes parse, check, lower, opt, isel, ra or emit, got 'verify'" ]
    for m in --interpret --emit-tokens --emit-ast; do
        run rakec "$m" --stop-after parse main.rk
        [ "$status" -eq 1 ]
        [ "$output" = "Error: --stop-after cannot be used with $m" ]
    done
}

@test "cli: --stop-after with -o writes the document there" {
    run rakec --stop-after lower --target x86-avx2 -o low.json k.rk
    [ "$status" -eq 0 ]
    grep -q '"ir": "rake.nir"' low.json
}

@test "cli: --save-temps keeps every stage's document beside the output" {
    mkdir out
    run rakec -S --save-temps --target x86-avx2 -o out/k.s k.rk
    [ "$status" -eq 0 ]
    for s in parse check lower opt isel ra; do
        [ -s "out/k.$s.json" ]
    done
    [ -s out/k.emit.s ]
    cmp out/k.emit.s out/k.s
    grep -q '"ir": "rake.mir"' out/k.isel.json
}

@test "cli: --save-temps keeps a whole program's C unit as STEM.cgen.c" {
    run rakec -c --save-temps --target x86-avx2 -o main.o main.rk
    [ "$status" -eq 0 ]
    [ -s main.o ]
    head -n 1 main.cgen.c | grep -q '^/\* Generated by rake-cgen from main.rk'
    grep -q '^int main' main.cgen.c
    [ ! -e main.cgen.json ]
}

# ---- atomic outputs and pass replacement --------------------------------------------

@test "cli: a failing compile leaves no output and keeps an existing one" {
    echo previous >out.json
    run rakec --emit-checked -o out.json bad.rk
    [ "$status" -eq 1 ]
    [ "$(cat out.json)" = previous ]
    run rakec --emit-checked -o new.json bad.rk
    [ "$status" -eq 1 ]
    [ ! -e new.json ]
    [ -z "$(ls -A | grep '\.tmp\.')" ]
}

@test "cli: a failing assembler leaves no object and no temporary" {
    cat >fake-as <<'EOF'
#!/bin/sh
# writes half an object, then fails
for a; do case $prev in -o) printf 'partial' >"$a" ;; esac; prev=$a; done
exit 1
EOF
    chmod +x fake-as
    RAKE_X86_AS=$PWD/fake-as run rakec -c --target x86-avx2 k.rk
    [ "$status" -ne 0 ]
    [ ! -e k.o ]
    [ -z "$(ls -A | grep '\.tmp\.')" ]
}

@test "cli: a killed compile leaves no output and no temporary directory" {
    cat >slow-opt <<'EOF'
#!/bin/sh
cat >/dev/null
sleep 30
EOF
    chmod +x slow-opt
    export TMPDIR=$W/tmp
    mkdir "$TMPDIR"
    RAKE_PASS_OPT=$PWD/slow-opt rakec --emit-native-ir --target x86-avx2 -o k.nir k.rk &
    pid=$!
    sleep 1
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    [ "$status" -eq 143 ]
    [ ! -e k.nir ]
    [ -z "$(ls -A "$TMPDIR")" ]
}

@test "cli: RAKE_PASS_<NAME> replaces a pass; its failure is an internal error" {
    cat >broken-check <<'EOF'
#!/bin/sh
cat >/dev/null
echo "broken-check: deliberately failing" >&2
exit 3
EOF
    chmod +x broken-check
    RAKE_PASS_CHECK=$PWD/broken-check run rakec k.rk
    [ "$status" -eq 3 ]
    [ "${lines[0]}" = "broken-check: deliberately failing" ]
    [ "${lines[1]}" = "rakec: internal error: rake-check failed with status 3" ]
}

@test "cli: a replacement pass that accepts gives the same result as the real one" {
    cat >tee-check <<EOF
#!/bin/sh
exec "$BIN/rake-check" "\$@"
EOF
    chmod +x tee-check
    RAKE_PASS_CHECK=$PWD/tee-check run rakec --interpret main.rk
    [ "$status" -eq 0 ]
    [ "$output" = 42 ]
}

# ---- facts the driver reads: rake-check --describe --------------------------------

@test "cli: rake-check --describe prints the resolved target and what makes a whole program" {
    rake-parse k.rk | rake-check --target native >k.json
    run rake-check --describe <k.json
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 2 ]
    [[ ${lines[0]} =~ ^target\ (x86-sse2|x86-avx2|x86-avx512|aarch64-neon|wasm-simd128)$ ]]
    [ "${lines[1]}" = "whole-program no" ]
    printf 'state n: i32 := 0\n\nrun r(x: mut []f32):\n  x[<0>] <- x[<0>]\n' >w.rk
    cat main.rk >>w.rk
    rake-parse w.rk | rake-check --target wasm-simd128 >w.json
    run rake-check --describe <w.json
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'target wasm-simd128\nwhole-program yes\npart runs\npart slow functions\npart module state\npart general runs')" ]
    # a run's slow block becomes C: a part of its own
    printf 'pack P {\n  f32: v;\n}\nrun r(s: stack P) -> stack P:\n  let <k: f32> = slow { 2.0 }\n  s with { v: s.v * <k> }\n' >b.rk
    rake-parse b.rk | rake-check --target x86-avx2 >b.json
    run rake-check --describe <b.json
    [ "$output" = "$(printf 'target x86-avx2\nwhole-program yes\npart runs\npart slow blocks')" ]
    # constants are folded into kernels: no part
    printf 'const c: f32 = 2.0\n\nscratch f(a: f32s) -> f32s:\n  a * c\n' >c.rk
    rake-parse c.rk | rake-check --target x86-avx2 >c.json
    run rake-check --describe <c.json
    [ "$output" = "$(printf 'target x86-avx2\nwhole-program no')" ]
    # it reads rake.checked, never rake.ast
    rake-parse k.rk >k.ast
    run rake-check --describe <k.ast
    [ "$status" -eq 2 ]
    [ -z "$(rake-parse k.rk | rake-check --describe 2>/dev/null)" ]
}

@test "cli: the driver takes the target and whole-program facts from rake-check, not the JSON's layout" {
    # a rake-check whose rake.checked is on one line (valid JSON, different
    # indentation): sed patterns over the pretty-printed document found
    # neither the target nor the kinds of the declarations in it
    printf '#!/bin/sh\ncase " $* " in *" --describe "*) exec "%s/rake-check" "$@" ;; esac\n"%s/rake-check" "$@" | jq -c .\n' "$BIN" "$BIN" >flat-check
    chmod +x flat-check
    RAKE_PASS_CHECK=$PWD/flat-check run rakec -S --target native -o k.s k.rk
    [ "$status" -eq 0 ]
    grep -q 'vfmadd\|mulps\|addps' k.s
    printf 'state n: i32 := 0\n' >>k.rk
    for check in "$BIN/rake-check" "$PWD/flat-check"; do
        # module state makes a whole program: the object comes from a C unit,
        # compiled by the platform C compiler (which names itself in
        # .comment; `as` alone writes no such section)
        rm -f s.o
        RAKE_PASS_CHECK=$check run rakec -c --no-report --target x86-avx2 -o s.o k.rk
        [ "$status" -eq 0 ]
        readelf -p .comment s.o | grep -qi 'gcc\|clang'
    done
    # a rake-check that describes nothing is an internal error
    printf '#!/bin/sh\ncase " $* " in *" --describe "*) exit 0 ;; esac\nexec "%s/rake-check" "$@"\n' "$BIN" >mute-check
    chmod +x mute-check
    RAKE_PASS_CHECK=$PWD/mute-check run rakec -S --target x86-avx2 -o m.s k.rk
    [ "$status" -eq 3 ]
    [[ $output == "rakec: internal error: "* ]]
}

# ---- diagnostics -------------------------------------------------------------------

@test "cli: a program error is FILE:LINE:COL: error: with the line and a caret, exit 1" {
    run rakec bad.rk
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "bad.rk:2:7: error: "* ]]
    [ "${lines[1]}" = "  a + nope" ]
    [ "${lines[2]}" = "      ^" ]
}

@test "cli: paths with spaces work everywhere" {
    mkdir "my dir"
    cp main.rk "my dir/m m.rk"
    run rakec --interpret "my dir/m m.rk"
    [ "$status" -eq 0 ]
    [ "$output" = 42 ]
    run rakec --emit-checked -o "my dir/out put.json" "my dir/m m.rk"
    [ "$status" -eq 0 ]
    [ -s "my dir/out put.json" ]
    cp bad.rk "my dir/b b.rk"
    run rakec "my dir/b b.rk"
    [[ "${lines[0]}" == "my dir/b b.rk:2:7: error: "* ]]
}
