#!/usr/bin/env bats
# The IR contract (docs/ir-contract.md):
#  - every program that reads an IR document (tests/ir-readers.txt) refuses
#    a malformed one with exit 2, nothing on stdout, and
#    `PROGRAM: <stdin>:LINE:COL: ...` on stderr, at the right place;
#  - the schemas in ir-schema/ are valid, agree with lib/ast.c's field table,
#    accept what rake-parse writes and every golden *.ast.json, and reject
#    broken trees.
# Until a pass reads IR, the rows are checked on ir-roundtrip, a harness
# built here from tools/ir-roundtrip.c and the sanitizer librake, so that
# lib/ir.c itself is held to the contract.
load lib/common

PY=/usr/bin/python3
VALIDATE=$RAKE_ROOT/tools/validate-ir
AST_SCHEMA=$RAKE_ROOT/ir-schema/rake.ast.schema.json
CHECKED_SCHEMA=$RAKE_ROOT/ir-schema/rake.checked.schema.json
READERS=$RAKE_ROOT/tests/ir-readers.txt

setup_file() {
    local lib=$RAKE_ROOT/build-asan/lib/librake.a
    local h=$BATS_FILE_TMPDIR/ir-roundtrip
    if [ -f "$lib" ]; then
        cc -std=c11 -D_DEFAULT_SOURCE -I"$RAKE_ROOT/lib" -O1 -g \
            -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all "$RAKE_ROOT/tools/ir-roundtrip.c" \
            "$lib" -ljansson -lm -o "$h" 2>"$BATS_FILE_TMPDIR/harness.log" ||
            rm -f "$h"
    else
        echo "no $lib: run make asan" >"$BATS_FILE_TMPDIR/harness.log"
    fi
    # rake.ast documents from rake-parse, for the schema tests.
    local gen=$BATS_FILE_TMPDIR/gen
    mkdir -p "$gen/rk"
    cp "$SHARED"/conformance/*.rk "$gen/rk/"
    "$RAKE_ROOT/tools/extract-spec-blocks" "$gen/rk" "$SHARED"/spec/*.md >/dev/null
    if [ -x "$BIN/rake-parse" ]; then
        local f
        for f in "$gen"/rk/*.rk; do
            "$BIN/rake-parse" "$f" >"$gen/$(basename "$f" .rk).ast.json" 2>/dev/null ||
                rm -f "$gen/$(basename "$f" .rk).ast.json"
        done
    fi
}

# --- the readers ------------------------------------------------------------

# Print "NAME|PATH|KIND|ARGS" for each IR reader that can run now: the rows
# of tests/ir-readers.txt whose program is built, then the harness.  NAME
# is the program's, and PROGRAM.KIND for a second row of one program
# (rake-check reads rake.ast, and rake.checked with --describe).
readers() {
    local prog kind args name
    local -A seen=()
    while read -r prog kind args; do
        case $prog in '' | '#'*) continue ;; esac
        name=$prog
        [ -z "${seen[$prog]:-}" ] || name=$prog.$kind
        seen[$prog]=1
        [ -x "$BIN/$prog" ] && printf '%s|%s|%s|%s\n' "$name" "$BIN/$prog" "$kind" "$args"
    done <"$READERS"
    [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ] &&
        printf '%s|%s|%s|%s\n' ir-roundtrip "$BATS_FILE_TMPDIR/ir-roundtrip" rake.ast ""
    return 0
}

# The version each kind of document has now.
ver() { case $1 in rake.mir) echo 2 ;; *) echo 1 ;; esac; }

# A header-only document of KIND, one key a line; extra lines go before
# "decls".
doc() {
    local kind=$1
    shift
    printf '{\n  "ir": "%s",\n  "version": %s,\n  "source": "x.rk",\n' "$kind" "$(ver "$kind")"
    local l
    for l in "$@"; do printf '  %s,\n' "$l"; done
    printf '  "decls": []\n}\n'
}

# Run every reader on the document that `make_doc KIND FILE` writes and check
# the rejection; with LINE (and COLMIN COLMAX), also the reported place.
# Collects every failure, then fails once with all of them.
check_rejected() {
    local make_doc=$1 want_line=${2:-} col_min=${3:-} col_max=${4:-}
    local name path kind args fails="" n=0
    [ -n "$(readers)" ] || skip "no IR reader is built (see $BATS_FILE_TMPDIR/harness.log)"
    while IFS='|' read -r name path kind args; do
        n=$((n + 1))
        local d=$BATS_TEST_TMPDIR/$name.json out=$BATS_TEST_TMPDIR/$name.out err=$BATS_TEST_TMPDIR/$name.err
        if ! "$make_doc" "$kind" "$d" || ! [ -s "$d" ]; then
            echo "# $name: no $kind document for this case, not run" >&3
            continue
        fi
        local rc=0
        # shellcheck disable=SC2086
        timeout -k 2 20 "$path" $args <"$d" >"$out" 2>"$err" || rc=$?
        local first
        first=$(head -n 1 "$err")
        if [ "$rc" -ne 2 ]; then
            fails+="$name: exit $rc, expected 2; stderr: $(head -c 400 "$err")"$'\n'
        elif [ -s "$out" ]; then
            fails+="$name: wrote $(wc -c <"$out") bytes on stdout, expected none"$'\n'
        elif ! [[ $first =~ ^${path##*/}:\ \<stdin\>:([0-9]+):([0-9]+):\  ]]; then
            fails+="$name: first stderr line does not match '^${path##*/}: <stdin>:L:C: ': $first"$'\n'
        elif grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$err"; then
            fails+="$name: sanitizer report: $(head -c 600 "$err")"$'\n'
        elif [ -n "$want_line" ]; then
            local line=${BASH_REMATCH[1]} col=${BASH_REMATCH[2]}
            if [ "$line" -ne "$want_line" ] || [ "$col" -lt "$col_min" ] || [ "$col" -gt "$col_max" ]; then
                fails+="$name: reported $line:$col, expected line $want_line, column $col_min..$col_max: $first"$'\n'
            fi
        fi
        echo "# $name: exit $rc: $first" >&3
    done < <(readers)
    [ -z "$fails" ] || {
        printf '%s' "$fails"
        return 1
    }
}

