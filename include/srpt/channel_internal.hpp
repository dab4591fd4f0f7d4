/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the channel's translation unit (src/channel.cpp) shares with
 * src/datapath_api.cpp, which fills the ACL info, and nobody else needs. Not
 * part of the channel's interface: that is include/srpt/channel.hpp.
 */
#ifndef SRPT_CHANNEL_INTERNAL_HPP
#define SRPT_CHANNEL_INTERNAL_HPP

#include <stddef.h>

namespace srpt
{

/* A channel, session or source name: cut to fit, NUL-terminated. */
inline void CopyName(char (&dst)[64], const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < sizeof(dst); i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

} // namespace srpt

#endif
