// SPDX-License-Identifier: GPL-2.0
/*
 * srp_pattern_bw: the bench's raw ceiling for SRP's large reads, measured
 * in the kernel with SRP's own message pattern and nothing else.
 *
 * A test tool of the guest benchmark (tests/vm/bench/bench.sh), not part of the
 * product. User-space perftest on two TCG vCPUs measured how its polling
 * client and server share the CPUs with rxe, not the link: SRP's 128 KiB
 * reads went faster than its "ceiling" (docs/testing-vm.md). This module
 * does in the kernel what an SRP READ does on the wire and only that:
 *
 *   initiator side                      target side
 *   SEND 64-byte command  ------------>  receive completion
 *   (buffer address, rkey, length)
 *                         <------------  RDMA WRITE of the data (unsignalled)
 *                         <------------  SEND 36-byte response (signalled)
 *   receive completion: next command
 *
 * over RDMA/CM to the address it is given (the bench gives the one SRP's
 * login dials), with `channels` RC connections of `depth` commands each
 * outstanding. No SCSI, no LIO, no block layer, no data copy on either
 * side: the same link work SRP's READ needs, with none of the rest, so
 * SRP's 128 KiB read throughput should stay below it. With one connection
 * of depth 1 and 4 KiB it is the floor of a QD1 4k read instead: each
 * command's round trip (its SEND posted to its response received) is
 * measured too, and its median and 99th percentile reported.
 *
 * Each side's CQ is polled as ini_poll and tgt_poll say: by default as
 * ib_srp (softirq) and ib_srpt (bound workqueue) poll theirs. On 6.1's
 * rxe, whose packet work runs in tasklets on the CPU that posted, those
 * keep the whole pipeline on one CPU, and polling from the unbound
 * workqueue lets the link have every CPU; the bench runs both and takes
 * the higher (docs/testing-vm.md).
 *
 * insmod runs the whole measurement (connect, warm-up, measure, drain,
 * disconnect) and fails with the reason in the kernel log if any step
 * fails; the figure is in /sys/module/srp_pattern_bw/parameters/result
 * until rmmod.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

MODULE_DESCRIPTION("SRP READ message pattern over RDMA/CM: the bench's raw ceiling and QD1 floor (test tool)");
MODULE_LICENSE("GPL");

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address to listen on and to dial (required)");
static int port = 5556;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "RDMA/CM port (default 5556)");
static int size = 131072;
module_param(size, int, 0444);
MODULE_PARM_DESC(size, "bytes RDMA-written per command (default 131072)");
static int channels = 1;
module_param(channels, int, 0444);
MODULE_PARM_DESC(channels, "RC connections (default 1)");
static int depth = 32;
module_param(depth, int, 0444);
MODULE_PARM_DESC(depth, "commands outstanding per connection (default 32)");
static int warmup_ms = 2000;
module_param(warmup_ms, int, 0444);
MODULE_PARM_DESC(warmup_ms, "time before the measured window (default 2000)");
static int measure_ms = 6000;
module_param(measure_ms, int, 0444);
MODULE_PARM_DESC(measure_ms, "length of the measured window (default 6000)");
static char *ini_poll = "softirq";
module_param(ini_poll, charp, 0444);
MODULE_PARM_DESC(ini_poll, "initiator CQ polling: softirq (ib_srp's, default), workqueue or unbound");
static char *tgt_poll = "workqueue";
module_param(tgt_poll, charp, 0444);
MODULE_PARM_DESC(tgt_poll, "target CQ polling: softirq, workqueue (ib_srpt's, default) or unbound");
static char result[256];
module_param_string(result, result, sizeof(result), 0444);
MODULE_PARM_DESC(result, "the measurement: mibs, bytes, ns, commands, lat_p50_us, lat_p99_us, lat_n, channels, depth, size, ini_poll, tgt_poll");

#define PBW_MAX_CHANNELS 16
#define PBW_MAX_DEPTH 128
#define PBW_MAX_SIZE (1 << 20)
/*
 * Each command's round trip (its SEND posted to its response's receive
 * completion, on the initiator), in ns, goes into a log-linear histogram:
 * exact below 256 ns, then 128 buckets per power of two (each under 0.8 %
 * of its value wide; fio's latency buckets are 1.6 %), any u64.
 */
