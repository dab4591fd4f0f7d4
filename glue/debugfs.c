// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Data-path module setup, the test knob, and per-channel observability:
 * /sys/kernel/debug/ib_srpt/<session>-<channel id>/stats shows the
 * channel's state, credits, send contexts, send-queue budget and wait-list
 * counters (srpt_core_dp_get_stats) and the glue's spare data pages.
 * debugfs serializes removal against readers, so a channel's directory is
 * removed before the channel is freed.
 */
#include "pr_fmt.h"

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "channel_ib.h"
#include "glue.h"

static struct dentry *srpt_debugfs_root;

/*
 * For testing only (not a module parameter: the module keeps exactly the
 * in-tree parameters): /sys/kernel/debug/ib_srpt/test_send_ctx_limit, the
 * number of send contexts of channels created afterwards (0: one per
 * credit). A value below the credits makes IUs wait for send contexts.
 */
static u32 srpt_test_send_ctx_limit;

uint32_t srpt_dp_test_send_ctx_limit(void)
{
	return READ_ONCE(srpt_test_send_ctx_limit);
}

/*
 * For testing only: /sys/kernel/debug/ib_srpt/test_send_done_delay_us,
 * channels created afterwards hold each successful send completion this
 * many microseconds before the data path sees it (0: off), so that the
 * initiator gets the response and its credit, and sends the next IU, while
 * the response's send context is still in use.
 */
static u32 srpt_test_send_done_delay_us;

uint32_t srpt_dp_test_send_done_delay_us(void)
{
	return READ_ONCE(srpt_test_send_done_delay_us);
}

/*
 * /sys/kernel/debug/ib_srpt/spare_pages_max: how many data pages a channel
 * created afterwards may keep between its block commands (glue/target_core.c,
 * "Spare data pages"); 0: none, every command gets new pages. Not a
 * module parameter either, for the same reason as the test knobs.
 */
static u32 srpt_spare_pages_max = SRPT_SPARE_PAGES;

u32 srpt_glue_spare_pages_max(void)
{
	return READ_ONCE(srpt_spare_pages_max);
}

static int srpt_stats_show(struct seq_file *m, void *unused)
{
	struct srpt_dp_ch *ch = m->private;
	struct srpt_dp_stats st;

	srpt_core_dp_get_stats(ch->core, &st);
	seq_printf(m, "state %s\nphase %s\n", st.state, st.phase);
	seq_printf(m, "credits %u\nit_iu_len %u\nimm_data_offset %u\n",
		   st.credits, st.it_iu_len, st.imm_data_offset);
	seq_printf(m, "use_srq %d\nrecv_ring_size %u\n", st.use_srq ? 1 : 0,
		   st.recv_ring_size);
	seq_printf(m, "req_lim %d\nin_flight %d\nreq_lim_delta %d\n",
		   st.req_lim, st.in_flight, st.owed);
	seq_printf(m, "granted_total %llu\nconsumed_total %llu\ncredit_violations %llu\n",
		   st.granted_total, st.consumed_total, st.credit_violations);
	seq_printf(m, "send_ctx_total %u\nsend_ctx_free %u\n",
		   st.send_ctx_total, st.send_ctx_free);
	seq_printf(m, "sq_capacity %u\nsq_avail %u\n", st.sq_capacity,
		   st.sq_avail);
	seq_printf(m, "wait_depth %u\nwait_max_depth %u\nius_received %llu\nius_waited %llu\nius_no_send_ctx %llu\n",
		   st.wait_depth, st.wait_max_depth, st.ius_received,
		   st.ius_waited, st.ius_no_send_ctx);
	seq_printf(m, "deferred_responses %u\nresponses_deferred %llu\nqueue_full %llu\nkicks %llu\n",
		   st.deferred_responses, st.responses_deferred, st.queue_full,
		   st.kicks);
	seq_printf(m, "post_recv_failures %llu\nsend_errors %llu\nrecv_errors %llu\nresponses_lost %llu\n",
		   st.post_recv_failures, st.send_errors, st.recv_errors,
		   st.responses_lost);
	seq_printf(m, "send_done_deferred %llu\nreleased_wrs_posted %llu\n",
		   st.send_done_deferred, st.released_wrs_posted);
	seq_printf(m, "send_done_delay_us %u\nsend_done_held %u\nsend_done_held_total %llu\n",
		   st.send_done_delay_us, st.send_done_held,
		   st.send_done_held_total);
	seq_printf(m, "spare_pages %u\nspare_pages_max %u\nspare_misses %llu\n",
		   atomic_read(&ch->spare_held), ch->spare_max,
		   (u64)atomic64_read(&ch->spare_misses));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_stats);

void *srpt_dp_debugfs_add(struct srpt_dp_ch *ch, const char *name,
			  uint32_t id)
{
	struct dentry *dir;
	char dirname[80];

	if (IS_ERR_OR_NULL(srpt_debugfs_root))
		return NULL;
	snprintf(dirname, sizeof(dirname), "%s-%u", name, id);
	dir = debugfs_create_dir(dirname, srpt_debugfs_root);
	if (IS_ERR(dir))
		return NULL;
	debugfs_create_file("stats", 0444, dir, ch, &srpt_stats_fops);
	return dir;
}

void srpt_dp_debugfs_remove(void *dentry)
{
	debugfs_remove_recursive(dentry);
}

int srpt_glue_dp_init(void)
{
	int ret = srpt_core_dp_init();

	if (ret)
		return ret;
	srpt_debugfs_root = debugfs_create_dir("ib_srpt", NULL);
	debugfs_create_u32("test_send_ctx_limit", 0644, srpt_debugfs_root,
			   &srpt_test_send_ctx_limit);
	debugfs_create_u32("test_send_done_delay_us", 0644, srpt_debugfs_root,
			   &srpt_test_send_done_delay_us);
	debugfs_create_u32("spare_pages_max", 0644, srpt_debugfs_root,
			   &srpt_spare_pages_max);
	return 0;
}

void srpt_glue_dp_exit(void)
{
	debugfs_remove_recursive(srpt_debugfs_root);
	srpt_debugfs_root = NULL;
	srpt_core_dp_exit();
}
