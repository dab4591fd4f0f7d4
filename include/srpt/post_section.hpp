/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PostSection: the scope of srpt_post_section_begin()/_end() (platform.h).
 * The device's send work of what is posted inside starts when the scope
 * ends, in this thread. Nothing inside may sleep: a section holds a post
 * and its lock, never the handling of a failed post (a disconnect may
 * sleep on a hardware HCA's modify_qp).
 */
#ifndef SRPT_POST_SECTION_HPP
#define SRPT_POST_SECTION_HPP

#include <srpt/platform.h>

namespace srpt
{

class PostSection
{
public:
	/*
	 * @open false: no section. A cookie of 0 (not asked for, or refused
	 * by the glue in interrupt context) means there is nothing to end.
	 */
	explicit PostSection(bool open)
	    : cookie_(open ? srpt_post_section_begin() : 0)
	{
	}
	~PostSection()
	{
		if (cookie_ != 0)
			srpt_post_section_end(cookie_);
	}
	PostSection(const PostSection &) = delete;
	PostSection &operator=(const PostSection &) = delete;

private:
	unsigned long cookie_;
};

} // namespace srpt

#endif /* SRPT_POST_SECTION_HPP */