#define PBW_LAT_SUB_BITS 7
#define PBW_LAT_SUB (1 << PBW_LAT_SUB_BITS)
#define PBW_LAT_BUCKETS (2 * PBW_LAT_SUB + (63 - PBW_LAT_SUB_BITS) * PBW_LAT_SUB)
#define PBW_CMD_LEN 64 /* an SRP_CMD with one direct descriptor */
#define PBW_RSP_LEN 36 /* an SRP_RSP without sense data */
#define PBW_TIMEOUT_MS 10000

/* What a command carries: where the target writes, and how much. */
struct pbw_cmd {
	__be64 addr;
	__be32 rkey;
	__be32 len;
	__be64 tag;
};

/* A receive buffer of one side; its slot index is its position. */
struct pbw_recv {
	struct ib_cqe cqe;
	u8 *buf;
	u64 dma;
};

/*
 * One RC connection, either side. A connection's completions all arrive on
 * its one CQ, whose poller runs them one at a time: the target's fields
 * need no lock. The initiator's send-queue fields have one because the
 * insmod thread posts the first commands while responses may come in; the
 * measuring thread reads only the atomics (and, draining, sq_free).
 */
struct pbw_chan {
	bool target;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool qp_made;
	struct completion done; /* resolved, established or failed */
	int cm_error;

	struct pbw_recv *recvs;
	int nr_recv;
	u8 *recv_area;
	u64 recv_area_dma;
	size_t recv_area_len;

	/* Initiator: the data sink and the command buffer, one per slot. */
	u8 *sink;
	u64 sink_dma;
	u8 *cmd_area;
	u64 cmd_area_dma;
	/* Target: the data source and the response buffer. */
	u8 *source;
	u64 source_dma;
	u8 *rsp_buf;
	u64 rsp_dma;

	struct ib_cqe send_cqe;
	int sq_size;
	int sq_free; /* send-queue slots free: a command takes 1 (initiator) or 2 */
	int backlog; /* initiator: commands owed, no send-queue room when due */
	/* Target: the commands waiting for send-queue room, oldest first. */
	struct pbw_cmd *waiting;
	int wait_head, wait_count;

	/*
	 * Initiator: sq_free, backlog and next_tag, which the insmod thread
	 * touches too while it posts the first commands.
	 */
	spinlock_t lock;
	atomic_t outstanding; /* initiator: commands sent, response not yet in */
	atomic64_t responses; /* initiator: responses received */
	atomic_t errors;
	u64 next_tag;

	/*
	 * Initiator: when each slot's command was posted (responses come in
	 * the order of their commands: response n answers tag n, slot n %
	 * depth, which is not reused before it is in), and the histogram of
	 * the measured window's round trips, which only the CQ's poller
	 * writes.
	 */
	u64 *sent_ns;
	u32 *lat_hist;
};

static enum ib_poll_context pbw_ini_poll, pbw_tgt_poll;
static struct pbw_chan *pbw_ini[PBW_MAX_CHANNELS];
static struct pbw_chan *pbw_tgt[PBW_MAX_CHANNELS];
static int pbw_tgt_count;
static DEFINE_MUTEX(pbw_tgt_mutex);
static struct rdma_cm_id *pbw_listener;
static bool pbw_stop;
static bool pbw_measuring; /* round trips count into the histograms */

