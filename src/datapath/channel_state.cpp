// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <srpt/datapath/channel_state.hpp>

namespace srpt
{

const char *ChannelStateName(ChannelState s)
{
	switch (s) {
	case ChannelState::kConnecting:
		return "connecting";
	case ChannelState::kLive:
		return "live";
	case ChannelState::kDisconnecting:
		return "disconnecting";
	case ChannelState::kDraining:
		return "draining";
	case ChannelState::kReleasing:
		return "releasing";
	case ChannelState::kReleased:
		return "released";
	}
	return "?";
}

const char *ChannelPhaseName(ChannelPhase p)
{
	switch (p) {
	case ChannelPhase::kConnecting:
		return "connecting";
	case ChannelPhase::kLive:
		return "live";
	case ChannelPhase::kClosing:
		return "closing";
	case ChannelPhase::kReleased:
		return "released";
	}
	return "?";
}

} // namespace srpt
