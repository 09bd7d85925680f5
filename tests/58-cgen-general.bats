#!/usr/bin/env bats
# tests/58-cgen-general.bats: general runs seen from rake-cgen, the slow
# tier as C (docs/slow-tier.md).
#
#   the call        slow code calls a general run on a physical profile
#                   through the C boundary of spec page 03 (each view as
#                   pointer and i32 count, uniforms by value), with no
#                   check before the call; elsewhere it is a located error
#   trap helpers    every checked view access and every loop whose step
#                   isn't a positive literal, in every general run, has a
#                   C helper rk_trap_LINE_COL(unsigned char *rk_io) in a
#                   physical profile's unit, printing the interpreter's
#                   trap from int64_t slots.  The runs' native code isn't
#                   here yet: tests/cgen/stubs/ stands in for it, C runs
#                   that check each access and call the helpers, and the
#                   linked program must print byte for byte what the
#                   interpreter prints.
#   the header      rake-cgen --header-runs (rakec --emit-header's runs)
#                   declares general runs with the spec's parameter names.
load lib/common

STUBS=$RAKE_ROOT/tests/cgen/stubs

setup() {
    cd "$RAKE_ROOT"
    T=$BATS_TEST_TMPDIR
}

# checked_native FILE PROFILE: rake.checked for FILE on a physical
# PROFILE.  While rake-check refuses general runs natively (the profile
# table marks them work in progress), FILE is checked on wasm-simd128,
# whose f32 racks have x86-sse2's four lanes, and the document is
# relabelled: rake-cgen and rake-interp read only the target's name.
# NATIVE_CHECK says which happened.
checked_native() {
    NATIVE_CHECK=yes
    if ! "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target "$2" 2>/dev/null; then
        NATIVE_CHECK=no
        "$BIN/rake-parse" "$1" | "$BIN/rake-check" --target wasm-simd128 |
            sed -E "s/(\"target\": ?)\"wasm-simd128\"/\\1\"$2\"/"
    fi
}

# interpret FILE DOC: what rakec --interpret --target x86-sse2 prints for
# FILE (rake-interp on DOC while rake-check refuses the program natively)
interpret() {
    if [ "$NATIVE_CHECK" = yes ]; then
        "$BIN/rakec" --interpret --target x86-sse2 "$1"
    else
        "$BIN/rake-interp" -- <"$2"
    fi
}

# helper_def L C: the definition line of a trap helper
# helper_def LINE COL: the label of the site's helper, an assembly stub
helper_def() {
    echo "    \"rk_trap_$1_$2:\\n\""
}

# stub_of FILE LINE COL: "SITE KIND", the two numbers the site's stub
# passes to rk_trap_stub
stub_of() {
    grep -A 2 -F "$(helper_def "$2" "$3")" "$1" |
        sed -nE 's/^    "\\tmovl\\t\$([0-9]+), %(esi|edx)\\n"$/\1/p' | tr '\n' ' ' | sed 's/ $//'
}

# site_at FILE N: "LINE:COL" of rk_sites[N]
site_at() {
    sed -n '/^static const struct rk_site rk_sites\[\] = {$/,/^};$/p' "$1" |
        grep -E '^    \{[0-9]+, [0-9]+, ' | sed -n "$(($2 + 1))p" | sed -E 's/^    \{([0-9]+), ([0-9]+),.*/\1:\2/'
}

