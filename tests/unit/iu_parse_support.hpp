/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the parse_iu() tests (iu_parse_*_test.cpp) share: gtest printers
 * of the parse results, and an SRP_CMD hand-built at srp.h offsets in a
 * buffer of exactly the received size (so ASan catches any read past
 * wc.byte_len), parsed against the limits of a default login.
 */
#ifndef SRPT_TEST_IU_PARSE_SUPPORT_HPP
#define SRPT_TEST_IU_PARSE_SUPPORT_HPP

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <vector>

#include <srpt/iu_parse.hpp>

namespace srpt
{

/* gtest prints these by name */
inline void PrintTo(CmdCheck c, std::ostream *os)
{
	*os << describe(c);
}
inline void PrintTo(DropReason d, std::ostream *os)
{
	*os << describe(d);
}
inline void PrintTo(IuAction a, std::ostream *os)
{
	static const char *const names[] = {
	    "ExecuteCmd", "RejectCmd", "TaskMgmt", "RejectTaskMgmt",
	    "Logout",	  "Ignore",    "Drop"};
	*os << names[static_cast<int>(a)];
}

namespace iu_parse_test
{

inline void put_be(std::vector<uint8_t> &b, size_t off, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[off + i] = static_cast<uint8_t>(v);
}

inline constexpr uint8_t kTagBytes[8] = {0x10, 0x11, 0x12, 0x13,
					 0x14, 0x15, 0x16, 0x17};

inline uint64_t tag_value()
{
	uint64_t v;
	std::memcpy(&v, kTagBytes, 8);
	return v;
}

/* An SRP_CMD assembled byte by byte. */
struct CmdIu {
	std::vector<uint8_t> b = std::vector<uint8_t>(48, 0);

	CmdIu()
	{
		b[0] = 0x02;
		std::memcpy(&b[8], kTagBytes, 8);
		b[20] = 0x00, b[21] = 0x05; /* LUN 5 */
		b[29] = 0x00;		    /* SIMPLE */
		b[32] = 0x28;		    /* READ(10) */
	}
	CmdIu &fmt(uint8_t out, uint8_t in)
	{
		b[5] = static_cast<uint8_t>(out << 4 | in);
		return *this;
	}
	CmdIu &counts(uint8_t out, uint8_t in)
	{
		b[6] = out, b[7] = in;
		return *this;
	}
	CmdIu &add_cdb(uint8_t len, size_t bytes)
	{
		b[31] = len;
		b.insert(b.end(), bytes, 0xcd);
		return *this;
	}
	CmdIu &direct(uint64_t va, uint32_t key, uint32_t len)
	{
		const size_t o = b.size();
		b.resize(o + 16);
		put_be(b, o, va, 8);
		put_be(b, o + 8, key, 4);
		put_be(b, o + 12, len, 4);
		return *this;
	}
	CmdIu &indirect_hdr(uint32_t table_len, uint32_t total)
	{
		const size_t o = b.size();
		b.resize(o + 20);
		put_be(b, o, 0xfeedull, 8);
		put_be(b, o + 8, 0x99, 4);
		put_be(b, o + 12, table_len, 4);
		put_be(b, o + 16, total, 4);
		return *this;
	}
	/* header + entries, counts and lengths consistent */
	CmdIu &indirect(const std::vector<uint32_t> &lens, bool data_out)
	{
		uint32_t total = 0;
		for (auto l : lens)
			total += l;
		const auto n = static_cast<uint8_t>(lens.size());
		data_out ? counts(n, 0) : counts(0, n);
		indirect_hdr(static_cast<uint32_t>(lens.size() * 16), total);
		for (size_t i = 0; i < lens.size(); i++)
			direct(0x1000 * (i + 1), 0x40 + i, lens[i]);
		return *this;
	}
	CmdIu &imm(uint32_t len)
	{
		const size_t o = b.size();
		b.resize(o + 4);
		put_be(b, o, len, 4);
		return *this;
	}
	CmdIu &pad_to(size_t n, uint8_t v = 0x5a)
	{
		b.resize(n, v);
		return *this;
	}
};

inline ChannelLimits limits()
{
	return ChannelLimits{8260, 68, 1u << 20, 255};
}

inline IuParseResult parse(const std::vector<uint8_t> &b,
			   const ChannelLimits &lim = limits())
{
	return parse_iu(std::span<const uint8_t>(b.data(), b.size()), lim);
}

/* The outcome of a command that must be rejected with @check. */
inline void expect_reject(const std::vector<uint8_t> &b, CmdCheck check,
			  const ChannelLimits &lim = limits())
{
	const auto r = parse(b, lim);
	EXPECT_EQ(r.action, IuAction::RejectCmd);
	EXPECT_EQ(r.cmd_check, check) << describe(r.cmd_check);
	EXPECT_EQ(r.tag, tag_value());
	EXPECT_TRUE(r.consumes_credit);
	EXPECT_TRUE(r.needs_send_context());
}

} // namespace iu_parse_test
} // namespace srpt

#endif
