# A thin layer over CMake so that a newcomer needs two commands:
#   make run    installs what is missing, builds, opens the dashboard
#   make test   installs what is missing, builds, runs every test
#   make install [PREFIX=/usr/local] [DESTDIR=...]   builds, then cmake --install
BUILD ?= build
CMAKE_FLAGS ?=
WORKSPACE ?=
PREFIX ?=

.PHONY: all deps build run test bench fuzz sim install clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j"$$(nproc)"

# No WORKSPACE: the live demo (a temporary workspace with simulated agents).
run: build
	$(if $(WORKSPACE),$(BUILD)/agentctl -w $(WORKSPACE),$(BUILD)/agentctl demo)

# Caches the tests make (session summaries keyed by a temporary workspace)
# go to the build folder, not the caller's ~/.cache.
test: build
	@cd $(BUILD) && rm -rf test-cache && XDG_CACHE_HOME="$$PWD/test-cache" \
		ctest --output-on-failure -j"$$(nproc)"

bench: build
	@bash bench/run.sh $(BUILD)/agentctl

fuzz: deps
	@bash fuzz/run.sh $(FUZZ_SECONDS)

# The deterministic simulator (docs/RELIABILITY.md "Simulation"): SEEDS
# seeds of every scenario, then every planted bug caught within them.
# SIM_MUTATION=NAME plants one bug for the whole run.
SEEDS ?= 1000
sim: build
	@$(BUILD)/agentctl-sim --seeds $(SEEDS)
	@$(if $(SIM_MUTATION),true,$(BUILD)/agentctl-sim --mutations --seeds $(SEEDS))

# The binary, libagentctl (static and shared), headers, agentctl.pc, themes,
# the man page and bash/zsh completion; PREFIX defaults to the configured
# prefix (/usr/local). DESTDIR is honoured, for packaging.
install: build
	@cmake --install $(BUILD) $(if $(PREFIX),--prefix "$(PREFIX)")

clean:
	rm -rf $(BUILD)
