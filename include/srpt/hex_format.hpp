/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fixed-size text without snprintf or string.h: the core has no C library,
 * and names such as port GUIDs and GIDs are plain hexadecimal.
 */
#ifndef SRPT_HEX_FORMAT_HPP
#define SRPT_HEX_FORMAT_HPP

#include <stddef.h>
#include <stdint.h>

namespace srpt
{

/*
 * Appends to a NUL-terminated buffer of N bytes. Text that does not fit is
 * cut and the builder remembers it (truncated()).
 */
template <size_t N>
class TextBuilder
{
	static_assert(N > 0);

public:
	explicit TextBuilder(char (&buf)[N]) : buf_(buf) { buf_[0] = '\0'; }

	TextBuilder &Char(char c)
	{
		if (len_ + 1 < N) {
			buf_[len_++] = c;
			buf_[len_] = '\0';
		} else {
			truncated_ = true;
		}
		return *this;
	}

	TextBuilder &Str(const char *s)
	{
		while (*s)
			Char(*s++);
		return *this;
	}

	/* @digits lowercase hex digits of @value, zero-padded. */
	TextBuilder &Hex(uint64_t value, unsigned digits)
	{
		for (unsigned i = digits; i-- > 0;)
			Char("0123456789abcdef"[(value >> (4 * i)) & 0xf]);
		return *this;
	}

	size_t length() const { return len_; }
	bool truncated() const { return truncated_; }

private:
	char *buf_;
	size_t len_ = 0;
	bool truncated_ = false;
};

/* Big-endian bytes to an integer (e.g. the two halves of a GID). */
constexpr uint64_t LoadBe64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

/*
 * "0x" + 32 lowercase hex digits of 16 big-endian bytes: the in-tree name
 * of a port GID and of an SRP initiator port id alike.
 */
constexpr size_t kHexIdSize = sizeof("0x") + 32;
inline void FormatHexId(const uint8_t (&id)[16], char (&out)[kHexIdSize])
{
	TextBuilder<kHexIdSize>(out)
	    .Str("0x")
	    .Hex(LoadBe64(id), 16)
	    .Hex(LoadBe64(id + 8), 16);
}

/* A channel, session or source name: cut to fit, NUL-terminated. */
inline void CopyName(char (&dst)[64], const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < sizeof(dst); i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

inline bool StrEqual(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

} // namespace srpt

#endif
