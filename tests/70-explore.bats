#!/usr/bin/env bats
# tests/70-explore.bats: rakec --explore (docs/explorer.md).  The command
# line and the pages' data are checked without a browser; then a few pages
# are opened in headless Chromium (tests/explore/browse.js, the DevTools
# protocol on a pipe) to check what a reader sees: every stage drawn, the
# highlighting from a source line and from an instruction, a rejected
# program's diagnostic on its line, no network request, a screenshot that
# is not blank.  And every example and conformance program gets a page on
# every profile, compiled or refused.

load lib/common

BROWSE=$RAKE_ROOT/tests/explore/browse.js
DATA=$RAKE_ROOT/tests/explore/data.js

setup() {
    W=$BATS_TEST_TMPDIR
    cd "$W"
}

# data PAGE: the page's data block as JSON
data() {
    node "$DATA" "$1"
}

# Chromium is installed by tools/install-deps (which `make test` runs
# first), so a missing one fails the test; only on a machine where
# install-deps was never run is the test skipped, saying so.
need_chromium() {
    if [ -x "${RAKE_CHROMIUM:-/usr/bin/chromium}" ]; then
        return 0
    fi
    if ! "$RAKE_ROOT/tools/install-deps" --check >/dev/null 2>&1; then
        skip "chromium is not installed and tools/install-deps has not been run (make test runs it)"
    fi
    echo "chromium is missing although tools/install-deps --check passes" >&2
    return 1
}

# ---- the command line ---------------------------------------------------------------

@test "explore: --help lists --explore" {
    run rakec --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--explore "*"HTML page"* ]]
}

@test "explore: --stop-after, arguments, C inputs and a second mode are refused" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    run rakec --explore --stop-after opt k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: --stop-after cannot be used with --explore" ]
    run rakec --explore k.rk -- 1 2
    [ "$status" -eq 1 ]
    [ "$output" = "Error: arguments after -- go only with --interpret or --run" ]
    touch helper.c
    run rakec --explore k.rk helper.c
    [ "$status" -eq 1 ]
    [[ "$output" == "Error: C inputs (helper.c"*") are linked only with --run or --emit-exe" ]]
    run rakec --explore -S k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -S conflicts with another emission mode" ]
    run rakec --explore --explore k.rk
    [ "$status" -eq 1 ]
    mkdir d
    run rakec --explore -o d k.rk
    [ "$status" -eq 1 ]
    [ "$output" = "Error: -o d is a directory" ]
    run rakec --explore --target nowhere k.rk
    [ "$status" -eq 1 ]
    [[ "$output" == "Error: unknown target 'nowhere'"* ]]
    [ ! -e k.html ]
}

@test "explore: the page is STEM.html in the current directory, or -o, or standard output" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    run rakec --explore --target x86-avx2 k.rk
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ -s k.html ]
    [[ "$(head -c 15 k.html)" == "<!DOCTYPE html>" ]]
    mkdir out
    rakec --explore --target x86-avx2 -o out/page.html k.rk
    cmp k.html out/page.html
    rakec --explore --target x86-avx2 -o - k.rk >stdout.html
    cmp k.html stdout.html
    [ "$(ls out)" = page.html ] # no temporary left beside it
}

@test "explore: paths with spaces" {
    mkdir "a dir"
    cp "$RAKE_ROOT/examples/kernels.rk" "a dir/k k.rk"
    TMPDIR="$W/a dir" rakec --explore --target x86-avx2 "a dir/k k.rk"
    [ "$(data "k k.html" | jq -r '.file, .outcome.kind' | tr '\n' ' ')" = "a dir/k k.rk compiled " ]
}

@test "explore: the same input gives the same bytes" {
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    rakec --explore --target x86-avx2 -o a.html p.rk
    rakec --explore --target x86-avx2 -o b.html p.rk
    cmp a.html b.html
}

@test "explore: --save-temps keeps each stage's document beside the page" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    mkdir out
    rakec --explore --save-temps --target x86-avx2 -o out/k.html k.rk
    for s in parse check lower opt isel ra; do
        [ -s "out/k.$s.json" ]
    done
    [ -s out/k.emit.s ]
}

# ---- what the page holds ---------------------------------------------------------------

