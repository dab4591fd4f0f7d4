/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The state of one SRP channel: one enum, one table of legal moves.
 * channel.hpp says which event makes which move.
 */
#ifndef SRPT_CORE_CHANNEL_STATE_HPP
#define SRPT_CORE_CHANNEL_STATE_HPP

#include <stddef.h>
#include <stdint.h>

namespace srpt
{

enum class ChannelState : uint8_t {
	kConnecting,	/* login accepted, RTU not yet seen */
	kLive,		/* connected */
	kDisconnecting, /* DREQ sent or answered, waiting for the CM */
	kDraining,	/* QP in ERR, waiting for the zero-length write */
	kReleasing,	/* the release work is queued or running */
	kReleased,	/* released */
};

inline constexpr size_t kChannelStateCount = 6;

/* kChannelTransitions[from][to]: whether the move from -> to is legal. */
/* clang-format off */
inline constexpr bool
    kChannelTransitions[kChannelStateCount][kChannelStateCount] = {
	/*                   Conn   Live   Disc   Drain  Relsg  Reld */
	/* kConnecting */    { false, true,  true,  true,  true,  false },
	/* kLive */	     { false, false, true,  true,  false, false },
	/* kDisconnecting */ { false, false, false, true,  false, false },
	/* kDraining */	     { false, false, false, false, true,  false },
	/* kReleasing */     { false, false, false, false, false, true  },
	/* kReleased */	     { false, false, false, false, false, false },
};
/* clang-format on */

constexpr bool IsLegalTransition(ChannelState from, ChannelState to)
{
	return kChannelTransitions[static_cast<size_t>(from)]
				  [static_cast<size_t>(to)];
}

const char *ChannelStateName(ChannelState s);

} // namespace srpt

#endif
