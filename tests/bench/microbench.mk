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
MICROBENCH_TEST_SRCS := $(sort $(wildcard $(ROOT)/tests/bench/*.cpp)) \
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