@test "explore: a compiled program's page has every stage's data" {
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    rakec --explore --target x86-avx2 p.rk
    data p.html >d.json
    [ "$(jq -r .outcome.kind d.json)" = compiled ]
    [ "$(jq -r .target d.json)" = x86-avx2 ]
    [ "$(jq '.source | length' d.json)" -eq "$(wc -l <p.rk)" ]
    [ "$(jq '.tokens | length' d.json)" -gt 100 ]
    [ "$(jq '.ast | length' d.json)" -eq 5 ]
    [ "$(jq -r '.checked.summary[0].words' d.json)" = "#alive is a mask32 mask (8 lanes): the lanes where kill = <0> holds" ]
    [ "$(jq -r '.nir.functions[] | select(.name == "step") | .changes.contraction' d.json)" -eq 1 ]
    [ "$(jq -r '[.mir0.functions[].name] | join(" ")' d.json)" = "step advance survivors" ]
    [ "$(jq -r '.mir.allocated' d.json)" = true ]
    # the limits are the target table's: AVX2 has 16 vector registers, no mask registers
    [ "$(jq -c '[.limits[] | [.class, .allocatable]]' d.json)" = '[["vec",16],["gpr",14],["mask",0]]' ]
    [ "$(jq '.asm.unlinked | length' d.json)" -eq 0 ]
    [ "$(jq '.verify.ir.status, .verify.object.status' d.json | tr '\n' ' ')" = "0 0 " ]
    [[ "$(jq -r .report d.json)" == "rakec: kernel report for x86-avx2"* ]]
    [ "$(jq -r .interp.text d.json)" = "$(rakec --interpret --target x86-avx2 p.rk)" ]
}

@test "explore: rake-opt's changes are named: a sweep's second comparison reads its operand raw (proven)" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    rakec --explore --target x86-avx2 k.rk
    data k.html >d.json
    [ "$(jq -r '.nir.functions[] | select(.name == "grade") | .changes.proven' d.json)" -eq 1 ]
}

@test "explore: the machine IR marks what rake-ra added where registers ran out (again), as support" {
    cp "$RAKE_ROOT/tests/x86/cli/pressure-recompute.rk" r.rk
    rakec --explore --target x86-sse2 r.rk
    data r.html >d.json
    # (lowered again for pressure, as rakec does) a constant loaded again,
    # and a select computed again (a copy and an andnps), as rake-ra --text
    # lists them
    [ "$(jq -c '[.mir.functions[0].rows[] | select(.again == true) | [.origin, .aux]]' d.json)" = '[["remat",true],["mask.select",true],["mask.select",true]]' ]
    jq -r '.mir.functions[0].rows[] | select(.again == true) | .t' d.json | grep -q '^andnps .*    (again)$'
    # nothing is marked where registers don't run out
    rakec --explore --target x86-avx2 r.rk
    data r.html >d.json
    [ "$(jq '[.mir.functions[0].rows[] | select(.again == true)] | length' d.json)" -eq 0 ]
}

@test "explore: every assembly instruction line is tied to its machine instruction" {
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    rakec --explore --target x86-avx512 p.rk
    data p.html >d.json
    # each line of the kernels' and runs' bodies that is an instruction has an origin
    [ "$(jq '[.asm.lines[] | select((.t | test("^\t[a-z]")) and (.origin == null))] | length' d.json)" -eq 0 ]
    [ "$(jq '[.asm.lines[] | select(.origin == "rack.fma")] | length' d.json)" -gt 0 ]
}

@test "explore: a rejected program gets its page, with the diagnostic and the stages before it; exit 1" {
    # a gather: work in progress natively, so rake-check refuses it on x86
    printf 'run g(t: []f32, out: mut []f32, idx: []i32):\n  let k = idx[<0>]\n  out[<0>] <- t[k]\n' >s.rk
    run rakec --explore --target x86-avx2 s.rk
    [ "$status" -eq 1 ]
    [[ "$output" == "s.rk:3:16: error: x86-avx2 can't compile gathers yet"* ]]
    data s.html >d.json
    [ "$(jq -r '.outcome.kind, .outcome.stage, .diag.line, .diag.col' d.json | tr '\n' ' ')" = "rejected check 3 16 " ]
    [ "$(jq '.ast | length' d.json)" -gt 0 ]
    [ "$(jq -r '.checked, .nir, .mir, .asm' d.json | sort -u)" = null ]
}

@test "explore: a parse error is located too" {
    printf 'scratch f(a: f32s) -> f32s:\n  a +\n' >bad.rk
    run rakec --explore bad.rk
    [ "$status" -eq 1 ]
    data bad.html >d.json
    [ "$(jq -r '.outcome.stage, .diag.line' d.json | tr '\n' ' ')" = "parse 2 " ]
    [ "$(jq -r .ast d.json)" = null ]
}

