// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LIO side of a channel: session setup and removal, handing commands
 * and task-management requests to the target core, and the fabric
 * command callbacks (configfs/fabric.c points its template here), each of
 * which recovers the send context with container_of and calls the core.
 */
#include "pr_fmt.h"

#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "channel_ib.h"
#include "glue.h"
#include "kcompat.h"
#include "srpt_trace.h"

static struct srpt_glue_send *srpt_send_of(struct se_cmd *cmd)
{
	return container_of(cmd, struct srpt_glue_send, cmd);
}

/* ---- session ---- */

int srpt_dp_session_setup(struct srpt_dp_ch *ch,
			  struct srpt_core_port_id *port_id, const char *name,
			  uint32_t tag_num)
{
	struct se_session *sess;
	int ret;

	/* ib_srpt does not use se_sess->sess_cmd_map: tag size 1. */
	ret = srpt_fabric_setup_session(port_id, name, tag_num, 1, ch, &sess);
	if (ret)
		return ret;
	ch->sess = sess;
	return 0;
}

void srpt_dp_session_remove(struct srpt_dp_ch *ch)
{
	struct se_session *sess = ch->sess;

	if (!sess)
		return;
	/*
	 * A hand-off the core decided while the channel was live may still
	 * be on its way to target_init_cmd() (the receive work's, or the
	 * kick's, allocating the command's data pages): it finishes first.
	 * The channel has left kLive, so the core decides no new one, and
	 * nothing reaches the target core after its session is gone.
	 */
	srpt_glue_completions_quiesce(ch);
	target_stop_session(sess);
	target_wait_for_sess_cmds(sess);
	target_remove_session(sess);
	ch->sess = NULL;
}

/* ---- commands ---- */

void srpt_glue_free_rw(struct srpt_dp_ch *ch, struct srpt_glue_send *s)
{
	u32 i;

	for (i = 0; i < s->n_rw; i++) {
		struct srpt_glue_rw *ctx = &s->rw[i];

		if (ctx->rw_nents)
			rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->port_num,
					    ctx->sg, ctx->rw_nents, s->rw_dir);
	}
	/*
	 * The views before the pages they were DMA-mapped over. Most commands
	 * have neither views nor a heap rw array: test before calling kfree(),
	 * which is not free for NULL on the per-I/O path.
	 */
	if (s->views) {
		kfree(s->views);
		s->views = NULL;
	}
	if (s->data_sg)
		srpt_glue_put_data_sgl(ch, s);
	s->data_sg = NULL;
	s->data_nents = 0;
	if (s->rw && s->rw != &s->s_rw)
		kfree(s->rw);
	s->rw = NULL;
	s->n_rw = 0;
	s->n_rdma = 0;
}

/* Entries a view of @len bytes from byte @off of a page list needs. */
static unsigned int srpt_view_nents(u32 off, u32 len)
{
	return DIV_ROUND_UP(offset_in_page(off) + len, PAGE_SIZE);
}

/*
 * Fills @view with a scatterlist over bytes [@off, @off + @len) of @data,
 * a list of whole pages as target_alloc_sgl() makes them (entry i is page
 * i). Returns the entries used: srpt_view_nents(@off, @len).
 */
static unsigned int srpt_sg_view(struct scatterlist *view,
				 struct scatterlist *data, u32 off, u32 len)
{
	unsigned int first = off >> PAGE_SHIFT, pg_off = offset_in_page(off);
	unsigned int n = srpt_view_nents(off, len), i;

	sg_init_table(view, n);
	for (i = 0; i < n; i++) {
		u32 l = min_t(u32, len, PAGE_SIZE - pg_off);

		sg_set_page(&view[i], sg_page(&data[first + i]), l, pg_off);
		len -= l;
		pg_off = 0;
	}
	return n;
}

/*
 * One rdma_rw context per descriptor. The target core gets the data as one
 * list of whole pages, wherever the descriptors split it: a block backend
 * (iblock) turns list entries into bio segments as they are, and block
 * drivers take segments in whole sectors, so an entry ending inside a
 * sector (a descriptor of 1000 bytes, say) would misplace the data. The
 * in-tree driver chains one list per descriptor and has that hole. A
 * single descriptor maps the list itself; with several, each rw context
 * maps a view over its bytes of the list, all views in one array.
 */
