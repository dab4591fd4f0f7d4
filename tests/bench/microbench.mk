# SPDX-License-Identifier: GPL-2.0
#
# Micro-benchmarks of the per-I/O path (Google Benchmark), included by the
# top Makefile. `make microbench` builds build/bench/microbench (-O2, no
# sanitizers, on the host platform of tests/host) and runs it;
# MICROBENCH_ARGS passes options, e.g. --benchmark_filter=Channel.

MICROBENCH_DIR := $(ROOT)/build/bench
MICROBENCH_BIN := $(MICROBENCH_DIR)/microbench
MICROBENCH_CXX ?= g++
MICROBENCH_CXXFLAGS := -std=gnu++20 -O2 -g -DNDEBUG -Wall -Wextra -Werror \
	-Wno-missing-field-initializers \
	-I$(ROOT)/include -I$(ROOT)/tests/host/include
# The core as it is built for the module: no exceptions, no RTTI.
MICROBENCH_CORE_FLAGS := -fno-exceptions -fno-rtti

# What the benchmarks exercise: the channel core, the IU parser and
# builders (and what they need), the host platform.
MICROBENCH_CORE_SRCS := $(sort $(wildcard $(ROOT)/src/datapath/*.cpp)) \
	$(addprefix $(ROOT)/src/,iu_parse.cpp iu_build.cpp login.cpp log.cpp)
MICROBENCH_TEST_SRCS := $(filter-out %/cost_gate_test.cpp,$(sort $(wildcard $(ROOT)/tests/bench/*.cpp))) \
	$(ROOT)/tests/host/platform_host.cpp \
	$(ROOT)/tests/host/trace_host.cpp

MICROBENCH_CORE_OBJS := $(patsubst $(ROOT)/%.cpp,$(MICROBENCH_DIR)/obj/%.o,$(MICROBENCH_CORE_SRCS))
MICROBENCH_TEST_OBJS := $(patsubst $(ROOT)/%.cpp,$(MICROBENCH_DIR)/obj/%.o,$(MICROBENCH_TEST_SRCS))

$(MICROBENCH_CORE_OBJS): $(MICROBENCH_DIR)/obj/%.o: $(ROOT)/%.cpp
	@mkdir -p $(dir $@)
	$(MICROBENCH_CXX) $(MICROBENCH_CXXFLAGS) $(MICROBENCH_CORE_FLAGS) -MMD -MP -c -o $@ $<

$(MICROBENCH_TEST_OBJS): $(MICROBENCH_DIR)/obj/%.o: $(ROOT)/%.cpp
	@mkdir -p $(dir $@)
	$(MICROBENCH_CXX) $(MICROBENCH_CXXFLAGS) -MMD -MP -c -o $@ $<

$(MICROBENCH_BIN): $(MICROBENCH_CORE_OBJS) $(MICROBENCH_TEST_OBJS)
	$(MICROBENCH_CXX) -o $@ $^ -lbenchmark -lpthread

.PHONY: microbench
microbench: $(MICROBENCH_BIN)
	$(MICROBENCH_BIN) $(MICROBENCH_ARGS)

-include $(MICROBENCH_CORE_OBJS:.o=.d) $(MICROBENCH_TEST_OBJS:.o=.d)

# ---- The instruction gate of the data path (suite `cost` of make check) --
# tests/bench/cost-gate.sh runs build/bench/cost_gate under callgrind and
# compares the instructions per command with tests/bench/cost-bound.txt.
# The whole C++ side and the host's fake glue, -O2, no sanitizers, as the
# module is built; COST_GATE_EXTRA (the gate's self-test) slows the
# measured function only.
COST_GATE_DIR := $(ROOT)/build/bench/cost
COST_GATE_BIN := $(ROOT)/build/bench/cost_gate
COST_GATE_CORE_SRCS := $(filter-out $(ROOT)/src/kernel_runtime/%, \
	$(sort $(wildcard $(ROOT)/src/*.cpp $(ROOT)/src/*/*.cpp)))
COST_GATE_TEST_SRCS := $(sort $(wildcard $(ROOT)/tests/host/*.cpp)) \
	$(ROOT)/tests/unit/test_main.cpp
COST_GATE_CXXFLAGS := $(MICROBENCH_CXXFLAGS) -I$(ROOT)/tests/unit
COST_GATE_CORE_OBJS := $(patsubst $(ROOT)/%.cpp,$(COST_GATE_DIR)/%.o,$(COST_GATE_CORE_SRCS))
COST_GATE_TEST_OBJS := $(patsubst $(ROOT)/%.cpp,$(COST_GATE_DIR)/%.o,$(COST_GATE_TEST_SRCS))

$(COST_GATE_CORE_OBJS): $(COST_GATE_DIR)/%.o: $(ROOT)/%.cpp
	@mkdir -p $(dir $@)
	$(MICROBENCH_CXX) $(COST_GATE_CXXFLAGS) $(MICROBENCH_CORE_FLAGS) -MMD -MP -c -o $@ $<

$(COST_GATE_TEST_OBJS): $(COST_GATE_DIR)/%.o: $(ROOT)/%.cpp
	@mkdir -p $(dir $@)
	$(MICROBENCH_CXX) $(COST_GATE_CXXFLAGS) -MMD -MP -c -o $@ $<

# The driver is built per COST_GATE_EXTRA (0: the gate; >0: its self-test).
COST_GATE_EXTRA ?= 0
$(COST_GATE_DIR)/cost_gate_test.$(COST_GATE_EXTRA).o: $(ROOT)/tests/bench/cost_gate_test.cpp
	@mkdir -p $(dir $@)
	$(MICROBENCH_CXX) $(COST_GATE_CXXFLAGS) -DCOST_GATE_EXTRA=$(COST_GATE_EXTRA) -MMD -MP -c -o $@ $<

$(COST_GATE_BIN).$(COST_GATE_EXTRA): $(COST_GATE_CORE_OBJS) $(COST_GATE_TEST_OBJS) $(COST_GATE_DIR)/cost_gate_test.$(COST_GATE_EXTRA).o
	$(MICROBENCH_CXX) -o $@ $^ -lgtest -lgmock -lpthread

.PHONY: cost-gate cost-gate-bin
cost-gate-bin: $(COST_GATE_BIN).$(COST_GATE_EXTRA)
cost-gate:
	@$(ROOT)/tests/bench/cost-gate.sh

-include $(COST_GATE_CORE_OBJS:.o=.d) $(COST_GATE_TEST_OBJS:.o=.d)
