#!/usr/bin/env bats
# The vendored tests/shared/ must equal ../shared/ where that exists.
load lib/common

@test "tests/shared matches ../shared (run tools/sync-shared if not)" {
    [ -d "$RAKE_ROOT/../shared/spec" ] || skip "no ../shared beside this checkout"
    for d in spec conformance data notes reference; do
        run diff -r "$RAKE_ROOT/../shared/$d" "$RAKE_ROOT/tests/shared/$d"
        assert_success
    done
}
