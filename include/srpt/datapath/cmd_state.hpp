/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The life of a send context (one SCSI command or task-management request)
 * as an explicit state machine.
 *
 * The in-tree driver keeps this as a plain enum that any path may overwrite
 * (srpt_set_cmd_state refuses only to leave DONE), and relies on the numeric
 * order of the values in places. Here every move is checked against one
 * table, made by one function, TransitionTo(), under the channel lock, and
 * states are only ever compared for equality.
 *
 *            Get(CMD)                              Get(TSK_MGMT)
 *   kFree ------------> kNew                kFree --------------> kMgmt
 *                      /  |  \                                   |     \
 *     RDMA READ posted/   |   \ imm. data / no data-out          |      \ abort
 *                    v    |    v                      response   |       v
 *             kNeedData --+-> kDataIn                  posted    v     kDone
 *                  read   |      |                         kMgmtRspSent
 *                  done   |      | response posted              |
 *                         v      v                              | send done
 *                       kCmdRspSent --- send done ---> kDone <--+
 *
 *   any live state --(aborted task / released without response)--> kDone
 *   kDone --(target core released it and no WR is outstanding)--> kFree
 */
#ifndef SRPT_DATAPATH_CMD_STATE_HPP
#define SRPT_DATAPATH_CMD_STATE_HPP

#include <srpt/log.hpp>
#include <stddef.h>
#include <stdint.h>

namespace srpt
{

enum class CmdState : uint8_t {
	kFree,	      /* in the channel's pool of send contexts */
	kNew,	      /* SRP_CMD received, being parsed and submitted */
	kNeedData,    /* RDMA READ of the data-out buffer posted */
	kDataIn,      /* data-out present (or none needed); executing */
	kCmdRspSent,  /* SRP_RSP posted, waiting for its send completion */
	kMgmt,	      /* SRP_TSK_MGMT received, being processed */
	kMgmtRspSent, /* task-management SRP_RSP posted */
	kDone,	      /* finished or aborted; waiting for the last reference */
};

inline constexpr size_t kCmdStateCount = 8;

constexpr size_t ToIndex(CmdState s)
{
	return static_cast<size_t>(s);
}

/*
 * kCmdTransitions[from][to]: whether the move from -> to is legal. Written
 * out in full so that a reviewer reads the whole machine in one place.
 */
/* clang-format off */
inline constexpr bool kCmdTransitions[kCmdStateCount][kCmdStateCount] = {
	/*                 Free   New    NeedD  DataIn CRspS  Mgmt   MRspS  Done */
	/* kFree */	 { false, true,  false, false, false, true,  false, false },
	/* kNew */	 { false, false, true,  true,  true,  false, false, true  },
	/* kNeedData */	 { false, false, false, true,  false, false, false, true  },
	/* kDataIn */	 { false, false, false, false, true,  false, false, true  },
	/* kCmdRspSent */ { false, false, false, false, false, false, false, true  },
	/* kMgmt */	 { false, false, false, false, false, false, true,  true  },
	/* kMgmtRspSent */ { false, false, false, false, false, false, false, true  },
	/* kDone */	 { true,  false, false, false, false, false, false, false },
};
/* clang-format on */

constexpr bool IsLegalTransition(CmdState from, CmdState to)
{
	return kCmdTransitions[ToIndex(from)][ToIndex(to)];
}

const char *CmdStateName(CmdState s);

/*
 * The state of one send context. Not a lock: the owner (the channel core)
 * calls it with its lock held. A test may install an observer that sees
 * every attempted move.
 */
class CmdStateMachine
{
public:
	using Observer = void (*)(void *cookie, CmdState from, CmdState to,
				  bool legal);

	constexpr CmdStateMachine() = default;

	CmdState state() const { return state_; }
	bool Is(CmdState s) const { return state_ == s; }

	/*
	 * Moves to @next if the table allows it, and returns the previous
	 * state in any case. An illegal move is a broken invariant: it is
	 * reported (WARN in the kernel, test failure on the host) and the
	 * state does not change, so the caller sees previous != expected.
	 */
	CmdState TransitionTo(CmdState next)
	{
		const CmdState previous = state_;
		const bool legal = IsLegalTransition(previous, next);
		if (observer_)
			observer_(observer_cookie_, previous, next, legal);
		if (SRPT_WARN_ON(!legal))
			return previous;
		state_ = next;
		return previous;
	}

	/*
	 * Puts back @previous, the state before a move whose effect did not
	 * happen (its work request could not be posted). Not a move of the
	 * table, and not shown to the observer.
	 */
	void Undo(CmdState previous) { state_ = previous; }

	void SetObserver(Observer observer, void *cookie)
	{
		observer_ = observer;
		observer_cookie_ = cookie;
	}

private:
	CmdState state_ = CmdState::kFree;
	Observer observer_ = nullptr;
	void *observer_cookie_ = nullptr;
};

/* True while a response (and the send context) is owed to the initiator. */
constexpr bool IsResponsePending(CmdState s)
{
	return s == CmdState::kNew || s == CmdState::kNeedData ||
	       s == CmdState::kDataIn || s == CmdState::kMgmt;
}

} // namespace srpt

#endif
