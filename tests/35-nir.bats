#!/usr/bin/env bats
# tests/35-nir.bats: rake-lower, the native-IR verifier and rake-opt
# (docs/nir.md).
#
#   tests/nir/golden/NAME.rk     a copy of tests/shared/conformance/NAME.rk or
#                                of a ```rake block of the spec pages
#                                (PAGE-N.rk, as tools/extract-spec-blocks
#                                names it)
#   tests/nir/golden/NAME.nir.PROFILE.json
#                                `rake-parse NAME.rk | rake-check --target
#                                PROFILE | rake-lower | rake-opt`, for each of
#                                x86-sse2, x86-avx2 and wasm-simd128 on which
#                                NAME checks (run from the checkout's root)
#   tests/nir/golden/NAME.nir.PROFILE.txt, tests/nir/opt/NAME.nir.PROFILE.txt
#                                the same through `rake-opt --text` (what
#                                `rakec --emit-native-ir` prints), for a
#                                chosen subset and for the rewrite cases of
#                                tests/nir/opt/ (contraction, sanitisation,
#                                selection collapsing)
#   tests/nir/rewrite/NAME.json  a hand-written rake.nir document whose
#                                `rake-opt --text` output is NAME.opt.txt
#   tests/nir/invalid/RULE-N.json
#                                a hand-written document that breaks the
#                                verifier rule RULE (one of those listed at
#                                the top of lib/nirverify.c) and nothing
#                                else; its "source" says how
#   tests/nir/meaning/NAME.rk    a program whose main must give its
#                                `~~ expect: N` in the tree and through the
#                                native IR on each of its `~~ targets:`
#
# tools/update-golden regenerates every expected file (and copies new
# conformance programs and spec blocks in); read what it changes before
# committing.  Each @test loops over every file and names each one that
# fails, so one run reports everything wrong.  The checked documents the
# tests start from are made once, in setup_file, with the normal build;
# the sanitizer runs are of rake-lower, rake-opt and rake-verify.
load lib/common

NIR=tests/nir
GOLDEN=tests/nir/golden
OPT=tests/nir/opt
REWRITE=tests/nir/rewrite
INVALID=tests/nir/invalid
SCHEMA=ir-schema/rake.nir.schema.json
NIR_PROFILES="x86-sse2 x86-avx2 wasm-simd128"
ALL_PROFILES="x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128 wasm-simd128-relaxed"

setup_file() {
    cd "$RAKE_ROOT"
    local w=$BATS_FILE_TMPDIR rk name profile profiles key g
    mkdir -p "$w/checked" "$w/bin" "$w/asan"
    : >"$w/pairs"
    # Each program is parsed once and checked on the profiles that matter:
    # every NIR profile for tests/nir/golden (the corpus test needs to know
    # where it checks), those with a text golden for tests/nir/opt.  A
    # (program, profile) with a golden that checks is a pair the pipelines
    # run; checked/KEY.json or checked/KEY.fail records the verdict.
    for rk in "$GOLDEN"/*.rk "$OPT"/*.rk; do
        [ -f "$rk" ] || continue
        name=${rk%.rk}
        "$BIN/rake-parse" "$rk" >"$w/ast.json" 2>/dev/null || continue
        case $rk in
        "$GOLDEN"/*) profiles=$NIR_PROFILES ;;
        *) profiles=
           for g in "$name".nir.*.txt; do
               [ -f "$g" ] && golden_parts "$g" && profiles+=" $profile"
           done ;;
        esac
        for profile in $profiles; do
            key=${name##*/}.$profile
            if "$BIN/rake-check" --target "$profile" <"$w/ast.json" >"$w/checked/$key.json" 2>/dev/null; then
                [ -f "$name.nir.$profile.json" ] || [ -f "$name.nir.$profile.txt" ] &&
                    echo "$name $profile" >>"$w/pairs"
            else
                mv "$w/checked/$key.json" "$w/checked/$key.fail"
            fi
        done
    done
    pipeline "$BIN" "$w/bin" full
    pipeline "$ASAN_BIN" "$w/asan" sanitizer
}

