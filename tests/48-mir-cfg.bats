#!/usr/bin/env bats
# tests/48-mir-cfg.bats: rake.mir version 2 with control flow, written by
# hand: blocks, block parameters, values carried around a back edge, a
# general-purpose counter, memory operands read and written, a branch on a
# register, a parallel move with a cycle, callee-saved registers.  Each
# document is allocated (rake-ra), emitted (rake-emit), assembled,
# verified (rake-verify) and, where the CPU can, called from C.  Also:
# running out of registers of each class is a located error, and
# registers of another target are refused (exit 2).
load lib/common

M=tests/mir

setup() {
    cd "$RAKE_ROOT"
    W=$BATS_TEST_TMPDIR
}

# build DOC: allocate, emit, assemble and verify; leaves $W/out.{json,s,o}
build() {
    "$BIN/rake-ra" <"$1" >"$W/out.json"
    "$BIN/rake-emit" <"$W/out.json" >"$W/out.s"
    as --64 "$W/out.s" -o "$W/out.o"
    "$BIN/rake-verify" --object "$W/out.o" <"$W/out.json"
}

@test "mir cfg: the hand-written loops fit the schema before and after allocation" {
    "$BIN/rake-ra" <"$M/loops.mir.json" >"$W/ra.json"
    "$BIN/rake-ra" <"$M/loops512.mir.json" >"$W/ra512.json"
    run tools/validate-ir ir-schema/rake.mir.schema.json "$M"/*.mir*.json "$W/ra.json" "$W/ra512.json"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "mir cfg: loops are allocated, emitted, assembled and verified" {
    build "$M/loops.mir.json"
    # the loop-carried accumulator and counter need no move on the back edge
    run "$BIN/rake-ra" --text <"$M/loops.mir.json"
    echo "$output"
    [[ "$output" == *"  B2 loop:
    vaddps         =%ymm0, %ymm0, 256[%rdi+%rax*1]    ; hand
    addq           +%rax, \$32    ; hand
    cmpq           %rax, %rcx    ; hand
    branch l, B3 (back), B4 (done)
  B3 back:
    jump B2 (loop)"* ]]
    # the emitted loop branches straight back; forwarding blocks vanish
    grep -qx $'\tjl\t.Lrk_vsum_loop' "$W/out.s"
    ! grep -q 'Lrk_vsum_back' "$W/out.s"
    grep -qx $'\tvmovups\t%ymm1, (%rdi)' "$W/out.s"
    grep -qx $'\tleaq\t32(%rdi), %rdi' "$W/out.s"
    # a branch on a register is a test and a conditional branch
    grep -A1 -x $'\ttestq\t%rsi, %rsi' "$W/out.s" | grep -qx $'\tje\t.Lrk_scale_out'
}

@test "mir cfg: a swap around a back edge goes through a free register" {
    run "$BIN/rake-ra" --text <"$M/loops.mir.json"
    [[ "$output" == *"    vmovaps        =%ymm2, %ymm1    ; move
    vmovaps        =%ymm1, %ymm0    ; move
    vmovaps        =%ymm0, %ymm2    ; move
    jump B1 (loop)"* ]]
}

@test "mir cfg: the loops compute what plain C computes" {
    grep -qw avx2 /proc/cpuinfo || skip "this CPU has no AVX2: the loops are built and verified, not run"
    build "$M/loops.mir.json"
    cc -std=c11 -O1 -mavx2 "$M/loops-main.c" "$W/out.o" -o "$W/loops"
    run "$W/loops"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "loops: 0 failures" ]
}

@test "mir cfg: the allocated loops and their listing are the goldens (tools/update-golden tests/mir)" {
    "$BIN/rake-ra" <"$M/loops.mir.json" >"$W/ra.json"
    diff -u "$M/loops.mir.ra.json" "$W/ra.json"
    "$BIN/rake-ra" --text <"$M/loops.mir.json" >"$W/ra.txt"
    diff -u "$M/loops.mir.ra.txt" "$W/ra.txt"
}

@test "mir cfg: allocation is deterministic" {
    "$BIN/rake-ra" <"$M/loops.mir.json" >"$W/a.json"
    "$BIN/rake-ra" <"$M/loops.mir.json" >"$W/b.json"
    cmp "$W/a.json" "$W/b.json"
    # and idempotent: an allocated document goes through unchanged
    "$BIN/rake-ra" <"$W/a.json" >"$W/c.json"
    cmp "$W/a.json" "$W/c.json"
}

# tamper DOC SED RULE: DOC's assembly edited by SED is rejected naming RULE
tamper() {
    build "$1"
    shift
    sed -e "$1" "$W/out.s" >"$W/bad.s"
    ! cmp -s "$W/out.s" "$W/bad.s"
    as --64 "$W/bad.s" -o "$W/bad.o"
    run "$BIN/rake-verify" --object "$W/bad.o" <"$W/out.json"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *": $2: "* ]]
}

@test "mir cfg: the verifier rejects a branch to another block, a changed address and an added call" {
    tamper "$M/loops.mir.json" 's/^\tjl\t.Lrk_vsum_loop$/\tjl\t.Lrk_vsum_done/' selection
    tamper "$M/loops.mir.json" 's/^\tvaddps\t(%rdi,%rax,1)/\tvaddps\t8(%rdi,%rax,1)/' selection
    tamper "$M/loops.mir.json" 's/^\tvmovups\t%ymm1, (%rdi)$/\tvmovups\t%ymm1, (%rsi)/' selection
    tamper "$M/loops.mir.json" 's/^\tsubq\t$1, %rsi$/\tcall\tabort\n&/' control-flow
    tamper "$M/loops.mir.json" 's/^\tvaddps\t(%rdi,%rax,1), %ymm0, %ymm0$/\tvmovups\t%ymm0, -32(%rsp)\n&/' stack
}

@test "mir cfg: the AVX-512 loops, with EVEX-compressed displacements, verify; a changed displacement doesn't" {
    # loops512.mir.json: loops.mir.json in zmm registers, its sum reading
    # 128 bytes on and its scale writing 192 bytes back (disp8 * 64)
    tamper "$M/loops512.mir.json" 's/^\tvmovups\t%zmm1, -192(%rdi)$/\tvmovups\t%zmm1, -128(%rdi)/' selection
    grep -qx $'\tvaddps\t128(%rdi,%rax,1), %zmm0, %zmm0' "$W/out.s"
    grep -qx $'\tvmovups\t%zmm1, -192(%rdi)' "$W/out.s"
    [[ $output == *"selection: the selection has vmovups zmm1, (rdi,,1,-192) here"* ]]
}

@test "mir cfg: the verifier rejects a branch offset changed by one byte" {
    build "$M/loops.mir.json"
    # the rel8 of `jl .Lrk_vsum_loop` (0x7c XX) is the byte after its opcode
    local off
    off=$(objdump -d "$W/out.o" | awk '/\tjl / { sub(":", "", $1); print $1; exit }')
    [ -n "$off" ]
    local sec
    sec=$(readelf -S -W "$W/out.o" | awk '$2 == ".text" { print $5 }')
    cp "$W/out.o" "$W/bad.o"
    local at=$((0x$sec + 0x$off + 1))
    local byte
    byte=$(od -An -tu1 -j "$at" -N1 "$W/out.o" | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$W/bad.o" bs=1 seek="$at" conv=notrunc 2>/dev/null
    ! cmp -s "$W/out.o" "$W/bad.o"
    run "$BIN/rake-verify" --object "$W/bad.o" <"$W/out.json"
    echo "$output"
    [ "$status" -eq 1 ]
}

# pressure CLASS N: a function with N values of CLASS live at once, each
# defined by its own instruction at line 10 + i (vector values other than
# the first are sums, not constant loads rake-ra could repeat)
pressure() {
    /usr/bin/python3 - "$1" "$2" >"$W/p.json" <<'EOF'
import json, sys
sys.path.insert(0, "tests/mir")
import mirdoc
cls, n = sys.argv[1], int(sys.argv[2])
code, vs = [], []
for i in range(n):
    if cls == "vec" and i == 0:
        code.append({"op": "vmovups", "args": [{"v": 0, "class": "vec", "access": "w"}, {"const": 0}], "origin": "hand", "loc": "10:3"})
    elif cls == "vec": # not a constant load, so never reloaded
        code.append({"op": "vaddps", "args": [{"v": i, "class": "vec", "access": "w"}, {"v": i - 1, "class": "vec"}, {"v": 0, "class": "vec"}], "origin": "hand", "loc": "%d:3" % (10 + i)})
    else:
        code.append({"op": "movq", "args": [{"v": i, "class": "gpr", "access": "w"}, {"imm": i}], "origin": "hand", "loc": "%d:3" % (10 + i)})
for i in range(1, n):
    op = "vaddps" if cls == "vec" else "addq"
    if cls == "vec":
        code.append({"op": op, "args": [{"v": n + i, "class": "vec", "access": "w"}, {"v": i - 1 if i == 1 else n + i - 1, "class": "vec"}, {"v": i, "class": "vec"}], "origin": "hand", "loc": "%d:3" % (10 + n + i)})
    else:
        code.append({"op": "movq", "args": [{"v": n + i, "class": "gpr", "access": "w"}, {"v": i - 1 if i == 1 else n + i - 1, "class": "gpr"}], "origin": "hand"})
        code.append({"op": op, "args": [{"v": n + i, "class": "gpr", "access": "rw"}, {"v": i, "class": "gpr"}], "origin": "hand", "loc": "%d:3" % (10 + n + i)})
last = 2 * n - 1
res = {"op": "vmovaps", "args": [{"reg": "ymm0", "class": "vec", "access": "w"}, {"v": last, "class": "vec"}], "origin": "result"} if cls == "vec" else \
      {"op": "movq", "args": [{"reg": "rax", "class": "gpr", "access": "w"}, {"v": last, "class": "gpr"}], "origin": "result"}
code.append(res)
result = ("rack<f32>", "ymm0") if cls == "vec" else ("i64", "rax")
f = mirdoc.function("p", "scratch", [], result, [("entry", code, mirdoc.RET)], 2 * n, [mirdoc.ONES])
print(mirdoc.document("x86-avx2", "p.rk", f))
EOF
}

@test "mir cfg: sixteen live vector values fit x86-avx2, seventeen are a located error" {
    pressure vec 16
    build "$W/p.json"
    pressure vec 17
    run "$BIN/rake-ra" <"$W/p.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "p.rk:26:3: error: scratch p needs more than the 16 vector registers of x86-avx2 at once: 16 values are live here; Rake never spills to the stack" ]
    # notes say where the values holding the registers were computed, in
    # source order, the first six, then how many places more
    [ "${lines[1]}" = "p.rk:10:3: note: 1 of them is computed here" ]
    [ "${lines[6]}" = "p.rk:15:3: note: 1 of them is computed here" ]
    [ "${lines[7]}" = "p.rk: note: and values computed at 10 more places" ]
    [ "${#lines[@]}" -eq 8 ]
    # the first value an argument instead (in ymm0): counted apart
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["functions"][0]
del f["blocks"][0]["code"][0]
f["args"] = [{"name": "x", "type": "rack<f32>", "reg": "ymm0", "vreg": 0}]
print(json.dumps(d))' "$W/p.json" >"$W/pa.json"
    run "$BIN/rake-ra" <"$W/pa.json"
    [ "$status" -eq 1 ]
    [ "${lines[-1]}" = "p.rk: note: 1 of them is an argument or a value carried into a block" ]
}

# reloads STORE: seventeen vector values live at once on x86-avx2, one of
# them (v1) a rack loaded from memory at line 11 and read again only at the
# end; with STORE=1, a store at line 12 writes memory while v1 is live
reloads() {
    /usr/bin/python3 - "$1" >"$W/r.json" <<'EOF2'
import json, sys
sys.path.insert(0, "tests/mir")
import mirdoc
store = sys.argv[1] == "1"
v = mirdoc.vec
ptr = {"base": {"v": 100, "class": "gpr"}}
code = [{"op": "vmovups", "args": [v(0, True), {"const": 0}], "origin": "hand", "loc": "10:3"},
        {"op": "vmovups", "args": [v(1, True), {"mem": ptr, "bits": 256}], "origin": "hand", "loc": "11:3"}]
if store:
    code.append({"op": "vmovups", "args": [{"mem": {"base": {"v": 100, "class": "gpr"}, "disp": 64}, "bits": 256, "access": "w"}, v(0)], "origin": "hand", "loc": "12:3"})
for i in range(2, 17):
    code.append({"op": "vaddps", "args": [v(i, True), v(i - 1), v(0)], "origin": "hand", "loc": "%d:3" % (11 + i)})
acc = 16
for i in range(15, 0, -1):  # v15 down to v1: v1 is read last
    code.append({"op": "vaddps", "args": [v(17 + 15 - i, True), v(acc), v(i)], "origin": "hand", "loc": "%d:3" % (40 - i)})
    acc = 17 + 15 - i
code.append({"op": "vaddps", "args": [v(40, True), v(acc), v(0)], "origin": "hand", "loc": "41:3"})
acc = 40
code.append({"op": "vmovaps", "args": [{"reg": "ymm0", "class": "vec", "access": "w"}, v(acc)], "origin": "result"})
f = mirdoc.function("r", "kernel", [("p", "ptr", "rdi", 100)], ("rack<f32>", "ymm0"),
                    [("entry", code, mirdoc.RET)], 101, [mirdoc.ONES])
print(mirdoc.document("x86-avx2", "r.rk", f))
EOF2
}

@test "mir cfg: a rack loaded from memory is loaded again where registers run out, never across a store" {
    reloads 0
    build "$W/r.json"
    # the load (line 11) is repeated before the last reader: v1's register
    # is free while the sixteen others are live
    [ "$(grep -c 'vmovups	(%rdi), %ymm' "$W/out.s")" -eq 2 ]
    /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(i["origin"] for i in d["functions"][0]["blocks"][0]["code"]))' "$W/out.json" >"$W/origins"
    grep -q remat "$W/origins"
    reloads 1
    run "$BIN/rake-ra" --no-recompute <"$W/r.json"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "r.rk:"*": error: kernel r needs more than the 16 vector registers of x86-avx2 at once: 16 values are live here; Rake never spills to the stack" ]]
    # computing a sum again (recompute.c) frees a register instead; the
    # load still happens once
    build "$W/r.json"
    [ "$(grep -c 'vmovups	(%rdi), %ymm' "$W/out.s")" -eq 1 ]
}

# recompute REWRITE: seventeen vector values live at once on x86-avx2:
# the argument x, v1 = x + x (line 11, read again last), v2 = v1 * x
# (line 12, read again near the end), and a chain c1..c14 (c_i = c_(i-1) +
# x, read in order, so each c_(i-1) is dead where c_i is read).  v1's and
# v2's sources are live where they are next read, so either can be
# computed again there, with one instruction (no constant or load can
# go; a c_i only with its dead predecessors).  With REWRITE=1, v1 is
# rewritten in place before those reads: neither can.
recompute() {
    /usr/bin/python3 - "$1" >"$W/c.json" <<'EOF3'
import sys
sys.path.insert(0, "tests/mir")
import mirdoc
rewrite = sys.argv[1] == "1"
v = mirdoc.vec
def op(name, d, a, b, line):
    return {"op": name, "args": [v(d, True), v(a), v(b)], "origin": "hand", "loc": "%d:3" % line}
code = [op("vaddps", 1, 0, 0, 11), op("vmulps", 2, 1, 0, 12), op("vaddps", 3, 0, 1, 13)]
for i in range(2, 15):  # c_i in v(i + 2)
    code.append(op("vaddps", i + 2, i + 1, 0, 12 + i))
acc = 3
for i in range(2, 15):
    code.append(op("vaddps", 20 + i, acc, i + 2, 30 + i))
    acc = 20 + i
if rewrite:
    code.append(op("vaddps", 1, 1, 0, 49))
code += [op("vaddps", 40, acc, 2, 50), op("vaddps", 41, 40, 1, 51), op("vaddps", 42, 41, 0, 52),
         {"op": "vmovaps", "args": [{"reg": "ymm0", "class": "vec", "access": "w"}, v(42)], "origin": "result"}]
f = mirdoc.function("c", "scratch", [("x", "rack<f32>", "ymm0", 0)], ("rack<f32>", "ymm0"),
                    [("entry", code, mirdoc.RET)], 43)
print(mirdoc.document("x86-avx2", "c.rk", f))
EOF3
}

@test "mir cfg: a value computed from values still live is computed again where registers run out, never from a source rewritten since" {
    recompute 0
    run "$BIN/rake-ra" --no-recompute <"$W/c.json"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "c.rk:26:3: error: scratch c needs more than the 16 vector registers of x86-avx2 at once: 16 values are live here; Rake never spills to the stack" ]]
    build "$W/c.json"
    # v1 = x + x, read again last, is made twice: at line 11 and again
    # before line 51
    run grep -c $'^\tvaddps\t%ymm0, %ymm0, %ymm' "$W/out.s"
    [ "$output" -eq 2 ]
    # and the function computes what it did: x = 1 gives
    # 3 + 4 + ... + 16 (the chain) + 2 (v2) + 2 (v1) + 1 (x) = 138 per lane
    printf '%s\n' '#include <immintrin.h>' '#include <stdio.h>' '__m256 c(__m256);' \
        'int main(void) { float o[8]; _mm256_storeu_ps(o, c(_mm256_set1_ps(1.0f)));' \
        'for (int l = 0; l < 8; l++) if (o[l] != 138.0f) { printf("lane %d: %g\\n", l, o[l]); return 1; }' \
        'return 0; }' >"$W/c-main.c"
    cc -std=c11 -O1 -mavx2 "$W/c-main.c" "$W/out.o" -o "$W/c"
    if grep -qw avx2 /proc/cpuinfo; then "$W/c"; fi
    # v1 rewritten before those reads: v2 can't be made again from it, nor
    # v1 (two computations); what fits is a chain value c_k computed again
    # from c_(k-1) and so on (recompute.c follows dead sources up to sixteen
    # instructions) before v1 changes, and the function still computes
    # 133 (the chain) + 2 (v2, from the first v1) + 3 (v1 rewritten) + 1
    recompute 1
    run "$BIN/rake-ra" --no-recompute <"$W/c.json"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "c.rk:26:3: error: scratch c needs more than the 16 vector registers"* ]]
    build "$W/c.json"
    [ "$(grep -c $'^\tvmulps' "$W/out.s")" -eq 1 ]
    sed 's/138.0f/139.0f/' "$W/c-main.c" >"$W/c1-main.c"
    cc -std=c11 -O1 -mavx2 "$W/c1-main.c" "$W/out.o" -o "$W/c1"
    if grep -qw avx2 /proc/cpuinfo; then "$W/c1"; fi
}

@test "mir cfg: general registers run into the callee-saved ones, which are saved and restored" {
    pressure gpr 14
    build "$W/p.json"
    grep -q '"saved": \[' "$W/out.json"
    run /usr/bin/python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["functions"][0]["saved"]))' "$W/out.json"
    [ "$output" = "rbx r12 r13 r14 r15" ]
    # pushes first, pops in reverse before the return
    [ "$(grep -c $'^\tpushq' "$W/out.s")" -eq 5 ]
    [ "$(grep -A6 $'^\tpopq\t%r15' "$W/out.s" | tr '\n' ' ')" = $'\tpopq\t%r15 \tpopq\t%r14 \tpopq\t%r13 \tpopq\t%r12 \tpopq\t%rbx \tvzeroupper \tret ' ]
    # a missing restore is rejected
    sed '/^\tpopq\t%r12$/d' "$W/out.s" >"$W/bad.s"
    as --64 "$W/bad.s" -o "$W/bad.o"
    run "$BIN/rake-verify" --object "$W/bad.o" <"$W/out.json"
    [ "$status" -eq 1 ]
    # fifteen are too many: rsp and rbp are reserved
    pressure gpr 15
    run "$BIN/rake-ra" <"$W/p.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "p.rk:24:3: error: scratch p needs more than the 14 general registers of x86-avx2 (rsp and rbp are reserved) at once: 14 values are live here; Rake never spills to the stack" ]
}

# arms N [both]: entry defines N general values x_i (line 10 + i) and
# branches; the arm laid out first (line 40 on) defines and sums N values
# y_i of its own, the arm laid out last sums the x_i.  The x_i's live
# ranges have a hole over the first arm unless `both` makes it read them.
arms() {
    /usr/bin/python3 - "$@" >"$W/a.json" <<'EOF'
import json, sys
sys.path.insert(0, "tests/mir")
import mirdoc
n, both = int(sys.argv[1]), len(sys.argv) > 2
g = lambda i, acc=None: dict({"v": i, "class": "gpr"}, **({"access": acc} if acc else {}))
def chain(vals, first, line):
    code = [{"op": "movq", "args": [g(first, "w"), g(vals[0])], "origin": "hand", "loc": "%d:3" % line}]
    for i, v in enumerate(vals[1:]):
        code.append({"op": "addq", "args": [g(first, "rw"), g(v)], "origin": "hand", "loc": "%d:3" % (line + 1 + i)})
    code.append({"op": "movq", "args": [{"reg": "rax", "class": "gpr", "access": "w"}, g(first)], "origin": "result"})
    return code
xs, ys = list(range(n)), list(range(n, 2 * n))
entry = [{"op": "movq", "args": [g(x, "w"), {"imm": x + 1}], "origin": "hand", "loc": "%d:3" % (10 + x)} for x in xs]
entry.append({"op": "cmpq", "args": [{"reg": "rdi", "class": "gpr"}, {"imm": 0}], "origin": "hand", "loc": "30:3"})
first = [{"op": "movq", "args": [g(y, "w"), {"imm": 100 * (y - n + 1)}], "origin": "hand", "loc": "%d:3" % (40 + y - n)} for y in ys]
first += chain(ys + (xs if both else []), 2 * n, 60)
last = chain(xs, 2 * n + 1, 80)
branch = {"kind": "branch", "cond": "e", "then": "last", "else": "first", "loc": "30:3"}
f = mirdoc.function("a", "scratch", [("c", "i64", "rdi", 2 * n + 2)], ("i64", "rax"),
                    [("entry", entry, branch), ("first", first, mirdoc.RET), ("last", last, mirdoc.RET)],
                    2 * n + 3)
print(mirdoc.document("x86-avx2", "a.rk", f))
EOF
}

@test "mir cfg: values live only in the arm laid out last share registers with the first arm's (live ranges have holes)" {
    # 12 x_i and 12 y_i: 24 values, never more than 13 live at once
    arms 12
    build "$W/a.json"
    # the first arm reading the x_i too: 24 live at once, a located error
    arms 12 both
    run "$BIN/rake-ra" <"$W/a.json"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "a.rk:"*": error: scratch a needs more than the 14 general registers of x86-avx2 (rsp and rbp are reserved) at once: 14 values are live here; Rake never spills to the stack" ]]
}

# masks N: an x86-avx512 function with N mask values live at once (each a
# vptestmd at line 10 + i, each later the write mask of a move)
masks() {
    /usr/bin/python3 - "$1" >"$W/m.json" <<'EOF'
import json, sys
sys.path.insert(0, "tests/mir")
import mirdoc
n = int(sys.argv[1])
v = lambda i, acc=None: dict({"v": i, "class": "vec"}, **({"access": acc} if acc else {}))
k = lambda i, acc=None: dict({"v": i, "class": "mask"}, **({"access": acc} if acc else {}))
code = [{"op": "vptestmd", "args": [k(1 + i, "w"), v(0), v(0)], "origin": "hand", "loc": "%d:3" % (10 + i)} for i in range(n)]
for i in range(n):
    mv = dict(v(1 + n + i, "w"), mask=k(1 + i), zeroing=True)
    code.append({"op": "vmovaps", "args": [mv, v(0)], "origin": "hand", "loc": "%d:3" % (10 + n + i)})
code.append({"op": "vmovaps", "args": [{"reg": "zmm0", "class": "vec", "access": "w"}, v(2 * n)], "origin": "result"})
f = mirdoc.function("m", "scratch", [("x", "rack<f32>", "zmm0", 0)], ("rack<f32>", "zmm0"),
                    [("entry", code, mirdoc.RET)], 2 * n + 1)
print(mirdoc.document("x86-avx512", "m.rk", f))
EOF
}

@test "mir cfg: seven live AVX-512 masks use k1-k7; eight need one computed again, or are a located error" {
    masks 7
    build "$W/m.json"
    for k in 1 2 3 4 5 6 7; do grep -q "{%k$k}{z}" "$W/out.s"; done
    ! grep -q '%k0' "$W/out.s"
    masks 8
    run "$BIN/rake-ra" --no-recompute <"$W/m.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "m.rk:17:3: error: scratch m needs more than the 7 mask registers of x86-avx512 (k0 is reserved) at once: 7 values are live here; Rake never spills to the stack" ]
    # each mask is a test of the argument, live to the end: one of them is
    # tested again where it is read, and the eight fit
    build "$W/m.json"
    [ "$(grep -c $'^\tvptestmd' "$W/out.s")" -eq 9 ]
    ! grep -q '%k0' "$W/out.s"
}

@test "mir cfg: a register of another target is refused with exit 2" {
    for bad in '"reg": "v0"' '"reg": "x3"' '"reg": "zmm17"' '"reg": "k1"'; do
        sed "0,/\"reg\": \"ymm0\"/s//$bad/" "$M/loops.mir.json" >"$W/bad.json"
        ! cmp -s "$M/loops.mir.json" "$W/bad.json"
        run "$BIN/rake-ra" <"$W/bad.json"
        echo "$output"
        [ "$status" -eq 2 ]
        [[ "${lines[0]}" =~ ^rake-ra:\ \<stdin\>:[0-9]+:[0-9]+:\ .*is\ not\ a\ register\ of\ x86-avx2 ]]
    done
    # and the other way round: an x86 register in an aarch64-neon document
    sed 's/"target": "x86-avx2"/"target": "aarch64-neon"/' "$M/loops.mir.json" >"$W/arm.json"
    run "$BIN/rake-ra" <"$W/arm.json"
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" == *'"rdi" is not a register of aarch64-neon'* ]]
}

@test "mir cfg: edges are checked: argument counts, branches into parameters, jumps to the entry" {
    /usr/bin/python3 - "$M/loops.mir.json" "$W" <<'EOF'
import json, sys, copy
d = json.load(open(sys.argv[1]))
def out(name, f):
    e = copy.deepcopy(d)
    f(e["functions"][0]["blocks"])
    json.dump(e, open("%s/%s.json" % (sys.argv[2], name), "w"), indent=1)
out("nargs", lambda b: b[1]["term"]["args"].pop())
out("branch", lambda b: b[0]["term"].update({"then": "loop"}))
out("entryparam", lambda b: b[0].update({"params": [{"v": 9, "class": "vec"}]}))
EOF
    run "$BIN/rake-ra" <"$W/nargs.json"
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" == *"the jump gives 1 arguments, and loop has 2 parameters"* ]]
    run "$BIN/rake-ra" <"$W/branch.json"
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" == *"a branch reaches a block with parameters"* ]]
    run "$BIN/rake-ra" <"$W/entryparam.json"
    [ "$status" -eq 2 ]
    [[ "${lines[0]}" == *"the entry block has no parameters"* ]]
}