@test "slow code calls a general run with each view as pointer and count, uniforms by value, nothing checked first" {
    checked_native tests/interp/general_run.rk x86-sse2 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    assert_output --partial 'void rk_native_prefix(const float *, int32_t, float *, int32_t, int32_t) __asm__("prefix");'
    assert_output --partial 'void rk_native_steps(float *, int32_t, int32_t, int32_t) __asm__("steps");'
    # prefix(x, o, <8>): the arrays as views of all their elements
    assert_output --partial 'rk_native_prefix(rk_t'
    grep -qE '^    (rk_t[0-9]+) = \(struct rk_view_f32\)\{rk_v[0-9]+_x\.e, 8\};$' <<<"$output"
    grep -qE 'rk_native_prefix\((rk_t[0-9]+)\.p, \(int32_t\)\1\.n, (rk_t[0-9]+)\.p, \(int32_t\)\2\.n, \(\(int32_t\)8LL\)\);' <<<"$output"
    # declared once however often it is called; no precondition check
    [ "$(grep -c '^void rk_native_prefix(' <<<"$output")" -eq 1 ]
    refute_output --partial 'rk_run_counts(&'
    refute_output --partial '    rk_run_shares('
    # a view argument passes its own pointer and count
    cat >"$T/v.rk" <<'EOF'
run twice(x: []i32, out: mut []i32, <n: i32>):
  for <i: i32> from <0> up to <n> by <4>:
    out[<i>] <- x[<i>] * <2>

slow main() -> i32:
  a: [12]i32 := [3; 12]
  b: [12]i32 := [0; 12]
  twice(slice(a, 4, 8), slice(b, 0, 8), <8>)
  return b[7]
EOF
    checked_native "$T/v.rk" x86-avx2 >"$T/v.json"
    run "$BIN/rake-cgen" <"$T/v.json"
    assert_success
    assert_output --partial 'void rk_native_twice(const int32_t *, int32_t, int32_t *, int32_t, int32_t) __asm__("twice");'
    grep -qE 'rk_native_twice\((rk_t[0-9]+)\.p, \(int32_t\)\1\.n, (rk_t[0-9]+)\.p, \(int32_t\)\2\.n, \(\(int32_t\)8LL\)\);' <<<"$output"
}

@test "the unit of a program calling general runs compiles cleanly under gcc and clang on every physical profile" {
    local p cc
    for p in x86-sse2 x86-avx2 x86-avx512 aarch64-neon; do
        checked_native tests/interp/general_run.rk "$p" >"$T/c.json"
        "$BIN/rake-cgen" <"$T/c.json" >"$T/u.c"
        for cc in gcc clang; do
            command -v "$cc" >/dev/null || continue
            "$cc" -std=c11 -O2 -Wall -Wextra -Werror -c -o "$T/u.o" "$T/u.c"
        done
        # the helpers are global: the run's assembly calls them by name
        # (aarch64-neon's runs aren't native yet: no helpers there)
        if [ "$p" = aarch64-neon ]; then
            ! nm "$T/u.o" | grep -q 'rk_trap_[0-9]'
        else
            nm "$T/u.o" | grep -q ' T rk_trap_40_3$'
        fi
    done
}

@test "calling a general run on a profile without native code, or a stack run taking a view, is a located error" {
    "$BIN/rake-parse" tests/interp/general_run.rk |
        "$BIN/rake-check" --target wasm-simd128 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "tests/interp/general_run.rk:47:3: error: rake-cgen: calling general run 'prefix' on wasm-simd128: slow code calls general runs natively on x86 and aarch64 profiles only" ]
    "$BIN/rake-cgen" <"$T/c.json" 2>/dev/null >"$T/out" || true
    [ ! -s "$T/out" ]
    # nor does a stack run taking a view (its overlap with the result isn't
    # checked before the call yet)
    "$BIN/rake-parse" tests/interp/trap_result_overlap_view.rk |
        "$BIN/rake-check" --target wasm-simd128 >"$T/v.json"
    run "$BIN/rake-cgen" <"$T/v.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "tests/interp/trap_result_overlap_view.rk:16:9: error: rake-cgen: the stack run 'mix' takes the view 't': views in stack runs are work in progress natively" ]
}

