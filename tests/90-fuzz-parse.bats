#!/usr/bin/env bats
# The mutation run.  tools/mutate.c (built here) writes, for every parser
# test input (tests/parse/ok, tests/parse/err, the conformance programs and
# the spec's rake blocks), every truncation at each 7th byte, copies with
# 1-4 bytes flipped or replaced, and copies with a line duplicated,
# deleted, swapped or re-indented.  The sanitizer build of rake-parse must
# then, on every one of them (at least 5,000):
#   - exit 0 or 1: not 2 or 3, not a signal, not a hang;
#   - print no AddressSanitizer, LeakSanitizer or UBSan report;
#   - on 1, print nothing on stdout and start stderr with FILE:L:C: error:
#   - on 0, print one rake.ast JSON document (a sample is also validated
#     against ir-schema/rake.ast.schema.json).
# The same is done to a few IR documents (goldens, and rake.ast and
# rake.checked written now) for every program that reads their kind (tests/ir-readers.txt, plus the ir-roundtrip
# harness over librake): exit 0, 1 or 2, no sanitizer report, and on 2 the
# IR error format.  (A reader that runs the program may loop on a mutated
# one: running out of CPU time is counted, not failed.)
#
# Inputs that fail are kept, with their stderr, in
# build-asan/fuzz-failures/{parse,ir}/ (emptied at the start of each run);
# rerun one with `build-asan/bin/rake-parse FILE`.
load lib/common

PY=/usr/bin/python3
FAIL_ROOT=$RAKE_ROOT/build-asan/fuzz-failures
MIN_PARSE_INPUTS=5000

setup_file() {
    cc -std=c11 -O2 -o "$BATS_FILE_TMPDIR/mutate" "$RAKE_ROOT/tools/mutate.c"
    local lib=$RAKE_ROOT/build-asan/lib/librake.a
    if [ -f "$lib" ]; then
        cc -std=c11 -D_DEFAULT_SOURCE -I"$RAKE_ROOT/lib" -O1 -g \
            -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all "$RAKE_ROOT/tools/ir-roundtrip.c" "$lib" \
            -ljansson -lm -o "$BATS_FILE_TMPDIR/ir-roundtrip" \
            2>"$BATS_FILE_TMPDIR/harness.log" || rm -f "$BATS_FILE_TMPDIR/ir-roundtrip"
    fi
}

# Check one batch of inputs against the parser's contract; prints one line
# per input, "RC FILE" or "FAIL REASON FILE".  Runs in parallel under xargs.
fuzz_parse_batch() {
    local f rc err first why e=$FAIL_TMP/err.$$
    ulimit -t 10 # CPU seconds: a hang dies by SIGXCPU (exit 152)
    for f; do
        rc=0
        "$PARSER" "$f" >"$f.out" 2>"$e" || rc=$?
        err=""
        IFS= read -r -d '' err <"$e" || true
        first=${err%%$'\n'*}
        why=""
        case $rc in
        0 | 1) ;;
        152) why="hang (killed after 10 s of CPU)" ;;
        *) why="exit $rc" ;;
        esac
        if [ -z "$why" ]; then
            if [[ $err == *AddressSanitizer* || $err == *LeakSanitizer* || $err == *"runtime error"* ]]; then
                why="sanitizer report"
            elif [ "$rc" -eq 1 ] && [ -s "$f.out" ]; then
                why="exit 1 with output on stdout"
            elif [ "$rc" -eq 1 ] && ! [[ $first =~ ^[^:]+:[0-9]+:[0-9]+:\ error:\  ]]; then
                why="exit 1 without FILE:L:C: error: first"
            elif [ "$rc" -eq 0 ] && [ -n "$err" ]; then
                why="exit 0 with a message on stderr"
            fi
        fi
        if [ -n "$why" ]; then
            mkdir -p "$FAIL_DIR"
            cp "$f" "$FAIL_DIR/"
            cp "$e" "$FAIL_DIR/${f##*/}.stderr"
            echo "FAIL $why: $FAIL_DIR/${f##*/}"
        else
            echo "$rc $f"
        fi
    done
}

