# Guest test harness targets; included by the top-level Makefile.
# Relies on ROOT (repo top) and KVER when the includer defines them; both
# are resolved here otherwise (KVER never hard-coded: linux-headers-amd64's
# dependency, else the newest /lib/modules/*/build). Override KVER=... .
VM_MK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
ROOT ?= $(abspath $(VM_MK_DIR)/../..)
KVER ?= $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
VM_DIR := $(ROOT)/tests/vm

# SRPT=intree|port: which ib_srpt the guest's target loads (vm-check).
SRPT ?= intree
# demo and bench's B side default to in-tree until the port is declared
# ready to serve I/O (then DEMO_SRPT=port / BENCH_B=port, or change these).
DEMO_SRPT ?= intree
BENCH_B ?= intree
VM_SCENARIOS ?= e2e configfs twohost
VM_ENV = ROOT=$(ROOT) KVER=$(KVER)

.PHONY: vm-image vm-check vm-selftest bench demo

vm-image:
	$(VM_ENV) $(VM_DIR)/build-image.sh

vm-check:
	$(VM_ENV) SRPT=$(SRPT) $(VM_DIR)/run.sh $(VM_SCENARIOS)

# harness self-test: a deliberately broken ib_srpt must make e2e fail
vm-selftest:
	$(VM_ENV) $(VM_DIR)/selftest-broken.sh

bench:
	$(VM_ENV) BENCH_B=$(BENCH_B) $(VM_DIR)/bench.sh

demo:
	@echo "demo: SRPT=$(DEMO_SRPT)$(if $(filter intree,$(DEMO_SRPT)), (in-tree ib_srpt: the default until the port is declared ready; make demo DEMO_SRPT=port runs the port))"
	@$(VM_ENV) SRPT=$(DEMO_SRPT) $(VM_DIR)/run.sh demo; rc=$$?; \
	 echo "----- what the demo did (guest log) -----"; \
	 cat $(or $(VM_ARTIFACTS),$(ROOT)/build/vm-artifacts)/$(DEMO_SRPT)/demo/log 2>/dev/null; exit $$rc