static int pbw_post_recv(struct pbw_chan *ch, struct pbw_recv *r)
{
	struct ib_sge sge = {
		.addr = r->dma,
		.length = ch->target ? PBW_CMD_LEN : PBW_RSP_LEN,
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &r->cqe, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(ch->qp, &wr, NULL);
}

static void pbw_wc_error(struct pbw_chan *ch, struct ib_wc *wc, const char *what)
{
	/* Flushes are the teardown's drain, not an error. */
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	atomic_inc(&ch->errors);
	pr_err_ratelimited("srp_pattern_bw: %s %s completion: %s\n",
			   ch->target ? "target" : "initiator", what,
			   ib_wc_status_msg(wc->status));
}

/* ---- initiator side ------------------------------------------------- */

static int pbw_ini_send_cmd(struct pbw_chan *ch)
{
	int slot = ch->next_tag % depth;
	struct pbw_cmd *cmd = (struct pbw_cmd *)(ch->cmd_area + slot * PBW_CMD_LEN);
	struct ib_sge sge = {
		.addr = ch->cmd_area_dma + slot * PBW_CMD_LEN,
		.length = PBW_CMD_LEN,
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &ch->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	cmd->addr = cpu_to_be64(ch->sink_dma);
	cmd->rkey = cpu_to_be32(ch->pd->unsafe_global_rkey);
	cmd->len = cpu_to_be32(size);
	cmd->tag = cpu_to_be64(ch->next_tag);
	ib_dma_sync_single_for_device(ch->id->device, sge.addr, PBW_CMD_LEN, DMA_TO_DEVICE);
	ch->sent_ns[slot] = ktime_get_ns();
	ch->sq_free--;
	atomic_inc(&ch->outstanding);
	ret = ib_post_send(ch->qp, &wr, NULL);
	if (ret) {
		ch->sq_free++;
		atomic_dec(&ch->outstanding);
		atomic_inc(&ch->errors);
		pr_err_ratelimited("srp_pattern_bw: initiator: posting a command: %d\n", ret);
		return ret;
	}
	ch->next_tag++;
	return 0;
}

/* Issue the next command unless stopping; owe it if the queue is full. */
static void pbw_ini_next(struct pbw_chan *ch)
{
	if (READ_ONCE(pbw_stop))
		return;
	spin_lock(&ch->lock);
	if (ch->sq_free == 0)
		ch->backlog++;
	else
		pbw_ini_send_cmd(ch);
	spin_unlock(&ch->lock);
}

static void pbw_ini_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pbw_chan *ch = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS) {
		pbw_wc_error(ch, wc, "command send");
		return;
	}
	spin_lock(&ch->lock);
	ch->sq_free++;
	if (ch->backlog && !READ_ONCE(pbw_stop)) {
		ch->backlog--;
		pbw_ini_send_cmd(ch);
	}
	spin_unlock(&ch->lock);
}

/* The histogram bucket of a round trip of ns nanoseconds. */
static unsigned int pbw_lat_bucket(u64 ns)
{
	unsigned int e, shift;

	if (ns < 2 * PBW_LAT_SUB)
		return ns;
	e = fls64(ns) - 1; /* its top bit, at least PBW_LAT_SUB_BITS + 1 */
	shift = e - PBW_LAT_SUB_BITS;
	return 2 * PBW_LAT_SUB + (shift - 1) * PBW_LAT_SUB + (unsigned int)(ns >> shift) - PBW_LAT_SUB;
}

/* The middle of bucket b, in ns. */
static u64 pbw_lat_bucket_mid(unsigned int b)
{
	unsigned int shift;

	if (b < 2 * PBW_LAT_SUB)
		return b;
	shift = (b - 2 * PBW_LAT_SUB) / PBW_LAT_SUB + 1;
	return ((u64)(PBW_LAT_SUB + (b - 2 * PBW_LAT_SUB) % PBW_LAT_SUB) << shift) + (1ULL << (shift - 1));
}

/* Response n is in: its command's round trip, if in the measured window. */
static void pbw_ini_round_trip(struct pbw_chan *ch, u64 n)
{
	u64 ns = ktime_get_ns() - ch->sent_ns[n % depth];

	if (READ_ONCE(pbw_measuring))
		ch->lat_hist[pbw_lat_bucket(ns)]++;
}

static void pbw_ini_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pbw_chan *ch = cq->cq_context;
	struct pbw_recv *r = container_of(wc->wr_cqe, struct pbw_recv, cqe);

	if (wc->status != IB_WC_SUCCESS) {
		pbw_wc_error(ch, wc, "response receive");
		return;
	}
	/* RC delivers the WRITE before the SEND behind it: the data is in. */
	pbw_ini_round_trip(ch, atomic64_inc_return(&ch->responses) - 1);
	atomic_dec(&ch->outstanding);
	if (pbw_post_recv(ch, r))
		atomic_inc(&ch->errors);
	pbw_ini_next(ch);
}

/* ---- target side ---------------------------------------------------- */

