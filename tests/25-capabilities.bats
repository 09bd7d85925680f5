#!/usr/bin/env bats
# tests/25-capabilities.bats: the capability profile test.
#
# `rakec --print-capabilities --json` prints the table of lib/profile.c:
# for each feature and profile a status (yes, partial, no, WIP) and, for
# anything but yes, a reason.  tests/check/capability/FEATURE.rk is one
# small program using FEATURE (named as the table prints it) and, besides
# it, only what every profile that supports FEATURE compiles.  For every
# feature and every usable profile the checker must accept the fixture
# exactly when the table says yes or partial, and otherwise reject it with
# an error naming the profile and the table's reason.  The scalar profile
# is rejected as a whole.  So the suite fails whenever the table and the
# checker disagree, or a feature has no fixture.
load lib/common

CAPS=tests/check/capability

setup() {
    cd "$RAKE_ROOT"
    failures=()
    table=$BATS_TEST_TMPDIR/table.tsv
    # feature TAB profile TAB status TAB reason, one cell a line
    "$BIN/rakec" --print-capabilities --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["features"]:
    for p, c in f["status"].items():
        print(f["feature"], p, c["status"], c.get("reason", ""), sep="\t")
' >"$table"
}

fail_cell() {
    failures+=("$1: $2")
}

report() {
    if [ ${#failures[@]} -gt 0 ]; then
        printf 'FAILED %s\n' "${failures[@]}" >&2
        echo "${#failures[@]} failure(s)" >&2
        return 1
    fi
}

@test "capabilities: the JSON table has every profile and a reason for every cell that isn't yes" {
    local feat prof st reason n=0
    local profiles=" x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128 wasm-simd128-relaxed scalar "
    while IFS=$'\t' read -r feat prof st reason; do
        n=$((n + 1))
        [[ $profiles == *" $prof "* ]] || fail_cell "$feat" "unknown profile $prof"
        case $st in
        yes) [ -z "$reason" ] || fail_cell "$feat/$prof" "yes with a reason" ;;
        partial | no | WIP) [ -n "$reason" ] || fail_cell "$feat/$prof" "$st without a reason" ;;
        *) fail_cell "$feat/$prof" "unknown status '$st'" ;;
        esac
    done <"$table"
    [ "$n" -ge 7 ] || fail_cell "$table" "only $n cells"
    cut -f1 "$table" | sort -u >"$BATS_TEST_TMPDIR/features"
    while read -r feat; do
        [ "$(grep -c "^$feat	" "$table")" -eq 7 ] || fail_cell "$feat" "not one cell for each of the 7 profiles"
    done <"$BATS_TEST_TMPDIR/features"
    report
}

@test "capabilities: one fixture per feature, and no fixture without a feature" {
    local feat f
    while read -r feat; do
        [ -f "$CAPS/$feat.rk" ] || fail_cell "$feat" "no fixture $CAPS/$feat.rk"
    done < <(cut -f1 "$table" | sort -u)
    for f in "$CAPS"/*; do
        feat=$(basename "$f" .rk)
        [ "$f" = "$CAPS/$feat.rk" ] || { fail_cell "$f" "not a .rk file"; continue; }
        cut -f1 "$table" | grep -qxF "$feat" || fail_cell "$f" "no feature '$feat' in the table"
    done
    report
}

# run_cells BINDIR: every feature on every usable profile.
run_cells() {
    local bin=$1 feat prof st reason f rc ast=$BATS_TEST_TMPDIR/ast.json
    local err=$BATS_TEST_TMPDIR/err n=0
    [ -x "$bin/rake-check" ] || { echo "no $bin/rake-check: run make build asan" >&2; return 1; }
    while IFS=$'\t' read -r feat prof st reason; do
        [ "$prof" != scalar ] || continue
        f=$CAPS/$feat.rk
        [ -f "$f" ] || continue
        n=$((n + 1))
        if ! "$bin/rake-parse" "$f" >"$ast" 2>"$err"; then
            fail_cell "$f" "does not parse: $(head -n 1 "$err")"
            continue
        fi
        rc=0
        "$bin/rake-check" --target "$prof" <"$ast" >/dev/null 2>"$err" || rc=$?
        if grep -qE 'AddressSanitizer|runtime error' "$err"; then
            fail_cell "$feat/$prof" "sanitizer report"
            continue
        fi
        case $st in
        yes | partial)
            [ "$rc" -eq 0 ] ||
                fail_cell "$feat/$prof" "the table says $st, but $bin/rake-check rejects $f: $(head -n 1 "$err")" ;;
        *)
            if [ "$rc" -ne 1 ]; then
                fail_cell "$feat/$prof" "the table says $st, but $bin/rake-check exits $rc on $f"
            elif ! grep -F "$prof can't compile" "$err" | grep -qF ": $reason"; then
                fail_cell "$feat/$prof" "rejected without the table's reason '$reason': $(head -n 1 "$err")"
            fi ;;
        esac
    done <"$table"
    [ "$n" -ge 6 ] || fail_cell "$CAPS" "only $n cells run"
    report
}

@test "capabilities: the checker accepts each fixture exactly where the table says yes or partial, else rejects it with the table's reason" {
    run_cells "$BIN"
}

@test "capabilities: the same, with the sanitizer build" {
    run_cells "$ASAN_BIN"
}

@test "capabilities: the scalar profile is rejected as a whole, before any feature" {
    local f rc err=$BATS_TEST_TMPDIR/err ast=$BATS_TEST_TMPDIR/ast.json
    grep -q "	scalar	WIP	" "$table" || fail_cell "$table" "scalar cells aren't WIP"
    if grep "	scalar	" "$table" | grep -qv "	scalar	WIP	"; then
        fail_cell "$table" "a scalar cell isn't WIP"
    fi
    for f in "$CAPS"/*.rk; do
        "$BIN/rake-parse" "$f" >"$ast" || { fail_cell "$f" "does not parse"; continue; }
        rc=0
        "$BIN/rake-check" --target scalar <"$ast" >/dev/null 2>"$err" || rc=$?
        [ "$rc" -eq 1 ] || fail_cell "$f" "--target scalar exits $rc"
        [ "$(head -n 1 "$err")" = "$f: error: the scalar profile is work in progress and the compiler rejects it" ] ||
            fail_cell "$f" "--target scalar: $(head -n 1 "$err")"
    done
    report
}

@test "capabilities: rakec prints the same table as rake-check, as text and as JSON" {
    local a=$BATS_TEST_TMPDIR/a b=$BATS_TEST_TMPDIR/b
    "$BIN/rakec" --print-capabilities >"$a"
    "$BIN/rake-check" --print-capabilities >"$b"
    cmp -s "$a" "$b" || fail_cell rakec "--print-capabilities differs from rake-check's"
    "$BIN/rakec" --print-capabilities --json >"$a"
    "$BIN/rake-check" --print-capabilities --json >"$b"
    cmp -s "$a" "$b" || fail_cell rakec "--print-capabilities --json differs from rake-check's"
    "$BIN/rakec" --print-capabilities >"$a"
    cut -f1 "$table" | sort -u | while read -r feat; do
        grep -q "^$feat " "$a" || echo "$feat"
    done >"$b"
    [ ! -s "$b" ] || fail_cell rakec "the text table lacks: $(tr '\n' ' ' <"$b")"
    report
}
