/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the translation units of the channel (src/channel.cpp,
 * src/srp_command.cpp, src/channel_registry.cpp) share and nobody else
 * needs. Not part of the channel's interface: that is
 * include/srpt/channel.hpp.
 */
#ifndef SRPT_CHANNEL_INTERNAL_HPP
#define SRPT_CHANNEL_INTERNAL_HPP

/* CopyName */
#include <srpt/hex_format.hpp>

#endif
