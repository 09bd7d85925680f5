# tests/lib/common.bash: shared set-up for the BATS suites.
# RAKE_ROOT is the checkout; BIN the normal build; ASAN_BIN the sanitizer
# build; SHARED the read-only spec, conformance and data folders.
RAKE_ROOT=${RAKE_ROOT:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)}
BIN=$RAKE_ROOT/bin
ASAN_BIN=$RAKE_ROOT/build-asan/bin
# The vendored copy (tools/sync-shared) unless RAKE_SHARED names another.
SHARED=${RAKE_SHARED:-$RAKE_ROOT/tests/shared}
export RAKE_ROOT BIN ASAN_BIN SHARED
export PATH="$BIN:$PATH"
# Sanitizer runs stop at the first report.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Passes run by hand write indented documents, as the golden files are;
# rakec sets RAKE_IR_PRETTY itself (compact between its passes).
export RAKE_IR_PRETTY=1

if [ -d /usr/lib/bats/bats-support ]; then
    load /usr/lib/bats/bats-support/load
    load /usr/lib/bats/bats-assert/load
fi