@test "every IR reader listed in tests/ir-readers.txt is built" {
    local prog kind args missing=""
    while read -r prog kind args; do
        case $prog in '' | '#'*) continue ;; esac
        [ -x "$BIN/$prog" ] || missing+=" $prog"
    done <"$READERS"
    [ -z "$missing" ] || { echo "not built, so their IR-contract rows can't run:$missing"; false; }
}

@test "the ir-roundtrip harness builds from tools/ir-roundtrip.c and librake" {
    [ -f "$RAKE_ROOT/build-asan/lib/librake.a" ] || skip "no build-asan/lib/librake.a: run make asan"
    run cat "$BATS_FILE_TMPDIR/harness.log"
    [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ] || {
        echo "$output"
        false
    }
}

mk_invalid() { printf '{\n  "ir": "%s",\n  "version": %s,\n  "source": x.rk\n}\n' "$1" "$(ver "$1")" >"$2"; }
@test "IR readers reject invalid JSON (exit 2, no stdout, PROGRAM: <stdin>:L:C:)" {
    check_rejected mk_invalid 4 13 14
}

mk_truncated() {
    local full=$BATS_TEST_TMPDIR/full.json
    if [ "$1" = rake.ast ] && [ -x "$BIN/rake-parse" ]; then
        "$BIN/rake-parse" "$SHARED/conformance/stacks_particles.rk" >"$full"
    else
        doc "$1" '"extra": {"a": [1, 2, 3], "b": "text"}' >"$full"
    fi
    head -c $(($(wc -c <"$full") / 2)) "$full" >"$2"
}
@test "IR readers reject truncated JSON" {
    check_rejected mk_truncated
}

