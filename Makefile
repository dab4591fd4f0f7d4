# SPDX-License-Identifier: GPL-2.0
#
# ib_srpt C++ port. `make` builds ib_srpt.ko for the installed kernel
# headers; `make check` runs every test suite. See README.md.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
KVER ?= $(shell $(ROOT)/scripts/kver.sh)
# scripts/kheaders.sh: the installed headers, else an unpacked copy of
# Debian's headers packages (a kernel whose headers are not installed, such
# as 6.12, whose headers package would pull in its image; README
# "Supported kernels"). Expanded only by the targets that build.
KDIR ?= $(or $(word 2,$(shell $(ROOT)/scripts/kheaders.sh $(KVER))),/lib/modules/$(KVER)/build)
BUILD := $(ROOT)/build

# Not exported: `make check` installs the headers first, and the sub-makes
# it runs must resolve KVER again rather than inherit a guess made before.
export ROOT

.PHONY: all module install uninstall unit unit-clang check check-integrity clean deps help demo vm-image vm-check bench bench-trace deb man check-dkms

all: module

module:
	@$(ROOT)/scripts/build-module.sh $(KDIR) $(BUILD)/module-build.log

# With DESTDIR (staging, packaging) nothing outside it is touched: no
# depmod of the host's module tree; the target system runs it.
install: module
	install -D -m 0644 $(ROOT)/ib_srpt.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/ib_srpt.ko
	$(if $(DESTDIR),@echo "install: staged in $(DESTDIR); run depmod $(KVER) on the target system",depmod -a $(KVER))

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/ib_srpt.ko
	$(if $(DESTDIR),@true,depmod -a $(KVER))

# The ib-srpt-dkms Debian package (build/deb/) and its manual pages.
deb:
	@$(ROOT)/scripts/install-deps.sh deb
	@$(ROOT)/scripts/make-deb.sh

man:
	@KVER=$(KVER) $(ROOT)/scripts/make-man.sh

# The package installed in a copy of the guest's root filesystem: DKMS
# build, purge, e2e on the DKMS-built module (tests/vm/harness/dkms-check.sh).
check-dkms: deps
	@KVER=$(KVER) $(ROOT)/tests/vm/harness/dkms-check.sh

deps:
	$(ROOT)/scripts/install-deps.sh all

# The guest targets (tests/vm/vm.mk) need the host packages and, for
# SRPT=port, the module: added here as prerequisites, recipes live there.
demo vm-image vm-check bench bench-trace debug-kernel check-debug check-faults: deps
demo vm-check bench bench-trace: module

# ---- Host build of the C++ core (GoogleTest, ASan + UBSan) ----------------

HOST_CXX ?= g++
HOST_OBJ := $(BUILD)/host/obj
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
HOST_CPPFLAGS := -I$(ROOT)/include -I$(ROOT)/tests/host/include
HOST_WARNINGS := -Wall -Wextra -Werror -Wno-missing-field-initializers
HOST_CXXFLAGS := -std=gnu++20 -O1 -g $(HOST_WARNINGS) $(SANITIZE) -MMD -MP
# The core is built as in the kernel: no exceptions, no RTTI.
CORE_CXXFLAGS := -fno-exceptions -fno-rtti

# Kernel-only runtime (global operator new) stays out of the host build.
CORE_SRCS := $(filter-out src/kernel_runtime/%, \
	$(sort $(wildcard src/*.cpp src/*/*.cpp)))
