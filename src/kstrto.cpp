// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/kstrto.hpp>

namespace srpt
{

static int DigitValue(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

static bool IsHexDigit(char c)
{
	return DigitValue(c) < 16;
}

static char Lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

Result<uint64_t> ParseU64(const char *text, unsigned base)
{
	const char *p = text;

	if (*p == '+')
		p++;
	/* The kernel's _parse_integer_fixup_radix(). */
	if (base == 0) {
		if (p[0] == '0')
			base = Lower(p[1]) == 'x' && IsHexDigit(p[2]) ? 16 : 8;
		else
			base = 10;
	}
	if (base == 16 && p[0] == '0' && Lower(p[1]) == 'x')
		p += 2;
	if (base < 2 || base > 16)
		return Status::kInvalid;

	uint64_t value = 0;
	bool overflow = false;
	const char *digits = p;
	for (;; p++) {
		const int d = DigitValue(*p);
		if (d >= static_cast<int>(base))
			break;
		if (__builtin_mul_overflow(value, base, &value) ||
		    __builtin_add_overflow(value, static_cast<uint64_t>(d),
					   &value))
			overflow = true;
	}
	if (p == digits)
		return Status::kInvalid;
	if (*p == '\n')
		p++;
	if (*p != '\0')
		return Status::kInvalid;
	if (overflow)
		return Status::kRange;
	return value;
}

Result<uint16_t> ParseU16(const char *text, unsigned base)
{
	const Result<uint64_t> wide = ParseU64(text, base);
	if (!wide.ok())
		return wide.status();
	if (*wide > 0xffff)
		return Status::kRange;
	return static_cast<uint16_t>(*wide);
}

} // namespace srpt