@test "explore: a stage that fails on a document is an internal error, and the page still shows it" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    printf '#!/bin/sh\necho "rake-ra: internal error: broken on purpose" >&2\nexit 3\n' >ra
    chmod +x ra
    RAKE_PASS_RA=$W/ra run rakec --explore --target x86-sse2 k.rk
    [ "$status" -eq 3 ]
    [[ "$output" == *"rakec: internal error: rake-ra failed with status 3"* ]]
    data k.html >d.json
    [ "$(jq -r '.outcome.kind, .outcome.stage' d.json | tr '\n' ' ')" = "internal ra " ]
    [ "$(jq -r '.diag.text' d.json)" = "rake-ra: internal error: broken on purpose" ]
    [ "$(jq '.mir0.functions | length' d.json)" -gt 0 ]
}

@test "explore: a replaced pass shows its own document (RAKE_PASS_OPT=cat keeps rake-lower's IR)" {
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    RAKE_PASS_OPT=cat rakec --explore --target x86-avx2 k.rk
    data k.html >d.json
    [ "$(jq '[.nir.functions[].changes | length] | add' d.json)" -eq 0 ]
    [ "$(jq '[.nir.functions[].rows[] | select(.op == "rack.fma")] | length' d.json)" -eq 0 ]
    [ "$(jq '[.asm.lines[] | select(.t | startswith("\tvfmadd"))] | length' d.json)" -eq 0 ]
}

@test "explore: aarch64-neon and wasm-simd128 pages end with the native IR and say why" {
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    for p in aarch64-neon wasm-simd128; do
        run rakec --explore --target "$p" -o "$p.html" p.rk
        [ "$status" -eq 0 ]
        data "$p.html" >d.json
        [ "$(jq -r .outcome.kind d.json)" = stopped ]
        [[ "$(jq -r .outcome.text d.json)" == *"work in progress"* ]]
        [ "$(jq '.nir.functions | length' d.json)" -eq 3 ]
        [ "$(jq -r '.mir0, .mir, .asm, .report, .verify.object' d.json | sort -u)" = null ]
        [ "$(jq -r .verify.ir.status d.json)" -eq 0 ]
        [ "$(jq -r .interp.text d.json)" = 175547 ]
    done
}

@test "explore: source text can't escape its element (<, &, </script> in comments)" {
    cat >x.rk <<'EOF'
~~ a comment with </script><script>alert(1)</script> & <b>tags</b>
(* and </style> in a block comment *)
scratch f(a: f32s) -> f32s:
  a + nope
EOF
    run rakec --explore --target x86-avx2 x.rk
    [ "$status" -eq 1 ]
    # three elements end in the page: the style, the data and the script
    [ "$(grep -o '</script>' x.html | wc -l)" -eq 2 ]
    [ "$(grep -o '</style>' x.html | wc -l)" -eq 1 ]
    data x.html >d.json
    [ "$(jq -r '.source[0]' d.json)" = "~~ a comment with </script><script>alert(1)</script> & <b>tags</b>" ]
    [ "$(jq -r '.diag.line' d.json)" -eq 4 ]
}

# ---- every program, every profile ------------------------------------------------------

# The profiles a conformance program's header says compile it.
listed() {
    local list
    list=" $(sed -n 's/^~~ compiles: //p; s/^~~ targets: //p' "$1" | tr '\n' ' ') "
    [[ "$list" == *" any "* ]] || [[ "$list" == *" $2 "* ]]
}