static int srpt_alloc_rw(struct srpt_dp_ch *ch, struct srpt_glue_send *s,
			 const struct srpt_dp_desc *desc, u32 n)
{
	u64 total = 0;
	unsigned int n_views = 0;
	u32 i;
	int ret;

	/* The parser bounded the sum by the channel's maximum transfer. */
	for (i = 0; i < n; i++) {
		n_views += srpt_view_nents(total, desc[i].len);
		total += desc[i].len;
	}
	if (WARN_ON_ONCE(total > U32_MAX))
		return -EINVAL;
	ret = srpt_glue_get_data_sgl(ch, s, total);
	if (ret)
		return ret;
	if (n == 1) {
		memset(&s->s_rw, 0, sizeof(s->s_rw));
		s->rw = &s->s_rw;
		s->rw->sg = s->data_sg;
		s->rw->nents = s->data_nents;
	} else {
		struct scatterlist *view;
		u32 off = 0;

		s->rw = kcalloc(n, sizeof(*s->rw), GFP_KERNEL);
		s->views = kmalloc_array(n_views, sizeof(*s->views),
					 GFP_KERNEL);
		if (!s->rw || !s->views) {
			ret = -ENOMEM;
			goto unwind;
		}
		for (i = 0, view = s->views; i < n; i++) {
			struct srpt_glue_rw *ctx = &s->rw[i];
			ctx->sg = view;
			ctx->nents = srpt_sg_view(view, s->data_sg, off,
						  desc[i].len);
			view += ctx->nents;
			off += desc[i].len;
		}
	}
	/* Every context is counted: srpt_glue_free_rw() skips unmapped ones. */
	s->n_rw = n;
	for (i = 0; i < n; i++) {
		struct srpt_glue_rw *ctx = &s->rw[i];

		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->port_num, ctx->sg,
				       ctx->nents, 0, desc[i].va, desc[i].key,
				       s->rw_dir);
		if (ret < 0)
			goto unwind;
		s->n_rdma += ret;
		ctx->rw_nents = ctx->nents;
		ctx->va = desc[i].va;
		ctx->key = desc[i].key;
		ctx->len = desc[i].len;
	}
	s->desc_len = total;
	s->sg = s->data_sg;
	s->sg_cnt = s->data_nents;
	return 0;

unwind:
	srpt_glue_free_rw(ch, s);
	return ret;
}

/*
 * Data-in moves exactly what the command produced. The descriptors may
 * offer more (a 512-byte READ into a 1 MiB descriptor): the rw contexts,
 * set up for whole descriptors, are redone for the produced length, and
 * descriptors past it are not written at all. The in-tree driver writes
 * the whole descriptor back to the initiator.
 */
static int srpt_clamp_data_in(struct srpt_dp_ch *ch, struct srpt_glue_send *s,
			      u32 bytes)
{
	u32 i, n_rdma = 0;
	int ret;

	for (i = 0; i < s->n_rw; i++) {
		struct srpt_glue_rw *ctx = &s->rw[i];
		u32 want = min(ctx->len, bytes), left;
		unsigned int j;

		bytes -= want;
		if (ctx->rw_nents)
			rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->port_num,
					    ctx->sg, ctx->rw_nents, s->rw_dir);
		ctx->rw_nents = 0;
		if (!want)
			continue;
		/* The entries of one context are one flat array. */
		for (j = 0, left = want; j < ctx->nents && left; j++) {
			if (ctx->sg[j].length > left)
				ctx->sg[j].length = left;
			left -= ctx->sg[j].length;
		}
		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->port_num, ctx->sg,
				       j, 0, ctx->va, ctx->key, s->rw_dir);
		if (ret < 0)
			return ret;
		ctx->rw_nents = j;
		n_rdma += ret;
	}
	s->n_rdma = n_rdma;
	return 0;
}

