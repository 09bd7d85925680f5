#!/usr/bin/env bats
# tests/45-mir.bats: the rake.mir contract (lib/mir.c, ir-schema/rake.mir.schema.json)
# between rake-isel-x86, rake-ra, rake-emit and rake-verify --object.
#
# The kernels are every program of tests/nir/golden that compiles natively
# (scratches and rakes) and examples/kernels.rk, on x86-sse2, x86-avx2 and
# x86-avx512.  Hand-broken documents are made from a real one with
# Debian's python3, one defect each, and must be refused with exit 2 and a
# located first line.  The backend's behaviour (objects, verification,
# execution) is tested in tests/50-x86.bats.
load lib/common

PROFILES="x86-sse2 x86-avx2 x86-avx512"
SCHEMA=ir-schema/rake.mir.schema.json

setup_file() {
    cd "$RAKE_ROOT"
    local w=$BATS_FILE_TMPDIR rk name p
    mkdir -p "$w/mir"
    : >"$w/list"
    for rk in tests/nir/golden/*.rk examples/kernels.rk; do
        name=$(basename "$rk" .rk)
        for p in $PROFILES; do
            if "$BIN/rakec" --stop-after isel --target "$p" -o "$w/mir/$name.$p.isel.json" "$rk" 2>/dev/null; then
                "$BIN/rake-ra" <"$w/mir/$name.$p.isel.json" >"$w/mir/$name.$p.ra.json"
                echo "$name.$p" >>"$w/list"
            fi
        done
    done
}

setup() {
    cd "$RAKE_ROOT"
    W=$BATS_FILE_TMPDIR
}

@test "mir: there are kernels to test on every profile" {
    for p in $PROFILES; do
        n=$(grep -c "\.$p\$" "$W/list")
        [ "$n" -ge 10 ] || { echo "only $n kernel files compile on $p"; false; }
    done
}

@test "mir: every isel and ra output fits rake.mir.schema.json" {
    run tools/validate-ir "$SCHEMA" "$W"/mir/*.json
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "mir: the schema rejects a document it should" {
    f=$(ls "$W"/mir/*.ra.json | head -n 1)
    /usr/bin/python3 - "$f" "$W/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["functions"][0]["code"][0].insert(1, "v1 v2")
json.dump(d, open(sys.argv[2], "w"))
EOF
    run tools/validate-ir "$SCHEMA" "$W/bad.json"
    [ "$status" -eq 1 ]
}

@test "mir: rake-isel-x86 leaves virtual registers, rake-ra none" {
    bad=
    while read -r k; do
        grep -q '"allocated": false' "$W/mir/$k.isel.json" || bad="$bad $k.isel"
        grep -q '"allocated": true' "$W/mir/$k.ra.json" || bad="$bad $k.ra"
        ! grep -q '"[=+]\?v[0-9]' "$W/mir/$k.ra.json" || bad="$bad $k.ra-vreg"
    done <"$W/list"
    [ -z "$bad" ] || { echo "wrong:$bad"; false; }
}

# Constants rake-opt materialises have no place in the source (0:0 in
# rake.nir), so the instruction loading one has no location; every other
# instruction has one: its native-IR operation's, or for the entry and
# result sequences the kernel's.
@test "mir: every instruction from the source carries its source location" {
    bad=
    while read -r k; do
        /usr/bin/python3 - "$W/mir/$k.ra.json" <<'EOF' || bad="$bad $k"
import json, re, sys
d = json.load(open(sys.argv[1]))
loc = re.compile(r"[1-9]\d*:[1-9]\d*")
for f in d["functions"]:
    assert loc.fullmatch(f["loc"]), f["name"]
    for ins in f["code"]:
        if loc.fullmatch(ins[-1]):
            continue
        assert any(re.fullmatch(r"C\d+", o) for o in ins[1:]), (f["name"], ins)
        assert ins[-2] in ("@const", "@rack.splat", "@mask.const") or ins[-1] in ("@const", "@rack.splat", "@mask.const"), (f["name"], ins)
EOF
    done <"$W/list"
    [ -z "$bad" ] || { echo "missing locations:$bad"; false; }
}

@test "mir: isel and ra are deterministic" {
    for p in $PROFILES; do
        "$BIN/rakec" --stop-after isel --target "$p" -o "$W/again.json" examples/kernels.rk
        cmp "$W/again.json" "$W/mir/kernels.$p.isel.json"
        "$BIN/rake-ra" <"$W/again.json" >"$W/again.ra.json"
        cmp "$W/again.ra.json" "$W/mir/kernels.$p.ra.json"
    done
}

@test "mir: rake-emit and rake-verify refuse an unallocated document" {
    f=$W/mir/kernels.x86-avx2.isel.json
    run "$BIN/rake-emit" <"$f"
    [ "$status" -eq 2 ]
    [[ "$output" == "rake-emit: <stdin>:"*"run rake-ra first"* ]]
}

@test "mir: rake-ra --text lists each kernel with its registers" {
    run "$BIN/rake-ra" --text <"$W/mir/kernels.x86-avx2.isel.json"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "scratch advance(rack<f32> positions in %ymm0, rack<f32> velocities in %ymm1, f32 dt in %xmm2) -> rack<f32> in %ymm0:" ]]
    [[ "$output" == *"vfmadd231ps"* ]]
}

# ---- broken documents ------------------------------------------------------------
# break NAME PYTHON: apply PYTHON (on d, the decoded document) to the AVX2
# kernels document and write $W/NAME.json.
break_doc() {
    /usr/bin/python3 - "$W/mir/kernels.x86-avx2.$3.json" "$W/$1.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["functions"][0]
exec(sys.argv[3])
out = open(sys.argv[2], "w")
json.dump(d, out, indent=1)
EOF
}

# refused PROGRAM NAME WORDS: PROGRAM exits 2 on $W/NAME.json with a
# located first line containing WORDS.
refused() {
    run "$BIN/$1" <"$W/$2.json"
    [ "$status" -eq 2 ] || { echo "$1 on $2: status $status: $output"; return 1; }
    [[ "${lines[0]}" =~ ^$1:\ \<stdin\>:[0-9]+:[0-9]+:\  ]] || { echo "unlocated: ${lines[0]}"; return 1; }
    [[ "${lines[0]}" == *"$3"* ]] || { echo "wrong message: ${lines[0]}"; return 1; }
}

@test "mir: a virtual register beyond the function's vregs is refused" {
    break_doc vreg 'f["code"][1][1] = "=v999"' isel
    refused rake-ra vreg "the function has virtual registers v0 to v"
}

@test "mir: an argument's vreg beyond vregs is refused" {
    break_doc argvreg 'f["args"][0]["vreg"] = 77' isel
    refused rake-ra argvreg "the function has virtual registers"
}

@test "mir: a negative or huge vregs count is refused" {
    break_doc neg 'f["vregs"] = -1' isel
    refused rake-ra neg "virtual registers"
    break_doc huge 'f["vregs"] = 10**9' isel
    refused rake-ra huge "virtual registers"
}

@test "mir: a constant index beyond the constants is refused" {
    break_doc cidx 'd["functions"][1]["code"][0][2] = "C42"' ra
    refused rake-emit cidx "constants"
}

@test "mir: text that would reach the assembly unescaped is refused" {
    break_doc opcode 'f["code"][0][0] = "ret\n.byte 0x90"' ra
    refused rake-emit opcode "bad opcode"
    break_doc phys 'f["code"][0][1] = "=%ymm3, %rsp"' ra
    refused rake-emit phys "register name"
    break_doc name 'f["name"] = "advance: call abort"' ra
    refused rake-emit name "not a symbol name"
    break_doc argreg 'f["args"][0]["reg"] = "ymm0 "' ra
    refused rake-emit argreg "register name"
}

@test "mir: a bad operand, mask or location is refused" {
    break_doc operand 'f["code"][0][1] = "=q3"' isel
    refused rake-ra operand "bad operand"
    break_doc mask 'f["code"][0][1] = "=v3{%k2}"' isel
    refused rake-ra mask "bad operand"
    break_doc loc 'f["code"][0].append("0:1")' isel
    refused rake-ra loc "bad location"
    break_doc floc 'f["loc"] = "12"' isel
    refused rake-ra floc "LINE:COL"
}

@test "mir: running out of registers is a located user error, not a spill" {
    {
        echo 'scratch big(<a: f32>) -> f32s:'
        echo '  let v0: f32s = <a>'
        echo '  let v1 = v0 * v0'
        for i in $(seq 2 16); do echo "  let v$i = v$((i - 1)) * v$((i - 2))"; done
        printf '  v0'
        for i in $(seq 1 16); do printf ' + v%d' "$i"; done
        echo
    } >"$W/big.rk"
    run "$BIN/rakec" -c --target x86-sse2 -o "$W/big.o" "$W/big.rk"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "$W/big.rk:17:17: error: scratch big needs more than the 15 vector registers of x86-sse2 (xmm15 is reserved) at once: 15 values are live here; Rake never spills to the stack" ]]
    [ "${lines[1]}" = "  let v15 = v14 * v13" ]
    [ "${lines[2]}" = "                ^" ]
    [ ! -e "$W/big.o" ]
    # AVX-512 has 32 registers: the same kernel compiles and verifies there
    run "$BIN/rakec" --verify-native --target x86-avx512 -o "$W/big.o" "$W/big.rk"
    [ "$status" -eq 0 ]
}