@test "explore: a page for every example and conformance program on every profile" {
    n=0
    for f in "$RAKE_ROOT"/examples/*.rk "$SHARED"/conformance/*.rk; do
        b=$(basename "$f" .rk)
        for p in x86-sse2 x86-avx2 x86-avx512 aarch64-neon wasm-simd128; do
            status=0
            rakec --explore --target "$p" -o "$b.$p.html" "$f" 2>"$b.$p.err" || status=$?
            data "$b.$p.html" >d.json || { echo "$b on $p: no page"; return 1; }
            kind=$(jq -r .outcome.kind d.json)
            case $status,$kind in
            0,compiled | 0,stopped) ;;
            1,rejected)
                # refused on this profile: the page locates the diagnostic
                [ "$(jq -r .diag.line d.json)" -gt 0 ] || { echo "$b on $p: unlocated"; return 1; } ;;
            *) echo "$b on $p: status $status, outcome $kind"; cat "$b.$p.err"; return 1 ;;
            esac
            if [ "${f#"$SHARED"}" != "$f" ] && listed "$f" "$p"; then
                case $p in
                x86-*) [ "$kind" = compiled ] || { echo "$b must compile on $p: $kind"; return 1; } ;;
                *) [ "$kind" = stopped ] || { echo "$b must check on $p: $kind"; return 1; } ;;
                esac
            fi
            expect=$(sed -n 's/^~~ expect: //p' "$f")
            lanes=$(sed -n 's/^~~ lanes: //p' "$f")
            if [ -n "$lanes" ] && [ "$lanes" != "$(rakec --print-targets | awk -v p="$p" '$1 == p {print $2}')" ]; then
                # written for another lane count (README: `lanes:`): the
                # result is the interpreter's on this profile (a trap)
                expect=$(rakec --interpret --target "$p" "$f" 2>&1 || true)
            fi
            if [ -n "$expect" ] && [ "$kind" != rejected ]; then
                [ "$(jq -r .interp.text d.json)" = "$expect" ] || { echo "$b on $p: interp $(jq -r .interp.text d.json)"; return 1; }
            fi
            n=$((n + 1))
        done
    done
    [ "$n" -eq 60 ]
}

@test "explore: the sanitizer build of rake-explore writes the same pages" {
    [ -x "$ASAN_BIN/rake-explore" ] || { echo "no $ASAN_BIN/rake-explore: run 'make build asan' first" >&2; return 1; }
    for f in "$RAKE_ROOT"/examples/*.rk "$SHARED"/conformance/stacks_several.rk "$SHARED"/conformance/sweeps_grade.rk; do
        b=$(basename "$f" .rk)
        for p in x86-avx512 aarch64-neon; do
            rakec --explore --target "$p" -o "$b.$p.html" "$f" 2>/dev/null || true
            RAKE_PASS_EXPLORE=$ASAN_BIN/rake-explore rakec --explore --target "$p" -o "$b.$p.asan.html" "$f" 2>/dev/null || true
            cmp "$b.$p.html" "$b.$p.asan.html"
        done
    done
}

# ---- in a browser ------------------------------------------------------------------------

@test "explore (chromium): every stage renders; line 11 lights exactly the fused multiply-adds; an instruction lights its source" {
    need_chromium
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    rakec --explore --target x86-avx2 p.rk
    rakec -S --no-report --target x86-avx2 -o p.s p.rk
    fmas=$(grep -c $'^\tvfmadd231ps' p.s)
    # the scratch, and the advance run's two per rack: two racks of the
    # unrolled loop, the one rack after it, the tail
    [ "$fmas" -eq 9 ]
    # line 11 is `| moved <| position + velocity * <dt>`, the fused step
    # the advance run calls
    [[ "$(sed -n 11p p.rk)" == *"position + velocity * <dt>"* ]]
    node "$BROWSE" p.html --click '.srcline[data-line="11"] .ln' --snap \
        --tab asm --click '#panel-asm .row[data-loc]:not(.hl-aux).hl' --snap \
        --click '#source .tk[data-at="11:34"]' --screenshot shot.png >f.json
    jq -e '.ready and (.errors | length == 0)' f.json
    # no request but the page itself
    jq -e --arg u "file://$W/p.html" '[.requests[] | select(. != $u)] | length == 0' f.json
    # every stage drew something, none was skipped
    [ "$(jq -r '[.tabs[].id] | join(" ")' f.json)" = "tokens ast checked nir mir asm verify report interp" ]
    jq -e '[.tabs[] | select(.cls | test("skipped|failed"))] | length == 0' f.json
    jq -e '[.tabs[] | select(.elements < 1)] | length == 0' f.json
    jq -e '[.tabs[] | select(.id | test("tokens|ast|checked|nir|mir|asm")) | select(.items < 10)] | length == 0' f.json
    # after the click on line 11: the source line is selected, and of the
    # native IR rake-opt wrote (rows kept or added) exactly the rack.fma
    # rows are lit (benign selects only faintly), every rack.fma of the program
    snap=.snaps[0]
    jq -e "$snap.selLines == [11]" f.json
    [ "$(jq -r "[$snap.lit.nir[] | select(.d != \"-\" and (.aux | not)) | .op] | unique | join(\" \")" f.json)" = rack.fma ]
    [ "$(jq "[$snap.lit.nir[] | select(.d != \"-\" and (.aux | not))] | length" f.json)" -eq 9 ]
    [ "$(jq -r "[$snap.lit.nir[] | select(.aux) | .op] | unique | join(\" \")" f.json)" = mask.select ]
    [ "$(node "$DATA" p.html | jq '[.nir.functions[].rows[] | select(.d != "-" and .op == "rack.fma")] | length')" -eq 9 ]
    # ... and of the assembly exactly the vfmadd231ps lines, all of them
    [ "$(jq -r "[$snap.lit.asm[] | select(.aux | not) | .text | split(\"\t\")[1]] | unique | join(\" \")" f.json)" = vfmadd231ps ]
    [ "$(jq "[$snap.lit.asm[] | select(.aux | not)] | length" f.json)" -eq "$fmas" ]
    # clicking an fma's line in the assembly lights its source: line 11, column 23
    jq -e '.snaps[1].selLines == [11]' f.json
    [ "$(jq -r '[.snaps[1].lit.asm[] | .loc] | unique | join(" ")' f.json)" = 11:23 ]
    # clicking the expression `velocity * <dt>` in the source (its `*`, at
    # 11:34) lights only what has that exact location: rake-lower's
    # multiplies, which rake-opt folded into the fmas, so no assembly
    jq -e '.selLines == [11]' f.json
    [ "$(jq -r '[.lit[][] | .loc] | unique | join(" ")' f.json)" = 11:34 ]
    [ "$(jq -r '[.lit.nir[] | select(.aux | not) | .d + .op] | unique | join(" ")' f.json)" = "-rack.mul" ]
    jq -e '.lit.asm == null and .lit.ast != null and .lit.checked != null' f.json
    # the screenshot is not blank
    [ -s shot.png ]
    jq -e '.screenshot.width == 1400 and .screenshot.height == 900' f.json
    jq -e '.screenshot.colours > 50 and .screenshot.notBackground > 0.2' f.json
}

@test "explore (chromium): a rejected program shows its diagnostic on its line, the stages before it, and its text intact" {
    need_chromium
    cat >x.rk <<'EOF'
~~ a comment with </script><script>alert(1)</script> & <b>tags</b>
scratch f(a: f32s) -> f32s:
  a + nope
EOF
    run rakec --explore --target x86-avx2 x.rk
    [ "$status" -eq 1 ]
    node "$BROWSE" x.html --screenshot shot.png >f.json
    jq -e '.ready and (.errors | length == 0) and (.requests | unique | length == 1)' f.json
    jq -e '.diagLine == 3' f.json
    [[ "$(jq -r '.srcdiag[0]' f.json)" == "error: "*"nope"* ]]
    [[ "$(jq -r .banner f.json)" == "x.rk:3:"*"error: "*"nope"* ]]
    [ "$(jq -r .outcome f.json)" = "rejected by rake-check" ]
    [ "$(jq -r .active f.json)" = Diagnostic ]
    # the stages before check are there; the later ones say why not
    jq -e '[.tabs[] | select(.id == "tokens" or .id == "ast") | .missing] == [null, null]' f.json
    [[ "$(jq -r '.tabs[] | select(.id == "nir") | .missing' f.json)" == "Not run: rake-check stopped the pipeline"* ]]
    # the comment is shown as written, not as markup
    [[ "$(jq -r .sourceText f.json)" == "~~ a comment with </script><script>alert(1)</script> & <b>tags</b>"* ]]
    jq -e '.screenshot.colours > 20' f.json
}

@test "explore (chromium): an aarch64-neon page shows the stages that ran and the interpreter's result" {
    need_chromium
    cp "$RAKE_ROOT/examples/particles.rk" p.rk
    rakec --explore --target aarch64-neon p.rk
    node "$BROWSE" p.html --tab interp --click '.srcline[data-line="11"] .ln' >f.json
    jq -e '.ready and (.errors | length == 0) and (.requests | unique | length == 1)' f.json
    [ "$(jq -r '[.steps[] | select(.[1] | test("ok")) | .[0]] | join(" ")' f.json)" = "parse check lower opt verify interp" ]
    [[ "$(jq -r '.tabs[] | select(.id == "mir") | .missing' f.json)" == *"AArch64 is work in progress"* ]]
    [ "$(jq -r '[.lit.nir[] | select(.d != "-" and (.aux | not)) | .op] | unique | join(" ")' f.json)" = rack.fma ]
    [[ "$(jq -r .banner f.json)" == *"work in progress"* ]]
    [[ "$(jq -r '.tabs[] | select(.id == "interp") | .text' f.json)" == *"main returned175547"* ]]
}

@test "explore (chromium): the request check sees what a page would load (a control for the checks above)" {
    need_chromium
    cp "$RAKE_ROOT/examples/kernels.rk" k.rk
    rakec --explore --target x86-sse2 k.rk
    sed 's|<body>|<body><img src="https://example.invalid/x.png"><link rel="stylesheet" href="none.css">|' k.html >t.html
    node "$BROWSE" t.html >f.json
    jq -e --arg u "file://$W/t.html" '[.requests[] | select(. != $u)] | unique == ["file://'"$W"'/none.css", "https://example.invalid/x.png"]' f.json
}