static int srpt_tcm_task_attr(enum srpt_dp_task_attr attr)
{
	switch (attr) {
	case SRPT_DP_TASK_SIMPLE:
		return TCM_SIMPLE_TAG;
	case SRPT_DP_TASK_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case SRPT_DP_TASK_ACA:
		return TCM_ACA_TAG;
	case SRPT_DP_TASK_ORDERED:
		break;
	}
	return TCM_ORDERED_TAG;
}

/* Inline: once per command, on its path (issue 16). */
static __always_inline void srpt_reset_send(struct srpt_glue_send *s, u64 tag,
					    u8 dir)
{
	memset(&s->cmd, 0, sizeof(s->cmd));
	/*
	 * LIO writes sense as a few bytes of a SENSE_BUFFER-long reply
	 * (scsi_build_sense_buffer()): bytes a command of this context
	 * left would go out with the next sense. Only a command that
	 * answered with sense, or never said, can have left any.
	 */
	if (!s->sense_clean)
		memset(s->sense, 0, sizeof(s->sense));
	s->sense_clean = false;
	s->cmd.tag = tag;
	s->in_lio = false;
	s->t_submit_ns = 0;
	s->imm = false;
	s->reuse_data = false;
	s->dir = dir;
	s->rw = NULL;
	s->n_rw = 0;
	s->n_rdma = 0;
	s->sg = NULL;
	s->sg_cnt = 0;
	s->data_sg = NULL;
	s->data_nents = 0;
	s->views = NULL;
	s->desc_len = 0;
}

int srpt_dp_submit_cmd(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_cmd *c)
{
	struct srpt_glue_send *s = &ch->send[index];
	struct scatterlist *sg = NULL;
	enum dma_data_direction dir;
	u32 sg_cnt = 0;
	int ret;

	srpt_reset_send(s, c->tag, c->dir);
	s->reuse_data = c->reuse_data;
	switch (c->dir) {
	case SRPT_DP_DIR_WRITE:
		dir = DMA_TO_DEVICE;
		s->rw_dir = DMA_FROM_DEVICE; /* RDMA READ into our pages */
		break;
	case SRPT_DP_DIR_READ:
		dir = DMA_FROM_DEVICE;
		s->rw_dir = DMA_TO_DEVICE;
		break;
	default:
		dir = DMA_NONE;
		s->rw_dir = DMA_NONE;
		break;
	}
	if (c->imm_len) {
		sg_init_one(&s->imm_sg, c->imm_data, c->imm_len);
		sg = &s->imm_sg;
		sg_cnt = 1;
		s->imm = true;
	} else if (c->n_desc && dir != DMA_NONE) {
		ret = srpt_alloc_rw(ch, s, c->desc, c->n_desc);
		if (ret)
			return ret;
		sg = s->sg;
		sg_cnt = s->sg_cnt;
	}
	trace_srpt_cmd_recv(ch->name, ch->qp->qp_num, c->tag, c->lun,
			    c->cdb_len ? c->cdb[0] : 0, c->dir, c->data_len,
			    c->imm_len != 0);
	if (trace_srpt_cmd_rsp_enabled())
		s->t_submit_ns = ktime_get_ns();
	ret = target_init_cmd(&s->cmd, ch->sess, s->sense, c->lun, c->data_len,
			      srpt_tcm_task_attr(c->task_attr), dir,
			      TARGET_SCF_ACK_KREF);
	if (ret) {
		srpt_glue_free_rw(ch, s);
		return ret;
	}
	/* From here the target core answers, even a failed prep. */
	s->in_lio = true;
	if (target_submit_prep(&s->cmd, (unsigned char *)c->cdb, sg, sg_cnt,
			       NULL, 0, NULL, 0, GFP_KERNEL))
		return 0;
	target_submit(&s->cmd);
	return 0;
}

