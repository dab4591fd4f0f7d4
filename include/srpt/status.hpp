/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Status of an operation of the core, with Linux errno values so that it is
 * turned into the kernel's `-errno` convention once, at the boundary: the
 * core returns Status, and only the C entry points (src/core_api.cpp,
 * src/datapath_api.cpp) hand ToNegativeErrno() of it to C. A glue call's
 * result comes in through StatusFromErrno(). These two are the only
 * conversions.
 */
#ifndef SRPT_STATUS_HPP
#define SRPT_STATUS_HPP

#include <srpt/platform.h>

namespace srpt
{

enum class [[nodiscard]] Status : int{
    kOk = SRPT_OK,
    kNoEntry = SRPT_ENOENT,
    kIo = SRPT_EIO,
    kAgain = SRPT_EAGAIN,
    kNoMemory = SRPT_ENOMEM,
    kBusy = SRPT_EBUSY,
    kExists = SRPT_EEXIST,
    kNoDevice = SRPT_ENODEV,
    kInvalid = SRPT_EINVAL,
    kRange = SRPT_ERANGE,
    kNoSpace = SRPT_ENOSPC,
    kNotSupported = SRPT_EOPNOTSUPP,
    kRefused = SRPT_ECONNREFUSED,
};

constexpr bool IsOk(Status s)
{
	return s == Status::kOk;
}

/* The kernel's convention: 0 or a negative errno. */
constexpr int ToNegativeErrno(Status s)
{
	return -static_cast<int>(s);
}

/*
 * The result of a glue call (0 or a negative errno) as a Status. An errno
 * without a Status name keeps its value, so that ToNegativeErrno() gives
 * it back unchanged.
 */
constexpr Status StatusFromErrno(int rc)
{
	return rc == 0 ? Status::kOk : static_cast<Status>(rc < 0 ? -rc : rc);
}

/*
 * A value or the reason there is none. Small and trivially copyable on
 * purpose: it is returned by value from parsers on the per-IU path.
 */
template <typename T>
class [[nodiscard]] Result
{
public:
	constexpr Result(T value) : value_(value), status_(Status::kOk) {}
	constexpr Result(Status status) : value_(), status_(status)
	{
		/* A Result made from kOk would carry no value. */
		if (status == Status::kOk)
			status_ = Status::kInvalid;
	}

	constexpr bool ok() const { return status_ == Status::kOk; }
	constexpr Status status() const { return status_; }
	constexpr const T &operator*() const { return value_; }
	constexpr T &operator*() { return value_; }
	constexpr const T *operator->() const { return &value_; }

private:
	T value_;
	Status status_;
};

} // namespace srpt

#endif