static int pbw_tgt_serve(struct pbw_chan *ch, const struct pbw_cmd *cmd)
{
	struct ib_sge data = {
		.addr = ch->source_dma,
		.length = be32_to_cpu(cmd->len),
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_sge rsp = {
		.addr = ch->rsp_dma,
		.length = PBW_RSP_LEN,
		.lkey = ch->pd->local_dma_lkey,
	};
	struct ib_send_wr send = {
		.wr_cqe = &ch->send_cqe,
		.sg_list = &rsp,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	/* Errors complete unsignalled requests too: the WRITE needs a cqe. */
	struct ib_rdma_wr write = {
		.wr = {
			.wr_cqe = &ch->send_cqe,
			.next = &send,
			.sg_list = &data,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
		},
		.remote_addr = be64_to_cpu(cmd->addr),
		.rkey = be32_to_cpu(cmd->rkey),
	};
	int ret;

	if (data.length > size) {
		atomic_inc(&ch->errors);
		pr_err_ratelimited("srp_pattern_bw: target: command asks for %u bytes\n", data.length);
		return -EINVAL;
	}
	ch->sq_free -= 2;
	ret = ib_post_send(ch->qp, &write.wr, NULL);
	if (ret) {
		ch->sq_free += 2;
		atomic_inc(&ch->errors);
		pr_err_ratelimited("srp_pattern_bw: target: posting a response: %d\n", ret);
	}
	return ret;
}

static void pbw_tgt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pbw_chan *ch = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS) {
		pbw_wc_error(ch, wc, "response send");
		return;
	}
	/* The signalled SEND completes its unsignalled WRITE too. */
	WRITE_ONCE(ch->sq_free, ch->sq_free + 2);
	while (ch->wait_count && ch->sq_free >= 2) {
		pbw_tgt_serve(ch, &ch->waiting[ch->wait_head]);
		ch->wait_head = (ch->wait_head + 1) % ch->nr_recv;
		ch->wait_count--;
	}
}

static void pbw_tgt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct pbw_chan *ch = cq->cq_context;
	struct pbw_recv *r = container_of(wc->wr_cqe, struct pbw_recv, cqe);
	struct pbw_cmd cmd;

	if (wc->status != IB_WC_SUCCESS) {
		pbw_wc_error(ch, wc, "command receive");
		return;
	}
	ib_dma_sync_single_for_cpu(ch->id->device, r->dma, PBW_CMD_LEN, DMA_FROM_DEVICE);
	memcpy(&cmd, r->buf, sizeof(cmd));
	if (pbw_post_recv(ch, r))
		atomic_inc(&ch->errors);
	if (ch->sq_free >= 2 && ch->wait_count == 0) {
		pbw_tgt_serve(ch, &cmd);
	} else if (ch->wait_count < ch->nr_recv) {
		ch->waiting[(ch->wait_head + ch->wait_count) % ch->nr_recv] = cmd;
		ch->wait_count++;
	} else {
		atomic_inc(&ch->errors);
		pr_err_ratelimited("srp_pattern_bw: target: more commands than receive buffers\n");
	}
}

/* ---- both sides: resources of one connection --------------------------- */

static void pbw_unmap_free(struct ib_device *dev, u8 **buf, u64 dma, size_t len,
			   enum dma_data_direction dir)
{
	if (!*buf)
		return;
	if (dev && dma)
		ib_dma_unmap_single(dev, dma, len, dir);
	kfree(*buf);
	*buf = NULL;
}

