/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Doubly linked intrusive list: the node lives in the element, so inserting
 * never allocates and an element can sit on several lists through several
 * nodes. A node knows whether it is linked; destroying a linked node is a
 * bug and is reported.
 */
#ifndef SRPT_INTRUSIVE_LIST_HPP
#define SRPT_INTRUSIVE_LIST_HPP

#include <srpt/log.hpp>
#include <stddef.h>

namespace srpt
{

class ListNode
{
public:
	constexpr ListNode() = default;
	~ListNode() { SRPT_WARN_ON(InContainer()); }
	ListNode(const ListNode &) = delete;
	ListNode &operator=(const ListNode &) = delete;

	bool InContainer() const { return next_ != nullptr; }

private:
	template <typename T, ListNode T::*Node>
	friend class IntrusiveList;

	ListNode *prev_ = nullptr;
	ListNode *next_ = nullptr;
};

template <typename T, ListNode T::*Node>
class IntrusiveList
{
public:
	IntrusiveList() { head_.prev_ = head_.next_ = &head_; }
	~IntrusiveList()
	{
		SRPT_WARN_ON(!empty());
		/* The sentinel is never "in a container". */
		head_.prev_ = head_.next_ = nullptr;
	}
	IntrusiveList(const IntrusiveList &) = delete;
	IntrusiveList &operator=(const IntrusiveList &) = delete;

	bool empty() const { return head_.next_ == &head_; }
	size_t size() const { return size_; }

	void push_back(T &elem) { InsertBefore(&head_, NodeOf(elem)); }
	void push_front(T &elem) { InsertBefore(head_.next_, NodeOf(elem)); }

	T *front() { return empty() ? nullptr : ElemOf(head_.next_); }
	T *back() { return empty() ? nullptr : ElemOf(head_.prev_); }

	T *pop_front()
	{
		T *elem = front();
		if (elem)
			erase(*elem);
		return elem;
	}

	void erase(T &elem)
	{
		ListNode *node = NodeOf(elem);
		if (SRPT_WARN_ON(!node->InContainer()))
			return;
		node->prev_->next_ = node->next_;
		node->next_->prev_ = node->prev_;
		node->prev_ = node->next_ = nullptr;
		size_--;
	}

	/* Calls @fn(T&) on each element; @fn must not modify the list. */
	template <typename Fn>
	void ForEach(Fn &&fn)
	{
		for (ListNode *n = head_.next_; n != &head_; n = n->next_)
			fn(*ElemOf(n));
	}

	/* Moves every element of @other to the back of this list. */
	void splice_back(IntrusiveList &other)
	{
		while (T *elem = other.pop_front())
			push_back(*elem);
	}

private:
	static ListNode *NodeOf(T &elem) { return &(elem.*Node); }

	static T *ElemOf(ListNode *node)
	{
		/*
		 * Recover the element from its member node (container_of). The
		 * offset is measured on suitably aligned raw storage, never on
		 * a null pointer; the compiler folds it to a constant.
		 */
		alignas(T) unsigned char raw[sizeof(T)];
		T *probe = reinterpret_cast<T *>(raw);
		const size_t offset =
		    reinterpret_cast<char *>(&(probe->*Node)) -
		    reinterpret_cast<char *>(probe);
		return reinterpret_cast<T *>(reinterpret_cast<char *>(node) -
					     offset);
	}

	void InsertBefore(ListNode *pos, ListNode *node)
	{
		if (SRPT_WARN_ON(node->InContainer()))
			return;
		node->next_ = pos;
		node->prev_ = pos->prev_;
		pos->prev_->next_ = node;
		pos->prev_ = node;
		size_++;
	}

	ListNode head_;
	size_t size_ = 0;
};

} // namespace srpt

#endif