# pipeline BINDIR OUTDIR MODE: run BINDIR's passes on every pair once, keeping
# each output, stderr and status as OUTDIR/KEY.STAGE{,.err,.rc}:
#   lower      rake-lower on the checked document
#   opt        rake-opt on that (where there is a JSON golden)
#   verify     rake-verify --ir on rake-lower's output (likewise)
#   txt        rake-opt --text on rake-lower's output (where there is a
#              text golden)
#   reopt      rake-opt on the JSON golden itself (MODE full)
# The tests below then compare and report; a pass that isn't built leaves
# nothing, which they report.  To stay fast, the sanitizer run (MODE
# sanitizer) skips what adds little: tests/nir/opt on other profiles than
# x86-avx2, and rake-verify (whose checks its rake-lower and rake-opt run
# on every document anyway) on other profiles than x86-sse2.
pipeline() {
    local bin=$1 o=$2 mode=$3 name profile key c json
    [ -x "$bin/rake-lower" ] && [ -x "$bin/rake-opt" ] && [ -x "$bin/rake-verify" ] || return 0
    while read -r name profile; do
        key=${name##*/}.$profile
        skipped "$mode" "$name" "$profile" && continue
        c=$BATS_FILE_TMPDIR/checked/$key.json
        stage "$o/$key.lower" "$bin/rake-lower" <"$c" || continue
        json=$name.nir.$profile.json
        if [ -f "$json" ]; then
            stage "$o/$key.opt" "$bin/rake-opt" <"$o/$key.lower"
            if [ "$mode" = full ] || [ "$profile" = x86-sse2 ]; then
                stage "$o/$key.verify" "$bin/rake-verify" --ir <"$o/$key.lower"
            fi
            [ "$mode" != full ] || stage "$o/$key.reopt" "$bin/rake-opt" <"$json"
        fi
        [ ! -f "$name.nir.$profile.txt" ] || stage "$o/$key.txt" "$bin/rake-opt" --text <"$o/$key.lower"
    done <"$BATS_FILE_TMPDIR/pairs"
}

# skipped MODE NAME PROFILE: does the MODE run leave this pair out?
skipped() {
    [ "$1" = sanitizer ] && [[ $2 == "$OPT"/* ]] && [ "$3" != x86-avx2 ]
}

# stage OUT COMMAND...: run COMMAND into OUT, OUT.err and OUT.rc.
stage() {
    local o=$1 rc=0
    shift
    "$@" >"$o" 2>"$o.err" || rc=$?
    echo "$rc" >"$o.rc"
    return "$rc"
}

setup() {
    cd "$RAKE_ROOT"
    out=$BATS_TEST_TMPDIR/out
    err=$BATS_TEST_TMPDIR/err
    failures=()
}

fail_file() {
    failures+=("$1: $2")
}

report() {
    if [ ${#failures[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${failures[@]}" >&2
        echo "${#failures[@]} failure(s)" >&2
        return 1
    fi
}

need() {
    local p
    for p in rake-lower rake-opt rake-verify; do
        [ -x "$1/$p" ] || {
            echo "no $1/$p: run 'make build asan' first" >&2
            return 1
        }
    done
}

# golden_parts FILE: set name (the .rk path without .rk), profile and the
# checked document for a golden FILE (NAME.nir.PROFILE.json or .txt).
golden_parts() {
    name=${1%.nir.*}
    profile=${1##*.nir.}
    profile=${profile%.*}
    checked=$BATS_FILE_TMPDIR/checked/${name##*/}.$profile.json
}

sanitizer_report() {
    grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$1"
}

# the verifier's rules, from the comment at the top of lib/nirverify.c
rules() {
    sed -n '/The rules, by name/,/\*\//p' lib/nirverify.c | sed '1d' |
        tr -d '*/.' | tr ',' '\n' | tr -d ' ' | grep -v '^$'
}

is_contracting() { [[ $1 == x86-avx2 || $1 == x86-avx512 || $1 == aarch64-neon ]]; }

# def FILE ID: the line of text-form FILE that defines %ID
def() {
    grep -E "^  %$2 : " "$1"
}

# --- the corpus ---------------------------------------------------------------

@test "nir: the corpus: a copy of every conformance program and spec block, goldens on x86-sse2, x86-avx2 and wasm-simd128 where they check, no orphans" {
    local f copy name profile spec=$BATS_TEST_TMPDIR/spec n_golden=0 n_txt=0
    tools/extract-spec-blocks "$spec" "$SHARED"/spec/*.md >/dev/null
    for f in "$SHARED"/conformance/*.rk "$spec"/*.rk; do
        name=${f##*/}; name=${name%.rk}
        copy=$GOLDEN/$name.rk
        cmp -s "$f" "$copy" || { fail_file "$f" "$copy is missing or differs (run tools/update-golden)"; continue; }
        for profile in $NIR_PROFILES; do
            if [ -f "$BATS_FILE_TMPDIR/checked/$name.$profile.json" ]; then
                [ -f "$GOLDEN/$name.nir.$profile.json" ] ||
                    fail_file "$copy" "checks on $profile but has no $name.nir.$profile.json (run tools/update-golden)"
            elif [ ! -f "$BATS_FILE_TMPDIR/checked/$name.$profile.fail" ]; then
                fail_file "$copy" "does not parse"
                break
            elif [ -f "$GOLDEN/$name.nir.$profile.json" ]; then
                fail_file "$copy" "has a golden for $profile but doesn't check there"
            fi
        done
    done
    for f in "$GOLDEN"/* "$OPT"/* "$REWRITE"/* "$INVALID"/*; do
        case $f in
        "$GOLDEN"/*.rk)
            name=${f##*/}; name=${name%.rk}
            [ -f "$SHARED/conformance/$name.rk" ] || [ -f "$spec/$name.rk" ] ||
                fail_file "$f" "no original any more (run tools/update-golden)" ;;
        "$GOLDEN"/*.nir.*.json | "$GOLDEN"/*.nir.*.txt | "$OPT"/*.nir.*.txt)
            golden_parts "$f"
            [ -f "$name.rk" ] || fail_file "$f" "expected output without a program"
            [[ " $ALL_PROFILES " == *" $profile "* ]] || fail_file "$f" "unknown profile $profile"
            case $f in *.json) n_golden=$((n_golden + 1)) ;; *) n_txt=$((n_txt + 1)) ;; esac ;;
        "$OPT"/*.rk) ls "${f%.rk}".nir.*.txt >/dev/null 2>&1 || fail_file "$f" "no text golden" ;;
        "$REWRITE"/*.json) [ -f "${f%.json}.opt.txt" ] || fail_file "$f" "no ${f%.json}.opt.txt" ;;
        "$REWRITE"/*.opt.txt) [ -f "${f%.opt.txt}.json" ] || fail_file "$f" "expected output without a document" ;;
        "$INVALID"/*-[0-9]*.json) ;;
        *) fail_file "$f" "unexpected file in the corpus" ;;
        esac
    done
    [ "$n_golden" -ge 80 ] || fail_file "$GOLDEN" "only $n_golden JSON goldens"
    [ "$n_txt" -ge 40 ] || fail_file "$NIR" "only $n_txt text goldens"
    for name in runs_running_sum stacks_doubled stacks_particles tines_clipped_root 01-tines-through-sweeps-2 03-packs-stacks-runs-1; do
        for profile in $NIR_PROFILES; do
            case $name.$profile in runs_running_sum.x86-*) continue ;; esac
            [ -f "$GOLDEN/$name.nir.$profile.json" ] || fail_file "$GOLDEN" "no $name.nir.$profile.json"
        done
    done
    report
}

@test "nir: every verifier rule has an invalid document, 25 or more in all" {
    local rule f n=0 known
    known=" $(rules | tr '\n' ' ') "
    [ "$(rules | wc -l)" -eq 25 ] || fail_file lib/nirverify.c "the rule list has $(rules | wc -l) rules, not 25"
    for rule in $(rules); do
        ls "$INVALID/$rule"-[0-9]*.json >/dev/null 2>&1 || fail_file "$INVALID" "no document for the rule $rule"
    done
    for f in "$INVALID"/*.json; do
        n=$((n + 1))
        rule=${f##*/}; rule=${rule%.json}
        rule=${rule%-*}
        [[ $known == *" $rule "* ]] || fail_file "$f" "$rule is not a rule of lib/nirverify.c"
    done
    [ "$n" -ge 25 ] || fail_file "$INVALID" "only $n documents"
    report
}

# --- goldens ------------------------------------------------------------------

