# Rake: build every pass into bin/, librake into build/, the sanitizer
# build into build-asan/.  `make test` runs everything under tests/.
#
#   make            build bin/
#   make asan       build build-asan/bin/ with ASan and UBSan
#   make test       install missing dependencies, build, run all tests
#   make test-long  the same with ten times the random stack runs
#   make demo       install missing dependencies, build, run the demo
#   make golden     regenerate golden files (review the diff!)

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -ffp-contract=off
CPPFLAGS := -Ilib
LDLIBS  := -ljansson -lm
ASANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=all

PASSES  := $(notdir $(wildcard passes/*))
LIB_SRC := $(wildcard lib/*.c)
LIB_HDR := $(wildcard lib/*.h)
# every pass's own headers (check.h, interp.h, ...): a change rebuilds them all
PASS_HDR := $(wildcard passes/*/*.h)

all: build

# ---- one build tree per flavour --------------------------------------------
# $(1) = output root, $(2) = extra flags
define TREE
$(1)/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $$(@D)
	$$(CC) $$(WARN) $(2) $$(CPPFLAGS) -c $$< -o $$@

$(1)/lib/librake.a: $(patsubst lib/%.c,$(1)/lib/%.o,$(LIB_SRC))
	@rm -f $$@
	ar rcs $$@ $$^

$(1)/passes/%.o: passes/%.c $(LIB_HDR) $(PASS_HDR)
	@mkdir -p $$(@D)
	$$(CC) $$(WARN) $(2) $$(CPPFLAGS) -c $$< -o $$@
endef

$(eval $(call TREE,build,$(CFLAGS)))
$(eval $(call TREE,build-asan,$(ASANFLAGS)))

# bin/NAME from passes/NAME/*.c
define PROG
build/bin/$(1): $(patsubst passes/%.c,build/passes/%.o,$(wildcard passes/$(1)/*.c)) build/lib/librake.a
	@mkdir -p $$(@D)
	$$(CC) $(CFLAGS) -o $$@ $$^ $$(LDLIBS) $$(LDLIBS_$(1))
build-asan/bin/$(1): $(patsubst passes/%.c,build-asan/passes/%.o,$(wildcard passes/$(1)/*.c)) build-asan/lib/librake.a
	@mkdir -p $$(@D)
	$$(CC) $(ASANFLAGS) -o $$@ $$^ $$(LDLIBS) $$(LDLIBS_$(1))
endef
LDLIBS_rake-verify := -lcapstone
$(foreach p,$(PASSES),$(eval $(call PROG,$(p))))

# rake-explore's page template, style sheet and script, as C arrays (xxd -i)
# linked into the program, so the page it writes needs no other file.
EXPLORE_ASSETS := page.html explore.css explore.js
define ASSETS
$(1)/passes/rake-explore/assets.c: $(addprefix passes/rake-explore/,$(EXPLORE_ASSETS))
	@mkdir -p $$(@D)
	cd passes/rake-explore && for f in $(EXPLORE_ASSETS); do xxd -i $$$$f || exit 1; done >$(CURDIR)/$$@.tmp
	mv -f $$@.tmp $$@
$(1)/passes/rake-explore/assets.o: $(1)/passes/rake-explore/assets.c
	$$(CC) $(2) -c $$< -o $$@
$(1)/bin/rake-explore: $(1)/passes/rake-explore/assets.o
endef
$(eval $(call ASSETS,build,$(CFLAGS)))
$(eval $(call ASSETS,build-asan,$(ASANFLAGS)))

# copy and rename, so a binary that is running is replaced, not rewritten
bin/%: build/bin/%
	@mkdir -p bin
	cp $< $@.tmp && mv -f $@.tmp $@

bin/rakec: drivers/rakec
	@mkdir -p bin
	cp $< $@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@

build-asan/bin/rakec: drivers/rakec
	@mkdir -p $(@D)
	cp $< $@.tmp && chmod +x $@.tmp && mv -f $@.tmp $@

build: $(addprefix bin/,$(PASSES)) bin/rakec

asan: $(addprefix build-asan/bin/,$(PASSES)) build-asan/bin/rakec

deps:
	@tools/install-deps --check >/dev/null 2>&1 || tools/install-deps

# the two build trees compile side by side, one job per core
JOBS := $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) -j$(JOBS) build asan
	tests/run-all

# the same suites with ten times the random stack runs (tests/55)
test-long: deps
	$(MAKE) -j$(JOBS) build asan
	RAKE_RUN_FILES=300 tests/run-all

demo: deps
	$(MAKE) -j$(JOBS) build
	tools/demo

golden: build
	tools/update-golden

clean:
	rm -rf bin build build-asan

.PHONY: all build asan deps test test-long demo golden clean

# ---- benchmarks (issue 12): bench/README.md --------------------------------
# `make bench` runs the full suite (a few minutes) and writes
# bench/results/latest.{json,png}; `make bench-smoke` (tiny sizes, checks
# every variant's output, fails only on a build error or a mismatch) is
# run by tests/60-bench-smoke.bats too.
bench: deps
	$(MAKE) -j$(JOBS) build
	bench/run

bench-smoke: deps
	$(MAKE) -j$(JOBS) build
	bench/run --smoke

# Probes of what bounds a kernel (bench/probes/, docs/performance.md)
PROBES := count_mix advance_mix normalise_mix compact_mix safe_root_mix
bench-probes: deps
	mkdir -p bench/build
	for p in $(PROBES); do \
	    $(CC) -std=c11 -D_DEFAULT_SOURCE -O2 -Wall -Wextra -Werror -o bench/build/$$p.tmp bench/probes/$$p.c && \
	    mv -f bench/build/$$p.tmp bench/build/$$p && bench/build/$$p || exit 1; \
	done

.PHONY: bench bench-smoke bench-probes
