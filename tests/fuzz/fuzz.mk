# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer targets of the protocol core (included by the top Makefile,
# which defines ROOT).
#   make fuzz         each target for FUZZ_SECONDS (default 600), one at a time
#   make fuzz-smoke   each target for FUZZ_SMOKE_SECONDS (default 20)
#   make fuzz-build   build only
# Binaries, logs, grown corpora and crash artifacts: $(ROOT)/build/fuzz/.
# Seeds: tests/fuzz/corpus/<target>/ (regenerate: tests/fuzz/make_corpus.py).
# Reproduce a crash: build/fuzz/<target>_fuzz build/fuzz/artifacts/<target>/crash-*

FUZZ_CXX ?= clang++-14
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_OUT := $(ROOT)/build/fuzz
FUZZ_TARGETS := iu_parse login mad
FUZZ_CORE_SRCS := $(addprefix $(ROOT)/src/, \
	iu_parse.cpp login.cpp iu_build.cpp mad_protocol.cpp)
FUZZ_HDRS := $(wildcard $(ROOT)/include/srpt/*.hpp $(ROOT)/include/srpt/wire/*.hpp)
FUZZ_CXXFLAGS := -std=gnu++20 -g -O1 -Wall -Wextra -Werror \
	-fno-exceptions -fno-rtti -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I$(ROOT)/include
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_OUT)/%_fuzz)

.PHONY: fuzz fuzz-smoke fuzz-build

$(FUZZ_OUT)/%_fuzz: $(ROOT)/tests/fuzz/%_fuzz.cpp $(FUZZ_CORE_SRCS) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -o $@ $< $(FUZZ_CORE_SRCS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@$(ROOT)/tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_OUT) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	@$(ROOT)/tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_OUT) $(FUZZ_TARGETS)