# The same for IR readers: "RC FILE" or "FAIL REASON FILE" per input.
fuzz_ir_batch() {
    local f rc err first why e=$FAIL_TMP/err.$$ o
    ulimit -t 10
    for f; do
        rc=0
        o=$f.$READER_NAME.out
        # shellcheck disable=SC2086
        "$READER" $READER_ARGS <"$f" >"$o" 2>"$e" || rc=$?
        err=""
        IFS= read -r -d '' err <"$e" || true
        first=${err%%$'\n'*}
        why=""
        case $rc in
        0 | 1 | 2) ;;
        152)
            # A reader that runs the program (rake-interp) may loop on a
            # mutated one; reported by count, not as a failure.
            echo "timeout $f"
            continue
            ;;
        *) why="exit $rc" ;;
        esac
        if [ -z "$why" ]; then
            if [[ $err == *AddressSanitizer* || $err == *LeakSanitizer* || $err == *"runtime error"* ]]; then
                why="sanitizer report"
            elif [ "$rc" -ne 0 ] && [ -s "$o" ]; then
                why="exit $rc with output on stdout"
            elif [ "$rc" -eq 2 ] && ! [[ $first =~ ^$READER_NAME:\ \<stdin\>:[0-9]+:[0-9]+:\  ]]; then
                why="exit 2 without '$READER_NAME: <stdin>:L:C: ' first"
            fi
        fi
        if [ -n "$why" ]; then
            mkdir -p "$FAIL_DIR"
            cp "$f" "$FAIL_DIR/"
            cp "$e" "$FAIL_DIR/${f##*/}.$READER_NAME.stderr"
            echo "FAIL $READER_NAME: $why: $FAIL_DIR/${f##*/}"
        else
            echo "$rc $f"
        fi
    done
}
export -f fuzz_parse_batch fuzz_ir_batch

