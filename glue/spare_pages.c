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
 *  - A send context keeps the pages of its last block command attached
 *    (struct srpt_glue_send.kept_pages, in its kept scatterlist array) and
 *    its next one takes them first, with no lock and no atomic: a
 *    command of the same size as the context's last one touches neither
 *    the pool nor its lock. Only a miss (a longer command than the
 *    context kept pages for) takes from the channel's pool, under
 *    ch->spare_lock, and a shorter one gives its surplus back to it; the
 *    pool's lock is never taken with the channel core's lock held, and
 *    nothing under it sleeps or calls out.
 *  - ch->spare_held counts the pool's pages and every context's attached
 *    ones, and never stays above ch->spare_max (srpt_reserve_spares());
 *    pages over it are used once and freed. debugfs spare_pages shows it.
 *  - Teardown (srpt_glue_free_spares()) frees every page and kept array.
 *  - Checked in the guest by port-datapath steps 1d and 1e (bounds,
 *    spare_pages_max 0, 4k reads at QD 1 after 128 KiB reads at QD 32
 *    allocate nothing) and by integrity.
 *
 * Why. A block READ or WRITE (the core says which:
 * srpt_dp_cmd.reuse_data) keeps its data pages when it is released, and
 * the channel's next block commands use them before they allocate: no
 * page allocation, no zeroing by init_on_alloc, no freeing per command.
 * Its send context keeps them first (most commands are the size of the
 * last one on their context, and a QD1 job reuses one context: the send
 * context pool is LIFO), so the usual command takes no lock. What a
 * context does not need goes to the channel's pool, so that pages idle in
 * one context never force another to allocate for long (they did when
 * each context kept all of its own: a QD1 job after a 128 KiB QD32 one
 * allocated a page per read while idle contexts held the whole bound; now
 * the QD1 context gives its surplus to the pool once). The pool is LIFO, so a
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
 * bounds the pool and the contexts' pages together (debugfs
 * spare_pages_max when the channel was made, at most
 * SRPT_SPARE_PAGES_LIMIT; SRPT_SPARE_PAGES by default; 0: every page is
 * new and freed after use). A block command's scatterlist array stays with
 * its send context for the next one (up to SRPT_KEEP_SG entries; longer
 * ones are per command, their pages from and to the pool).
 */
#include "pr_fmt.h"

#include <linux/mm.h>
#include <linux/slab.h>
#include <target/target_core_fabric.h>

#include "channel_ib.h"
#include "glue.h"

/* Entries of a send context's kept scatterlist array, at most: 256 KiB. */
#define SRPT_KEEP_SG 64

/*
 * Counts @k more pages as spare (attached to a context, or in the pool),
 * as far as the channel's bound allows. Returns how many were counted.
 * Lockless: racing reservations may overshoot for an instant, and each
 * gives back its own excess.
 */
static unsigned int srpt_reserve_spares(struct srpt_dp_ch *ch, unsigned int k)
{
	int held, excess;

	if (!k)
		return 0;
	held = atomic_add_return(k, &ch->spare_held);
	excess = min_t(int, k, held - (int)ch->spare_max);
	if (excess <= 0)
		return k;
	atomic_sub(excess, &ch->spare_held);
	return k - excess;
}

/*
 * Pages into the pool: @counted ones are spare already (a context's
 * surplus), the others are counted first as far as the bound allows; the
 * rest is freed.
 */
static void srpt_give_pages(struct srpt_dp_ch *ch, struct scatterlist *sg,
			    unsigned int n, bool counted)
{
	unsigned int i, keep = counted ? n : srpt_reserve_spares(ch, n);
	unsigned long flags;

	if (keep) {
		spin_lock_irqsave(&ch->spare_lock, flags);
		/* Counted pages fit: pool + attached never pass spare_max. */
		for (i = 0; i < keep; i++)
			ch->spare[ch->spare_pages + i] = sg_page(&sg[i]);
		WRITE_ONCE(ch->spare_pages, ch->spare_pages + keep);
		spin_unlock_irqrestore(&ch->spare_lock, flags);
	}
	for (i = keep; i < n; i++)
		__free_page(sg_page(&sg[i]));
}

/* Sets entry @i of a command's @n entries for @len bytes over @page. */
static void srpt_set_data_page(struct scatterlist *sg, unsigned int i,
			       unsigned int n, u32 len, struct page *page)
{
	sg_set_page(&sg[i], page,
		    i + 1 < n ? PAGE_SIZE : len - (n - 1) * PAGE_SIZE, 0);
}

/*
 * Fills entries [@from, @n) of @sg with pages for a command of @len bytes,
 * laid out as target_alloc_sgl() does (entry i is page i, whole pages but
 * the last): from the pool first (the top of the stack, the most recently
 * used), then new ones (not zeroed: every byte is written before it is
 * read, see above). @attach: the pages will stay with the send context
 * (the pool's are spare already; new ones are counted against the bound,
 * and those over it are returned in *@extra, from the end). Else the
 * pool's stop being spare. On failure the pages it took are given back.
 */
