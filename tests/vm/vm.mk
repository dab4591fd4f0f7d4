# Guest test harness targets; included by the top-level Makefile.
# Relies on ROOT (repo top) and KVER when the includer defines them; both
# are resolved here otherwise (KVER: scripts/kver.sh, as the top Makefile
# does). Override KVER=... .
VM_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ROOT ?= $(abspath $(VM_MK_DIR)/../..)
KVER ?= $(shell $(ROOT)/scripts/kver.sh)
VM_DIR := $(ROOT)/tests/vm

# SRPT=intree|port: which ib_srpt the guest's target loads (vm-check).
SRPT ?= intree
# The port serves I/O (e2e passes with SRPT=port): the demo runs it, and
# bench compares it (B) with the in-tree driver (A). DEMO_SRPT=intree or
# BENCH_B=intree gives the in-tree driver (B=intree: A/A, shows the noise).
# bench also reads BENCH_ROUNDS (7, the minimum), BENCH_RUNTIME,
# BENCH_MAX_LOAD (0.5), BENCH_LOAD_WAIT (120 s) and BENCH_FORCE from the
# environment or the command line (tests/vm/bench/bench.sh, docs/testing-vm.md).
DEMO_SRPT ?= port
BENCH_B ?= port
VM_SCENARIOS ?= e2e configfs twohost
VM_ENV = ROOT=$(ROOT) KVER=$(KVER)

.PHONY: vm-image vm-check vm-selftest bench bench-trace demo blktests-srp debug-kernel check-debug check-faults

vm-image:
	$(VM_ENV) $(VM_DIR)/harness/build-image.sh

vm-check:
	$(VM_ENV) SRPT=$(SRPT) $(VM_DIR)/harness/run.sh $(VM_SCENARIOS)

# harness self-test: a deliberately broken ib_srpt must make e2e fail
vm-selftest:
	$(VM_ENV) $(VM_DIR)/selftest/selftest-broken.sh

bench:
	$(VM_ENV) BENCH_B=$(BENCH_B) $(VM_DIR)/bench/bench.sh

# Where one QD1 command's time and the target's CPU go, per driver: kprobe
# stages, CPU per I/O at QD1 and QD32, flame graphs (tests/vm/bench/bench-trace.sh;
# BT_TRACE_S, BT_CPU_S, BT_PERF_HZ from the environment).
bench-trace:
	$(VM_ENV) BENCH_B=$(BENCH_B) $(VM_DIR)/bench/bench-trace.sh

demo:
	@echo "demo: SRPT=$(DEMO_SRPT)$(if $(filter intree,$(DEMO_SRPT)), (the in-tree ib_srpt),  (the port: ib_srpt.ko of this tree))"
	@$(VM_ENV) SRPT=$(DEMO_SRPT) $(VM_DIR)/harness/run.sh demo; rc=$$?; \
	 echo "----- what the demo did (guest log) -----"; \
	 cat $(or $(VM_ARTIFACTS),$(ROOT)/build/vm-artifacts)/$(DEMO_SRPT)/demo/log 2>/dev/null; exit $$rc

# The public blktests srp group in one guest (tests/vm/harness/blktests.sh,
# docs/blktests-srp.md): BLKTESTS=/path/to/a/blktests/checkout (outside this
# repository), SRPT=intree|port as for vm-check.
blktests-srp:
	@test -n "$(BLKTESTS)" || { echo "usage: make blktests-srp BLKTESTS=/path/to/blktests [SRPT=port|intree]"; exit 2; }
	$(VM_ENV) SRPT=$(SRPT) $(VM_DIR)/harness/blktests.sh $(BLKTESTS)

# The check-debug guest kernel (KASAN, lockdep, kmemleak, DEBUG_OBJECTS,
# KFENCE, fault injection), cached under $(SRPT_VM_CACHE)/debug-kernel/;
# check-debug runs the data/control-path scenarios on it with the checkers'
# dmesg gate (docs/debug-kernel.md). DEBUG_SCENARIOS, SRPT=intree.
debug-kernel:
	$(VM_ENV) $(VM_DIR)/harness/build-debug-kernel.sh

# SRPT defaults to port here (vm.mk's SRPT default is intree): only an
# SRPT given on the command line or in the environment changes it.
check-debug:
	$(VM_ENV) SRPT=$(if $(filter command line environment,$(origin SRPT)),$(SRPT),port) \
		$(ROOT)/scripts/check-debug.sh

# The fault-injection scenario's whole matrix on the debug kernel: every
# point at 1, 5 and 20 %, three rounds each (~95 min on 2 cores); check-debug
# runs it at 20 %, one round (docs/debug-kernel.md, "Fault injection").
check-faults:
	$(VM_ENV) SRPT=port DEBUG_SCENARIOS=port-faults VMENV_FAULT_RATES="1 5 20" \
		VMENV_FAULT_ROUNDS=3 $(ROOT)/scripts/check-debug.sh
