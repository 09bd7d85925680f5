#!/usr/bin/env bats
# tests/20-check.bats: rake-check against its corpus.
#
#   tests/check/err/NAME.rk   a program the checker rejects; NAME.err is the
#                             exact first line of stderr,
#                             `tests/check/err/NAME.rk:L:C: error: ...` (or
#                             `tests/check/err/NAME.rk: error: ...` for an
#                             error with no place, such as --width)
#   tests/check/ok/NAME.rk    a program the checker accepts;
#                             NAME.checked.PROFILE.json, where it exists, is
#                             the exact output of rake-check --target PROFILE
#   tests/check/golden/NAME.rk
#                             a copy of tests/shared/conformance/NAME.rk;
#                             NAME.checked.PROFILE.json is the exact output of
#                             `rake-parse NAME.rk | rake-check --target
#                             PROFILE` (run from the checkout's root)
#   tests/check/spec-blocks.txt
#                             for each ```rake block of the spec pages, the
#                             profiles it checks on and the reason the
#                             others reject it
#
# A program under tests/check may start with `~~ target: PROFILE` (default
# x86-avx2) and `~~ width: N` lines, which choose rake-check's options.
# tools/update-golden regenerates the .err files and the goldens from the
# build; read what it changes before committing.  Each @test loops over
# every file and names each one that fails, so one run reports everything
# wrong.  tests/25-capabilities.bats checks the capability table.
load lib/common

ERR=tests/check/err
OK=tests/check/ok
GOLDEN=tests/check/golden
BLOCKS=tests/check/spec-blocks.txt
SCHEMA=ir-schema/rake.checked.schema.json
PROFILES="x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128 wasm-simd128-relaxed"

setup() {
    cd "$RAKE_ROOT"
    out=$BATS_TEST_TMPDIR/out
    err=$BATS_TEST_TMPDIR/err
    ast=$BATS_TEST_TMPDIR/ast.json
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
    [ -x "$1/rake-check" ] && [ -x "$1/rake-parse" ] || {
        echo "no $1/rake-check: run 'make build asan' first" >&2
        return 1
    }
}

# options FILE: the rake-check options FILE's header lines choose, into
# the array `opts`.
options() {
    local line target=x86-avx2 width=
    while IFS= read -r line; do
        case $line in
        '~~ target:'*) target=${line#'~~ target:'}; target=${target// /} ;;
        '~~ width:'*) width=${line#'~~ width:'}; width=${width// /} ;;
        '~~'*) ;;
        *) break ;;
        esac
    done <"$1"
    opts=(--target "$target")
    [ -z "$width" ] || opts+=(--width "$width")
}

# check BINDIR FILE [OPTION...]: parse FILE and check it; the status in
# $rc, stdout in $out, stderr in $err.  A parse failure is recorded.
check() {
    local bin=$1 f=$2
    shift 2
    rc=0
    if ! "$bin/rake-parse" "$f" >"$ast" 2>"$err"; then
        fail_file "$f" "does not parse: $(head -n 1 "$err")"
        rc=99
        return 1
    fi
    "$bin/rake-check" "$@" <"$ast" >"$out" 2>"$err" || rc=$?
}