static int srpt_take_pages(struct srpt_dp_ch *ch, struct scatterlist *sg,
			   unsigned int from, unsigned int n, u32 len,
			   bool attach, unsigned int *extra)
{
	unsigned int i, got, top, fresh, counted = 0;
	unsigned long flags;
	struct page *page;

	*extra = 0;
	if (READ_ONCE(ch->spare_pages)) {
		spin_lock_irqsave(&ch->spare_lock, flags);
		got = min(n - from, ch->spare_pages);
		top = ch->spare_pages - got;
		for (i = 0; i < got; i++)
			srpt_set_data_page(sg, from + i, n, len,
					   ch->spare[top + i]);
		WRITE_ONCE(ch->spare_pages, top);
		spin_unlock_irqrestore(&ch->spare_lock, flags);
		if (!attach)
			atomic_sub(got, &ch->spare_held);
	} else {
		got = 0;
	}
	fresh = n - from - got;
	if (!fresh)
		return 0;
	atomic64_add(fresh, &ch->spare_misses);
	if (attach)
		counted = srpt_reserve_spares(ch, fresh);
	for (i = from + got; i < n; i++) {
		page = alloc_page(GFP_KERNEL);
		if (!page) {
			/* Counted ones stay counted in the pool. */
			srpt_give_pages(ch, &sg[from + got],
					min(i - from - got, counted), true);
			if (i - from - got > counted)
				srpt_give_pages(ch, &sg[from + got + counted],
						i - from - got - counted,
						false);
			if (counted > i - from - got)
				atomic_sub(counted - (i - from - got),
					   &ch->spare_held);
			if (attach)
				srpt_give_pages(ch, &sg[from], got, true);
			else
				srpt_give_pages(ch, &sg[from], got, false);
			return -ENOMEM;
		}
		srpt_set_data_page(sg, i, n, len, page);
	}
	*extra = fresh - counted;
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
		struct srpt_glue_send *s = &ch->send[i];
		u32 j;

		for (j = 0; j < s->kept_pages; j++)
			__free_page(sg_page(&s->keep_sg[j]));
		s->kept_pages = 0;
		kfree(s->keep_sg);
		s->keep_sg = NULL;
		s->keep_nents = 0;
	}
	for (i = 0; i < ch->spare_pages; i++)
		__free_page(ch->spare[i]);
	ch->spare_pages = 0;
	atomic_set(&ch->spare_held, 0);
	kvfree(ch->spare);
	ch->spare = NULL;
}

/*
 * A context's kept array of @n entries or more (at most SRPT_KEEP_SG), with
 * its attached pages in the first entries; NULL if it cannot have one.
 */
static struct scatterlist *srpt_keep_sg(struct srpt_glue_send *s,
					unsigned int n)
{
	struct scatterlist *sg;
	unsigned int i;

	if (n <= s->keep_nents)
		return s->keep_sg;
	if (n > SRPT_KEEP_SG)
		return NULL;
	sg = kmalloc_array(n, sizeof(*sg), GFP_KERNEL);
	if (!sg)
		return NULL;
	sg_init_table(sg, n);
	for (i = 0; i < s->kept_pages; i++)
		sg_set_page(&sg[i], sg_page(&s->keep_sg[i]), PAGE_SIZE, 0);
	kfree(s->keep_sg);
	s->keep_sg = sg;
	s->keep_nents = n;
	return sg;
}

int srpt_glue_get_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s,
			   u32 len)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), have, i, extra;
	struct page *pages[SRPT_KEEP_SG];
	struct scatterlist *sg;
	int ret;

	/* The parser refuses empty descriptors; sg_init_table() needs one. */
	if (WARN_ON_ONCE(!len))
		return -EINVAL;
	/* Zeroed, as LIO's own allocation zeroes a command's without data CDB. */
	if (!s->reuse_data)
		return target_alloc_sgl(&s->data_sg, &s->data_nents, len,
					true, false);
	sg = srpt_keep_sg(s, n);
	if (!sg) {
		/* Longer than a context keeps: the pool and new pages. */
		sg = kmalloc_array(n, sizeof(*sg), GFP_KERNEL);
		if (!sg)
			return -ENOMEM;
		sg_init_table(sg, n);
		ret = srpt_take_pages(ch, sg, 0, n, len, false, &extra);
		if (ret) {
			kfree(sg);
			return ret;
		}
		s->data_sg = sg;
		s->data_nents = n;
		return 0;
	}
	/*
	 * The context's own pages first, no lock: the same pages for the
	 * same size of command, the usual case. The command's entries are
	 * laid out anew (nothing of an earlier mapping stays in them);
	 * entries past @n keep their pages for a longer command.
	 */
	have = min(n, s->kept_pages);
	for (i = 0; i < have; i++)
		pages[i] = sg_page(&sg[i]);
	sg_init_table(sg, n);
	for (i = 0; i < have; i++)
		srpt_set_data_page(sg, i, n, len, pages[i]);
	if (have < n) {
		ret = srpt_take_pages(ch, sg, have, n, len, true, &extra);
		if (ret)
			return ret;
		/* Over the bound: used once, freed on release. */
		s->kept_pages = n - extra;
	}
	s->data_sg = sg;
	s->data_nents = n;
	return 0;
}

void srpt_glue_put_data_sgl(struct srpt_dp_ch *ch, struct srpt_glue_send *s)
{
	unsigned int n = s->data_nents, kept = s->kept_pages, i;

	if (!s->reuse_data) {
		target_free_sgl(s->data_sg, s->data_nents);
		return;
	}
	if (s->data_sg != s->keep_sg) {
		srpt_give_pages(ch, s->data_sg, n, false);
		kfree(s->data_sg);
		return;
	}
	/* Pages over the bound are freed; a surplus goes to the pool. */
	for (i = kept; i < n; i++)
		__free_page(sg_page(&s->keep_sg[i]));
	if (kept > n) {
		srpt_give_pages(ch, &s->keep_sg[n], kept - n, true);
		s->kept_pages = n;
	}
}
