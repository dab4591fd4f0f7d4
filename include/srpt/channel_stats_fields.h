/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fields of a channel's statistics, listed once for both sides of the
 * boundary: the core's ChannelStats (datapath/channel_types.hpp) and
 * ChannelSnapshot (channel.hpp), the C struct srpt_dp_stats (core_api.h)
 * that debugfs and configfs print, and the copy from one to the other in
 * datapath_api.cpp are all made from these lists.
 *
 * Why a list and not two structs and a copy function: C++ cannot walk a
 * struct's fields, so no static_assert could tell that a counter added to
 * ChannelStats was left out of srpt_dp_stats or of the copy. Here adding
 * it is one line, and it reaches debugfs's struct and is copied.
 *
 * Each entry is X(type, name). Plain C, no includes: read by the C++ core
 * and by the C glue, which has the fixed-width types from the kernel.
 */
#ifndef SRPT_CHANNEL_STATS_FIELDS_H
#define SRPT_CHANNEL_STATS_FIELDS_H

/* The data path's counters, kept under the channel's lock (ChannelCore). */
#define SRPT_DATAPATH_COUNTERS(X)                                              \
	X(int32_t, req_lim)   /* credits the initiator holds */                \
	X(int32_t, in_flight) /* requests received, not yet answered */        \
	X(int32_t, owed)      /* req_lim_delta of the next response */         \
	X(uint64_t, granted_total)                                             \
	X(uint64_t, consumed_total)                                            \
	X(uint64_t, credit_violations)                                         \
	X(uint32_t, send_ctx_total)                                            \
	X(uint32_t, send_ctx_free)                                             \
	X(uint32_t, sq_capacity)                                               \
	X(uint32_t, sq_avail)                                                  \
	X(uint32_t, wait_depth)                                                \
	X(uint32_t, wait_max_depth)                                            \
	X(uint32_t, deferred_responses) /* waiting for SQ slots now */         \
	X(uint64_t, ius_received)                                              \
	X(uint64_t, ius_waited) /* could not be served on arrival */           \
	/*                                                                     \
	 * Arrived needing a send context while every one was in use (a        \
	 * subset of ius_waited, which also counts IUs queued behind another   \
	 * context's drain).                                                   \
	 */                                                                    \
	X(uint64_t, ius_no_send_ctx)                                           \
	X(uint64_t, queue_full) /* kQueueFull returned to the target core */   \
	X(uint64_t, responses_deferred)                                        \
	X(uint64_t, kicks)                                                     \
	X(uint64_t, post_recv_failures)                                        \
	X(uint64_t, send_errors)                                               \
	X(uint64_t, recv_errors)                                               \
	/* not posted: the channel disconnected */                             \
	X(uint64_t, responses_lost)                                            \
	/*                                                                     \
	 * Successful send completions the softirq path handed to process      \
	 * context: responses waited for send-queue room, and posting one      \
	 * may fail, which disconnects (sleeps).                               \
	 */                                                                    \
	X(uint64_t, send_done_deferred)                                        \
	/*                                                                     \
	 * Released by the target core while work requests over its data      \
	 * were posted (the context is freed at their completion). No LIO      \
	 * path does that; the glue's spare data pages rely on it              \
	 * (glue/target_core.c, "Spare data pages"). Should stay 0.            \
	 */                                                                    \
	X(uint64_t, released_wrs_posted)

/* What the channel adds: its login and test knob (Channel). */
#define SRPT_CHANNEL_PROPERTIES(X)                                             \
	X(uint32_t, credits)                                                   \
	X(uint32_t, it_iu_len)                                                 \
	X(uint16_t, imm_data_offset)                                           \
	X(bool, use_srq) /* receives come from the device's SRQ */             \
	X(uint32_t, recv_ring_size) /* contexts it receives into */            \
	/* Test knob test_send_done_delay_us of this channel (0: off). */      \
	X(uint32_t, send_done_delay_us)                                        \
	X(uint32_t, send_done_held) /* send completions held now */            \
	X(uint64_t, send_done_held_total) /* held since the login */

/* X for a struct's declaration: the field itself. */
#define SRPT_STATS_FIELD(type, name) type name;

#endif