@test "trap helpers: one per checked view access and non-literal step, with the interpreter's messages" {
    cat >"$T/all.rk" <<'EOF'
run all(x: []f32, out: mut []f32, ix: []i32, <n: i32>, <s: i32>):
  for <i: i32> from <0> up to <n> by <s>:
    let <e: f32> = <x[i]>
    out[<i>] <- x[<i>] + <e>
  for <j: i32> from <0> up to <n> by <4>:
    out[unchecked <j>] <- x[unchecked <j>]
  for <k: i32> from <0> up to <n>:
    let idx: i32s = ix[<k>]
    out[<k>] <- x[idx]
  for <m: i32> from <0> up to <n> by 0x10:
    let <z: i32> = slow {
      a: [2]i32 := [m, 7]
      a[1]
    }
    out[<m> + <z>] <- x[<m>]

run zero(out: mut []f32, <n: i32>):
  for <i: i32> from <0> up to <n> by <0>:
    out[unchecked <i>] <- <1.0>

run big(out: mut []f32, <n: i64>):
  for <q: i64> from <0> up to <n> by <3000000000>:
    out[unchecked <0>] <- <1.0>
EOF
    checked_native "$T/all.rk" x86-avx2 >"$T/c.json"
    run "$BIN/rake-cgen" <"$T/c.json"
    assert_success
    "$BIN/rake-cgen" <"$T/c.json" >"$T/all.c"
    # no slow code calls the runs: every general run gets its helpers
    local site defs
    defs=$(grep -oE '^    "rk_trap_[0-9]+_[0-9]+:\\n"$' "$T/all.c" |
        sed -E 's/.*rk_trap_([0-9]+)_([0-9]+).*/\1:\2/' | tr '\n' ' ')
    # the uniform step, <x[i]>, out[<i>], x[<i>], ix[<k>], out[<k>],
    # out[<m> + <z>], x[<m>], by <0>, by a literal above 2^31 - 1 (which
    # rake-lower checks); not the unchecked accesses, the gather x[idx],
    # the literal steps (<4>, none, 0x10) or the slow block
    [ "$defs" = "2:3 3:22 4:8 4:18 8:23 9:8 15:8 15:24 18:3 22:3 " ]
    # each is an assembly stub passing its site's number (into rk_sites,
    # where its own location is) and its kind to the one reporter:
    # 0 a rack load, 1 a rack store, 2 an element read, 3 a loop's step
    for site in 2:3:3 3:22:2 4:8:1 4:18:0 8:23:0 9:8:1 15:8:1 15:24:0 18:3:3 22:3:3; do
        local line=${site%%:*} rest=${site#*:}
        local col=${rest%:*} kind=${rest#*:} got
        got=$(stub_of "$T/all.c" "$line" "$col")
        [ "${got#* }" = "$kind" ] || { echo "$line:$col: $got"; false; }
        [ "$(site_at "$T/all.c" "${got% *}")" = "$line:$col" ]
        grep -A 4 -F "$(helper_def "$line" "$col")" "$T/all.c" | grep -qF '"\tjmp\trk_trap_stub\n"'
    done
    # the reporter calls the runtime function of each kind; the message's
    # text lives there once
    assert_output --partial $'static void rk_trap_stub(unsigned char *rk_io, int site, int kind)\n{\n    if (kind == 0)\n        rk_trap_rack(site, "rack load", rk_io);\n    if (kind == 1)\n        rk_trap_rack(site, "rack store", rk_io);\n    if (kind == 2)\n        rk_trap_element(site, rk_io);\n    rk_trap(site, "a loop steps forward");\n}'
    assert_output --partial 'rk_trap(site, "%s [%lld, %lld) outside %lld elements", what, (long long)s[0],'
    assert_output --partial 'rk_trap(site, "index %lld outside %lld elements", (long long)s[0], (long long)s[1]);'
    # each helper's site is its own location, quoted
    assert_output --partial '    {18, 3, "  for <i: i32> from <0> up to <n> by <0>:\n"'
    # a unit for a profile without native code has none
    sed -E 's/("target": ?)"x86-avx2"/\1"wasm-simd128"/' "$T/c.json" >"$T/w.json"
    run "$BIN/rake-cgen" <"$T/w.json"
    assert_success
    refute_output --regexp 'rk_trap_[0-9]'
}

@test "a failing check in a general run prints the interpreter's trap through its helper (C runs standing in)" {
    local f stem at msg rc1 rc2 n=0
    for f in tests/interp/trap_rack_load.rk tests/interp/trap_rack_store.rk \
        tests/interp/trap_index_uniform.rk tests/interp/trap_loop_step_run.rk; do
        stem=$(basename "$f" .rk)
        at=$(sed -n 's/^~~ at: *//p' "$f")
        msg=$(sed -n 's/^~~ trap: *//p' "$f")
        checked_native "$f" x86-sse2 >"$T/$stem.json"
        "$BIN/rake-cgen" <"$T/$stem.json" >"$T/$stem.c"
        grep -qF "$(helper_def "${at%:*}" "${at#*:}")" "$T/$stem.c"
        cc -std=c11 -O2 -Wall -Wextra -Werror -DRAKE_PRINT_RESULT -DRAKE_ARGV0_SOURCE \
            -o "$T/$stem" "$T/$stem.c" "$STUBS/$stem.c" -lm
        rc1=0 rc2=0
        "$T/$stem" >"$T/o1" 2>"$T/e1" || rc1=$?
        interpret "$f" "$T/$stem.json" >"$T/o2" 2>"$T/e2" || rc2=$?
        # the interpreter's trap, at the file's own `~~ at:`
        [ "$rc2" -eq 1 ]
        [ "$(head -n 1 "$T/e2")" = "$f:$at: trap: $msg" ]
        [ "$rc1" -eq 1 ]
        diff "$T/e1" "$T/e2"
        cmp "$T/o1" "$T/o2"
        n=$((n + 1))
    done
    [ "$n" -eq 4 ]
}

@test "the stand-in runs themselves pass where the interpreter passes (the helpers only fire on a failing check)" {
    # trap_rack_load's first call, load(a, o, <2>), is in bounds: without
    # the trapping second call the program returns 0 as the interpreter does
    sed '/load_at(a, o, <3>)/d' tests/interp/trap_rack_load.rk >"$T/ok.rk"
    checked_native "$T/ok.rk" x86-sse2 >"$T/ok.json"
    "$BIN/rake-cgen" <"$T/ok.json" >"$T/ok.c"
    cc -std=c11 -O2 -DRAKE_PRINT_RESULT -o "$T/ok" "$T/ok.c" "$STUBS/trap_rack_load.c" -lm
    run "$T/ok"
    assert_success
    assert_output "0"
}

@test "the header declares general runs: const T *p_x, int32_t p_x_count for a view, uniforms by their C types" {
    cat >"$T/h.rk" <<'EOF'
pack P {
  f32: x;
}

run bump(s: stack P, <k: f32>) -> stack P:
  s with { x: s.x * <k> }

run mix(a: []f32, b: mut []i32, c: []u8, <n: i32>, <f: f32>, <u: u32>, <on: bool>):
  if <on>:
    b[<0>] <- b[<0>]
EOF
    checked_native "$T/h.rk" x86-avx2 >"$T/h.json"
    run "$BIN/rake-cgen" --header-runs <"$T/h.json"
    assert_success
    assert_output $'struct rake_stack_P_v2 {\n    int64_t count;\n    float *x;\n};\nvoid bump(struct rake_stack_P_v2 *s, float k);\nvoid mix(const float *p_a, int32_t p_a_count, int32_t *p_b, int32_t p_b_count, const uint8_t *p_c, int32_t p_c_count, int32_t n, float f, uint32_t u, bool on);'
    # a C definition with exactly these types agrees with the declaration
    { printf '#include <stdbool.h>\n#include <stdint.h>\n'; echo "$output"
      printf 'void mix(const float *a, int32_t an, int32_t *b, int32_t bn, const uint8_t *c, int32_t cn, int32_t n, float f, uint32_t u, bool on)\n{ (void)a; (void)an; (void)b; (void)bn; (void)c; (void)cn; (void)n; (void)f; (void)u; (void)on; }\n'
    } >"$T/h.c"
    cc -std=c11 -Wall -Wextra -Werror -c -o "$T/h.o" "$T/h.c"
    # a view's C names can't meet another parameter's
    printf 'run clash(x: []f32, <p_x: i32>):\n  if <p_x> > <0>:\n    let y = x[<0>]\n' >"$T/k.rk"
    checked_native "$T/k.rk" x86-avx2 >"$T/k.json"
    run "$BIN/rake-cgen" --header-runs <"$T/k.json"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "$T/k.rk:1:21: error: rake-cgen: the parameter 'p_x' can't be declared in a C header: another parameter's C name is 'p_x'" ]
    # a rack parameter (from C callers only) has no C type yet
    printf 'run racked(x: f32s, out: mut []f32):\n  out[<0>] <- x\n' >"$T/r.rk"
    checked_native "$T/r.rk" x86-avx2 >"$T/r.json"
    run "$BIN/rake-cgen" --header-runs <"$T/r.json"
    [ "$status" -eq 1 ]
    [[ "${lines[0]}" == "$T/r.rk:1:12: error: rake-cgen: the run 'racked' takes 'x' (f32s) across the C boundary: only stacks, views and <uniforms> are implemented"* ]]
}

@test "rakec --emit-header declares general runs (once the backend compiles them)" {
    cp tests/interp/trap_rack_store.rk "$T/g.rk"
    run "$BIN/rakec" --emit-header "$T/g.h" --target x86-sse2 "$T/g.rk"
    if [ "$status" -ne 0 ] && [[ "$output" == *"work in progress"* ]]; then
        skip "native general runs don't compile yet: ${lines[0]}"
    fi
    assert_success
    grep -qxF 'void store(const float *p_x, int32_t p_x_count, float *p_out, int32_t p_out_count, int32_t k);' "$T/g.h"
    printf '#include "%s"\nint main(void) { return 0; }\n' "$T/g.h" >"$T/use.c"
    cc -std=c11 -Wall -Wextra -Werror -msse2 -c -o "$T/use.o" "$T/use.c"
}