static int pbw_alloc_map(struct ib_device *dev, u8 **buf, u64 *dma, size_t len,
			 enum dma_data_direction dir)
{
	*buf = kzalloc(len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *buf, len, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		*dma = 0;
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* QP, CQ, PD and buffers of a connection; cm_id and chan stay. */
static void pbw_chan_release(struct pbw_chan *ch)
{
	struct ib_device *dev = ch->id ? ch->id->device : NULL;

	if (ch->qp_made) {
		rdma_destroy_qp(ch->id);
		ch->qp_made = false;
		ch->qp = NULL;
	}
	if (ch->cq) {
		ib_free_cq(ch->cq);
		ch->cq = NULL;
	}
	pbw_unmap_free(dev, &ch->recv_area, ch->recv_area_dma, ch->recv_area_len, DMA_FROM_DEVICE);
	pbw_unmap_free(dev, &ch->sink, ch->sink_dma, size, DMA_FROM_DEVICE);
	pbw_unmap_free(dev, &ch->cmd_area, ch->cmd_area_dma, (size_t)depth * PBW_CMD_LEN, DMA_TO_DEVICE);
	pbw_unmap_free(dev, &ch->source, ch->source_dma, size, DMA_TO_DEVICE);
	pbw_unmap_free(dev, &ch->rsp_buf, ch->rsp_dma, PBW_RSP_LEN, DMA_TO_DEVICE);
	kfree(ch->recvs);
	ch->recvs = NULL;
	kfree(ch->waiting);
	ch->waiting = NULL;
	kfree(ch->sent_ns);
	ch->sent_ns = NULL;
	kfree(ch->lat_hist);
	ch->lat_hist = NULL;
	if (ch->pd) {
		ib_dealloc_pd(ch->pd);
		ch->pd = NULL;
	}
}

/*
 * PD, CQ, QP and buffers of a connection on ch->id's device, receives
 * posted. The CQ is polled as tgt_poll or ini_poll say (by default as
 * ib_srpt's pool CQs and ib_srp's receive CQ are: bound workqueue, softirq).
 */
static int pbw_chan_setup(struct pbw_chan *ch)
{
	struct ib_device *dev = ch->id->device;
	struct ib_qp_init_attr qa = {};
	int i, ret;

	/* Target: up to two depths of commands whose responses have not completed. */
	ch->sq_size = ch->target ? 4 * depth + 2 : 2 * depth + 1;
	ch->sq_free = ch->sq_size;
	ch->nr_recv = ch->target ? 2 * depth : depth + 1;
	ch->pd = ib_alloc_pd(dev, ch->target ? 0 : IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(ch->pd)) {
		ret = PTR_ERR(ch->pd);
		ch->pd = NULL;
		return ret;
	}
	ch->cq = ib_alloc_cq(dev, ch, ch->sq_size + ch->nr_recv, 0,
			     ch->target ? pbw_tgt_poll : pbw_ini_poll);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}
	qa.send_cq = ch->cq;
	qa.recv_cq = ch->cq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = ch->sq_size;
	qa.cap.max_recv_wr = ch->nr_recv;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	ret = rdma_create_qp(ch->id, ch->pd, &qa);
	if (ret)
		return ret;
	ch->qp_made = true;
	ch->qp = ch->id->qp;

	ch->send_cqe.done = ch->target ? pbw_tgt_send_done : pbw_ini_send_done;
	ch->recv_area_len = (size_t)ch->nr_recv * PBW_CMD_LEN;
	ret = pbw_alloc_map(dev, &ch->recv_area, &ch->recv_area_dma, ch->recv_area_len,
			    DMA_FROM_DEVICE);
	if (ret)
		return ret;
	ch->recvs = kcalloc(ch->nr_recv, sizeof(*ch->recvs), GFP_KERNEL);
	if (!ch->recvs)
		return -ENOMEM;
	if (ch->target) {
		ch->waiting = kcalloc(ch->nr_recv, sizeof(*ch->waiting), GFP_KERNEL);
		if (!ch->waiting)
			return -ENOMEM;
		ret = pbw_alloc_map(dev, &ch->source, &ch->source_dma, size, DMA_TO_DEVICE);
		if (!ret)
			ret = pbw_alloc_map(dev, &ch->rsp_buf, &ch->rsp_dma, PBW_RSP_LEN, DMA_TO_DEVICE);
	} else {
		ch->sent_ns = kcalloc(depth, sizeof(*ch->sent_ns), GFP_KERNEL);
		ch->lat_hist = kcalloc(PBW_LAT_BUCKETS, sizeof(*ch->lat_hist), GFP_KERNEL);
		if (!ch->sent_ns || !ch->lat_hist)
			return -ENOMEM;
		ret = pbw_alloc_map(dev, &ch->sink, &ch->sink_dma, size, DMA_FROM_DEVICE);
		if (!ret)
			ret = pbw_alloc_map(dev, &ch->cmd_area, &ch->cmd_area_dma,
					    (size_t)depth * PBW_CMD_LEN, DMA_TO_DEVICE);
	}
	if (ret)
		return ret;
	for (i = 0; i < ch->nr_recv; i++) {
		struct pbw_recv *r = &ch->recvs[i];

		r->cqe.done = ch->target ? pbw_tgt_recv_done : pbw_ini_recv_done;
		r->buf = ch->recv_area + i * PBW_CMD_LEN;
		r->dma = ch->recv_area_dma + i * PBW_CMD_LEN;
		ret = pbw_post_recv(ch, r);
		if (ret)
			return ret;
	}
	return 0;
}

static struct pbw_chan *pbw_chan_alloc(bool target)
{
	struct pbw_chan *ch = kzalloc(sizeof(*ch), GFP_KERNEL);