@test "rake-parse (sanitizer build) survives at least 5,000 mutated inputs" {
    [ -x "$ASAN_BIN/rake-parse" ] || {
        echo "no $ASAN_BIN/rake-parse: run make asan"
        false
    }
    local seeds=$BATS_TEST_TMPDIR/seeds mut=$BATS_TEST_TMPDIR/mut
    mkdir -p "$seeds/spec" "$mut"
    "$RAKE_ROOT/tools/extract-spec-blocks" "$seeds/spec" "$SHARED"/spec/*.md >/dev/null
    local inputs=()
    # Each distinct file once (tests/parse/ok has copies of the conformance
    # programs).
    mapfile -t inputs < <(
        {
            for d in "$RAKE_ROOT/tests/parse/ok" "$RAKE_ROOT/tests/parse/err"; do
                [ -d "$d" ] && find "$d" -type f -name '*.rk' | sort
            done
            ls "$SHARED"/conformance/*.rk "$seeds"/spec/*.rk
        } | xargs md5sum | awk '!seen[$1]++ { print $2 }'
    )
    echo "# ${#inputs[@]} distinct seed inputs" >&3
    [ "${#inputs[@]}" -gt 0 ]
    "$BATS_FILE_TMPDIR/mutate" -n 6 -m 3 "$mut" "${inputs[@]}" >"$BATS_TEST_TMPDIR/count"
    # The seeds themselves are inputs too.
    local i=0 f
    for f in "${inputs[@]}"; do
        cp "$f" "$mut/seed-$i-$(basename "$f")"
        i=$((i + 1))
    done

    # A private copy, in case bin/ is rebuilt during the run.
    cp "$ASAN_BIN/rake-parse" "$BATS_TEST_TMPDIR/rake-parse"
    export PARSER=$BATS_TEST_TMPDIR/rake-parse FAIL_DIR=$FAIL_ROOT/parse FAIL_TMP=$BATS_TEST_TMPDIR
    rm -rf "$FAIL_DIR"
    local results=$BATS_TEST_TMPDIR/results
    find "$mut" -type f -print0 | xargs -0 -P 2 -n 200 bash -c 'fuzz_parse_batch "$@"' _ >"$results"

    local total accepted rejected
    total=$(wc -l <"$results")
    accepted=$(grep -c '^0 ' "$results" || true)
    rejected=$(grep -c '^1 ' "$results" || true)
    echo "# rake-parse: $total inputs: $accepted accepted (exit 0), $rejected rejected (exit 1)" >&3
    if grep -q '^FAIL' "$results"; then
        grep '^FAIL' "$results" | head -50
        echo "$(grep -c '^FAIL' "$results") failing inputs kept in $FAIL_DIR"
        false
    fi
    [ "$total" -ge "$MIN_PARSE_INPUTS" ] || {
        echo "only $total inputs, expected at least $MIN_PARSE_INPUTS"
        false
    }

    # Every accepted input gave one rake.ast document; validate a sample
    # of them (the whole set takes too long) against the schema.
    grep '^0 ' "$results" | cut -d' ' -f2- | sed 's/$/.out/' >"$BATS_TEST_TMPDIR/outputs"
    run "$PY" - "$BATS_TEST_TMPDIR/outputs" "$RAKE_ROOT/ir-schema/rake.ast.schema.json" <<'EOF'
import json, sys
from jsonschema import Draft202012Validator
def no_dup(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("duplicate key %r" % k)
        d[k] = v
    return d
paths = open(sys.argv[1]).read().split("\n")[:-1]
validator = Draft202012Validator(json.load(open(sys.argv[2])))
# Validate outputs of flipped or restructured inputs (new spellings and
# shapes come from those), about 150, and about 50 of the truncations.
mutated = [p for p in paths if ".t" not in p.rsplit("/", 1)[-1]]
truncated = [p for p in paths if ".t" in p.rsplit("/", 1)[-1]]
sample = set(mutated[::max(1, len(mutated) // 150)] + truncated[::max(1, len(truncated) // 50)])
bad, checked = [], 0
for p in paths:
    src = p[:-len(".out")]
    try:
        text = open(p, "rb").read().decode("utf-8")
        d = json.loads(text, object_pairs_hook=no_dup)
    except ValueError as e:
        bad.append("%s: not one JSON document: %s" % (src, e)); continue
    if not text.endswith("}\n"):
        bad.append("%s: output does not end with a newline" % src)
    if d.get("ir") != "rake.ast" or d.get("version") != 1 or d.get("source") != src:
        bad.append("%s: wrong header %r" % (src, {k: d.get(k) for k in ("ir", "version", "source")}))
    if p in sample:
        checked += 1
        for e in validator.iter_errors(d):
            bad.append("%s: schema: %s: %s" % (src, "/" + "/".join(map(str, e.absolute_path)), e.message[:200]))
            break
print("%d documents parsed, %d validated against the schema" % (len(paths), checked))
print("\n".join(bad[:40]))
sys.exit(1 if bad else 0)
EOF
    echo "$output"
    echo "# ${lines[0]}" >&3
    [ "$status" -eq 0 ]
}

@test "IR readers (sanitizer builds) survive mutated IR documents of their kind" {
    local docs=$BATS_TEST_TMPDIR/docs mut=$BATS_TEST_TMPDIR/mut
    # Seeds of each kind: the first few goldens (NAME.ast.json,
    # NAME.checked[.PROFILE].json, NAME.nir..., NAME.mir...), and a few
    # documents written now.
    local goldens=() rk kind pattern
    for kind in rake.ast rake.checked rake.nir rake.mir; do
        mkdir -p "$docs/$kind"
        pattern="*.${kind#rake.}.json"
        [ "$kind" = rake.ast ] || pattern="*.${kind#rake.}*.json"
        mapfile -t goldens < <(find "$RAKE_ROOT/tests" -path "$RAKE_ROOT/tests/shared" -prune -o -name "$pattern" -type f -print | sort | head -3)
        [ "${#goldens[@]}" -eq 0 ] || cp "${goldens[@]}" "$docs/$kind/"
    done
    for rk in runs_running_sum sweeps_grade stacks_particles; do
        [ -x "$BIN/rake-parse" ] || break
        "$BIN/rake-parse" "$SHARED/conformance/$rk.rk" >"$docs/rake.ast/gen-$rk.ast.json"
        [ -x "$BIN/rake-check" ] &&
            "$BIN/rake-check" --target x86-avx2 <"$docs/rake.ast/gen-$rk.ast.json" \
                >"$docs/rake.checked/gen-$rk.checked.json" 2>/dev/null ||
            rm -f "$docs/rake.checked/gen-$rk.checked.json"
    done
    local seeds=()
    for kind in rake.ast rake.checked rake.nir rake.mir; do
        mkdir -p "$mut/$kind"
        seeds=("$docs/$kind"/*.json)
        [ -e "${seeds[0]}" ] || continue
        "$BATS_FILE_TMPDIR/mutate" -t 97 -n 24 -m 6 "$mut/$kind" "${seeds[@]}" >/dev/null
        cp "${seeds[@]}" "$mut/$kind/"
    done

    # The readers: each row of tests/ir-readers.txt that is built (the
    # sanitizer build when there is one), and the harness.
    local rows=() prog args missing=""
    while read -r prog kind args; do
        case $prog in '' | '#'*) continue ;; esac
        # private copies, in case bin/ is rebuilt during the run
        if [ -x "$ASAN_BIN/$prog" ]; then
            cp "$ASAN_BIN/$prog" "$BATS_TEST_TMPDIR/$prog"
            rows+=("$prog|$BATS_TEST_TMPDIR/$prog|$kind|$args")
        elif [ -x "$BIN/$prog" ]; then
            cp "$BIN/$prog" "$BATS_TEST_TMPDIR/$prog"
            rows+=("$prog|$BATS_TEST_TMPDIR/$prog|$kind|$args")
        else
            missing+=" $prog"
        fi
    done <"$RAKE_ROOT/tests/ir-readers.txt"
    [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ] && rows+=("ir-roundtrip|$BATS_FILE_TMPDIR/ir-roundtrip|rake.ast|")
    [ -z "$missing" ] || echo "# not built, so not fuzzed:$missing" >&3
    [ "${#rows[@]}" -gt 0 ] || skip "no IR reader is built:$missing, and the ir-roundtrip harness did not build"

    export FAIL_DIR=$FAIL_ROOT/ir FAIL_TMP=$BATS_TEST_TMPDIR
    rm -rf "$FAIL_DIR"
    local row failed=0 ran=0
    for row in "${rows[@]}"; do
        IFS='|' read -r READER_NAME READER kind READER_ARGS <<<"$row"
        export READER_NAME READER READER_ARGS
        if [ -z "$(ls "$mut/$kind" 2>/dev/null)" ]; then
            echo "# $READER_NAME: no $kind document to mutate, so not fuzzed" >&3
            continue
        fi
        local results=$BATS_TEST_TMPDIR/results-$READER_NAME
        find "$mut/$kind" -type f -name '*.json' -print0 |
            xargs -0 -P 2 -n 100 bash -c 'fuzz_ir_batch "$@"' _ >"$results"
        echo "# $READER_NAME: $(wc -l <"$results") $kind documents: $(grep -c '^0 ' "$results" || true) exit 0, $(grep -c '^1 ' "$results" || true) exit 1, $(grep -c '^2 ' "$results" || true) exit 2, $(grep -c '^timeout ' "$results" || true) out of CPU time (10 s)" >&3
        ran=$((ran + 1))
        if grep -q '^FAIL' "$results"; then
            grep '^FAIL' "$results" | head -30
            failed=1
        fi
    done
    [ "$failed" -eq 0 ] || {
        echo "failing inputs kept in $FAIL_DIR"
        false
    }
    [ "$ran" -gt 0 ] || skip "no IR document of a kind a built reader reads"

    # What ir-roundtrip accepted, it wrote back as a valid document.
    if [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ]; then
        grep '^0 ' "$BATS_TEST_TMPDIR/results-ir-roundtrip" | cut -d' ' -f2- |
            sed 's/$/.ir-roundtrip.out/' >"$BATS_TEST_TMPDIR/outputs"
        run "$PY" -c '
import json, sys
bad = []
outs = open(sys.argv[1]).read().split("\n")[:-1]
for p in outs:
    try:
        d = json.load(open(p, encoding="utf-8"))
        assert d["ir"] in ("rake.ast", "rake.checked") and d["version"] == 1
    except Exception as e:
        bad.append("%s: %s" % (p, e))
print("%d documents written back" % len(outs))
print("\n".join(bad[:20]))
sys.exit(1 if bad else 0)' "$BATS_TEST_TMPDIR/outputs"
        echo "$output"
        echo "# ir-roundtrip: ${lines[0]}" >&3
        [ "$status" -eq 0 ]
    fi
}

# A program of the given nesting, written by Python: FORM N.
deep_program() {
    "$PY" - "$@" <<'EOF_PY'
import sys
form, n = sys.argv[1], int(sys.argv[2])
head = "scratch f(x: f32s) -> f32s:\n  "
if form == "sum":
    print(head + "x" + " + x" * n)
elif form == "field":
    print(head + "x" + ".a" * n)
elif form == "minus":
    print(head + "- " * n + "x")
elif form == "not":
    print(head + "not " * n + "x")
elif form == "if":
    print(head + "if x then " * n + "x" + " else x" * n)
elif form == "mut":
    print(head + "let v: " + "mut " * n + "f32 = x\n  x")
elif form == "view":
    print(head + "let v: " + "[]" * n + "f32 = x\n  x")
elif form == "elseif":
    print("slow f() -> i32:\n  if x:\n    return 1\n" + "  else if x:\n    return 1\n" * n + "  return 0")
EOF_PY
}

@test "rake-parse refuses trees deeper than IR readers read (2048 levels), without crashing" {
    [ -x "$ASAN_BIN/rake-parse" ] || {
        echo "no $ASAN_BIN/rake-parse: run make asan"
        false
    }
    local p=$BATS_TEST_TMPDIR/deep.rk
    # 2,041 terms is the deepest sum that fits; it must be readable.
    deep_program sum 2041 >"$p"
    run "$ASAN_BIN/rake-parse" "$p"
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/deep.json"
    if [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ]; then
        run "$BATS_FILE_TMPDIR/ir-roundtrip" <"$BATS_TEST_TMPDIR/deep.json"
        [ "$status" -eq 0 ]
    fi
    local case form n
    for case in sum:2042 sum:200000 field:200000 minus:5000 not:5000 if:3000 view:5000 mut:5000 elseif:3000; do
        form=${case%:*} n=${case#*:}
        deep_program "$form" "$n" >"$p"
        run "$ASAN_BIN/rake-parse" "$p"
        echo "$form x $n: exit $status: ${lines[0]}"
        [ "$status" -eq 1 ]
        [[ ${lines[0]} == *": error: the program nests too deeply here"* ]]
    done
}

@test "rake-parse survives 200,000 nested prefix operators, types and else-ifs" {
    [ -x "$ASAN_BIN/rake-parse" ] || {
        echo "no $ASAN_BIN/rake-parse: run make asan"
        false
    }
    local p=$BATS_TEST_TMPDIR/deep.rk form crashed=""
    for form in minus not if mut view elseif; do
        deep_program "$form" 200000 >"$p"
        run "$ASAN_BIN/rake-parse" "$p"
        echo "$form x 200000: exit $status: ${lines[0]}"
        if [[ $output == *stack-overflow* ]]; then
            crashed+=" $form"
            continue
        fi
        [ "$status" -eq 1 ]
        [[ ${lines[0]} == *": error: "* ]]
    done
    # The parser limits its nesting ("the program nests too deeply here"),
    # so no form reaches the end of the C stack.
    [ -z "$crashed" ] || { echo "the parser's recursion overflows the stack on:$crashed"; false; }
}