# stage_ok OUT GOLDEN WHAT: did the stage kept as OUT run cleanly (status 0,
# empty stderr, no sanitizer report)?  Records a failure for GOLDEN if not.
stage_ok() {
    local o=$1 g=$2 what=$3 rc
    if [ ! -f "$o.rc" ]; then
        fail_file "$g" "$what didn't run (is it built? did an earlier stage fail?)"
        return 1
    fi
    read -r rc <"$o.rc"
    [ "$rc" -ne 0 ] || [ -s "$o.err" ] || return 0
    if sanitizer_report "$o.err"; then
        fail_file "$g" "$what: sanitizer report: $(grep -m1 -E 'AddressSanitizer|runtime error' "$o.err")"
    elif [ "$rc" -ne 0 ]; then
        fail_file "$g" "$what exits $rc: $(head -n 3 "$o.err")"
    else
        fail_file "$g" "$what writes on stderr: $(head -n 1 "$o.err")"
    fi
    return 1
}

# goldens_exact BINDIR OUTDIR MODE: every JSON and text golden is what
# BINDIR's rake-lower and rake-opt [--text] made of its checked document,
# byte for byte (which, the goldens being made earlier, is also
# determinism).
goldens_exact() {
    need "$1"
    local g key o
    for g in "$GOLDEN"/*.nir.*.json "$GOLDEN"/*.nir.*.txt "$OPT"/*.nir.*.txt; do
        golden_parts "$g"
        skipped "$3" "$name" "$profile" && continue
        key=${name##*/}.$profile
        [ -f "$checked" ] || { fail_file "$g" "$name.rk doesn't check on $profile"; continue; }
        stage_ok "$2/$key.lower" "$g" "$1/rake-lower" || continue
        case $g in *.txt) o=$2/$key.txt ;; *) o=$2/$key.opt ;; esac
        stage_ok "$o" "$g" "$1/rake-opt" || continue
        if ! cmp -s "$g" "$o"; then
            fail_file "$g" "the output of $1/rake-lower | rake-opt differs"
            diff -u "$g" "$o" | head -n 20 >&2 || true
        fi
    done
    report
}

@test "nir: goldens are byte-exact (rake-lower | rake-opt [--text])" {
    goldens_exact "$BIN" "$BATS_FILE_TMPDIR/bin" full
}

@test "nir: goldens are byte-exact with the sanitizer builds of rake-lower and rake-opt (tests/nir/opt on x86-avx2)" {
    goldens_exact "$ASAN_BIN" "$BATS_FILE_TMPDIR/asan" sanitizer
}

# stages_verify BINDIR OUTDIR MODE: rake-lower's output verifies
# (rake-lower verifies it itself, exiting 3 otherwise, and rake-verify --ir
# agrees), and rake-opt, which verifies its input (exit 2) and its output
# (exit 3), accepted it.
stages_verify() {
    need "$1"
    local g key
    for g in "$GOLDEN"/*.nir.*.json; do
        golden_parts "$g"
        key=${name##*/}.$profile
        [ -f "$checked" ] || continue
        stage_ok "$2/$key.lower" "$g" "$1/rake-lower" || continue
        if [ "$3" = full ] || [ "$profile" = x86-sse2 ]; then
            stage_ok "$2/$key.verify" "$g" "$1/rake-verify --ir on rake-lower's output"
            [ ! -s "$2/$key.verify" ] || fail_file "$g" "rake-verify --ir wrote on stdout"
        fi
        stage_ok "$2/$key.opt" "$g" "$1/rake-opt (verifying its input and output)"
    done
    report
}

@test "nir: every stage verifies: rake-lower's output passes rake-verify --ir, rake-opt accepts it and its output" {
    stages_verify "$BIN" "$BATS_FILE_TMPDIR/bin" full
}

@test "nir: every stage verifies (sanitizer builds; rake-verify --ir on x86-sse2)" {
    stages_verify "$ASAN_BIN" "$BATS_FILE_TMPDIR/asan" sanitizer
}

@test "nir: rake-opt is idempotent: on every golden it verifies it and gives it back byte for byte" {
    need "$BIN"
    local g key o=$BATS_FILE_TMPDIR/bin f
    for g in "$GOLDEN"/*.nir.*.json; do
        golden_parts "$g"
        key=${name##*/}.$profile
        stage_ok "$o/$key.reopt" "$g" "rake-opt on the golden" || continue
        cmp -s "$g" "$o/$key.reopt" || fail_file "$g" "rake-opt changes the golden: a second run isn't a fixed point"
    done
    for f in "$REWRITE"/*.json; do
        "$BIN/rake-opt" <"$f" >"$out.1" && "$BIN/rake-opt" <"$out.1" >"$out.2" || { fail_file "$f" "rake-opt fails"; continue; }
        cmp -s "$out.1" "$out.2" || fail_file "$f" "rake-opt run twice changes its own output"
    done
    report
}

@test "nir: goldens, rake-lower's outputs and the rewrite documents validate against $SCHEMA" {
    [ -x tools/validate-ir ] || skip "no tools/validate-ir in this checkout"
    run tools/validate-ir "$SCHEMA" "$GOLDEN"/*.nir.*.json "$REWRITE"/*.json \
        "$BATS_FILE_TMPDIR"/bin/*.x86-sse2.lower "$BATS_FILE_TMPDIR"/bin/*.aarch64-neon.lower
    [ "$status" -eq 0 ] || fail_file "$SCHEMA" "documents do not validate:
$output"
    # the schema is not vacuous: it refuses a misspelt operation
    sed '0,/"op": "rack.sqrt"/s//"op": "rack.sqrtt"/' "$GOLDEN/tines_clipped_root.nir.x86-sse2.json" >"$out.bad.json"
    run tools/validate-ir "$SCHEMA" "$out.bad.json"
    [ "$status" -eq 1 ] || fail_file "$SCHEMA" "accepts an unknown operation"
    report
}

# --- the backend page, contraction, sanitisation ----------------------------------

@test "nir: the advance scratch prints exactly the backend page's text on x86-avx2, and keeps its mul and add on wasm-simd128 and x86-sse2" {
    local page=$SHARED/spec/00-backend.md p
    # the ```text block of 00-backend.md that holds func @advance
    awk '/^```text/ { inb = 1; buf = ""; next }
         /^```/ { if (inb && buf ~ /func @advance/) printf "%s", buf; inb = 0; next }
         inb { buf = buf $0 "\n" }' "$page" >"$out.page"
    grep -q 'rack.fma %1, %2, %0 {fused=0}' "$out.page" || fail_file "$page" "no advance example found"
    "$BIN/rakec" --emit-native-ir --target x86-avx2 "$OPT/advance.rk" >"$out" 2>"$err" ||
        fail_file "$OPT/advance.rk" "rakec --emit-native-ir fails: $(head -n 1 "$err")"
    cmp -s "$out.page" "$out" || {
        fail_file "$OPT/advance.rk" "rakec --emit-native-ir --target x86-avx2 differs from the backend page"
        diff -u "$out.page" "$out" >&2 || true
    }
    cmp -s "$out.page" "$OPT/advance.nir.x86-avx2.txt" || fail_file "$OPT/advance.nir.x86-avx2.txt" "differs from the backend page"
    for p in wasm-simd128 x86-sse2 wasm-simd128-relaxed; do
        f=$OPT/advance.nir.$p.txt
        grep -q '^  %3 : rack<f32> = rack.mul %1, %2 {fused=0}$' "$f" &&
            grep -q '^  %4 : rack<f32> = rack.add %0, %3 {fused=0}$' "$f" &&
            ! grep -q 'rack.fma' "$f" || fail_file "$f" "should keep the mul and the add, uncontracted"
    done
    for p in x86-avx512 aarch64-neon; do
        f=$OPT/advance.nir.$p.txt
        grep -q '^  %4 : rack<f32> = rack.fma %1, %2, %0 {fused=0}$' "$f" && ! grep -q 'rack.mul\|rack.add' "$f" ||
            fail_file "$f" "should be the one fma"
    done
    report
}

# fma_operands FILE: the operands of FILE's (only) rack.fma, as "%a %b %c"
fma_operands() {
    sed -n 's/^  %[0-9]* : rack<f32> = rack.fma \(%[0-9]*\), \(%[0-9]*\), \(%[0-9]*\).*/\1 \2 \3/p' "$1"
}

