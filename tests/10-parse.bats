#!/usr/bin/env bats
# tests/10-parse.bats: rake-parse against its corpus.
#
#   tests/parse/ok/NAME.rk    a valid program; NAME.ast.json is the exact
#                             output of `rake-parse tests/parse/ok/NAME.rk`
#                             (run from the checkout's root), and NAME.tokens,
#                             where it exists, that of `rake-parse --tokens`
#   tests/parse/err/NAME.rk   a malformed program; NAME.err is the exact first
#                             line of stderr, `tests/parse/err/NAME.rk:L:C:
#                             error: ...`
#   tests/parse/spec-fragments
#                             ```rake blocks of the spec pages that are not
#                             meant to parse, one "PAGE-N.rk reason" a line
#
# tools/update-golden regenerates the expected files from the build; read
# what it changes before committing.  Each @test loops over every file and
# names each one that fails, so one run reports everything wrong.
load lib/common

OK=tests/parse/ok
ERR=tests/parse/err

setup() {
    cd "$RAKE_ROOT"
    out=$BATS_TEST_TMPDIR/out
    err=$BATS_TEST_TMPDIR/err
    failures=()
}

# fail_file FILE WHY: record a failure.
fail_file() {
    failures+=("$1: $2")
}

# report: print every recorded failure and fail if there was one.
report() {
    if [ ${#failures[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${failures[@]}" >&2
        echo "${#failures[@]} failure(s)" >&2
        return 1
    fi
}

# need BINDIR: the build must exist.
need() {
    [ -x "$1/rake-parse" ] || {
        echo "no $1/rake-parse: run 'make build asan' first" >&2
        return 1
    }
}

# show_diff EXPECTED ACTUAL: the start of a diff, for the log.
show_diff() {
    diff -u "$1" "$2" | head -n 20 >&2 || true
}

# parses BINDIR FILE: FILE parses with exit 0, a rake.ast document on
# stdout (in $out) and nothing on stderr; records a failure otherwise.
parses() {
    local rc=0
    "$1/rake-parse" "$2" >"$out" 2>"$err" || rc=$?
    if [ "$rc" -ne 0 ]; then
        fail_file "$2" "exit status $rc with $1/rake-parse: $(head -n 1 "$err")"
        return 1
    fi
    if [ -s "$err" ]; then
        fail_file "$2" "stderr not empty with $1/rake-parse: $(head -n 1 "$err")"
        return 1
    fi
    if ! grep -q '^ *"ir": "rake.ast",$' "$out"; then
        fail_file "$2" "stdout is not a rake.ast document"
        return 1
    fi
}

# check_ast BINDIR: every ok program's AST is its golden, byte for byte.
check_ast() {
    need "$1"
    local f golden
    for f in "$OK"/*.rk; do
        golden=${f%.rk}.ast.json
        if [ ! -f "$golden" ]; then
            fail_file "$f" "no golden $golden (touch it, run tools/update-golden)"
            continue
        fi
        parses "$1" "$f" || continue
        if ! cmp -s "$golden" "$out"; then
            fail_file "$f" "output of $1/rake-parse differs from $golden"
            show_diff "$golden" "$out"
        fi
    done
    report
}

# check_tokens BINDIR: every NAME.tokens golden matches --tokens output.
check_tokens() {
    need "$1"
    local golden f rc n=0
    for golden in "$OK"/*.tokens; do
        [ -f "$golden" ] || continue
        n=$((n + 1))
        f=${golden%.tokens}.rk
        rc=0
        "$1/rake-parse" --tokens "$f" >"$out" 2>"$err" || rc=$?
        if [ "$rc" -ne 0 ] || [ -s "$err" ]; then
            fail_file "$f" "--tokens exit status $rc: $(head -n 1 "$err")"
        elif ! cmp -s "$golden" "$out"; then
            fail_file "$f" "--tokens output of $1/rake-parse differs from $golden"
            show_diff "$golden" "$out"
        fi
    done
    [ "$n" -ge 3 ] || fail_file "$OK" "only $n .tokens goldens (want at least 3)"
    report
}

# check_errors BINDIR: every err program fails with status 1, nothing on
# stdout, and on stderr its expected first line, the source line it names
# and a caret under the column it names (and nothing more: the parser stops
# at the first error).  Builtins only in the loop: it runs 2 x 60+ times.
check_errors() {
    need "$1"
    local LC_ALL=C f expected want rc loc line col src caret
    local -a elines slines
    for f in "$ERR"/*.rk; do
        expected=${f%.rk}.err
        if [ ! -f "$expected" ]; then
            fail_file "$f" "no $expected (touch it, run tools/update-golden)"
            continue
        fi
        want=
        IFS= read -r want <"$expected" || true
        rc=0
        "$1/rake-parse" "$f" >"$out" 2>"$err" || rc=$?
        mapfile -t elines <"$err"
        if [ "$rc" -ne 1 ]; then
            fail_file "$f" "exit status $rc (want 1) with $1/rake-parse: ${elines[0]-}"
            continue
        fi
        [ ! -s "$out" ] || fail_file "$f" "stdout not empty"
        if [ "${elines[0]-}" != "$want" ]; then
            fail_file "$f" "first line of stderr is
    ${elines[0]-}
  expected
    $want"
            continue
        fi
        # f.rk:LINE:COL: error: ...
        loc=${want#"$f:"}
        loc=${loc%%": error: "*}
        line=${loc%%:*}
        col=${loc#*:}
        if ! [[ $line =~ ^[0-9]+$ && $col =~ ^[0-9]+$ ]]; then
            fail_file "$f" "first line is not '$f:LINE:COL: error: ...'"
            continue
        fi
        mapfile -t slines <"$f"
        src=${slines[line - 1]-}
        src=${src%$'\r'}
        caret=${src:0:col - 1}
        caret="${caret//[^$'\t']/ }^"
        if [ ${#elines[@]} -ne 3 ]; then
            fail_file "$f" "stderr has ${#elines[@]} lines (want the message, the source line and the caret)"
        elif [ "${elines[1]}" != "$src" ]; then
            fail_file "$f" "second line of stderr is not source line $line"
        elif [ "${elines[2]}" != "$caret" ]; then
            fail_file "$f" "third line of stderr is not a caret at column $col"
        fi
    done
    report
}

@test "parse: the corpus is complete (30+ ok programs, 40+ err programs, no orphans)" {
    local f n_ok=0 n_err=0
    for f in "$OK"/*.rk; do n_ok=$((n_ok + 1)); done
    for f in "$ERR"/*.rk; do n_err=$((n_err + 1)); done
    [ "$n_ok" -ge 30 ] || fail_file "$OK" "only $n_ok programs"
    [ "$n_err" -ge 40 ] || fail_file "$ERR" "only $n_err programs"
    for f in "$OK"/* "$ERR"/*; do
        case $f in
        *.rk) ;;
        *.ast.json) [ -f "${f%.ast.json}.rk" ] || fail_file "$f" "golden without a program" ;;
        *.tokens) [ -f "${f%.tokens}.rk" ] || fail_file "$f" "golden without a program" ;;
        *.err) [ -f "${f%.err}.rk" ] || fail_file "$f" "golden without a program" ;;
        *) fail_file "$f" "unexpected file in the corpus" ;;
        esac
    done
    report
}

@test "parse: ok programs match their golden ASTs" {
    check_ast "$BIN"
}

@test "parse: ok programs match their golden ASTs (sanitizer build)" {
    check_ast "$ASAN_BIN"
}

@test "parse: --tokens matches the .tokens goldens" {
    check_tokens "$BIN"
}

@test "parse: --tokens matches the .tokens goldens (sanitizer build)" {
    check_tokens "$ASAN_BIN"
}

@test "parse: err programs fail with their golden first line, the source line and a caret" {
    check_errors "$BIN"
}

@test "parse: err programs fail with their golden first line, the source line and a caret (sanitizer build)" {
    check_errors "$ASAN_BIN"
}

@test "parse: output is deterministic (two runs give the same bytes)" {
    need "$BIN"
    local f
    for f in "$OK"/*.rk; do
        "$BIN/rake-parse" "$f" >"$out.1" 2>&1 || true
        "$BIN/rake-parse" "$f" >"$out.2" 2>&1 || true
        cmp -s "$out.1" "$out.2" || fail_file "$f" "two runs differ"
        "$BIN/rake-parse" --tokens "$f" >"$out.1" 2>&1 || true
        "$BIN/rake-parse" --tokens "$f" >"$out.2" 2>&1 || true
        cmp -s "$out.1" "$out.2" || fail_file "$f" "two --tokens runs differ"
    done
    report
}

@test "parse: every conformance program parses, and has its conf_ copy in the corpus" {
    local f copy name n=0
    for f in "$SHARED"/conformance/*.rk; do
        n=$((n + 1))
        parses "$BIN" "$f"
        parses "$ASAN_BIN" "$f"
        copy=$OK/conf_$(basename "$f")
        cmp -s "$f" "$copy" || fail_file "$f" "$copy is missing or differs (copy it again)"
    done
    [ "$n" -gt 0 ] || fail_file "$SHARED/conformance" "no programs found"
    for copy in "$OK"/conf_*.rk; do
        name=$(basename "$copy")
        f=$SHARED/conformance/${name#conf_}
        [ -f "$f" ] || fail_file "$copy" "no $f any more"
    done
    report
}

@test "parse: every \`\`\`rake block of the spec pages parses (except listed fragments)" {
    local fragments=tests/parse/spec-fragments dir=$BATS_TEST_TMPDIR/spec f name n=0
    tools/extract-spec-blocks "$dir" "$SHARED"/spec/*.md >"$BATS_TEST_TMPDIR/blocks"
    while IFS= read -r f; do
        n=$((n + 1))
        name=$(basename "$f")
        if grep -q "^$name[[:space:]]" "$fragments"; then
            continue
        fi
        parses "$BIN" "$f"
        parses "$ASAN_BIN" "$f"
    done <"$BATS_TEST_TMPDIR/blocks"
    [ "$n" -gt 0 ] || fail_file "$SHARED/spec" "no rake blocks found"
    # A listed fragment must still exist and still fail to parse.
    while read -r name reason; do
        case $name in '' | '#'*) continue ;; esac
        if [ ! -f "$dir/$name" ]; then
            fail_file "$fragments" "$name is listed but no such block exists"
        elif "$BIN/rake-parse" "$dir/$name" >/dev/null 2>&1; then
            fail_file "$fragments" "$name is listed ($reason) but parses: remove it"
        fi
    done <"$fragments"
    report
}