static enum tcm_tmreq_table srpt_tcm_tmr(enum srpt_dp_tmf func)
{
	switch (func) {
	case SRPT_DP_TMF_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRPT_DP_TMF_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRPT_DP_TMF_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRPT_DP_TMF_LUN_RESET:
		return TMR_LUN_RESET;
	case SRPT_DP_TMF_CLEAR_ACA:
		break;
	}
	return TMR_CLEAR_ACA;
}

int srpt_dp_submit_tmr(struct srpt_dp_ch *ch, uint32_t index,
		       const struct srpt_dp_tmr *tmr)
{
	struct srpt_glue_send *s = &ch->send[index];
	int ret;

	srpt_reset_send(s, tmr->tag, SRPT_DP_DIR_NONE);
	s->in_lio = true;
	ret = target_submit_tmr(&s->cmd, ch->sess, NULL, tmr->lun, s,
				srpt_tcm_tmr(tmr->func), GFP_KERNEL,
				tmr->task_tag, TARGET_SCF_ACK_KREF);
	if (ret)
		s->in_lio = false;
	return ret;
}

void srpt_dp_execute_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	target_execute_cmd(&ch->send[index].cmd);
}

void srpt_dp_fail_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	transport_generic_request_failure(&ch->send[index].cmd,
					  TCM_CHECK_CONDITION_ABORT_CMD);
}

void srpt_dp_put_cmd(struct srpt_dp_ch *ch, uint32_t index)
{
	struct srpt_glue_send *s = &ch->send[index];

	if (s->in_lio)
		transport_generic_free_cmd(&s->cmd, 0);
	else
		srpt_core_dp_cmd_release(ch->core, index);
}

/* ---- fabric command callbacks ---- */

/**
 * srpt_fabric_release_cmd() - LIO's release_cmd: the command is finished
 * @cmd: the command, embedded in its send context
 *
 * Frees the command's data pages and rdma_rw contexts and returns the send
 * context to the channel, unless its response is still on the wire (then
 * srpt_send_done() returns it). A freed context lets a waiting IU in.
 *
 * Context: any (the target core's last reference).
 */
void srpt_fabric_release_cmd(struct se_cmd *cmd)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);

	srpt_glue_free_rw(s->ch, s);
	s->in_lio = false;
	srpt_core_dp_cmd_release(s->ch->core, s->index);
}

int srpt_fabric_check_stop_free(struct se_cmd *cmd)
{
	return target_put_sess_cmd(cmd);
}

/**
 * srpt_fabric_write_pending() - LIO's write_pending: fetch data-out
 * @cmd: a WRITE command
 *
 * Posts the RDMA READs of every descriptor (one chain, signalled once;
 * deferred while the send queue is full); srpt_rdma_read_done() then
 * executes the command. Immediate data is already in the receive buffer:
 * the command executes at once.
 *
 * Context: any.
 * Return: 0, or a negative errno for LIO to retry or fail the command.
 */
int srpt_fabric_write_pending(struct se_cmd *cmd)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);
	int ret = srpt_core_dp_write_pending(s->ch->core, s->index,
					     s->imm ? 0 : s->n_rdma);

	if (ret < 0)
		return ret;
	/* The data is here: executed after the core returned. */
	if (ret == SRPT_DP_NEXT_EXECUTE)
		target_execute_cmd(cmd);
	return 0;
}

int srpt_fabric_get_cmd_state(struct se_cmd *cmd)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);

	return srpt_core_dp_cmd_state(s->ch->core, s->index);
}

