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
    for rk in tests/nir/golden/*.rk examples/kernels.rk bench/kernels/compact.rk; do
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
d["functions"][0]["blocks"][0]["code"][0]["args"].insert(1, "v1 v2")
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
        ! grep -q '"v":' "$W/mir/$k.ra.json" || bad="$bad $k.ra-vreg"
    done <"$W/list"
    [ -z "$bad" ] || { echo "wrong:$bad"; false; }
}

# Constants rake-opt materialises have no place in the source (0:0 in
# rake.nir), so the instruction loading one (from the pool, or as an
# immediate: a run's 64-bit counters) has no location; every other
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
    for b in f["blocks"]:
        assert loc.fullmatch(b["term"]["loc"]), (f["name"], b["label"])
        for ins in b["code"]:
            if loc.fullmatch(ins.get("loc", "")):
                continue
            assert any("const" in o or "imm" in o for o in ins["args"]), (f["name"], ins)
            assert ins["origin"] in ("const", "rack.splat", "mask.const"), (f["name"], ins)
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
    break_doc vreg 'f["blocks"][0]["code"][1]["args"][0]["v"] = 999' isel
    refused rake-ra vreg "the function has virtual registers v0 to v"
}

@test "mir: an argument's vreg beyond vregs is refused" {
    break_doc argvreg 'f["args"][0]["vreg"] = 77' isel
    refused rake-ra argvreg "the function has virtual registers"
}

@test "mir: a negative stack slot, or a stack argument in a vector register, is refused" {
    # the kernels' first argument is a rack in ymm0; as a stack argument
    # it would have to be loaded into a general register
    break_doc negslot 'f["args"][0]["stack"] = -1' isel
    refused rake-ra negslot "a stack slot is 0 or more"
    break_doc vecslot 'f["args"][0]["stack"] = 0' isel
    refused rake-ra vecslot "a stack argument is loaded into a general register"
}

@test "mir: a negative or huge vregs count is refused" {
    break_doc neg 'f["vregs"] = -1' isel
    refused rake-ra neg "virtual registers"
    break_doc huge 'f["vregs"] = 10**9' isel
    refused rake-ra huge "virtual registers"
}

@test "mir: a register limit of another class, of no register, of an unknown name or beyond vregs is refused" {
    break_doc lcls 'f["allow"] = [{"v": f["args"][0]["vreg"], "regs": ["rax"]}]' isel
    refused rake-ra lcls "rax is not a vec register, the class of v"
    break_doc lnone 'f["allow"] = [{"v": f["args"][0]["vreg"], "regs": []}]' isel
    refused rake-ra lnone "needs at least one register"
    break_doc lname 'f["allow"] = [{"v": f["args"][0]["vreg"], "regs": ["ymm99"]}]' isel
    refused rake-ra lname "expected a register name of x86-avx2"
    break_doc lvreg 'f["allow"] = [{"v": 999, "regs": ["ymm1"]}]' isel
    refused rake-ra lvreg "the function has virtual registers v0 to v"
    break_doc lkey 'f["allow"] = [{"v": 0, "regs": ["ymm1"], "why": 1}]' isel
    refused rake-ra lkey "why"
}

@test "mir: rake-ra puts a limited virtual register in an allowed register, and drops the limits" {
    # the first instruction's result of every AVX2 kernel, limited to ymm9
    /usr/bin/python3 - "$W/mir/kernels.x86-avx2.isel.json" "$W/lim.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["functions"]:
    op = f["blocks"][0]["code"][0]["args"][0]
    f["allow"] = [{"v": op["v"], "regs": ["ymm9"]}]
json.dump(d, open(sys.argv[2], "w"))
EOF2
    "$BIN/rake-ra" <"$W/lim.json" >"$W/lim.ra.json"
    jq -e '[.functions[] | .blocks[0].code[] | select(.args[0].reg == "ymm9")] | length >= 1' "$W/lim.ra.json"
    jq -e '[.functions[] | has("allow")] | any | not' "$W/lim.ra.json"
    "$BIN/rake-emit" <"$W/lim.ra.json" >/dev/null
}

@test "mir: a constant index beyond the constants is refused" {
    break_doc cidx 'd["functions"][1]["blocks"][0]["code"][0]["args"][1] = {"const": 42}' ra
    refused rake-emit cidx "constants"
}

@test "mir: text that would reach the assembly unescaped is refused" {
    break_doc opcode 'f["blocks"][0]["code"][0]["op"] = "ret\n.byte 0x90"' ra
    refused rake-emit opcode "bad opcode"
    break_doc opcode2 'f["blocks"][0]["code"][0]["op"] = "vaddss"' ra
    refused rake-emit opcode2 "\"vaddss\" is not an instruction of x86-avx2"
    break_doc phys 'f["blocks"][0]["code"][0]["args"][0]["reg"] = "ymm3, %rsp"' ra
    refused rake-emit phys "is not a register of x86-avx2"
    break_doc name 'f["name"] = "advance: call abort"' ra
    refused rake-emit name "not a symbol name"
    break_doc argreg 'f["args"][0]["reg"] = "ymm0 "' ra
    refused rake-emit argreg "is not a register of x86-avx2"
    break_doc label 'f["blocks"][0]["label"] = "entry:\n\tcall abort"' ra
    refused rake-emit label "bad label"
}

@test "mir: a bad operand, mask or location is refused" {
    break_doc operand 'f["blocks"][0]["code"][0]["args"][0] = {"q": 3}' isel
    refused rake-ra operand "unknown key \"q\""
    break_doc noclass 'del f["blocks"][0]["code"][0]["args"][0]["class"]' isel
    refused rake-ra noclass "class"
    break_doc cls 'f["blocks"][0]["code"][0]["args"][0]["class"] = "gpr"' isel
    refused rake-ra cls "register elsewhere"
    break_doc mask 'f["blocks"][0]["code"][0]["args"][0]["mask"] = {"v": 1, "class": "mask"}' isel
    refused rake-ra mask "has no register class \"mask\""
    break_doc key 'f["blocks"][0]["code"][0]["args"][0]["extra"] = 1' isel
    refused rake-ra key "unknown key \"extra\""
    break_doc loc 'f["blocks"][0]["code"][0]["loc"] = "0:1"' isel
    refused rake-ra loc "LINE:COL"
    break_doc floc 'f["loc"] = "12"' isel
    refused rake-ra floc "LINE:COL"
    break_doc access 'f["blocks"][0]["code"][0]["args"][0]["access"] = "x"' isel
    refused rake-ra access "access is"
    # rake-ra's mark on what it added is true or false, nothing else
    break_doc again 'f["blocks"][0]["code"][0]["again"] = 1' isel
    refused rake-ra again "expected true or false"
}

@test "mir: an instruction outside the target's table or profile, or with operands of no form, is refused" {
    break_doc sse 'f["blocks"][0]["code"][0]["op"] = "addps"' isel
    refused rake-ra sse "addps (SSE) is not available on x86-avx2"
    break_doc evex 'f["blocks"][0]["code"][0]["op"] = "vpord"' isel
    refused rake-ra evex "vpord (AVX-512F) is not available on x86-avx2"
    break_doc ret 'f["blocks"][0]["code"][0]["op"] = "ret"' isel
    refused rake-ra ret "ret is control flow or stack traffic"
    break_doc form 'f["blocks"][0]["code"][0]["args"][0]["access"] = "r"' isel
    refused rake-ra form "don't fit its forms"
}

@test "mir: a register of another target, a reserved register or a wrong view is refused" {
    break_doc arm 'f["args"][0]["reg"] = "v0"' ra
    refused rake-emit arm "\"v0\" is not a register of x86-avx2"
    break_doc zmm 'f["blocks"][0]["code"][0]["args"][0]["reg"] = "zmm3"' ra
    refused rake-emit zmm "\"zmm3\" is not a register of x86-avx2"
    break_doc k1 'f["args"][0]["reg"] = "k1"' ra
    refused rake-emit k1 "\"k1\" is not a register of x86-avx2"
    break_doc rsp 'f["blocks"][0]["code"][0]["args"][0] = {"reg": "rsp", "class": "gpr", "access": "w"}' ra
    refused rake-emit rsp "rsp is reserved on x86-avx2"
    break_doc view 'f["blocks"][0]["code"][1]["args"][0]["bits"] = 512' isel
    refused rake-ra view "has no 512-bit view on x86-avx2"
}

@test "mir: bad terminators and labels are refused" {
    break_doc kind 'f["blocks"][0]["term"] = {"kind": "call"}' ra
    refused rake-emit kind "a terminator is ret, jump, branch or trap"
    break_doc nolabel 'f["blocks"][0]["term"] = {"kind": "jump", "to": "nowhere"}' ra
    refused rake-emit nolabel "no block is labelled \"nowhere\""
    break_doc entry 'f["blocks"][0]["term"] = {"kind": "jump", "to": "entry"}' ra
    refused rake-emit entry "nothing jumps to the entry block"
    break_doc cond 'f["blocks"].append({"label": "b1", "code": [], "term": {"kind": "ret"}}); f["blocks"][0]["term"] = {"kind": "branch", "cond": "eq", "then": "b1", "else": "b1"}' ra
    refused rake-emit cond "\"eq\" is not a condition of x86-avx2"
    break_doc dup 'f["blocks"].append({"label": "entry", "code": [], "term": {"kind": "ret"}})' ra
    refused rake-emit dup "two blocks are labelled \"entry\""
}

@test "mir: a version 1 document is refused" {
    sed 's/"version": 2/"version": 1/' "$W/mir/kernels.x86-avx2.isel.json" >"$W/v1.json"
    refused rake-ra v1 "version"
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