@test "nir: contraction follows 10-gap-notes.md section 2 (only +, left product first, a*b + c*d, other uses, regions, final expressions, explicit fma)" {
    local f p ops a b c
    # never: a scratch whose body is a*<s> + b, an add that is the final
    # expression, subtraction, separate regions, integers
    for f in "$OPT"/{final_expression,final_after_binding,subtract,separate_regions,integer}.nir.*.txt; do
        ! grep -q 'rack.fma' "$f" || fail_file "$f" "contracts, but must not"
    done
    grep -q '{fused=0}' "$OPT/separate_regions.nir.x86-avx2.txt" && grep -q '{fused=1}' "$OPT/separate_regions.nir.x86-avx2.txt" ||
        fail_file "$OPT/separate_regions.nir.x86-avx2.txt" "the let doesn't split the bindings into regions 0 and 1"
    ! grep -q 'fused' <(grep 'rack.add' "$OPT/final_after_binding.nir.x86-avx2.txt") ||
        fail_file "$OPT/final_after_binding.nir.x86-avx2.txt" "the final expression is in a region"
    for p in x86-avx2 aarch64-neon; do
        # a*b + c*d and ab + cd: fma(a, b, c*d), the product on the left first
        for f in "$OPT/left_first.nir.$p.txt" "$OPT/two_products.nir.$p.txt"; do
            read -r a b c <<<"$(fma_operands "$f")"
            [ "$a $b" = "%0 %1" ] && def "$f" "${c#%}" | grep -q 'rack.mul %2, %3' &&
                [ "$(grep -c 'rack.mul' "$f")" -eq 1 ] || fail_file "$f" "is not fma(a, b, c*d)"
        done
        f=$OPT/right_operand.nir.$p.txt
        [ "$(fma_operands "$f")" = "%0 %1 %2" ] && ! grep -q 'rack.mul' "$f" || fail_file "$f" "is not fma(a, b, c)"
        # a multiply with another use stays, and that use reads it
        f=$OPT/other_use.nir.$p.txt
        [ "$(fma_operands "$f")" = "%0 %1 %2" ] && grep -q '^  %3 : rack<f32> = rack.mul %0, %1 {fused=0}$' "$f" &&
            grep -q 'rack.mul %4, %3$' "$f" || fail_file "$f" "the multiply with another use doesn't stay"
        f=$OPT/explicit_fma.nir.$p.txt
        [ "$(fma_operands "$f")" = "%0 %1 %2" ] || fail_file "$f" "the explicit fma isn't one rack.fma"
        f=$OPT/uniform_if.nir.$p.txt
        grep -q 'u.cmp.gt .* {fused=0}' "$f" || fail_file "$f" "the uniform comparison isn't in the region"
    done
    for p in x86-sse2 wasm-simd128; do
        for f in "$OPT"/*.nir.$p.txt; do
            ! grep -q 'rack.fma' "$f" || fail_file "$f" "$p forms no fused multiply-adds"
        done
    done
    # inside a through body, under the mask: the fma's operands are benign
    # selects with 0.0 (x86 and NEON); nothing contracts on wasm
    for p in x86-avx2 aarch64-neon; do
        f=$OPT/through_body.nir.$p.txt
        ops=$(fma_operands "$f")
        [ -n "$ops" ] && grep -q 'rack.fma .*{fused=0, through=%3, sanitized}$' "$f" || fail_file "$f" "no sanitized fma in the through body"
        for a in $ops; do
            def "$f" "${a#%}" | grep -q "mask.select %3, %[0-9]*, %2 {fused=0, through=%3, benign}$" ||
                fail_file "$f" "fma operand $a is not a benign select under %3 with %2"
        done
        def "$f" 2 | grep -q 'rack.splat f32:0x00000000$' || fail_file "$f" "%2 is not 0.0"
        ! grep -q 'rack.mul\|rack.add' "$f" || fail_file "$f" "a mul or an add is left"
    done
    f=$OPT/through_body.nir.wasm-simd128.txt
    grep -q 'rack.mul %0, %4 {fused=0, through=%3}$' "$f" && ! grep -q 'benign\|sanitized' "$f" ||
        fail_file "$f" "should keep an unsanitised mul and add"
    # a called scratch's region contracts in a stack run, in the tail too;
    # what the run writes directly doesn't.  x86 unrolls the loop by two,
    # then one more whole rack: @drift, two racks, one rack and the tail
    f=$OPT/inlined.nir.x86-avx2.txt
    [ "$(grep -c 'rack.fma' "$f")" -eq 5 ] && [ "$(grep -c 'rack.fma .*{fused=[0-9]*, through=%[0-9]*, sanitized}' "$f")" -eq 1 ] &&
        [ "$(grep -c 'rack.mul %[0-9]*, %[0-9]*$' "$f")" -eq 3 ] || fail_file "$f" "not one fma in @drift, each rack of the unrolled body, the one rack and the tail, with the direct muls kept"
    report
}

@test "nir: sanitisation: a masked sqrt gets a benign select with 1.0 and is sanitized on x86 and NEON, not on wasm; goldens agree" {
    local f p x c g
    for p in x86-sse2 x86-avx2 aarch64-neon; do
        f=$OPT/masked_sqrt.nir.$p.txt
        read -r x <<<"$(sed -n 's/^  %[0-9]* : rack<f32> = rack.sqrt \(%[0-9]*\) {through=%2, sanitized}$/\1/p' "$f")"
        [ -n "$x" ] && def "$f" "${x#%}" | grep -q "mask.select %2, %0, %[0-9]* {through=%2, benign}$" ||
            { fail_file "$f" "the sqrt's operand isn't a benign select under %2"; continue; }
        c=$(def "$f" "${x#%}" | sed 's/.*mask.select %2, %0, %\([0-9]*\) .*/\1/')
        def "$f" "$c" | grep -q 'rack.splat f32:0x3f800000$' || fail_file "$f" "the benign value isn't 1.0"
        f=$OPT/masked_div.nir.$p.txt
        grep -q 'rack.div %[0-9]*, %[0-9]* {through=%3, sanitized}$' "$f" &&
            grep -q 'mask.select %3, %0, %2 {through=%3, benign}$' "$f" &&
            grep -q 'mask.select %3, %1, %[0-9]* {through=%3, benign}$' "$f" ||
            fail_file "$f" "the division isn't sanitised with 0.0 / 1.0"
    done
    for p in wasm-simd128; do
        f=$OPT/masked_sqrt.nir.$p.txt
        grep -q 'rack.sqrt %0 {through=%2}$' "$f" && ! grep -q 'benign\|sanitized' "$f" ||
            fail_file "$f" "wasm sanitises nothing: the sqrt reads %0 under %2"
    done
    # in the goldens: nothing sanitised on wasm, something on x86 (the
    # verifier checks it is complete there: see "every stage verifies")
    for g in "$GOLDEN"/*.nir.wasm-simd128.json; do
        ! grep -qE '"(benign|sanitized)"' "$g" || fail_file "$g" "sanitisation on wasm-simd128"
    done
    for g in "$GOLDEN"/tines_clipped_root.nir.x86-sse2.json "$GOLDEN"/stacks_particles.nir.x86-sse2.json; do
        grep -q '"sanitized": true' "$g" && grep -q '"benign": true' "$g" || fail_file "$g" "nothing sanitised"
    done
    grep -q 'rack.sqrt %[0-9]* {through=%2, sanitized}' "$GOLDEN/01-tines-through-sweeps-2.nir.x86-sse2.txt" ||
        fail_file "$GOLDEN/01-tines-through-sweeps-2.nir.x86-sse2.txt" "the masked sqrt isn't sanitized"
    # the verifier asks for sanitisation only where there are exceptions
    for f in "$INVALID"/unsanitized-1.json "$INVALID"/unsanitized-2.json; do
        sed 's/"target": "x86-sse2"/"target": "wasm-simd128"/' "$f" >"$out.wasm.json"
        "$BIN/rake-verify" --ir <"$out.wasm.json" 2>"$err" || fail_file "$f" "on wasm-simd128 it should verify: $(head -n 1 "$err")"
    done
    report
}

@test "nir: the optimiser collapses the nested selections on one mask (01-tines-through-sweeps.md)" {
    local f sel s c
    for f in "$OPT"/collapse.nir.*.txt "$GOLDEN"/01-tines-through-sweeps-4.nir.wasm-simd128.txt; do
        # @safe_root (the first function): one selection, of the root and -1.0
        sed '/^}/q' "$f" >"$out.fn"
        sel=$(grep 'mask.select' "$out.fn" | grep -v benign)
        read -r s c <<<"$(sed -n 's/^  %[0-9]* : rack<f32> = mask.select %2, %\([0-9]*\), %\([0-9]*\)$/\1 \2/p' <<<"$sel")"
        [ "$(wc -l <<<"$sel")" -eq 1 ] && [ -n "$s" ] && def "$out.fn" "$s" | grep -q 'rack.sqrt' &&
            def "$out.fn" "$c" | grep -q 'rack.splat f32:0xbf800000$' ||
            fail_file "$f" "the selections on %2 are not one select(%2, sqrt, -1.0)"
    done
    report
}

# --- rake-opt on hand-written documents -------------------------------------------

@test "nir: rake-opt's rewrites on hand-written documents (tests/nir/rewrite), both builds" {
    local f bin
    for f in "$REWRITE"/*.json; do
        for bin in "$BIN" "$ASAN_BIN"; do
            need "$bin"
            "$bin/rake-verify" --ir <"$f" 2>"$err" || fail_file "$f" "isn't valid: $(head -n 1 "$err")"
            "$bin/rake-opt" --text <"$f" >"$out" 2>"$err" || { fail_file "$f" "$bin/rake-opt fails: $(head -n 2 "$err")"; continue; }
            cmp -s "$out" "${f%.json}.opt.txt" || {
                fail_file "$f" "$bin/rake-opt --text differs from ${f%.json}.opt.txt"
                diff -u "${f%.json}.opt.txt" "$out" | head -n 20 >&2 || true
            }
        done
    done
    grep -q 'copy' "$REWRITE/copies.opt.txt" && fail_file "$REWRITE/copies.opt.txt" "a copy is left"
    [ "$(grep -c 'f32:0x3f800000' "$REWRITE/constants.opt.txt")" -eq 2 ] || fail_file "$REWRITE/constants.opt.txt" "not one 1.0 per block"
    grep -q 'rack.load %' "$REWRITE/dead-code.opt.txt" && fail_file "$REWRITE/dead-code.opt.txt" "the dead load is left"
    grep -q 'rack.fma' "$REWRITE/contract-wasm.opt.txt" && fail_file "$REWRITE/contract-wasm.opt.txt" "wasm contracts"
    [ "$(grep -c 'rack.fma' "$REWRITE/contract.opt.txt")" -eq 1 ] || fail_file "$REWRITE/contract.opt.txt" "not exactly one fma"
    # -1 as i64, 0 >= -1 false, false and y, u32 0xffffffff + 1 = 0, the
    # select on the constant: only the add of the parameter is left
    grep -q 'u.cmp\|u.cvt\|u.select\|u.not\|u.or\|u.and\|u.sub' "$REWRITE/fold.opt.txt" && fail_file "$REWRITE/fold.opt.txt" "an operation on constants is left"
    grep -q '%17 : i64 = const i64:0x0000000000000001$' "$REWRITE/fold.opt.txt" && grep -q 'u.add %0, %17$' "$REWRITE/fold.opt.txt" ||
        fail_file "$REWRITE/fold.opt.txt" "0 - (-1) isn't 1, or the add of the parameter went"
    # ints: b0's false edge decides b2's and b3's branches (b4 stays:
    # b7, which both edges of b6 reach, knows nothing); join's b3 still
    # branches (on b0's comparison, which dominator CSE gives it); floats'
    # a < b false leaves a >= b open (NaN)
    sed -n '/^func @ints/,/^}/p' "$REWRITE/branch-facts.opt.txt" | grep -q '^b5' && fail_file "$REWRITE/branch-facts.opt.txt" "ints' unreached b5 is left"
    grep -A1 '^b2:$' "$REWRITE/branch-facts.opt.txt" | grep -q '^  br b3$' &&
        grep -q '^  cbr %14, b8, b4$' "$REWRITE/branch-facts.opt.txt" &&
        [ "$(grep -c 'u.cmp.lt %0, %1$' "$REWRITE/branch-facts.opt.txt")" -eq 2 ] &&
        sed -n '/^func @join/,/^}/p' "$REWRITE/branch-facts.opt.txt" | grep -A1 '^b3:$' | grep -q '^  cbr %2, b4, b5$' &&
        grep -q 'u.cmp.ge %0, %1$' "$REWRITE/branch-facts.opt.txt" ||
        fail_file "$REWRITE/branch-facts.opt.txt" "a branch is decided wrongly, or one that should be isn't"
    # sink: the and, the comparison and the select read only after the
    # loop start b3; the loop's bound and the float add stay in b0
    sed -n '/^b3:/,/^b4:/p' "$REWRITE/sink.opt.txt" | grep -q '%4 : i64 = u.and %0, %3' &&
        sed -n '/^b3:/,/^b4:/p' "$REWRITE/sink.opt.txt" | grep -q '%8 : bool = u.cmp.lt %0, %2' &&
        sed -n '/^b0:/,/^b1/p' "$REWRITE/sink.opt.txt" | grep -q '%5 : i64 = u.sub %0, %3' &&
        sed -n '/^b0:/,/^b1/p' "$REWRITE/sink.opt.txt" | grep -q '%7 : f32 = u.add %1, %6' &&
        sed -n '/^b1/,/^b2:/p' "$REWRITE/sink.opt.txt" | grep -q '%17 : bool = u.cmp.gt %16, %16' &&
        sed -n '/^b3:/,/^b4:/p' "$REWRITE/sink.opt.txt" | grep -q '%18 : bool = u.cmp.gt %9, %5' ||
        fail_file "$REWRITE/sink.opt.txt" "a value moved into or across a loop it shouldn't, or a float one moved"
    # a scratch with a fused binding inlined twice: one copy's fused region
    # is merged into the other's (one fma in each function, twice adds
    # the square to itself)
    local cse=$OPT/cse_across_regions.nir.x86-avx2.txt
    [ "$(grep -c 'rack.fma' "$cse")" -eq 2 ] && grep -q '= rack.add %5, %5$' "$cse" ||
        fail_file "$cse" "the two inlined copies aren't one"
    # known masks: both's x2 <= x2 and k = <3> fold away (a plain
    # subtraction, one comparison left of choose's), a <= a on f32 stays
    local km=$OPT/known_masks.nir.x86-avx2.txt
    sed -n '/@both/,/^}/p' "$km" >"$out"
    [ "$(grep -c 'rack.cmp' "$out")" -eq 2 ] && grep -q 'rack.cmp.le %0, %0$' "$out" &&
        grep -q '= rack.sub %0, %1$' "$out" && ! grep -q 'sanitized\|through' "$out" ||
        fail_file "$km" "a fixed mask is left, or the f32 one went"
    # a block parameter compared with itself: the i32 one folds, the f32 stays
    { ! grep -q 'rack.cmp.le %2, %2' "$REWRITE/known-masks-param.opt.txt" &&
        grep -q 'rack.cmp.le %3, %3$' "$REWRITE/known-masks-param.opt.txt"; } ||
        fail_file "$REWRITE/known-masks-param.opt.txt" "the i32 self-comparison is left, or the f32 one went"
    # ints stores its splat of 7 for k (%14; in the tail %31), floats its own x (%13)
    grep -q '^  rack.compress_store %18, %15, %14$' "$REWRITE/kept-splat.opt.txt" &&
        grep -q '^  rack.compress_store %36, %33, %31 {through=%28}$' "$REWRITE/kept-splat.opt.txt" &&
        grep -q '^  rack.compress_store %19, %15, %13$' "$REWRITE/kept-splat.opt.txt" ||
        fail_file "$REWRITE/kept-splat.opt.txt" "the compared column isn't stored as the splat, or a float one is"
    # dom-cse: b1 and b3 read b0's widened k + 8 (%4), the loop b2 and the
    # f32 add keep their own, b1's k + 9 stays
    { sed -n '/^b1:/,/^b2/p' "$REWRITE/dom-cse.opt.txt" | grep -q '%18 : i64 = u.add %4, %16$' &&
        sed -n '/^b3:/,/^b4/p' "$REWRITE/dom-cse.opt.txt" | grep -q '%31 : i64 = u.add %4, %30$' &&
        [ "$(grep -c 'u.add %0, %' "$REWRITE/dom-cse.opt.txt")" -eq 3 ] &&
        grep -q '%22 : i32 = u.add %0, %21$' "$REWRITE/dom-cse.opt.txt" &&
        grep -q '%13 : f32 = u.add %1, %12$' "$REWRITE/dom-cse.opt.txt"; } ||
        fail_file "$REWRITE/dom-cse.opt.txt" "k + 8 isn't b0's in b1 and b3, or it merged into the loop, or a float add merged"
    # nonneg-index: @f's index >= 0 is decided (its select returns the
    # index), @g's (starts at -1) and @h's (an i64 bound) stay
    { ! sed -n '/^func @f/,/^}/p' "$REWRITE/nonneg-index.opt.txt" | grep -q 'u.cmp.ge %3, %4\|u.select' &&
        sed -n '/^func @f/,/^}/p' "$REWRITE/nonneg-index.opt.txt" | grep -q '^  return %3$' &&
        sed -n '/^func @g/,/^}/p' "$REWRITE/nonneg-index.opt.txt" | grep -q 'u.cmp.ge %3, %4$' &&
        sed -n '/^func @h/,/^}/p' "$REWRITE/nonneg-index.opt.txt" | grep -q 'u.cmp.ge %3, %4$'; } ||
        fail_file "$REWRITE/nonneg-index.opt.txt" "a never-negative index is still tested, or one that may be negative isn't"
    # facts-and-operand: b1 branches on its second half, b3 selects on it
    { grep -q '^  cbr %13, b3, b2$' "$REWRITE/facts-and-operand.opt.txt" &&
        grep -q 'u.select %16, %18, %3$' "$REWRITE/facts-and-operand.opt.txt" &&
        ! grep -q 'u.and\|u.or\|u.not\|copy' <(sed -n '/^b1:/,$p' "$REWRITE/facts-and-operand.opt.txt"); } ||
        fail_file "$REWRITE/facts-and-operand.opt.txt" "a known half of a u.and or u.or is left"
    report
}

# --- the verifier on invalid documents ---------------------------------------------

# invalid BINDIR [verify-only]: each document is rejected by rake-verify
# --ir with exit 1, nothing on stdout and only violations of its rule (and
# the count), and refused by rake-opt with exit 2, naming the rule too.
# (The sanitizer run leaves rake-opt out: it decodes and verifies with the
# same library code as rake-verify.)
invalid() {
    need "$1"
    local f rule first line
    for f in "$INVALID"/*.json; do
        rule=${f##*/}; rule=${rule%.json}
        rule=${rule%-*}
        rc=0
        "$1/rake-verify" --ir <"$f" >"$out" 2>"$err" || rc=$?
        if sanitizer_report "$err"; then
            fail_file "$f" "sanitizer report: $(grep -m1 -E 'AddressSanitizer|runtime error' "$err")"
            continue
        fi
        [ "$rc" -eq 1 ] || fail_file "$f" "rake-verify --ir exits $rc, not 1: $(head -n 1 "$err")"
        [ ! -s "$out" ] || fail_file "$f" "rake-verify --ir wrote on stdout"
        grep -q "^rake-verify: @[A-Za-z_0-9]*\( %[0-9]* ([a-z0-9_.]*)\| ([a-z0-9_.]* at [0-9]*:[0-9]*)\)\?: $rule: " "$err" ||
            fail_file "$f" "no violation of $rule reported: $(head -n 1 "$err")"
        while IFS= read -r line; do
            case $line in
            *": $rule: "* | "rake-verify: "[0-9]*" violation"*) ;;
            *) fail_file "$f" "reports something besides $rule: $line" ;;
            esac
        done <"$err"
        [ -z "${2:-}" ] || continue
        rc=0
        "$1/rake-opt" <"$f" >"$out" 2>"$err" || rc=$?
        [ "$rc" -eq 2 ] || fail_file "$f" "rake-opt exits $rc, not 2"
        [ ! -s "$out" ] || fail_file "$f" "rake-opt wrote on stdout"
        first=$(head -n 1 "$err")
        [[ $first == "rake-opt: <stdin>:"[0-9]*:[0-9]*": "* ]] || fail_file "$f" "rake-opt's first line is not located: $first"
        grep -q ": $rule: " "$err" || fail_file "$f" "rake-opt doesn't name $rule: $first"
    done
    report
}