HOST_SRCS := $(sort $(wildcard tests/host/*.cpp))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.cpp))

CORE_OBJS := $(CORE_SRCS:%.cpp=$(HOST_OBJ)/%.o)
HOST_OBJS := $(HOST_SRCS:%.cpp=$(HOST_OBJ)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.cpp=$(HOST_OBJ)/%.o)
UNIT_BIN := $(BUILD)/host/unit_tests

$(HOST_OBJ)/src/%.o: src/%.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(HOST_CPPFLAGS) $(HOST_CXXFLAGS) $(CORE_CXXFLAGS) -c -o $@ $<

$(HOST_OBJ)/tests/%.o: tests/%.cpp
	@mkdir -p $(dir $@)
	$(HOST_CXX) $(HOST_CPPFLAGS) $(HOST_CXXFLAGS) -c -o $@ $<

$(UNIT_BIN): $(CORE_OBJS) $(HOST_OBJS) $(UNIT_OBJS)
	$(HOST_CXX) $(SANITIZE) -o $@ $^ -lgtest -lgmock -lpthread

unit: $(UNIT_BIN)
	$(UNIT_BIN) $(GTEST_ARGS)

-include $(CORE_OBJS:.o=.d) $(HOST_OBJS:.o=.d) $(UNIT_OBJS:.o=.d)

# ---- The same host build with Clang: thread-safety analysis ---------------
# The lock contracts (include/srpt/thread_safety.hpp) are checked at compile
# time: a guarded member touched without its lock, a ...Locked() helper
# called without it, is an error. Then the unit tests run on this build
# too (their AssertHeld() owner checks included). No sanitizers: `unit`
# has them, and this stays quick.

CLANG_CXX ?= clang++
CLANG_OBJ := $(BUILD)/host-clang/obj
# -Wno-c99-designator: the kernel-style [INDEX] = initializers of arrays,
# a GNU extension that g++ takes silently.
CLANG_CXXFLAGS := -std=gnu++20 -O1 -g $(HOST_WARNINGS) -Wthread-safety \
	-Wthread-safety-beta -Wno-c99-designator -MMD -MP
CLANG_CORE_OBJS := $(CORE_SRCS:%.cpp=$(CLANG_OBJ)/%.o)
CLANG_TEST_OBJS := $(HOST_SRCS:%.cpp=$(CLANG_OBJ)/%.o) \
	$(UNIT_SRCS:%.cpp=$(CLANG_OBJ)/%.o)
CLANG_UNIT_BIN := $(BUILD)/host-clang/unit_tests

$(CLANG_OBJ)/src/%.o: src/%.cpp
	@mkdir -p $(dir $@)
	$(CLANG_CXX) $(HOST_CPPFLAGS) $(CLANG_CXXFLAGS) $(CORE_CXXFLAGS) \
		-c -o $@ $<

$(CLANG_OBJ)/tests/%.o: tests/%.cpp
	@mkdir -p $(dir $@)
	$(CLANG_CXX) $(HOST_CPPFLAGS) $(CLANG_CXXFLAGS) -c -o $@ $<

$(CLANG_UNIT_BIN): $(CLANG_CORE_OBJS) $(CLANG_TEST_OBJS)
	$(CLANG_CXX) -o $@ $^ -lgtest -lgmock -lpthread

unit-clang: $(CLANG_UNIT_BIN)
	$(CLANG_UNIT_BIN) $(GTEST_ARGS)

-include $(CLANG_CORE_OBJS:.o=.d) $(CLANG_TEST_OBJS:.o=.d)

# ---- Everything ------------------------------------------------------------

check:
	@$(ROOT)/scripts/check.sh

# The whole data-integrity matrix (every cell of the integrity scenario,
# multipath with path loss), longer than CI allows; make check runs a
# risk-chosen subset. docs/data-integrity.md.
check-integrity: deps module
	@$(ROOT)/scripts/check-integrity.sh

clean:
	$(MAKE) -C $(KDIR) M=$(ROOT) clean
	rm -rf $(BUILD)

help:
	@echo "make            build ib_srpt.ko (KVER=$(KVER))"
	@echo "make install    install under /lib/modules/$(KVER)/updates, depmod"
	@echo "make deb        the ib-srpt-dkms package (build/deb/)"
	@echo "make man        manual pages (build/man/)"
	@echo "make unit       host unit tests (GoogleTest, ASan+UBSan)"
	@echo "make unit-clang the same, built by clang++ -Wthread-safety -Werror"
	@echo "make check      every test suite, ends with 'N passed, N failed'"
	@echo "make check-integrity  the full data-integrity matrix in the guest"
	@echo "make bench-trace      per-stage QD1 times, CPU per I/O, flame graphs: in-tree vs port"
	@echo "make debug-kernel     build/reuse the KASAN+lockdep+kmemleak guest kernel"
	@echo "make check-debug      data/control-path scenarios on it (gate before resolving such changes)"
	@echo "make check-faults     the fault-injection matrix on it (1/5/20 %, 3 rounds, ~95 min)"

# Suites contributed by tests/: guest scenarios, fuzzing, micro-benchmarks.
-include $(ROOT)/tests/vm/vm.mk
-include $(ROOT)/tests/fuzz/fuzz.mk
-include $(ROOT)/tests/bench/microbench.mk
