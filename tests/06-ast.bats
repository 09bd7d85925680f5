#!/usr/bin/env bats
# tests/06-ast.bats: lib/ast.c's child visitor (rk_ast_any_child_at,
# rk_ast_any_child, rk_ast_each_child), which the passes' walkers use to
# reach every child of a node.  tests/ast/children.c builds, for each node kind, a node with
# every child member set and checks that the visitor reaches exactly the
# children its JSON encoding holds, each once, in table order, with their
# keys and indices; it is built against the sanitizer librake and the
# normal one.
load lib/common

# build LIB OUT [FLAGS...]: the unit test against LIB.
build() {
    local lib=$1 out=$2
    shift 2
    [ -f "$lib" ] || {
        echo "no $lib: run 'make build asan' first" >&2
        return 1
    }
    ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I"$RAKE_ROOT/lib" \
        "$@" -o "$out" "$RAKE_ROOT/tests/ast/children.c" "$lib" -ljansson -lm
}

@test "ast: the child visitor reaches every node and list field of every kind once, in table order" {
    build "$RAKE_ROOT/build/lib/librake.a" "$BATS_TEST_TMPDIR/children" -O1 -g
    run "$BATS_TEST_TMPDIR/children"
    echo "$output" >&2
    assert_success
}

@test "ast: the child visitor unit test (sanitizer build)" {
    build "$RAKE_ROOT/build-asan/lib/librake.a" "$BATS_TEST_TMPDIR/children" \
        -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
        -fno-sanitize-recover=all
    run "$BATS_TEST_TMPDIR/children"
    echo "$output" >&2
    assert_success
    refute_output --partial "runtime error"
}
