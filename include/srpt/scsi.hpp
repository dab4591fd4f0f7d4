// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SCSI status codes and sense data values the SRP transport produces. */
#ifndef SRPT_SCSI_HPP
#define SRPT_SCSI_HPP

#include <stdint.h>

namespace srpt
{

/* SAM status (include/scsi/scsi_proto.h). */
enum class ScsiStatus : uint8_t {
	Good = 0x00,
	CheckCondition = 0x02,
	Busy = 0x08,
	ReservationConflict = 0x18,
	TaskSetFull = 0x28,
	AcaActive = 0x30,
	TaskAborted = 0x40,
};

/* Sense keys (SPC-4 table 48). */
enum class SenseKey : uint8_t {
	NoSense = 0x0,
	NotReady = 0x2,
	MediumError = 0x3,
	HardwareError = 0x4,
	IllegalRequest = 0x5,
	UnitAttention = 0x6,
	AbortedCommand = 0xb,
};

/* Sense key with additional sense code and qualifier. */
struct SenseCode {
	SenseKey key;
	uint8_t asc;
	uint8_t ascq;

	friend constexpr bool operator==(const SenseCode &,
					 const SenseCode &) = default;
};

/* ASC/ASCQ pairs used by the SRP command parser (SPC-4 annex D). */
inline constexpr SenseCode kSenseInvalidFieldInCdb{SenseKey::IllegalRequest,
						   0x24, 0x00};
inline constexpr SenseCode kSenseInvalidIu{SenseKey::IllegalRequest, 0x0e,
					   0x00};
inline constexpr SenseCode kSenseIuTooShort{SenseKey::IllegalRequest, 0x0e,
					    0x01};
inline constexpr SenseCode kSenseIuTooLong{SenseKey::IllegalRequest, 0x0e,
					   0x02};
inline constexpr SenseCode kSenseInvalidFieldInCmdIu{SenseKey::IllegalRequest,
						     0x0e, 0x03};

/* Length of fixed-format sense data as built by build_fixed_sense(). */
inline constexpr uint32_t kFixedSenseLen = 18;

/*
 * READ and WRITE (6, 10, 12, 16) by their operation code: the commands
 * whose data LIO moves whole, from the backend or into it, and whose data
 * buffer it does not expect zeroed (it zeroes the buffers it allocates for
 * every other command).
 */
constexpr bool IsBlockReadWrite(uint8_t opcode)
{
	switch (opcode) {
	case 0x08: /* READ(6) */
	case 0x28: /* READ(10) */
	case 0xa8: /* READ(12) */
	case 0x88: /* READ(16) */
	case 0x0a: /* WRITE(6) */
	case 0x2a: /* WRITE(10) */
	case 0xaa: /* WRITE(12) */
	case 0x8a: /* WRITE(16) */
		return true;
	default:
		return false;
	}
}

} // namespace srpt

#endif