# check_errors BINDIR: every err program fails with status 1, nothing on
# stdout, its expected first line on stderr, and no sanitizer report.
check_errors() {
    need "$1"
    local f expected want first
    for f in "$ERR"/*.rk; do
        expected=${f%.rk}.err
        if [ ! -f "$expected" ]; then
            fail_file "$f" "no $expected (touch it, run tools/update-golden)"
            continue
        fi
        want=
        IFS= read -r want <"$expected" || true
        options "$f"
        check "$1" "$f" "${opts[@]}" || continue
        first=
        IFS= read -r first <"$err" || true
        if [ "$rc" -ne 1 ]; then
            fail_file "$f" "exit status $rc (want 1) with $1/rake-check ${opts[*]}: $first"
            continue
        fi
        [ ! -s "$out" ] || fail_file "$f" "stdout not empty"
        if grep -qE 'AddressSanitizer|runtime error' "$err"; then
            fail_file "$f" "sanitizer report: $(grep -m1 -E 'AddressSanitizer|runtime error' "$err")"
        elif [ "$first" != "$want" ]; then
            fail_file "$f" "first line of stderr is
    $first
  expected
    $want"
        elif ! [[ $first == "$f:"[0-9]*:[0-9]*": error: "* || $first == "$f: error: "* ]]; then
            fail_file "$f" "first line is not '$f:LINE:COL: error: ...'"
        fi
    done
    report
}

# check_ok BINDIR: every ok program checks with status 0, nothing on
# stderr and a rake.checked document on stdout, which is kept in
# $BATS_TEST_TMPDIR/docs for the schema.
check_ok() {
    need "$1"
    local f
    mkdir -p "$BATS_TEST_TMPDIR/docs"
    for f in "$OK"/*.rk; do
        options "$f"
        check "$1" "$f" "${opts[@]}" || continue
        if [ "$rc" -ne 0 ]; then
            fail_file "$f" "exit status $rc with $1/rake-check ${opts[*]}: $(head -n 1 "$err")"
        elif [ -s "$err" ]; then
            fail_file "$f" "stderr not empty: $(head -n 1 "$err")"
        elif ! grep -q '^ *"ir": "rake.checked",$' "$out"; then
            fail_file "$f" "stdout is not a rake.checked document"
        else
            cp "$out" "$BATS_TEST_TMPDIR/docs/$(basename "$f" .rk).json"
        fi
        ok_goldens "$1" "$f"
    done
    report
}

# ok_goldens BINDIR FILE: where tests/check/ok/NAME.checked.PROFILE.json
# exists, rake-check --target PROFILE's output must equal it byte for byte.
ok_goldens() {
    local g profile
    for g in "${2%.rk}".checked.*.json; do
        [ -f "$g" ] || continue
        profile=${g##*.checked.}
        profile=${profile%.json}
        "$1/rake-parse" "$2" >"$ast" 2>"$err" &&
            "$1/rake-check" --target "$profile" <"$ast" >"$out" 2>"$err" &&
            cmp -s "$out" "$g" || fail_file "$g" "rake-check --target $profile differs from the golden"
    done
}

@test "check: the corpus is complete (80+ err programs, 40+ ok programs, goldens, no orphans)" {
    local f n_ok=0 n_err=0 n_golden=0
    for f in "$OK"/*.rk; do n_ok=$((n_ok + 1)); done
    for f in "$ERR"/*.rk; do n_err=$((n_err + 1)); done
    for f in "$GOLDEN"/*.checked.*.json; do n_golden=$((n_golden + 1)); done
    [ "$n_ok" -ge 40 ] || fail_file "$OK" "only $n_ok programs"
    [ "$n_err" -ge 80 ] || fail_file "$ERR" "only $n_err programs"
    [ "$n_golden" -ge 27 ] || fail_file "$GOLDEN" "only $n_golden goldens"
    for f in "$OK"/* "$ERR"/* "$GOLDEN"/*; do
        case $f in
        "$OK"/*.rk | "$ERR"/*.rk | "$GOLDEN"/*.rk) ;;
        "$ERR"/*.err) [ -f "${f%.err}.rk" ] || fail_file "$f" "expected output without a program" ;;
        "$OK"/*.checked.*.json) [ -f "${f%.checked.*.json}.rk" ] || fail_file "$f" "golden without a program" ;;
        "$GOLDEN"/*.checked.*.json)
            local base=${f%.checked.*.json} profile=${f##*.checked.}
            profile=${profile%.json}
            [ -f "$base.rk" ] || fail_file "$f" "golden without a program"
            [[ " $PROFILES " == *" $profile "* ]] || fail_file "$f" "unknown profile $profile" ;;
        *) fail_file "$f" "unexpected file in the corpus" ;;
        esac
    done
    report
}

@test "check: err programs fail with their exact first line, exit 1, empty stdout" {
    check_errors "$BIN"
}

@test "check: err programs fail with their exact first line (sanitizer build)" {
    check_errors "$ASAN_BIN"
}

@test "check: ok programs check with exit 0, and their output validates against $SCHEMA" {
    check_ok "$BIN"
    if [ -x tools/validate-ir ]; then
        run tools/validate-ir "$SCHEMA" "$BATS_TEST_TMPDIR"/docs/*.json
        [ "$status" -eq 0 ] || fail_file "$SCHEMA" "ok outputs do not validate:
$output"
    else
        echo "# no tools/validate-ir: the schema part is not run" >&3
    fi
    report
}

@test "check: ok programs check with exit 0 (sanitizer build)" {
    check_ok "$ASAN_BIN"
}

@test "check: every conformance program has its copy in $GOLDEN, with goldens on sse2, avx2 and wasm where it checks" {
    local f copy name profile n=0
    for f in "$SHARED"/conformance/*.rk; do
        n=$((n + 1))
        name=$(basename "$f" .rk)
        copy=$GOLDEN/$name.rk
        cmp -s "$f" "$copy" || fail_file "$f" "$copy is missing or differs (run tools/update-golden)"
        for profile in $PROFILES; do
            check "$BIN" "$f" --target "$profile" || continue
            if [ "$rc" -eq 0 ] && [ ! -f "$GOLDEN/$name.checked.$profile.json" ]; then
                fail_file "$f" "checks on $profile but has no golden (run tools/update-golden)"
            elif [ "$rc" -ne 0 ] && [ -f "$GOLDEN/$name.checked.$profile.json" ]; then
                fail_file "$f" "has a golden for $profile but doesn't check there: $(head -n 1 "$err")"
            fi
        done
    done
    [ "$n" -gt 0 ] || fail_file "$SHARED/conformance" "no programs found"
    for copy in "$GOLDEN"/*.rk; do
        [ -f "$SHARED/conformance/$(basename "$copy")" ] || fail_file "$copy" "no conformance original any more"
    done
    for name in runs_running_sum stacks_doubled tines_clipped_root; do
        for profile in x86-sse2 x86-avx2 wasm-simd128; do
            case $name.$profile in runs_running_sum.x86-*) continue ;; esac
            [ -f "$GOLDEN/$name.checked.$profile.json" ] || fail_file "$GOLDEN" "no $name.checked.$profile.json"
        done
    done
    report
}

@test "check: goldens are byte-exact, for both builds" {
    local g f profile bin
    for g in "$GOLDEN"/*.checked.*.json; do
        f=${g%.checked.*.json}.rk
        profile=${g##*.checked.}
        profile=${profile%.json}
        for bin in "$BIN" "$ASAN_BIN"; do
            need "$bin"
            check "$bin" "$f" --target "$profile" || continue
            if [ "$rc" -ne 0 ]; then
                fail_file "$g" "exit status $rc with $bin/rake-check: $(head -n 1 "$err")"
            elif ! cmp -s "$g" "$out"; then
                fail_file "$g" "output of $bin/rake-check differs"
                diff -u "$g" "$out" | head -n 20 >&2 || true
            fi
        done
    done
    report
}

@test "check: goldens validate against $SCHEMA" {
    [ -x tools/validate-ir ] || skip "no tools/validate-ir in this checkout"
    run tools/validate-ir "$SCHEMA" "$GOLDEN"/*.checked.*.json
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "check: output is deterministic (two runs give the same bytes)" {
    local f
    for f in "$OK"/*.rk "$GOLDEN"/*.rk; do
        options "$f"
        check "$BIN" "$f" "${opts[@]}" || continue
        cp "$out" "$out.1"
        cat "$err" >>"$out.1"
        check "$BIN" "$f" "${opts[@]}" || continue
        cat "$err" >>"$out"
        cmp -s "$out.1" "$out" || fail_file "$f" "two runs differ"
    done
    report
}

# accepted_on HEADER-PROFILES: the profiles a conformance header's list
# means: `any` is every usable profile, and wasm-simd128-relaxed, which is
# wasm-simd128 plus the relaxed operations, accepts what wasm-simd128 does.
accepted_on() {
    local p list=
    for p in "$@"; do
        case $p in
        any) list=$PROFILES ;;
        wasm-simd128) list+=" wasm-simd128 wasm-simd128-relaxed" ;;
        *) list+=" $p" ;;
        esac
    done
    echo " $list "
}

# Rake 0.7.0 compiles general runs (`run f(...):`, over views) only for
# WebAssembly, and the conformance headers list only wasm-simd128 for
# them; this compiler also builds them for the physical profiles
# (docs/runs.md), so those profiles accept such a program.  Its native
# results are tests/53-general-runs.bats's business.
beyond_spec() {
    grep -q '^run [A-Za-z_0-9]*(.*):$' "$1" && [[ $2 == x86-* || $2 == aarch64-neon ]]
}

@test "check: conformance headers: listed profiles check, every other profile rejects with its reason" {
    local f line list profile first n=0
    for f in "$SHARED"/conformance/*.rk; do
        list=
        while IFS= read -r line; do
            case $line in
            '~~ targets:'* | '~~ compiles:'*) list+=" ${line#*:}" ;;
            '~~'*) ;;
            *) break ;;
            esac
        done <"$f"
        if [ -z "${list// /}" ]; then
            fail_file "$f" "no ~~ targets: or ~~ compiles: header"
            continue
        fi
        # shellcheck disable=SC2086
        list=$(accepted_on $list)
        for profile in $PROFILES; do
            n=$((n + 1))
            check "$BIN" "$f" --target "$profile" || continue
            first=$(head -n 1 "$err")
            if [[ $list == *" $profile "* ]]; then
                [ "$rc" -eq 0 ] || fail_file "$f" "the header lists $profile, but it fails there: $first"
            elif [ "$rc" -eq 0 ] && beyond_spec "$f" "$profile"; then
                : # docs/runs.md: native general runs, which 0.7.0 calls work in progress
            elif [ "$rc" -ne 1 ]; then
                fail_file "$f" "$profile isn't listed, but it checks there (exit $rc)"
            elif ! [[ $first == "$f:"[0-9]*:[0-9]*": error: $profile can't compile "* ]]; then
                fail_file "$f" "$profile rejects it without naming the profile's reason: $first"
            fi
        done
        check "$BIN" "$f" --target scalar || continue
        [ "$rc" -eq 1 ] && grep -q "the scalar profile is work in progress" "$err" ||
            fail_file "$f" "the scalar profile doesn't reject it as a whole"
    done
    [ "$n" -gt 0 ] || fail_file "$SHARED/conformance" "no programs found"
    report
}

@test "check: every \`\`\`rake block of the spec pages checks where $BLOCKS says, and is rejected with its reason elsewhere" {
    local dir=$BATS_TEST_TMPDIR/spec f name on reason profile first listed n=0
    tools/extract-spec-blocks "$dir" "$SHARED"/spec/*.md >"$BATS_TEST_TMPDIR/blocks"
    while IFS= read -r f; do
        n=$((n + 1))
        name=$(basename "$f")
        listed=$(grep -E "^$name[[:space:]]" "$BLOCKS" || true)
        if [ -z "$listed" ]; then
            fail_file "$BLOCKS" "$name is not listed (add a line: $name PROFILES|all [REASON])"
            continue
        fi
        read -r _ on reason <<<"$listed"
        [ "$on" != all ] || on=${PROFILES// /,}
        for profile in $PROFILES; do
            check "$BIN" "$f" --target "$profile" || continue
            first=$(head -n 1 "$err")
            if [[ ",$on," == *",$profile,"* ]]; then
                [ "$rc" -eq 0 ] || fail_file "$name" "should check on $profile: $first"
            elif [ "$rc" -ne 1 ]; then
                fail_file "$name" "should be rejected on $profile (exit $rc)"
            elif [ -z "$reason" ] || [[ $first != *"$reason"* ]]; then
                fail_file "$name" "rejected on $profile, but not with '$reason': $first"
            fi
        done
    done <"$BATS_TEST_TMPDIR/blocks"
    [ "$n" -gt 0 ] || fail_file "$SHARED/spec" "no rake blocks found"
    while read -r name _; do
        case $name in '' | '#'*) continue ;; esac
        [ -f "$dir/$name" ] || fail_file "$BLOCKS" "$name is listed but no such block exists"
    done <"$BLOCKS"
    report
}

@test "check: --width asserts the lane count of each profile" {
    local f=$OK/sweep_a_or_a_gaps.rk p lanes
    for p in x86-sse2:4 x86-avx2:8 x86-avx512:16 aarch64-neon:4 wasm-simd128:4 wasm-simd128-relaxed:4; do
        lanes=${p#*:}
        check "$BIN" "$f" --target "${p%:*}" --width "$lanes" || continue
        [ "$rc" -eq 0 ] || fail_file "$f" "--target ${p%:*} --width $lanes fails: $(head -n 1 "$err")"
        check "$BIN" "$f" --target "${p%:*}" --width 2 || continue
        [ "$rc" -eq 1 ] && grep -q "^$f: error: --width 2 doesn't match ${p%:*}, which has $lanes f32 lanes" "$err" ||
            fail_file "$f" "--target ${p%:*} --width 2: exit $rc: $(head -n 1 "$err")"
    done
    report
}
