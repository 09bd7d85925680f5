#!/usr/bin/env bats
# tests/62-compile-speed.bats: tools/compile-speed keeps working (issue 12).
# Timings are not checked here (a shared machine makes them noise); the
# table must have a row with every step rakec timed through RAKE_TIME.
load lib/common

@test "compile-speed: 10 kernels, every step of rakec timed, clang compared" {
    command -v clang >/dev/null || skip "no clang"
    run "$RAKE_ROOT/tools/compile-speed" --runs 1 10
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "kernels "*" parse "*" check "*" as "*" clang "* ]]
    # kernels, lines, rakec, 8 steps, clang, ratio, two per-kernel times
    row=$(printf '%s\n' "$output" | awk '$1 == 10')
    [ "$(echo "$row" | awk '{ print NF }')" -eq 17 ]
    echo "$row" | awk '{ for (i = 4; i <= 11; i++) if ($i + 0 <= 0) exit 1 }'
}

@test "compile-speed: RAKE_TIME records each step of a build" {
    f=$BATS_TEST_TMPDIR/t
    RAKE_TIME=$f run "$BIN/rakec" -c --no-report --target x86-avx2 -o "$BATS_TEST_TMPDIR/k.o" "$RAKE_ROOT/examples/kernels.rk"
    [ "$status" -eq 0 ]
    [ "$(awk '{ print $1 }' "$f" | tr '\n' ' ')" = "parse check lower opt isel-x86 ra emit as " ]
}

@test "compile-speed-programs: a whole program and a file of kernels, each step group timed, clang compared" {
    command -v clang >/dev/null || skip "no clang"
    run "$RAKE_ROOT/tools/compile-speed-programs" --runs 1 "$RAKE_ROOT/examples/kernels.rk" "$SHARED/conformance/sweeps_grade.rk"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "program "*" front "*" middle "*" back "*" object "*" verify "*" clang "* ]]
    # a file of kernels: no verify step; a whole program: all five, and
    # its ratio marked as a whole program's
    row=$(printf '%s\n' "$output" | awk '$1 == "kernels.rk"')
    [ "$(echo "$row" | awk '{ print NF }')" -eq 10 ]
    echo "$row" | awk '{ for (i = 3; i <= 7; i++) if ($i + 0 <= 0) exit 1; if ($8 + 0 != 0) exit 1 }'
    row=$(printf '%s\n' "$output" | awk '$1 == "sweeps_grade.rk"')
    echo "$row" | awk '{ for (i = 3; i <= 9; i++) if ($i + 0 <= 0) exit 1; if ($10 !~ /\*$/) exit 1 }'
}
