// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Wire types: byte order of Be16/32/64 and the offsets of SRP IU and DM MAD
 * fields, checked against raw bytes (offsets from include/scsi/srp.h,
 * rdma/ib_mad.h and ib_dm_mad.h).
 */
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstring>

#include <srpt/wire/dm_mad.hpp>
#include <srpt/wire/endian.hpp>
#include <srpt/wire/srp.hpp>

namespace srpt::wire
{
namespace
{

template <typename T>
std::array<uint8_t, sizeof(T)> bytes_of(const T &v)
{
	std::array<uint8_t, sizeof(T)> b;
	std::memcpy(b.data(), &v, sizeof(T));
	return b;
}

TEST(WireEndian, Be16StoresMostSignificantByteFirst)
{
	Be16 v{};
	v.set(0x1234);
	EXPECT_EQ(bytes_of(v), (std::array<uint8_t, 2>{0x12, 0x34}));
	EXPECT_EQ(v.get(), 0x1234);
}

TEST(WireEndian, Be32StoresMostSignificantByteFirst)
{
	Be32 v{};
	v.set(0x01020304);
	EXPECT_EQ(bytes_of(v), (std::array<uint8_t, 4>{1, 2, 3, 4}));
	EXPECT_EQ(v.get(), 0x01020304u);
}

TEST(WireEndian, Be64RoundTripsAllBytes)
{
	Be64 v{};
	v.set(0x0102030405060708ull);
	EXPECT_EQ(bytes_of(v),
		  (std::array<uint8_t, 8>{1, 2, 3, 4, 5, 6, 7, 8}));
	EXPECT_EQ(v.get(), 0x0102030405060708ull);
	v.set(~0ull);
	EXPECT_EQ(v.get(), ~0ull);
}

/*
 * get()/set() have two paths: a byte loop in constant evaluation, a load
 * and a byte swap at run time. Both must give the same bytes and values.
 */
template <typename B, typename T>
constexpr B set_to(T v)
{
	B b{};
	b.set(v);
	return b;
}

template <typename B, typename T>
void expect_paths_agree(T v)
{
	const B at_run_time = set_to<B>(v);
	const auto constant =
	    std::bit_cast<std::array<uint8_t, sizeof(B)>>(set_to<B>(v));
	EXPECT_EQ(bytes_of(at_run_time), constant) << std::hex << +v;
	B from_bytes{};
	std::memcpy(&from_bytes, constant.data(), sizeof(B));
	EXPECT_EQ(from_bytes.get(), v) << std::hex << +v;
}

static_assert(set_to<Be16>(uint16_t{0xa1b2}).get() == 0xa1b2);
static_assert(set_to<Be32>(0xa1b2c3d4u).get() == 0xa1b2c3d4u);
static_assert(set_to<Be64>(0xa1b2c3d4e5f60718ull).get() ==
	      0xa1b2c3d4e5f60718ull);
static_assert(std::bit_cast<std::array<uint8_t, 4>>(set_to<Be32>(
		  0x01020304u)) == std::array<uint8_t, 4>{1, 2, 3, 4});

TEST(WireEndian, ConstantAndRunTimePathsAgree)
{
	for (const uint64_t v :
	     {0ull, 1ull, 0x80ull, 0xff00ull, 0x0102030405060708ull,
	      0x8000000000000001ull, 0xa1b2c3d4e5f60718ull, ~0ull}) {
		expect_paths_agree<Be16>(static_cast<uint16_t>(v));
		expect_paths_agree<Be32>(static_cast<uint32_t>(v));
		expect_paths_agree<Be64>(v);
	}
}

TEST(WireEndian, ReadsFromRawBytes)
{
	const uint8_t raw[4] = {0xde, 0xad, 0xbe, 0xef};
	EXPECT_EQ(load<Be32>(raw).get(), 0xdeadbeefu);
}

TEST(WireEndian, OpaqueTagEchoesBytes)
{
	const uint8_t raw[8] = {9, 8, 7, 6, 5, 4, 3, 2};
	Opaque64 in = load<Opaque64>(raw);
	Opaque64 out{};
	out.set(in.get());
	EXPECT_EQ(bytes_of(out),
		  (std::array<uint8_t, 8>{9, 8, 7, 6, 5, 4, 3, 2}));
}

TEST(WireEndian, NoImplicitConversions)
{
	EXPECT_FALSE((std::is_convertible_v<Be16, uint16_t>));
	EXPECT_FALSE((std::is_convertible_v<uint16_t, Be16>));
	EXPECT_FALSE((std::is_convertible_v<Be64, uint64_t>));
	EXPECT_FALSE((std::is_assignable_v<Be64 &, uint64_t>));
	EXPECT_FALSE((std::is_arithmetic_v<Be32>));
}

TEST(WireSrp, Sizes)
{
	EXPECT_EQ(sizeof(LoginReq), 64u);
	EXPECT_EQ(sizeof(LoginReqRdma), 56u);
	EXPECT_EQ(sizeof(LoginRsp), 52u);
	EXPECT_EQ(sizeof(LoginRej), 32u);
	EXPECT_EQ(sizeof(ILogout), 16u);
	EXPECT_EQ(sizeof(TLogout), 16u);
	EXPECT_EQ(sizeof(TskMgmt), 48u);
	EXPECT_EQ(sizeof(Cmd), 48u);
	EXPECT_EQ(sizeof(Rsp), 36u);
	EXPECT_EQ(sizeof(CredReq), 16u);
	EXPECT_EQ(sizeof(CredRsp), 16u);
	EXPECT_EQ(sizeof(AerReq), 36u);
	EXPECT_EQ(sizeof(AerRsp), 16u);
	EXPECT_EQ(sizeof(DirectBuf), 16u);
	EXPECT_EQ(sizeof(IndirectBufHeader), 20u);
	EXPECT_EQ(sizeof(ImmBuf), 4u);
}

TEST(WireSrp, LoginReqFieldsAtSpecOffsets)
{
	uint8_t raw[64] = {};
	raw[0] = 0x00;
	raw[16] = 0x00, raw[17] = 0x00, raw[18] = 0x20, raw[19] = 0x44;
	raw[24] = 0x00, raw[25] = 0x06;
	raw[26] = 0x81;
	raw[28] = 0x00, raw[29] = 0x44;
	raw[32] = 0xaa;
	raw[48] = 0xbb;
	const auto r = load<LoginReq>(raw);
	EXPECT_EQ(r.req_it_iu_len.get(), 8260u);
	EXPECT_EQ(r.req_buf_fmt.get(), 6u);
	EXPECT_EQ(r.req_flags, 0x81);
	EXPECT_EQ(r.imm_data_offset.get(), 68u);
	EXPECT_EQ(r.initiator_port_id[0], 0xaa);
	EXPECT_EQ(r.target_port_id[0], 0xbb);
}

TEST(WireSrp, LoginReqRdmaFieldsAtSpecOffsets)
{
	uint8_t raw[56] = {};
	raw[8] = 0x00, raw[9] = 0x06;
	raw[10] = 0x80;
	raw[11] = 0x00;
	raw[12] = 0, raw[13] = 0, raw[14] = 0x20, raw[15] = 0x44;
	raw[16] = 0x11;
	raw[32] = 0x22;
	raw[48] = 0, raw[49] = 68;
	const auto r = load<LoginReqRdma>(raw);
	EXPECT_EQ(r.req_buf_fmt.get(), 6u);
	EXPECT_EQ(r.req_flags, 0x80);
	EXPECT_EQ(r.req_it_iu_len.get(), 8260u);
	EXPECT_EQ(r.initiator_port_id[0], 0x11);
	EXPECT_EQ(r.target_port_id[0], 0x22);
	EXPECT_EQ(r.imm_data_offset.get(), 68u);
}

TEST(WireSrp, CmdFieldsAtSpecOffsets)
{
	uint8_t raw[48] = {};
	raw[0] = 0x02;
	raw[1] = 0x06;
	raw[5] = 0x21;
	raw[6] = 3;
	raw[7] = 4;
	raw[20] = 0x40; /* LUN byte 0 */
	raw[29] = 0x02;
	raw[31] = 8;
	raw[32] = 0x28; /* READ(10) */
	const auto c = load<Cmd>(raw);
	EXPECT_EQ(c.opcode, 0x02);
	EXPECT_EQ(c.sol_not, 0x06);
	EXPECT_EQ(c.buf_fmt, 0x21);
	EXPECT_EQ(c.data_out_desc_cnt, 3);
	EXPECT_EQ(c.data_in_desc_cnt, 4);
	EXPECT_EQ(c.lun.bytes[0], 0x40);
	EXPECT_EQ(c.task_attr, 0x02);
	EXPECT_EQ(c.add_cdb_len, 8);
	EXPECT_EQ(c.cdb[0], 0x28);
}

TEST(WireSrp, TskMgmtFieldsAtSpecOffsets)
{
	uint8_t raw[48] = {};
	raw[20] = 0x01;
	raw[30] = 0x08;
	raw[32] = 0x77;
	const auto t = load<TskMgmt>(raw);
	EXPECT_EQ(t.lun.bytes[0], 0x01);
	EXPECT_EQ(t.tsk_mgmt_func, 0x08);
	uint8_t tt[8];
	uint64_t v = t.task_tag.get();
	std::memcpy(tt, &v, 8);
	EXPECT_EQ(tt[0], 0x77);
}

TEST(WireSrp, RspFieldsAtSpecOffsets)
{
	Rsp r{};
	r.opcode = 0xc1;
	r.req_lim_delta.set(0x01020304);
	r.flags = 0x3f;
	r.status = 0x02;
	r.data_out_res_cnt.set(0x0a0b0c0d);
	r.data_in_res_cnt.set(0x11121314);
	r.sense_data_len.set(0x21222324);
	r.resp_data_len.set(0x31323334);
	const auto b = bytes_of(r);
	EXPECT_EQ(b[0], 0xc1);
	EXPECT_EQ(b[4], 0x01);
	EXPECT_EQ(b[7], 0x04);
	EXPECT_EQ(b[18], 0x3f);
	EXPECT_EQ(b[19], 0x02);
	EXPECT_EQ(b[20], 0x0a);
	EXPECT_EQ(b[24], 0x11);
	EXPECT_EQ(b[28], 0x21);
	EXPECT_EQ(b[32], 0x31);
	EXPECT_EQ(b[35], 0x34);
}

TEST(WireSrp, LoginRspAndRejFieldsAtSpecOffsets)
{
	LoginRsp r{};
	r.req_lim_delta.set(128);
	r.max_it_iu_len.set(8276);
	r.max_ti_iu_len.set(8260);
	r.buf_fmt.set(6);
	r.rsp_flags = 0x82;
	const auto b = bytes_of(r);
	EXPECT_EQ(b[7], 128);
	EXPECT_EQ(b[18], 0x20);
	EXPECT_EQ(b[19], 0x54);
	EXPECT_EQ(b[22], 0x20);
	EXPECT_EQ(b[23], 0x44);
	EXPECT_EQ(b[25], 6);
	EXPECT_EQ(b[26], 0x82);

	LoginRej j{};
	j.reason.set(0x00010002);
	j.buf_fmt.set(6);
	const auto jb = bytes_of(j);
	EXPECT_EQ(jb[5], 0x01);
	EXPECT_EQ(jb[7], 0x02);
	EXPECT_EQ(jb[25], 6);
}

TEST(WireSrp, DescriptorFieldsAtSpecOffsets)
{
	uint8_t raw[20] = {};
	raw[7] = 0x10;	/* va */
	raw[11] = 0x22; /* key */
	raw[15] = 0x33; /* len */
	raw[19] = 0x44; /* indirect total len */
	const auto d = load<DirectBuf>(raw);
	EXPECT_EQ(d.va.get(), 0x10u);
	EXPECT_EQ(d.key.get(), 0x22u);
	EXPECT_EQ(d.len.get(), 0x33u);
	const auto h = load<IndirectBufHeader>(raw);
	EXPECT_EQ(h.table_desc.len.get(), 0x33u);
	EXPECT_EQ(h.len.get(), 0x44u);
}

TEST(WireSrp, AerAndCreditFieldsAtSpecOffsets)
{
	AerReq a{};
	a.req_lim_delta.set(5);
	a.sense_data_len.set(18);
	a.lun.bytes[0] = 0x99;
	const auto b = bytes_of(a);
	EXPECT_EQ(b[7], 5);
	EXPECT_EQ(b[20], 0x99);
	EXPECT_EQ(b[31], 18);

	CredReq c{};
	c.req_lim_delta.set(7);
	EXPECT_EQ(bytes_of(c)[7], 7);
	TLogout t{};
	t.reason.set(3);
	EXPECT_EQ(bytes_of(t)[7], 3);
}

TEST(WireMad, Sizes)
{
	EXPECT_EQ(sizeof(MadHdr), 24u);
	EXPECT_EQ(sizeof(RmppHdr), 12u);
	EXPECT_EQ(sizeof(DmHdr), 28u);
	EXPECT_EQ(sizeof(DmMad), 256u);
	EXPECT_EQ(sizeof(ClassPortInfo), 72u);
	EXPECT_EQ(sizeof(IouInfo), 132u);
	EXPECT_EQ(sizeof(IocProfile), 128u);
	EXPECT_EQ(sizeof(SvcEntry), 48u);
	EXPECT_EQ(sizeof(SvcEntries), 192u);
}

TEST(WireMad, HeaderFieldsAtSpecOffsets)
{
	uint8_t raw[256] = {};
	raw[0] = 1;
	raw[1] = 6;
	raw[2] = 1;
	raw[3] = 0x81;
	raw[4] = 0x01, raw[5] = 0x00;
	raw[8] = 0xaa, raw[15] = 0xbb;
	raw[16] = 0x00, raw[17] = 0x11;
	raw[20] = 0x00, raw[21] = 0x02, raw[22] = 0x01, raw[23] = 0x00;
	raw[64] = 0xcc;
	const auto m = load<DmMad>(raw);
	EXPECT_EQ(m.mad_hdr.base_version, 1);
	EXPECT_EQ(m.mad_hdr.mgmt_class, 6);
	EXPECT_EQ(m.mad_hdr.method, 0x81);
	EXPECT_EQ(m.mad_hdr.status.get(), 0x0100);
	EXPECT_EQ(m.mad_hdr.tid.get(), 0xaa000000000000bbull);
	EXPECT_EQ(m.mad_hdr.attr_id.get(), 0x11);
	EXPECT_EQ(m.mad_hdr.attr_mod.get(), 0x00020100u);
	EXPECT_EQ(m.data[0], 0xcc);
}

TEST(WireMad, IocProfileFieldsAtSpecOffsets)
{
	IocProfile p{};
	p.guid.set(0x0102030405060708ull);
	p.io_class.set(0x0100);
	p.send_queue_depth.set(0x0080);
	p.rdma_read_depth = 4;
	p.send_size.set(8276);
	p.rdma_size.set(65536);
	p.op_cap_mask = 0x2b;
	p.num_svc_entries = 1;
	p.id_string[0] = 'L';
	const auto b = bytes_of(p);
	EXPECT_EQ(b[0], 1);
	EXPECT_EQ(b[7], 8);
	EXPECT_EQ(b[28], 0x01);
	EXPECT_EQ(b[41], 0x80);
	EXPECT_EQ(b[43], 4);
	EXPECT_EQ(b[46], 0x20);
	EXPECT_EQ(b[47], 0x54);
	EXPECT_EQ(b[49], 0x01);
	EXPECT_EQ(b[52], 0x2b);
	EXPECT_EQ(b[54], 1);
	EXPECT_EQ(b[64], 'L');
}

TEST(WireMad, ClassPortInfoAndSvcEntryOffsets)
{
	ClassPortInfo c{};
	c.cap_mask2_resp_time.set(20);
	c.trap_qkey.set(0x01020304);
	const auto b = bytes_of(c);
	EXPECT_EQ(b[7], 20);
	EXPECT_EQ(b[68], 1);
	EXPECT_EQ(b[71], 4);

	SvcEntry e{};
	e.id.set(0x1122334455667788ull);
	EXPECT_EQ(bytes_of(e)[40], 0x11);
	EXPECT_EQ(bytes_of(e)[47], 0x88);
}

} // namespace
} // namespace srpt::wire
