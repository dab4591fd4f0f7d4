// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A channel's spare data pages: the pages of a command's data list
 * (srpt_glue_get_data_sgl(), srpt_glue_put_data_sgl()), kept per channel
 * for its next block commands. Called by glue/target_core.c when it sets
 * up a command's rdma_rw contexts and when LIO releases the command.
 *
 * Contract of the unit:
 *  - A block READ or WRITE (srpt_dp_cmd.reuse_data) gets whole pages, laid
 *    out as target_alloc_sgl() lays them out; any other command gets
 *    target_alloc_sgl()'s (zeroed) pages and gives them back to it.
 *  - A spare page holds only this channel's own earlier data, and is
 *    never read before the command writes it (below, and
 *    docs/data-integrity.md, "Data pages used twice").
 *  - ch->spare_lock guards the pool (spare[], spare_pages, spare_misses);
 *    it is taken twice per block command, never with the channel core's
 *    lock held, and nothing under it sleeps or calls out.
 *  - The pool never holds more than ch->spare_max pages; teardown
 *    (srpt_glue_free_spares()) frees every page and kept array.
 *  - Checked in the guest by port-datapath steps 1d and 1e (bounds,
 *    spare_pages_max 0, the pool is the channel's) and by integrity.
 *
 * Spare data pages. A block READ or WRITE (the core says which:
 * srpt_dp_cmd.reuse_data) gives its data pages back to its channel's spare
 * pool when it is released, and the channel's next block commands take
 * pages from that pool before they allocate: no page allocation, no
 * zeroing by init_on_alloc, no freeing per command. The pool is the
 * channel's, not a send context's: whichever context a command gets, it
 * finds the pages the channel's last commands gave back, so pages idle in
 * one context never force another to allocate (they did when each context
 * kept its own: a QD1 job after a 128 KiB QD32 one allocated a page per
 * read while idle contexts held the whole bound). The pool is LIFO, so a
 * command gets the pages most recently used (cache-warm). The pool is an
 * array of page pointers used as a stack, allocated with the channel:
 * taking and giving back touch neither the pages nor a list (Debian's
 * kernels check every list operation, CONFIG_DEBUG_LIST).
 * Such a command moves every byte of its data: a READ's backend fills what
 * it returns and data-in carries only what it produced; a WRITE's pages are
 * filled by RDMA READ before the command runs. So a spare page's old
 * content (this channel's own earlier data) is never sent. Other commands
 * (INQUIRY and the like, which LIO expects zeroed) never use a spare. A
 * page goes back when LIO releases its command, which LIO does after the
 * command's last work request completed (the fabric's reference lasts
 * until the response's send completion; an aborted WRITE is released
 * after its RDMA READ completed), so no DMA reaches a spare. The core
 * copes with a release while work requests are posted too, which no LIO
 * path does; there the pages would be reused early, as freed ones would
 * be by target_free_sgl() in-tree. It counts such releases (stats
 * released_wrs_posted; port-datapath and port-srq require 0). ch->spare_max
 * bounds the pool (debugfs spare_pages_max when the channel was made, at
 * most SRPT_SPARE_PAGES_LIMIT; SRPT_SPARE_PAGES by default; 0: every page
 * is new and freed after use).
 * A block command's scatterlist array stays with its send context for the
 * next one (up to SRPT_KEEP_SG entries; longer ones are per command).
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <target/target_core_fabric.h>

#include "channel_ib.h"
#include "glue.h"

/* Entries of a send context's kept scatterlist array, at most: 256 KiB. */
#define SRPT_KEEP_SG 64

/* Gives @n data pages back: to the channel's pool up to its bound. */
static void srpt_give_pages(struct srpt_dp_ch *ch, struct scatterlist *sg,
			    unsigned int n)
{
	unsigned long flags;
	unsigned int i, keep;

	spin_lock_irqsave(&ch->spare_lock, flags);
	keep = min(n, ch->spare_max - ch->spare_pages);
	for (i = 0; i < keep; i++)
		ch->spare[ch->spare_pages + i] = sg_page(&sg[i]);
	WRITE_ONCE(ch->spare_pages, ch->spare_pages + keep);
	spin_unlock_irqrestore(&ch->spare_lock, flags);
	for (i = keep; i < n; i++)
		__free_page(sg_page(&sg[i]));
}

/*
 * Fills @sg (@n entries, initialised) with pages for @len bytes, laid out
 * as target_alloc_sgl() does: entry i is page i, whole pages but the last.
 * Spare pages first (the top of the stack: the most recently used), then
 * new ones (not zeroed: every byte is written before it is read, see
 * above).
 */
static int srpt_take_pages(struct srpt_dp_ch *ch, struct scatterlist *sg,
			   unsigned int n, u32 len)
{
	u32 last = len - (n - 1) * PAGE_SIZE;
	unsigned int i, got, top;
	unsigned long flags;
	struct page *page;

	spin_lock_irqsave(&ch->spare_lock, flags);
	got = min(n, ch->spare_pages);
	top = ch->spare_pages - got;
	for (i = 0; i < got; i++)
		sg_set_page(&sg[i], ch->spare[top + i],
			    i + 1 < n ? PAGE_SIZE : last, 0);
	WRITE_ONCE(ch->spare_pages, top);
	WRITE_ONCE(ch->spare_misses, ch->spare_misses + n - got);
	spin_unlock_irqrestore(&ch->spare_lock, flags);
	for (; i < n; i++) {
		page = alloc_page(GFP_KERNEL);
		if (!page) {
			srpt_give_pages(ch, sg, i);
			return -ENOMEM;
		}
		sg_set_page(&sg[i], page, i + 1 < n ? PAGE_SIZE : last, 0);
	}
	return 0;
}

int srpt_glue_alloc_spares(struct srpt_dp_ch *ch)
{
	ch->spare_max = min_t(u32, srpt_glue_spare_pages_max(),
			      SRPT_SPARE_PAGES_LIMIT);
	if (!ch->spare_max)
		return 0;
	ch->spare = kvcalloc(ch->spare_max, sizeof(*ch->spare), GFP_KERNEL);
	return ch->spare ? 0 : -ENOMEM;
}

void srpt_glue_free_spares(struct srpt_dp_ch *ch)
{
	u32 i;

	for (i = 0; i < ch->n_send; i++) {
		kfree(ch->send[i].keep_sg);
		ch->send[i].keep_sg = NULL;
		ch->send[i].keep_nents = 0;
	}
	for (i = 0; i < ch->spare_pages; i++)
		__free_page(ch->spare[i]);
	ch->spare_pages = 0;
	kvfree(ch->spare);
	ch->spare = NULL;
}

int srpt_glue_get_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s,
			   u32 len)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE);
	struct scatterlist *sg = s->keep_sg;
	int ret;

	if (!s->reuse_data)
		return target_alloc_sgl(&s->data_sg, &s->data_nents, len,
					false, false);
	if (n > s->keep_nents) {
		sg = kmalloc_array(n, sizeof(*sg), GFP_KERNEL);
		if (!sg)
			return -ENOMEM;
		if (n <= SRPT_KEEP_SG) {
			kfree(s->keep_sg);
			s->keep_sg = sg;
			s->keep_nents = n;
		}
	}
	sg_init_table(sg, n);
	ret = srpt_take_pages(ch, sg, n, len);
	if (ret) {
		if (sg != s->keep_sg)
			kfree(sg);
		return ret;
	}
	s->data_sg = sg;
	s->data_nents = n;
	return 0;
}

void srpt_glue_put_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s)
{
	if (!s->reuse_data) {
		target_free_sgl(s->data_sg, s->data_nents);
		return;
	}
	srpt_give_pages(ch, s->data_sg, s->data_nents);
	if (s->data_sg != s->keep_sg)
		kfree(s->data_sg);
}
