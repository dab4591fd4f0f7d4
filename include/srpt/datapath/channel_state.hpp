/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The state of one SRP channel: one enum, one table of legal moves. The
 * channel core (ChannelCore) keeps it under its lock and changes it only
 * through ChannelCore::TransitionTo(); the kernel's Channel drives it from
 * CM events and completions (channel.hpp says which event makes which
 * move), the host tests drive it directly.
 *
 *   kConnecting --RTU--> kLive
 *      |  \                 |  \
 *      |   \ disconnect     |   \ disconnect: DREQ sent or answered,
 *      |    v               |    v             waiting for the CM
 *      |   kDisconnecting <-+   (same)
 *      |        | close
 *      v        v
 *   kDraining: QP in ERR, zero-length write posted; its flushed
 *      |       completion (all earlier WRs completed) moves on
 *      v
 *   kReleasing: release work queued (also straight from kConnecting)
 *      v
 *   kReleased: ChannelCore::Release() ran, nothing may arrive any more
 *
 * A move the table refuses does not happen: that is how late or duplicate
 * CM events are absorbed. There is no second state for the data path: what
 * it needs is a projection of this one (ChannelPhase, PhaseOf()).
 */
#ifndef SRPT_DATAPATH_CHANNEL_STATE_HPP
#define SRPT_DATAPATH_CHANNEL_STATE_HPP

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
	kReleased,	/* ChannelCore::Release() ran */
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

/*
 * The data path's view of the state: whether IUs are served, wait, or are
 * given back. A projection, not a second state: it has no table and
 * cannot disagree with ChannelState.
 */
enum class ChannelPhase : uint8_t {
	kConnecting, /* kConnecting: IUs wait */
	kLive,	     /* kLive: IUs are served */
	kClosing,    /* kDisconnecting, kDraining, kReleasing: not served */
	kReleased,   /* kReleased: nothing may arrive any more */
};

constexpr ChannelPhase PhaseOf(ChannelState s)
{
	switch (s) {
	case ChannelState::kConnecting:
		return ChannelPhase::kConnecting;
	case ChannelState::kLive:
		return ChannelPhase::kLive;
	case ChannelState::kDisconnecting:
	case ChannelState::kDraining:
	case ChannelState::kReleasing:
		break;
	case ChannelState::kReleased:
		return ChannelPhase::kReleased;
	}
	return ChannelPhase::kClosing;
}

const char *ChannelPhaseName(ChannelPhase p);

/*
 * The next move on the way to kReleased, for the paths that end a channel
 * whatever its state (ChannelCore::Release(), a flushed drain marker):
 * through kDraining, then kReleasing. kReleased stays.
 */
constexpr ChannelState NextTowardRelease(ChannelState s)
{
	switch (s) {
	case ChannelState::kConnecting:
		return ChannelState::kReleasing;
	case ChannelState::kLive:
	case ChannelState::kDisconnecting:
		return ChannelState::kDraining;
	case ChannelState::kDraining:
		return ChannelState::kReleasing;
	case ChannelState::kReleasing:
	case ChannelState::kReleased:
		break;
	}
	return ChannelState::kReleased;
}

/* Every step of that walk is a legal move: the walk always ends. */
constexpr bool ReleaseWalkIsLegal()
{
	for (size_t i = 0; i < kChannelStateCount; i++) {
		const auto s = static_cast<ChannelState>(i);
		if (s != ChannelState::kReleased &&
		    !IsLegalTransition(s, NextTowardRelease(s)))
			return false;
	}
	return true;
}
static_assert(ReleaseWalkIsLegal());

} // namespace srpt

#endif
