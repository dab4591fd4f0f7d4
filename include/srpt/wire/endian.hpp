// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Byte-exact wire integers.
 *
 * Every multi-byte field of an SRP information unit or of a device-management
 * MAD is stored as an array of bytes. The only way to read or write one is
 * get() / set(): there is no implicit conversion in either direction, so a
 * wire value can never be used as a host integer by accident. All of these
 * types have alignment 1, which makes every struct built from them packed
 * exactly as it is on the wire.
 */
#ifndef SRPT_WIRE_ENDIAN_HPP
#define SRPT_WIRE_ENDIAN_HPP

#include <stddef.h>
#include <stdint.h>
#include <type_traits>

namespace srpt::wire
{

/*
 * Unsigned big-endian integer of sizeof(T) bytes.
 *
 * get() and set() are on the data path (every IU's tag, lengths and
 * descriptors, every response's fields): outside constant evaluation they
 * are one load or store and one byte swap. The byte loop they replace was
 * left as a loop by g++ -O2 with the kernel's flags, about five
 * instructions per byte: some 80 per data descriptor (issue 16).
 */
template <typename T>
class BigEndian
{
	static_assert(std::is_unsigned_v<T>, "wire integers are unsigned");
	static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
	static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ||
		      __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

public:
	constexpr T get() const
	{
		if (__builtin_is_constant_evaluated()) {
			T v = 0;
			for (size_t i = 0; i < sizeof(T); i++)
				v = static_cast<T>((v << 8) | bytes_[i]);
			return v;
		}
		T v;
		__builtin_memcpy(&v, bytes_, sizeof(v));
		return ToFromHost(v);
	}

	constexpr void set(T v)
	{
		if (__builtin_is_constant_evaluated()) {
			for (size_t i = sizeof(T); i-- > 0;) {
				bytes_[i] = static_cast<uint8_t>(v & 0xffu);
				v = static_cast<T>(v >> 8);
			}
			return;
		}
		const T w = ToFromHost(v);
		__builtin_memcpy(bytes_, &w, sizeof(w));
	}

private:
	/* Big-endian to host order and back: the same swap (or none). */
	static T ToFromHost(T v)
	{
		if constexpr (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
			return v;
		else if constexpr (sizeof(T) == 2)
			return __builtin_bswap16(v);
		else if constexpr (sizeof(T) == 4)
			return __builtin_bswap32(v);
		else
			return __builtin_bswap64(v);
	}

	uint8_t bytes_[sizeof(T)];
};

using Be16 = BigEndian<uint16_t>;
using Be32 = BigEndian<uint32_t>;
using Be64 = BigEndian<uint64_t>;

/*
 * An 8-byte field the protocol treats as opaque (the SRP request tag): the
 * target echoes its bytes unchanged. get()/set() use host byte order, so a
 * value read with get() and written back with set() reproduces the same
 * bytes, which is all a tag needs.
 */
class Opaque64
{
public:
	uint64_t get() const
	{
		uint64_t v;
		__builtin_memcpy(&v, bytes_, sizeof(v));
		return v;
	}

	void set(uint64_t v) { __builtin_memcpy(bytes_, &v, sizeof(v)); }

private:
	uint8_t bytes_[8];
};

static_assert(sizeof(Be16) == 2 && alignof(Be16) == 1);
static_assert(sizeof(Be32) == 4 && alignof(Be32) == 1);
static_assert(sizeof(Be64) == 8 && alignof(Be64) == 1);
static_assert(sizeof(Opaque64) == 8 && alignof(Opaque64) == 1);
static_assert(std::is_trivially_copyable_v<Be64> &&
	      std::is_standard_layout_v<Be64>);
static_assert(std::is_trivially_copyable_v<Opaque64> &&
	      std::is_standard_layout_v<Opaque64>);
/* No implicit conversion either way. */
static_assert(!std::is_convertible_v<Be32, uint32_t>);
static_assert(!std::is_convertible_v<uint32_t, Be32>);
static_assert(!std::is_assignable_v<Be32 &, uint32_t>);
static_assert(!std::is_convertible_v<Opaque64, uint64_t>);

/*
 * Read a wire struct from the start of a byte buffer. The caller has
 * checked that at least sizeof(T) bytes are there. Copying avoids both
 * alignment and aliasing questions; the structs are small.
 */
template <typename T>
inline T load(const uint8_t *p)
{
	static_assert(std::is_trivially_copyable_v<T>);
	T v;
	__builtin_memcpy(&v, p, sizeof(T));
	return v;
}

template <typename T>
inline void store(uint8_t *p, const T &v)
{
	static_assert(std::is_trivially_copyable_v<T>);
	__builtin_memcpy(p, &v, sizeof(T));
}

} // namespace srpt::wire

#endif