	if (!ch)
		return NULL;
	ch->target = target;
	spin_lock_init(&ch->lock);
	init_completion(&ch->done);
	atomic_set(&ch->outstanding, 0);
	atomic64_set(&ch->responses, 0);
	atomic_set(&ch->errors, 0);
	return ch;
}

/* ---- RDMA/CM events ----------------------------------------------------- */

static int pbw_tgt_connect_request(struct rdma_cm_id *id)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct pbw_chan *ch;
	int ret;

	mutex_lock(&pbw_tgt_mutex);
	if (pbw_tgt_count >= channels) {
		mutex_unlock(&pbw_tgt_mutex);
		pr_err("srp_pattern_bw: target: connection request beyond %d channels\n", channels);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return 0;
	}
	ch = pbw_chan_alloc(true);
	if (!ch) {
		mutex_unlock(&pbw_tgt_mutex);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return 0;
	}
	ch->id = id;
	id->context = ch;
	pbw_tgt[pbw_tgt_count++] = ch;
	mutex_unlock(&pbw_tgt_mutex);

	ret = pbw_chan_setup(ch);
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		pr_err("srp_pattern_bw: target: accepting a connection: %d\n", ret);
		ch->cm_error = ret;
		/* The channel stays in pbw_tgt; teardown releases it. */
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		complete(&ch->done);
	}
	return 0;
}

static int pbw_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct pbw_chan *ch = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return pbw_tgt_connect_request(id);
	if (!ch)
		return 0; /* the listener's own events */
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&ch->done);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		pr_err("srp_pattern_bw: %s: %s (status %d)\n", ch->target ? "target" : "initiator",
		       rdma_event_msg(ev->event), ev->status);
		ch->cm_error = ev->status ? ev->status : -ECONNREFUSED;
		complete(&ch->done);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The measurement fails on its completion errors. */
		pr_err("srp_pattern_bw: device removed under the measurement\n");
		ch->cm_error = -ENODEV;
		complete(&ch->done);
		break;
	default:
		break;
	}
	return 0;
}

/* Wait for ch->done; the step's own error or a timeout is an error. */
static int pbw_wait(struct pbw_chan *ch, const char *step)
{
	if (!wait_for_completion_timeout(&ch->done, msecs_to_jiffies(PBW_TIMEOUT_MS))) {
		pr_err("srp_pattern_bw: %s: no answer in %d ms\n", step, PBW_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	reinit_completion(&ch->done);
	if (ch->cm_error)
		pr_err("srp_pattern_bw: %s failed: %d\n", step, ch->cm_error);
	return ch->cm_error;
}

static int pbw_ini_connect(struct pbw_chan *ch, struct sockaddr_in *dst)
{
	struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
	int ret;

	ch->id = rdma_create_id(&init_net, pbw_cm_handler, ch, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(ch->id)) {
		ret = PTR_ERR(ch->id);
		ch->id = NULL;
		return ret;
	}
	ret = rdma_resolve_addr(ch->id, NULL, (struct sockaddr *)dst, PBW_TIMEOUT_MS / 2);
	if (!ret)
		ret = pbw_wait(ch, "address resolution");
	if (!ret)
		ret = rdma_resolve_route(ch->id, PBW_TIMEOUT_MS / 2);
	if (!ret)
		ret = pbw_wait(ch, "route resolution");
	if (!ret)
		ret = pbw_chan_setup(ch);
	if (!ret)
		ret = rdma_connect(ch->id, &param);
	if (!ret)
		ret = pbw_wait(ch, "connection");
	return ret;
}

/* ---- the measurement ------------------------------------------------------- */

static u64 pbw_responses(void)
{
	u64 n = 0;
	int i;

	for (i = 0; i < channels; i++)
		if (pbw_ini[i])
			n += atomic64_read(&pbw_ini[i]->responses);
	return n;
}

static int pbw_errors(void)
{
	int i, n = 0;

	for (i = 0; i < PBW_MAX_CHANNELS; i++) {
		if (pbw_ini[i])
			n += atomic_read(&pbw_ini[i]->errors);
		if (pbw_tgt[i])
			n += atomic_read(&pbw_tgt[i]->errors);
	}
	return n;
}

/*
 * Every initiator's commands answered and every target's responses
 * completed (their ACKs in), or the timeout.
 */
static bool pbw_drained(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(PBW_TIMEOUT_MS);
	int i;

	for (i = 0; i < PBW_MAX_CHANNELS; i++) {
		struct pbw_chan *ini = pbw_ini[i], *tgt = pbw_tgt[i];

		while ((ini && atomic_read(&ini->outstanding) > 0) ||
		       (tgt && tgt->qp && READ_ONCE(tgt->sq_free) < tgt->sq_size)) {
			if (time_after(jiffies, end))
				return false;
			msleep(20);
		}
	}
	return true;
}

/*
 * Stop, drain, disconnect and free everything; returns the completion
 * errors seen over the whole run (flushes of the drain not counted).
 */
static int pbw_teardown(void)
{
	int i, errors;

	WRITE_ONCE(pbw_stop, true);
	if (!pbw_drained())
		pr_err("srp_pattern_bw: commands or responses still outstanding after %d ms\n",
		       PBW_TIMEOUT_MS);
	/* The listener first: no connection request can add a channel below. */
	if (pbw_listener) {
		rdma_destroy_id(pbw_listener);
		pbw_listener = NULL;
	}
	for (i = 0; i < PBW_MAX_CHANNELS; i++) {
		struct pbw_chan *ch = pbw_ini[i];

		if (!ch || !ch->id)
			continue;
		rdma_disconnect(ch->id);
		if (ch->qp)
			ib_drain_qp(ch->qp);
	}
	for (i = 0; i < PBW_MAX_CHANNELS; i++) {
		struct pbw_chan *ch = pbw_tgt[i];

		if (!ch)
			continue;
		rdma_disconnect(ch->id);
		if (ch->qp)
			ib_drain_qp(ch->qp);
	}
	errors = pbw_errors();
	for (i = 0; i < PBW_MAX_CHANNELS; i++) {
		struct pbw_chan *chans[2] = { pbw_ini[i], pbw_tgt[i] };
		int k;

		for (k = 0; k < 2; k++) {
			struct pbw_chan *ch = chans[k];

			if (!ch)
				continue;
			/* QP, CQ, buffers and PD need the id's device: before the id. */
			pbw_chan_release(ch);
			if (ch->id)
				rdma_destroy_id(ch->id); /* waits for its handler */
			kfree(ch);
		}
		pbw_ini[i] = NULL;
		pbw_tgt[i] = NULL;
	}
	pbw_tgt_count = 0;
	return errors;
}

static int pbw_poll_context(const char *name, enum ib_poll_context *ctx)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "softirq"))
		*ctx = IB_POLL_SOFTIRQ;
	else if (!strcmp(name, "workqueue"))
		*ctx = IB_POLL_WORKQUEUE;
	else if (!strcmp(name, "unbound"))
		*ctx = IB_POLL_UNBOUND_WORKQUEUE;
	else
		return -EINVAL;
	return 0;
}

