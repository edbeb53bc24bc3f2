# flowdpa - thin wrapper over meson/ninja. `make demo` and `make test` work on a fresh
# Debian 12 or Ubuntu 24.04 machine (their meson is >= 0.63; make itself comes from
# `apt-get install make`): `deps` installs whatever Debian packages are missing.
# `make install` goes to /opt/flowdpa (as NVIDIA's DOCA goes to /opt/mellanox/doca): off
# the default linker and pkg-config paths, so flowdpa's libdoca_*.so never shadow a real
# DOCA. /usr and /usr/local are refused unless FORCE=1.
PREFIX ?= /opt/flowdpa
BUILD ?= build
SAN_BUILD ?= build-sanitize
MESON_OPTS ?=

DEBIAN_PKGS := meson ninja-build pkg-config gcc clang binutils python3 libpcap-dev libcmocka-dev tshark gnuplot-nox
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

CLANG_BUILD ?= build-clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps build build-clang demo test test-sanitize fuzz bench install clean

all: build

deps:
	@missing=""; for p in $(DEBIAN_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# Order-only on deps: under `make -j` meson setup must still wait for meson to be installed.
$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# The same tree with clang, warnings as errors: both compilers must stay clean.
build-clang: deps
	@[ -f $(CLANG_BUILD)/build.ninja ] || CC=clang meson setup $(CLANG_BUILD) $(MESON_OPTS)
	ninja -C $(CLANG_BUILD)

demo: build
	@if [ -x $(BUILD)/samples/demo.sh ] || [ -f samples/demo.sh ]; then \
		BUILD_DIR=$(BUILD) bash samples/demo.sh; \
	else \
		echo "no demo yet: the samples are not written. Built everything; try: $(BUILD)/tools/doca_caps/doca_caps --list-devs"; \
		$(BUILD)/tools/doca_caps/doca_caps --list-devs; \
	fi

test: build
	meson test -C $(BUILD) --print-errorlogs

# The same suites under AddressSanitizer + UndefinedBehaviorSanitizer, in their own tree.
test-sanitize: deps
	@if [ -f $(SAN_BUILD)/build.ninja ]; then \
		meson configure $(SAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false; \
	else \
		meson setup $(SAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS); \
	fi
	ninja -C $(SAN_BUILD)
	meson test -C $(SAN_BUILD) --print-errorlogs

# The libFuzzer harnesses of tests/fuzz in their own tree (clang, ASan+UBSan, coverage
# on the libraries), each for FUZZ_SECONDS; one "fuzz summary:" line per harness with
# its executions per second. A crash fails and names the input to keep in
# tests/fuzz/regress/<harness>/ (docs/fuzzing.md).
fuzz: deps
	@# libFuzzer's runtime is a package of its own (libclang-rt-<version>-dev), not a
	@# dependency of clang's.
	@printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)n * 0; }\n' | \
		clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null || { \
		v=$$(clang -dumpversion | cut -d. -f1); echo "installing: libclang-rt-$$v-dev (libFuzzer)"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libclang-rt-$$v-dev; }
	@if [ -f $(FUZZ_BUILD)/build.ninja ]; then \
		meson setup --reconfigure $(FUZZ_BUILD) -Dfuzz_seconds=$(FUZZ_SECONDS) >/dev/null; \
	else \
		CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Dfuzz_seconds=$(FUZZ_SECONDS) \
			-Db_sanitize=address,undefined -Db_lundef=false $(MESON_OPTS); \
	fi
	ninja -C $(FUZZ_BUILD)
	@meson test -C $(FUZZ_BUILD) --suite fuzzing --print-errorlogs; rc=$$?; \
		grep -h "^fuzz summary:" $(FUZZ_BUILD)/meson-logs/testlog.txt; exit $$rc

# Every benchmark and this tree's tools (doca_flow_dpa_perf sweep) next to the peers of
# ../shared/bench-peers, alternated: bench/results/latest.{json,md,png} (bench/run_all.sh;
# ROUNDS=N, BENCH_MODE=quick). `meson test -C $(BUILD) --benchmark` still runs the meson
# benchmarks alone.
BENCH_MODE ?= full
bench: build
	BENCH_CMD="make bench BUILD=$(BUILD) BENCH_MODE=$(BENCH_MODE)$${ROUNDS:+ ROUNDS=$$ROUNDS}" bash bench/run_all.sh $(BUILD) $(BENCH_MODE)

ifneq ($(filter install,$(MAKECMDGOALS)),)
ifneq ($(FORCE),1)
ifneq ($(filter /usr /usr/local,$(abspath $(PREFIX))),)
$(error PREFIX=$(PREFIX) puts flowdpa's libdoca_*.so on the default linker path, where they shadow a real DOCA; use the default /opt/flowdpa or another prefix (README, "Using it from your project"), or FORCE=1)
endif
endif
endif

install: build
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	meson install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(CLANG_BUILD) $(FUZZ_BUILD)
