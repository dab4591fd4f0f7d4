/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Number parsing with the kernel's kstrto*() semantics, so that configfs
 * and module parameters accept and refuse exactly what the in-tree driver
 * does: an optional '+', a radix prefix when base is 0 ("0x" hex, "0"
 * octal) or "0x" when base is 16, digits, at most one trailing newline.
 */
#ifndef SRPT_KSTRTO_HPP
#define SRPT_KSTRTO_HPP

#include <srpt/status.hpp>
#include <stdint.h>

namespace srpt
{

/* kstrtoull(): kInvalid for malformed text, kRange past 64 bits. */
Result<uint64_t> ParseU64(const char *text, unsigned base);
/* kstrtou16(): also kRange for a value that does not fit 16 bits. */
Result<uint16_t> ParseU16(const char *text, unsigned base);

} // namespace srpt

#endif
