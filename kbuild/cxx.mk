# SPDX-License-Identifier: GPL-2.0
#
# Compiling C++ inside Kbuild. The rule mirrors the kernel's own rule_cc_o_c
# so that fixdep dependency tracking, flag-change rebuilds (if_changed) and
# objtool keep working for .cpp files. See docs/build.md for why each flag
# is here.

# The g++ of the kernel's gcc: Debian's 6.1 headers say CC=gcc-12 (g++-12),
# its 6.12 headers x86_64-linux-gnu-gcc-12 (x86_64-linux-gnu-g++-12).
CXX_KERNEL ?= $(patsubst %gcc,%g++,$(subst gcc-,g++-,$(CC)))
ifeq ($(CXX_KERNEL),$(CC))
$(error cannot derive a C++ compiler from CC=$(CC): set CXX_KERNEL)
endif

srpt-gcc-include := $(shell $(CXX_KERNEL) -print-file-name=include)
srpt-gcc-version := $(shell $(CXX_KERNEL) -dumpversion)
srpt-gcc-machine := $(shell $(CXX_KERNEL) -dumpmachine)

# C-only options the kernel passes that g++ rejects or warns about.
srpt-cxx-remove := -std=gnu11 -std=gnu89 \
	-Werror=strict-prototypes -Wstrict-prototypes \
	-Werror=implicit-function-declaration -Werror=implicit-int \
	-Wno-pointer-sign -Werror=incompatible-pointer-types \
	-Werror=designated-init -Wmissing-prototypes -Wold-style-definition \
	-Wold-style-declaration -Wnested-externs -Wbad-function-cast \
	-Wdeclaration-after-statement -Wimplicit -Wint-conversion \
	-Wdiscarded-qualifiers -Wmissing-parameter-type \
	-Werror=incompatible-pointer-types -Wno-override-init

# No kernel include path reaches C++: only GCC's freestanding headers, the
# header-only part of libstdc++ (with a stub features.h) and our own.
srpt-cxx-flags := -std=gnu++20 -nostdinc -nostdinc++ \
	-isystem $(srpt-gcc-include) \
	-isystem $(src)/kbuild/freestanding \
	-isystem /usr/include/c++/$(srpt-gcc-version) \
	-isystem /usr/include/$(srpt-gcc-machine)/c++/$(srpt-gcc-version) \
	-ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-fno-use-cxa-atexit -fcheck-new -fno-gnu-unique \
	-Wall -Wextra $(srpt-werror) -Wno-missing-field-initializers \
	-I$(src)/include -I$(obj)/generated

# Module BTF: pahole (1.24 in Debian 12) cannot encode C++ DWARF and the
# kernel then deletes the .ko. Our build (scripts/build-module.sh) turns
# module BTF off for this module and keeps full DWARF, so C++ frames
# decode to file:line. A plain `make -C $KDIR M=...` (or DKMS) keeps the
# kernel's module BTF, which is only generated when the headers ship a
# vmlinux (6.12 does, 6.1 does not): then the C++ objects get no debug
# info, so the .ko still builds. docs/build.md, "Debug info and BTF".
ifneq ($(CONFIG_DEBUG_INFO_BTF_MODULES),)
ifneq ($(wildcard $(objtree)/vmlinux),)
srpt-cxx-flags += -g0
endif
endif

cxx_flags = -Wp,-MMD,$(depfile) \
	$(filter-out $(srpt-cxx-remove),$(_c_flags) $(modkern_cflags)) \
	$(basename_flags) $(modname_flags) $(srpt-cxx-flags)

# COMDAT groups (inline functions, templates, vtables emitted by several
# objects) break the module link: "defined in discarded section". After
# objtool has seen the object, drop the groups; with -fno-gnu-unique the
# duplicates are plain weak symbols and one wins.
#
# Global constructors never run in a module (no CONFIG_CONSTRUCTORS): an
# object that needs one is rejected here rather than misbehaving at load.
#
# Under KASAN (the check-debug kernel; it selects CONSTRUCTORS) the compiler
# registers each object's globals with the shadow from a function of its
# own, _sub_I_<priority>_<n> in .init_array (and _sub_D_ in .fini_array),
# exactly as for the kernel's C objects, and the module loader runs it. Only
# those are accepted there: every function in .text.startup/.text.exit must
# be such a sanitizer stub, so a C++ dynamic initializer (_GLOBAL__sub_I_*)
# still fails the build on every kernel.
ifdef CONFIG_KASAN
srpt-ctor-check = $(OBJDUMP) -t $@ | \
	awk '/[[:space:]]\.text\.(startup|exit)[[:space:]]/ && $$NF !~ /^\.text\./ {print $$NF}' | \
	grep -vqE '^_sub_[ID]_[0-9]+_[0-9]+$$' || \
	$(READELF) -SW $@ | grep -qE '\.(ctors|dtors)' || \
	$(OBJDUMP) -t $@ | grep -qE '[[:space:]]_GLOBAL__sub_[ID]_'
else
srpt-ctor-check = $(READELF) -SW $@ | grep -qE '\.(init_array|ctors|fini_array|dtors)'
endif
cmd_srpt_cxx_post = ; $(OBJCOPY) --remove-section=.group $@ \
	; if $(srpt-ctor-check); then \
		echo "error: $@ needs global constructors or destructors (not run in modules)" >&2; \
		rm -f $@; exit 1; fi

quiet_cmd_cc_o_cpp = CXX $(quiet_modtag) $@
      cmd_cc_o_cpp = $(CXX_KERNEL) $(cxx_flags) -c -o $@ $< \
		$(cmd_objtool) $(cmd_srpt_cxx_post)

define rule_cc_o_cpp
	$(call cmd_and_fixdep,cc_o_cpp)
	$(call cmd,gen_objtooldep)
endef

$(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_rule,cc_o_cpp)