/* Inline into LIO's two callbacks: once per command (issue 16). */
static __always_inline int srpt_queue_rsp(struct se_cmd *cmd,
					  bool status_only)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);
	struct srpt_dp_rsp rsp = {
		.scsi_status = cmd->scsi_status,
		.underflow = !!(cmd->se_cmd_flags & SCF_UNDERFLOW_BIT),
		.overflow = !!(cmd->se_cmd_flags & SCF_OVERFLOW_BIT),
		.residual = cmd->residual_count,
		.sense = s->sense,
		.sense_len = min_t(u32, cmd->scsi_sense_length,
				   sizeof(s->sense)),
	};

	/* Sense is in the buffer once LIO or the backend said so. */
	s->sense_clean = !cmd->scsi_sense_length &&
			 !(cmd->se_cmd_flags & (SCF_TRANSPORT_TASK_SENSE |
						SCF_EMULATED_TASK_SENSE));
	trace_srpt_cmd_rsp(s->ch->name, s->ch->qp->qp_num, cmd->tag,
			   cmd->orig_fe_lun,
			   cmd->t_task_cdb ? cmd->t_task_cdb[0] : 0,
			   cmd->scsi_status, cmd->residual_count,
			   s->t_submit_ns ? ktime_get_ns() - s->t_submit_ns : 0);
	if (cmd->data_direction == DMA_TO_DEVICE)
		rsp.dir = SRPT_DP_DIR_WRITE;
	else if (cmd->data_direction == DMA_FROM_DEVICE)
		rsp.dir = SRPT_DP_DIR_READ;
	if (!status_only && cmd->data_direction == DMA_FROM_DEVICE &&
	    cmd->data_length && s->n_rw) {
		/*
		 * The command produced fewer bytes than the descriptors
		 * offer (data_length lowered by the CDB, reported as a
		 * residual): write only those. A failure here is a lack of
		 * resources; LIO retries queue_data_in.
		 */
		if (cmd->data_length < s->desc_len) {
			int ret = srpt_clamp_data_in(s->ch, s,
						     cmd->data_length);

			if (ret)
				return -ENOMEM;
		}
		rsp.n_rdma_writes = s->n_rdma;
	}
	return srpt_core_dp_queue_response(s->ch->core, s->index, &rsp);
}

/**
 * srpt_fabric_queue_data_in() - LIO's queue_data_in: READ data and status
 * @cmd: a command with data-in
 *
 * Posts RDMA WRITEs of the data the command produced (never more than it
 * produced, where in-tree writes whole descriptors) chained with the
 * SRP_RSP SEND, so one completion ends the command; see srpt_send_done().
 *
 * Context: any.
 * Return: 0, or -ENOMEM for LIO to retry.
 */
int srpt_fabric_queue_data_in(struct se_cmd *cmd)
{
	return srpt_queue_rsp(cmd, false);
}

/**
 * srpt_fabric_queue_status() - LIO's queue_status: send the SRP_RSP
 * @cmd: the command (status, sense data, residual)
 *
 * Context: any.
 * Return: 0, or a negative errno for LIO to retry.
 */
int srpt_fabric_queue_status(struct se_cmd *cmd)
{
	return srpt_queue_rsp(cmd, true);
}

/**
 * srpt_fabric_queue_tm_rsp() - LIO's queue_tm_rsp: answer task management
 * @cmd: the task-management request (ABORT TASK, LUN RESET, ...)
 *
 * Context: any.
 */
void srpt_fabric_queue_tm_rsp(struct se_cmd *cmd)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);
	enum srpt_dp_tmr_result result;

	switch (cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		result = SRPT_DP_TMR_COMPLETE;
		break;
	case TMR_FUNCTION_REJECTED:
		result = SRPT_DP_TMR_REJECTED;
		break;
	default:
		result = SRPT_DP_TMR_FAILED;
		break;
	}
	srpt_core_dp_queue_tm_rsp(s->ch->core, s->index, result);
}

/**
 * srpt_fabric_aborted_task() - LIO's aborted_task: a command was aborted
 * @cmd: the aborted command; no response is sent for it
 *
 * Context: any.
 */
void srpt_fabric_aborted_task(struct se_cmd *cmd)
{
	struct srpt_glue_send *s = srpt_send_of(cmd);

	srpt_core_dp_aborted_task(s->ch->core, s->index);
}

/**
 * srpt_fabric_close_session() - LIO's close_session: disconnect a session
 * @sess: the session (its channel is fabric_sess_ptr)
 *
 * Called when configfs removes the session's ACL or disables its TPG.
 *
 * Context: process (configfs).
 */
void srpt_fabric_close_session(struct se_session *sess)
{
	struct srpt_dp_ch *ch = sess->fabric_sess_ptr;

	srpt_core_dp_close_session(ch->core);
}