mk_deep() {
    $PY -c 'import sys; n = 10000; sys.stdout.write("{\"ir\": \"%s\", \"version\": %s, \"source\": \"x.rk\", \"decls\": %s%s}\n" % (sys.argv[1], sys.argv[2], "[" * n, "]" * n))' "$1" "$(ver "$1")" >"$2"
}
@test "IR readers reject JSON nested 10,000 deep (without overflowing the stack)" {
    check_rejected mk_deep
}

# The duplicate "version" key is on line 5, columns 3-11 (quotes included).
mk_duplicate() { doc "$1" "\"version\": $(ver "$1")" >"$2"; }
@test "IR readers reject a duplicate key, at its line and column" {
    check_rejected mk_duplicate 5 3 11
}

# "ir"'s value is on line 3, column 9.
mk_wrong_kind() { printf '{\n  "version": 1,\n  "ir": "rake.nosuch",\n  "source": "x.rk",\n  "decls": []\n}\n' >"$2"; }
@test "IR readers reject the wrong ir kind, at the value's line and column" {
    check_rejected mk_wrong_kind 3 9 9
    local name path kind args
    while IFS='|' read -r name path kind args; do
        grep -q "$kind" "$BATS_TEST_TMPDIR/$name.err" || {
            echo "$name: the message does not name the expected kind $kind: $(cat "$BATS_TEST_TMPDIR/$name.err")"
            false
        }
    done < <(readers)
}

# "version"'s value is on line 3, column 14.
mk_wrong_version() { doc "$1" | sed 's/"version": [0-9]*/"version": 9/' >"$2"; }
@test "IR readers reject the wrong version, at the value's line and column" {
    check_rejected mk_wrong_version 3 14 14
}

mk_not_object() { printf '[\n  {"ir": "%s", "version": %s, "source": "x.rk", "decls": []}\n]\n' "$1" "$(ver "$1")" >"$2"; }
@test "IR readers reject a document that is not a JSON object" {
    check_rejected mk_not_object
}

mk_no_source() { doc "$1" | grep -v '"source"' >"$2"; }
@test "IR readers reject a document with no source" {
    check_rejected mk_no_source
}

mk_source_not_string() { doc "$1" | sed 's/"source": "x.rk"/"source": 42/' >"$2"; }
@test "IR readers reject a source that is not a string, at its line and column" {
    check_rejected mk_source_not_string 4 13 13
}

# A valid document of KIND for stacks_particles.rk, written to FILE, from
# rake-parse (and rake-check for rake.checked); fails if that cannot be had.
real_doc() {
    local kind=$1 out=$2 ast=$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json
    [ -s "$ast" ] || return 1
    case $kind in
    rake.ast) cp "$ast" "$out" ;;
    rake.checked) [ -x "$BIN/rake-check" ] && "$BIN/rake-check" --target x86-avx2 <"$ast" >"$out" 2>/dev/null ;;
    *) return 1 ;;
    esac
}

# Edit a JSON file in place with a Python statement on `d`.
edit_doc() {
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
def nodes(n):
    if isinstance(n, dict):
        yield n
        for v in n.values(): yield from nodes(v)
    elif isinstance(n, list):
        for v in n: yield from nodes(v)
def first(kind): return next(n for n in nodes(d["decls"]) if n.get("k") == kind)
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"), indent=1)' "$1" "$2"
}

mk_null_name() { real_doc "$1" "$2" && edit_doc "$2" 'first("name")["name"] = None'; }
@test "IR readers reject null for a required string" {
    [ -s "$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json" ] || skip "bin/rake-parse did not write a document"
    run check_rejected mk_null_name
    echo "$output"
    # Every reader refuses it: exit 2, `expected a string` (lib/ir.c).
    [ "$status" -eq 0 ]
}