@test "nir: invalid documents: rake-verify --ir exits 1 naming their rule, rake-opt refuses them with exit 2" {
    invalid "$BIN"
}

@test "nir: invalid documents (sanitizer build of rake-verify)" {
    invalid "$ASAN_BIN" verify-only
}

# not-dominated-3 is a block nothing branches to reading the entry's value
# (refused: only it dominates itself); blocks on no path at all, a cycle
# nothing enters, are dominated by every block (docs/nir.md).
@test "nir: the verifier's dominance: a cycle nothing enters may read any value, a block nothing branches to may not, a chain 20,000 blocks deep" {
    local d=$BATS_TEST_TMPDIR
    sed -e 's/not-dominated-3: .*: only b2 dominates b2/a cycle nothing enters/' \
        -e 's/"values": 3/"values": 4/' \
        -e 's/"to": {"block": 1, "args": \[\]}}}\]}\]}/"to": {"block": 3, "args": []}}},\
    {"id": 3, "params": [], "instrs": [{"id": 3, "op": "u.add", "type": "i64", "args": [2, 1], "loc": "4:3"}],\
     "term": {"kind": "br", "loc": "4:3", "to": {"block": 2, "args": []}}}]}]}/' \
        "$INVALID/not-dominated-3.json" >"$d/cycle.json"
    grep -q '"to": {"block": 2' "$d/cycle.json"
    run "$BIN/rake-verify" --ir <"$d/cycle.json"
    [ "$status" -eq 0 ]
    run "$BIN/rake-verify" --ir <"$INVALID/not-dominated-3.json"
    [ "$status" -eq 1 ]
    [[ $output == *"not-dominated: %1 is defined in b0, which doesn't dominate this use in b2"* ]]
    # a chain of 20,000 blocks, each reading the entry's value: the walks
    # keep explicit stacks (no recursion 20,000 deep); 0.2 s here, where
    # the dominator bit sets before lib/dom.c took 1 s and 50 MB
    awk 'BEGIN {
        n = 20000
        printf "{\"ir\": \"rake.nir\", \"version\": 1, \"source\": \"chain\", \"target\": \"wasm-simd128\", \"functions\": [{\"name\": \"f\", \"kind\": \"general_run\", \"loc\": \"1:1\", \"params\": [], \"result\": \"void\", \"values\": %d, \"regions\": 0, \"blocks\": [", n + 1
        printf "{\"id\": 0, \"params\": [], \"instrs\": [{\"id\": 0, \"op\": \"const\", \"type\": \"i64\", \"args\": [], \"loc\": \"0:0\"}], \"term\": {\"kind\": \"br\", \"loc\": \"1:1\", \"to\": {\"block\": 1, \"args\": []}}}"
        for (b = 1; b < n; b++)
            printf ",{\"id\": %d, \"params\": [], \"instrs\": [{\"id\": %d, \"op\": \"u.add\", \"type\": \"i64\", \"args\": [0, 0], \"loc\": \"1:1\"}], \"term\": {\"kind\": \"br\", \"loc\": \"1:1\", \"to\": {\"block\": %d, \"args\": []}}}", b, b, b + 1
        printf ",{\"id\": %d, \"params\": [], \"instrs\": [], \"term\": {\"kind\": \"return\", \"loc\": \"1:1\"}}]}]}\n", n
    }' >"$d/chain.json"
    SECONDS=0
    run "$BIN/rake-verify" --ir <"$d/chain.json"
    [ "$status" -eq 0 ]
    echo "20,000 blocks verified in $SECONDS s"
    [ "$SECONDS" -le 5 ]
}

