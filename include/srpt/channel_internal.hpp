/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the channel's translation unit (src/channel.cpp) shares with
 * src/datapath_api.cpp, which fills the ACL info, and nobody else needs. Not
 * part of the channel's interface: that is include/srpt/channel.hpp.
 */
#ifndef SRPT_CHANNEL_INTERNAL_HPP
#define SRPT_CHANNEL_INTERNAL_HPP

/* CopyName */
#include <srpt/hex_format.hpp>

#endif
