# Entry points. `make run` and `make test` do all the set-up on a fresh Debian 12 machine.
JOBS ?= $(shell nproc)
BUILD ?= build
CMAKE_FLAGS ?=

.PHONY: all deps release run readme test property-long asan bench fuzz tidy format format-check clean

all: release

deps:
	@./scripts/install-deps.sh

$(BUILD)/release/CMakeCache.txt:
	cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release -DCORRAL_WERROR=ON $(CMAKE_FLAGS)

release: deps $(BUILD)/release/CMakeCache.txt
	cmake --build $(BUILD)/release -j$(JOBS)

# The main job on its built-in default input: the fleet simulator's default scenario (a day in a
# 2,000-node cluster); prints the summary and writes corral-report.html. Builds only the CLI.
run: deps $(BUILD)/release/CMakeCache.txt
	cmake --build $(BUILD)/release --target corral -j$(JOBS)
	$(BUILD)/release/tools/corral/corral simulate

# Rewrites README.md's CLI tour from what the commands print now (the readme_tour test checks it).
readme: deps $(BUILD)/release/CMakeCache.txt
	cmake --build $(BUILD)/release --target corral -j$(JOBS)
	python3 scripts/readme-tour.py --corral $(BUILD)/release/tools/corral/corral

# The whole test suite (unit, golden end-to-end, property tests, the fuzz targets over their seed corpora).
test: release
	ctest --test-dir $(BUILD)/release --output-on-failure -j$(JOBS)

# The long property runs (thousands of random cases; excluded from `make test`).
property-long: release
	ctest --test-dir $(BUILD)/release --output-on-failure -C property_long -L property_long

# Debug build with AddressSanitizer + UndefinedBehaviorSanitizer, whole suite.
asan: deps
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DCORRAL_WERROR=ON -DCORRAL_SANITIZE="address;undefined"
	cmake --build $(BUILD)/asan -j$(JOBS)
	ctest --test-dir $(BUILD)/asan --output-on-failure -j$(JOBS)

# Google Benchmark targets (opt-in; heavy).
bench: deps
	cmake -S . -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release -DCORRAL_BUILD_BENCHMARKS=ON -DCORRAL_BUILD_TESTS=OFF
	cmake --build $(BUILD)/bench -j$(JOBS)

# libFuzzer targets built with clang; FUZZ_SECONDS per target (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	CXX=clang++ cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCORRAL_BUILD_FUZZERS=ON -DCORRAL_BUILD_TESTS=OFF
	cmake --build $(BUILD)/fuzz -j$(JOBS)
	./scripts/run-fuzzers.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

tidy: deps
	cmake -S . -B $(BUILD)/tidy -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_CLANG_TIDY=clang-tidy
	cmake --build $(BUILD)/tidy -j$(JOBS)

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

# Fails when a source file differs from what .clang-format makes of it, or when a comment has a
# one-word line (a contract comment that clang-format re-wrapped, or a split `// ----` divider;
# scripts/check-comment-prose.py says what is flagged and how to exempt an intentional one).
format-check:
	git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror
	git ls-files '*.h' '*.cc' | xargs python3 scripts/check-comment-prose.py

clean:
	rm -rf $(BUILD)