mk_far_loc() {
    real_doc "$1" "$2" && edit_doc "$2" 't = first("type"); t["name"] = "nosuch"; t["loc"] = "3:200000000"'
}
@test "a located error at an absurd column does not flood stderr" {
    local prog kind args n=0 big=""
    while read -r prog kind args; do
        case $prog in '' | '#'*) continue ;; esac
        [ "$kind" = rake.ast ] && [ -x "$BIN/$prog" ] || continue
        mk_far_loc "$kind" "$BATS_TEST_TMPDIR/far.json" || continue
        n=$((n + 1))
        local bytes
        # shellcheck disable=SC2086
        bytes=$(timeout 10 "$BIN/$prog" $args <"$BATS_TEST_TMPDIR/far.json" 2>&1 >/dev/null | head -c 1000000 | wc -c)
        echo "$prog: $bytes bytes on stderr"
        [ "$bytes" -lt 65536 ] || big+=" $prog"
    done <"$READERS"
    [ "$n" -gt 0 ]
    # lib/diag.c caps the caret at the end of the quoted line.
    [ -z "$big" ] || { echo "stderr floods:$big"; false; }
}

@test "ir-roundtrip writes every rake-parse document back byte for byte" {
    [ -x "$BATS_FILE_TMPDIR/ir-roundtrip" ] || skip "the harness did not build"
    local f n=0
    for f in "$BATS_FILE_TMPDIR"/gen/*.ast.json; do
        [ -e "$f" ] || continue
        run "$BATS_FILE_TMPDIR/ir-roundtrip" <"$f"
        [ "$status" -eq 0 ] || {
            echo "$f: $output"
            false
        }
        cmp -s <(printf '%s\n' "$output") "$f" || {
            echo "$f: differs after a round trip"
            false
        }
        n=$((n + 1))
    done
    [ "$n" -gt 0 ]
}

# --- the schemas --------------------------------------------------------------

@test "validate-ir uses python3-jsonschema and accepts only valid schemas" {
    run "$VALIDATE"
    [ "$status" -eq 2 ]
    echo '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "nosuch"}' >"$BATS_TEST_TMPDIR/bad.json"
    echo '{}' >"$BATS_TEST_TMPDIR/doc.json"
    run "$VALIDATE" "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/doc.json"
    [ "$status" -eq 2 ]
    [[ $output == *"not a valid schema"* ]]
    printf '{"$schema": "http://json-schema.org/draft-07/schema#", "required": ["a"]}' >"$BATS_TEST_TMPDIR/s7.json"
    run "$VALIDATE" "$BATS_TEST_TMPDIR/s7.json" "$BATS_TEST_TMPDIR/doc.json"
    [ "$status" -eq 1 ]
    [[ $output == *"doc.json: /: 'a' is a required property"* ]]
}

@test "ir-schema/*.schema.json are valid JSON Schemas" {
    local s
    for s in "$RAKE_ROOT"/ir-schema/*.schema.json; do
        run "$PY" - "$s" <<'EOF'
import json, sys
from jsonschema import validators
schema = json.load(open(sys.argv[1]))
cls = validators.validator_for(schema, default=None)
assert cls is not None, "no known $schema"
cls.check_schema(schema)
print(cls.__name__)
EOF
        echo "$s: $output"
        [ "$status" -eq 0 ]
    done
}

@test "rake.ast.schema.json has exactly lib/ast.c's kinds, keys and required fields" {
    run "$PY" - "$RAKE_ROOT/lib/ast.c" "$RAKE_ROOT/lib/ast.h" "$AST_SCHEMA" <<'EOF'
import json, re, sys
ast_c, ast_h, schema = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
defs = schema["$defs"]
kinds = re.findall(r'X\((\w+), "(\w+)"\)', ast_h)          # (ENUM, json name) in order
names = {e: n for e, n in kinds}
table = ast_c[ast_c.index("specs[RK_KIND_COUNT]"):]
table = table[:table.index("\n};")]
rows = dict(re.findall(r'\[RK_(\w+)\]\s*=\s*\{(.*?)END\}', table, re.S))
bad = []
if set(rows) != set(names):
    bad.append("kinds in the table but not the X-macro or back: %s" % (set(rows) ^ set(names)))
REQUIRED = {"S": True, "SO": False, "N": True, "NO": False, "L": True, "LO": False, "B": False}
def resolve(s):
    while "$ref" in s:
        s = defs[s["$ref"].split("/")[-1]]
    return s
for enum, kind in kinds:
    d = defs.get(kind + "_node")
    if d is None:
        bad.append("%s: no $defs/%s_node" % (kind, kind)); continue
    fields = re.findall(r'\b(SO|S|NO|N|LO|L|B)\("(\w+)"', rows.get(enum, ""))
    want_keys = {"k", "loc"} | {k for _, k in fields}
    want_req = {"k", "loc"} | {k for t, k in fields if REQUIRED[t]}
    if set(d["properties"]) != want_keys:
        bad.append("%s: keys %s, lib/ast.c has %s" % (kind, sorted(d["properties"]), sorted(want_keys)))
    if set(d["required"]) != want_req:
        bad.append("%s: required %s, lib/ast.c has %s" % (kind, sorted(d["required"]), sorted(want_req)))
    if d.get("additionalProperties") is not False:
        bad.append("%s: additionalProperties is not false" % kind)
    if d["properties"]["k"] != {"const": kind}:
        bad.append("%s: k is not const %r" % (kind, kind))
    for t, k in fields:
        p = resolve(d["properties"].get(k, {}))
        ok = {"S": lambda: p.get("type") == "string" or "enum" in p,
              "SO": lambda: p.get("type") == "string",
              "N": lambda: p.get("type") == "object",
              "NO": lambda: p.get("type") == "object",
              "L": lambda: p.get("type") == "array" and "minItems" not in p,
              "LO": lambda: p.get("type") == "array" and p.get("minItems") == 1,
              "B": lambda: p == {"const": True, "description": defs["flag"]["description"]}}[t]()
        if not ok:
            bad.append("%s.%s: the schema's %s does not fit a %s field" % (kind, k, json.dumps(p)[:80], t))
# Every kind is reachable from exactly the categories lib/ast.c implies.
order = [n for _, n in kinds]
expr = order[order.index("int"):order.index("lanes") + 1]
expr = [k for k in expr if k != "field_init"]
types = order[order.index("type"):]
for cat, want in (("expression", expr), ("type_or_unit", types),
                  ("type_syntax", [t for t in types if t != "unit_type"])):
    got = defs[cat]["properties"]["k"]["enum"]
    if sorted(got) != sorted(want):
        bad.append("%s: kinds %s, lib/ast.c implies %s" % (cat, got, want))
for cat in ("definition", "statement", "expression", "type_syntax", "type_or_unit"):
    c = defs[cat]
    thens = [b["if"]["properties"]["k"]["const"] for b in c["allOf"]]
    if thens != c["properties"]["k"]["enum"]:
        bad.append("%s: the if/then branches %s differ from its kinds" % (cat, thens))
seen = set()
for cat in ("definition", "statement", "expression", "type_or_unit"):
    seen |= set(defs[cat]["properties"]["k"]["enum"])
seen |= {"param", "field_decl", "arm", "field_init"}   # reached through their own lists
if seen != set(order):
    bad.append("kinds no position reaches, or unknown: %s" % (seen ^ set(order)))
print("\n".join(bad) or "%d kinds agree" % len(kinds))
sys.exit(1 if bad else 0)
EOF
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "rake.checked.schema.json is rake.ast's tree plus the annotations lib/ast.c writes" {
    run "$PY" - "$RAKE_ROOT/lib/ast.c" "$AST_SCHEMA" "$CHECKED_SCHEMA" <<'EOF'
import json, re, sys
ast_c = open(sys.argv[1]).read()
a, c = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
notes = re.search(r'notes\[\]\s*=\s*\{(.*?)END\}', ast_c, re.S).group(1)
ann = set(re.findall(r'SO\("(\w+)"', notes)) | {"slot"}   # slot is written apart
bad = []
if c["properties"]["ir"] != {"const": "rake.checked"}:
    bad.append("ir is not const rake.checked")
if "target" not in c["required"] or set(c["required"]) - {"target"} != set(a["required"]):
    bad.append("header: required %s" % c["required"])
for name, d in a["$defs"].items():
    e = c["$defs"].get(name)
    if name.endswith("_node"):
        e = dict(e, properties={k: v for k, v in e["properties"].items() if k not in ann})
        if set(c["$defs"][name]["properties"]) - set(d["properties"]) != ann:
            bad.append("%s: annotations %s" % (name, set(c["$defs"][name]["properties"]) - set(d["properties"])))
    if name == "loc":
        continue
    if e != d:
        bad.append("%s differs" % name)
for k in ann:
    if k not in c["$defs"]:
        bad.append("no $defs/%s" % k)
print("\n".join(bad) or "%d annotations on every kind" % len(ann))
sys.exit(1 if bad else 0)
EOF
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "rake-parse's output for the conformance programs and spec blocks validates against rake.ast.schema.json" {
    [ -x "$BIN/rake-parse" ] || skip "bin/rake-parse is not built"
    local docs=("$BATS_FILE_TMPDIR"/gen/*.ast.json)
    [ -e "${docs[0]}" ]
    echo "# ${#docs[@]} documents" >&3
    [ "${#docs[@]}" -ge 9 ]
    run "$VALIDATE" "$AST_SCHEMA" "${docs[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "every golden tests/**/*.ast.json validates against rake.ast.schema.json" {
    local goldens=()
    mapfile -t goldens < <(find "$RAKE_ROOT/tests" -path "$RAKE_ROOT/tests/shared" -prune -o -name '*.ast.json' -type f -print | sort)
    [ "${#goldens[@]}" -gt 0 ] || skip "no golden *.ast.json under tests/ yet"
    echo "# ${#goldens[@]} goldens" >&3
    run "$VALIDATE" "$AST_SCHEMA" "${goldens[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "what IR readers write from rake-parse's documents validates against its kind's schema" {
    local prog kind args n=0 out=$BATS_TEST_TMPDIR/out docs=()
    mkdir -p "$out"
    while read -r prog kind args; do
        case $prog in '' | '#'*) continue ;; esac
        [ "$kind" = rake.ast ] && [ -x "$BIN/$prog" ] || continue
        local f
        for f in "$BATS_FILE_TMPDIR"/gen/*.ast.json "$RAKE_ROOT"/tests/parse/ok/*.ast.json; do
            [ -e "$f" ] || continue
            n=$((n + 1))
            # shellcheck disable=SC2086
            "$BIN/$prog" $args <"$f" >"$out/$prog-$n.json" 2>/dev/null || rm -f "$out/$prog-$n.json"
        done
    done <"$READERS"
    local k
    for k in rake.ast rake.checked; do
        mapfile -t docs < <(grep -l "^ \"ir\": \"$k\"" "$out"/*.json 2>/dev/null)
        [ "${#docs[@]}" -gt 0 ] || continue
        echo "# ${#docs[@]} $k documents written" >&3
        run "$VALIDATE" "$RAKE_ROOT/ir-schema/$k.schema.json" "${docs[@]}"
        echo "$output" | head -40
        [ "$status" -eq 0 ]
    done
    [ "$n" -gt 0 ] || skip "no program in tests/ir-readers.txt that reads rake.ast is built"
}

# Break a copy of a document (by default rake-parse's for stacks_particles)
# with a Python statement on `d` (`first(KIND)` is the first node of that
# kind) and expect validate-ir to reject it, naming POINTER and MESSAGE.
expect_invalid() {
    expect_invalid_in "$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json" "$@"
}

expect_invalid_in() {
    local src=$1 schema=$2 code=$3 pointer=$4 message=$5
    local bad=$BATS_TEST_TMPDIR/bad.json
    [ -f "$src" ] || skip "rake-parse did not write $src"
    "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
def nodes(n):
    if isinstance(n, dict):
        yield n
        for v in n.values(): yield from nodes(v)
    elif isinstance(n, list):
        for v in n: yield from nodes(v)
def first(kind): return next(n for n in nodes(d["decls"]) if n.get("k") == kind)
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$src" "$bad" "$code"
    run "$VALIDATE" "$schema" "$bad"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"bad.json: $pointer: "*"$message"* ]]
}

@test "the validator accepts the unbroken document the next tests break" {
    [ -f "$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json" ] || skip "rake-parse did not write it"
    run "$VALIDATE" "$AST_SCHEMA" "$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "the validator rejects an unknown key" {
    expect_invalid "$AST_SCHEMA" 'first("binary")["colour"] = "red"' "/decls/1/body/0/value" "'colour' was unexpected"
}

@test "the validator rejects a missing required field" {
    expect_invalid "$AST_SCHEMA" 'del first("param")["type"]' /decls/1/params/0 "'type' is a required property"
}

@test "the validator rejects a bad loc" {
    expect_invalid "$AST_SCHEMA" 'first("param")["loc"] = "1-5"' /decls/1/params/0/loc "'1-5' does not match"
    expect_invalid "$AST_SCHEMA" 'first("param")["loc"] = "0:0"' /decls/1/params/0/loc "does not match"
    expect_invalid "$AST_SCHEMA" 'del first("param")["loc"]' /decls/1/params/0 "'loc' is a required property"
}

@test "the validator rejects a node of the wrong kind for its place" {
    expect_invalid "$AST_SCHEMA" 'd["decls"][1]["body"][0] = first("int")' /decls/1/body/0/k "'int' is not one of"
    expect_invalid "$AST_SCHEMA" 'first("param")["type"] = {"k": "name", "loc": "1:1", "name": "x"}' /decls/1/params/0/type/k "'name' is not one of"
}

@test "the validator rejects null for a required node, a false flag and an empty optional list" {
    expect_invalid "$AST_SCHEMA" 'first("param")["type"] = None' /decls/1/params/0/type "None is not of type 'object'"
    expect_invalid "$AST_SCHEMA" 'first("param")["uniform"] = False' /decls/1/params/0/uniform "True was expected"
    expect_invalid "$AST_SCHEMA" 'first("tine")["params"] = []' /decls/2/body/1/params "[] is too short"
}

@test "the validator rejects a wrong header: kind, version, target in rake.ast, missing source" {
    expect_invalid "$AST_SCHEMA" 'd["ir"] = "rake.checked"' /ir "'rake.ast' was expected"
    expect_invalid "$AST_SCHEMA" 'd["version"] = 2' /version "1 was expected"
    expect_invalid "$AST_SCHEMA" 'd["target"] = "x86-avx2"' / "'target' was unexpected"
    expect_invalid "$AST_SCHEMA" 'del d["source"]' / "'source' is a required property"
}

@test "rake.checked.schema.json rejects a checked document without its target, or with a bad annotation" {
    local prog kind args src=$BATS_TEST_TMPDIR/checked.json
    while read -r prog kind args; do
        [ "$prog" = rake-check ] && [ "$kind" = rake.ast ] && [ -x "$BIN/$prog" ] || continue
        # shellcheck disable=SC2086
        "$BIN/$prog" $args <"$BATS_FILE_TMPDIR/gen/stacks_particles.ast.json" >"$src"
    done <"$READERS"
    [ -s "$src" ] || skip "bin/rake-check is not built (or not listed in tests/ir-readers.txt)"
    run "$VALIDATE" "$CHECKED_SCHEMA" "$src"
    echo "$output"
    [ "$status" -eq 0 ]
    expect_invalid_in "$src" "$CHECKED_SCHEMA" 'del d["target"]' / "'target' is a required property"
    expect_invalid_in "$src" "$CHECKED_SCHEMA" 'd["target"] = "native"' /target "'native' is not one of"
    expect_invalid_in "$src" "$CHECKED_SCHEMA" 'first("param")["slot"] = -1' /decls/1/params/0/slot "less than the minimum"
    expect_invalid_in "$src" "$CHECKED_SCHEMA" 'first("param")["colour"] = 1' /decls/1/params/0 "'colour' was unexpected"
}