# --- the operation table --------------------------------------------------------

@test "nir: the operation table (lib/nirops.h) is consistent, agrees with $SCHEMA, and every operation the documents use decodes" {
    local lib=$RAKE_ROOT/build-asan/lib/librake.a t=$BATS_FILE_TMPDIR/optable
    [ -f "$lib" ] || { echo "no $lib: run 'make build asan' first" >&2; return 1; }
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -I"$RAKE_ROOT/lib" -O1 -g \
        -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
        -o "$t" "$NIR/optable.c" "$lib" -ljansson -lm 2>"$err" ||
        { cat "$err" >&2; fail_file "$NIR/optable.c" "does not build"; report; }
    # every name in the goldens, the rewrite documents and rake-lower's
    # outputs; the invalid documents misspell operations on purpose
    grep -oh '"op": "[^"]*"' "$GOLDEN"/*.nir.*.json "$REWRITE"/*.json \
        "$BATS_FILE_TMPDIR"/bin/*.lower | sed 's/^"op": "//; s/"$//' | sort -u >"$out.names"
    [ "$(wc -l <"$out.names")" -ge 50 ] || fail_file "$GOLDEN" "only $(wc -l <"$out.names") operation names found"
    "$t" "$RAKE_ROOT/$SCHEMA" <"$out.names" >"$out" 2>&1 || fail_file "$NIR/optable.c" "$(cat "$out")"
    report
}

# --- meaning --------------------------------------------------------------------

@test "nir: the goldens compute what rake-interp computes (main of each golden program, through the native IR)" {
    local g want got n=0
    for g in "$GOLDEN"/*.nir.*.json; do
        golden_parts "$g"
        grep -q '^slow main' "$name.rk" || continue
        [ -f "$checked" ] || continue
        n=$((n + 1))
        if is_contracting "$profile"; then
            want=$("$BIN/rake-interp" --contract <"$checked" 2>&1) || true
        else
            want=$("$BIN/rake-interp" <"$checked" 2>&1) || true
        fi
        got=$("$BIN/rake-interp" --nir "$g" <"$checked" 2>&1) || true
        [ "$want" = "$got" ] || fail_file "$g" "main gives '$got' through the native IR, '$want' in the tree"
    done
    [ "$n" -ge 10 ] || fail_file "$GOLDEN" "only $n programs with main"
    report
}

# meaning FILE PROFILE BINDIR: FILE's main through BINDIR's rake-lower and
# rake-opt and rake-interp --nir, on the document the normal build checks.
meaning() {
    local c=$BATS_TEST_TMPDIR/checked.json n=$BATS_TEST_TMPDIR/nir.json
    "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target "$2" >"$c" || return 1
    "$3/rake-lower" <"$c" | "$3/rake-opt" >"$n" || return 1
    "$3/rake-interp" --nir "$n" <"$c" 2>&1
}

# tests/nir/meaning/NAME.rk: programs whose main gives `~~ expect: N` in the
# tree and through the native IR, on each profile of `~~ targets:`; each is
# a case the lowering once got wrong.
@test "nir: tests/nir/meaning programs give their expected result through the native IR, both builds" {
    local f want profile got n=0
    for f in "$NIR"/meaning/*.rk; do
        want=$(sed -n 's/^~~ expect: *//p' "$f")
        for profile in $(sed -n 's/^~~ targets: *//p' "$f"); do
            n=$((n + 1))
            got=$("$BIN/rake-parse" "$f" | "$BIN/rake-check" --target "$profile" | "$BIN/rake-interp" 2>&1) || true
            [ "$got" = "$want" ] || fail_file "$f" "$profile: main gives '$got' in the tree, not $want"
            got=$(meaning "$f" "$profile" "$BIN") || true
            [ "$got" = "$want" ] || fail_file "$f" "$profile: main gives '$got' through the native IR, not $want"
            got=$(meaning "$f" "$profile" "$ASAN_BIN") || true
            [ "$got" = "$want" ] || fail_file "$f" "$profile: main gives '$got' through the sanitizer builds, not $want"
        done
    done
    [ "$n" -ge 1 ] || fail_file "$NIR/meaning" "no programs"
    report
}

# Found by tests/90's mutation run: a rake.checked document whose run
# parameter had lost its "ty" made rake-lower stop with an internal error
# (exit 3) instead of refusing its input.
@test "nir: rake-lower refuses a node without the type rake-check gives it, located in the document (exit 2)" {
    local c=$BATS_TEST_TMPDIR/c.json b=$BATS_TEST_TMPDIR/bad.json bin
    "$BIN/rake-parse" "$RAKE_ROOT/examples/particles.rk" | "$BIN/rake-check" --target x86-avx2 >"$c"
    for what in 'del(.decls[2].params[1].ty)' '.decls[2].params[1].ty = "rack<f99>"'; do
        jq "$what" "$c" >"$b"
        for bin in "$BIN" "$ASAN_BIN"; do
            run "$bin/rake-lower" <"$b"
            [ "$status" -eq 2 ] || { echo "$what: status $status: $output"; return 1; }
            [[ "${lines[0]}" =~ ^rake-lower:\ \<stdin\>:[0-9]+:[0-9]+:\ this\ param\ has\ (no|an\ unreadable)\ \"ty\" ]] ||
                { echo "$what: ${lines[0]}"; return 1; }
        done
    done
}