/*
 * The round trip at or below which `pct` percent of the measured window's
 * fell, over every connection: the middle of its bucket, in ns. 0 if none
 * was measured.
 */
static u64 pbw_lat_percentile(u64 total, unsigned int pct)
{
	u64 want = div_u64(total * pct + 99, 100), seen = 0;
	unsigned int b;
	int i;

	if (!total)
		return 0;
	for (b = 0; b < PBW_LAT_BUCKETS - 1; b++) {
		for (i = 0; i < channels; i++)
			seen += pbw_ini[i]->lat_hist[b];
		if (seen >= want)
			break;
	}
	return pbw_lat_bucket_mid(b);
}

static int __init pbw_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	u64 n0, n1, ns0, ns1, bytes, mibs_x1000, lat_n = 0, p50, p99;
	int i, k, ret, errors;

	if (!addr || !in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, '\0', NULL)) {
		pr_err("srp_pattern_bw: addr=%s is not an IPv4 address\n", addr ? addr : "(none)");
		return -EINVAL;
	}
	if (port <= 0 || port > 65535 || size <= 0 || size > PBW_MAX_SIZE || channels <= 0 ||
	    channels > PBW_MAX_CHANNELS || depth <= 0 || depth > PBW_MAX_DEPTH || warmup_ms < 0 ||
	    measure_ms < 100 || pbw_poll_context(ini_poll, &pbw_ini_poll) ||
	    pbw_poll_context(tgt_poll, &pbw_tgt_poll)) {
		pr_err("srp_pattern_bw: invalid parameters: port %d (1-65535), size %d (1-%d), channels %d (1-%d), depth %d (1-%d), warmup_ms %d (>= 0), measure_ms %d (>= 100), ini_poll %s and tgt_poll %s (softirq, workqueue, unbound)\n",
		       port, size, PBW_MAX_SIZE, channels, PBW_MAX_CHANNELS, depth, PBW_MAX_DEPTH,
		       warmup_ms, measure_ms, ini_poll, tgt_poll);
		return -EINVAL;
	}
	sin.sin_port = htons(port);
	WRITE_ONCE(pbw_stop, false);

	pbw_listener = rdma_create_id(&init_net, pbw_cm_handler, NULL, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(pbw_listener)) {
		ret = PTR_ERR(pbw_listener);
		pbw_listener = NULL;
		pr_err("srp_pattern_bw: listener: %d\n", ret);
		return ret;
	}
	ret = rdma_bind_addr(pbw_listener, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(pbw_listener, channels);
	if (ret) {
		pr_err("srp_pattern_bw: listening on %pI4:%d: %d\n", &sin.sin_addr, port, ret);
		goto out;
	}
	for (i = 0; i < channels; i++) {
		pbw_ini[i] = pbw_chan_alloc(false);
		if (!pbw_ini[i]) {
			ret = -ENOMEM;
			goto out;
		}
		ret = pbw_ini_connect(pbw_ini[i], &sin);
		if (ret) {
			pr_err("srp_pattern_bw: connection %d to %pI4:%d: %d\n", i, &sin.sin_addr, port, ret);
			goto out;
		}
	}
	mutex_lock(&pbw_tgt_mutex);
	for (i = 0; i < pbw_tgt_count && !ret; i++)
		ret = pbw_tgt[i]->cm_error;
	if (!ret && pbw_tgt_count != channels) {
		pr_err("srp_pattern_bw: %d connections accepted, %d made\n", pbw_tgt_count, channels);
		ret = -EPROTO;
	}
	mutex_unlock(&pbw_tgt_mutex);
	if (ret)
		goto out;

	/* Each connection's first `depth` commands; the responses keep it full. */
	for (i = 0; i < channels && !ret; i++) {
		struct pbw_chan *ch = pbw_ini[i];

		spin_lock_bh(&ch->lock);
		for (k = 0; k < depth && !ret; k++)
			ret = pbw_ini_send_cmd(ch);
		spin_unlock_bh(&ch->lock);
	}
	if (ret)
		goto out;

	msleep(warmup_ms);
	WRITE_ONCE(pbw_measuring, true);
	n0 = pbw_responses();
	ns0 = ktime_get_ns();
	msleep(measure_ms);
	n1 = pbw_responses();
	ns1 = ktime_get_ns();
	WRITE_ONCE(pbw_measuring, false);
	if (n1 == n0) {
		pr_err("srp_pattern_bw: no response in the measured window\n");
		ret = -EIO;
		goto out;
	}
	bytes = (n1 - n0) * (u64)size;
	/* MiB/s, times 1000: bytes per second is bytes * 1e9 / ns. */
	mibs_x1000 = mul_u64_u64_div_u64(bytes, 1000ULL * NSEC_PER_SEC, ns1 - ns0) >> 20;
	/*
	 * A poller that saw the window open may still be adding its one
	 * round trip: read now, the histograms miss at most one per
	 * connection (a u32 is never read torn).
	 */
	for (i = 0; i < channels; i++)
		for (k = 0; k < PBW_LAT_BUCKETS; k++)
			lat_n += pbw_ini[i]->lat_hist[k];
	p50 = pbw_lat_percentile(lat_n, 50);
	p99 = pbw_lat_percentile(lat_n, 99);
	snprintf(result, sizeof(result),
		 "mibs=%llu.%03llu bytes=%llu ns=%llu commands=%llu lat_p50_us=%llu.%03llu lat_p99_us=%llu.%03llu lat_n=%llu channels=%d depth=%d size=%d ini_poll=%s tgt_poll=%s",
		 mibs_x1000 / 1000, mibs_x1000 % 1000, bytes, ns1 - ns0, n1 - n0,
		 p50 / 1000, p50 % 1000, p99 / 1000, p99 % 1000, lat_n, channels, depth, size,
		 ini_poll, tgt_poll);
out:
	errors = pbw_teardown();
	if (!ret && errors) {
		pr_err("srp_pattern_bw: %d completion errors\n", errors);
		ret = -EIO;
	}
	if (ret) {
		result[0] = '\0';
		return ret;
	}
	pr_info("srp_pattern_bw: %s\n", result);
	return 0;
}

static void __exit pbw_exit(void)
{
}

module_init(pbw_init);
module_exit(pbw_exit);
