# A thin layer over CMake so that a newcomer needs two commands:
#   make run    installs what is missing, builds, opens the dashboard
#   make test   installs what is missing, builds, runs every test
BUILD ?= build
CMAKE_FLAGS ?=
WORKSPACE ?=

.PHONY: all deps build run test bench fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j"$$(nproc)"

# No WORKSPACE: the live demo (a temporary workspace with simulated agents).
run: build
	$(if $(WORKSPACE),$(BUILD)/agentctl -w $(WORKSPACE),$(BUILD)/agentctl demo)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j"$$(nproc)"

bench: build
	@bash bench/run.sh $(BUILD)/agentctl

fuzz: deps
	@bash fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
