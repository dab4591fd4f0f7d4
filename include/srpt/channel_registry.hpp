/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every channel and I_T nexus of the module: ChannelRegistry and Nexus, the
 * registry singleton that srpt_core_dp_init() creates, and
 * DisconnectPortChannels(). Defined in src/channel_registry.cpp.
 */
#ifndef SRPT_CHANNEL_REGISTRY_HPP
#define SRPT_CHANNEL_REGISTRY_HPP

#include <srpt/alloc.hpp>
#include <srpt/channel.hpp>
#include <srpt/device_registry.hpp>
#include <srpt/intrusive_list.hpp>
#include <srpt/lock.hpp>
#include <srpt/status.hpp>
#include <stddef.h>
#include <stdint.h>

namespace srpt
{

/* An I_T nexus: the channels of one (initiator, target) port-id pair. */
class Nexus final : public KernelAllocated
{
public:
	uint8_t i_port_id[16];
	uint8_t t_port_id[16];
	Port *port;
	IntrusiveList<Channel, &Channel::nexus_node> channels;
	ListNode registry_node;
};

/*
 * Every channel and nexus of the module, under one mutex (process
 * context: logins, releases, configfs and device removal).
 */
class ChannelRegistry final : public KernelAllocated
{
public:
	ChannelRegistry() : mutex(LockClass::kChannelRegistry) {}
	~ChannelRegistry();

	/* Finds or creates the nexus. Mutex held. */
	Nexus *GetNexusLocked(Port *port, const uint8_t (&i_port_id)[16],
			      const uint8_t (&t_port_id)[16])
	    SRPT_REQUIRES(mutex);
	/* Links @ch to @nexus; mutex held. */
	void AddLocked(Channel &ch, Nexus &nexus) SRPT_REQUIRES(mutex);
	/* Unlinks @ch and frees its nexus when empty. */
	void Remove(Channel &ch);

	/*
	 * Calls @visit(Channel &), mutex held, for each channel with a
	 * session under ACL @acl_name of configfs port @port_id
	 * (Channel::session_port_id), in id order: the order of the logins.
	 */
	template <typename Visit>
	void ForEachAclChannel(const srpt_core_port_id *port_id,
			       const char *acl_name, Visit visit);

	/* Disconnects every channel whose port (or device) matches. */
	void DisconnectPort(Port *port);
	void DisconnectDevice(Device *device);
	size_t CountDevice(Device *device);
	size_t Count();

	Mutex mutex;

private:
	IntrusiveList<Channel, &Channel::registry_node>
	    channels_ SRPT_GUARDED_BY(mutex);
	IntrusiveList<Nexus, &Nexus::registry_node>
	    nexuses_ SRPT_GUARDED_BY(mutex);
	uint32_t last_id_ SRPT_GUARDED_BY(mutex) = 0;
};

template <typename Visit>
void ChannelRegistry::ForEachAclChannel(const srpt_core_port_id *port_id,
					const char *acl_name, Visit visit)
{
	MutexGuard guard(mutex);
	/*
	 * channels_ is in id order already: AddLocked gives each channel the
	 * next id and appends it, both under the mutex.
	 */
	channels_.ForEach([&](Channel &ch) {
		if (ch.has_session() && ch.session_port_id() == port_id &&
		    __builtin_strcmp(ch.name(), acl_name) == 0)
			visit(ch);
	});
}

/* The registry (nullptr before srpt_core_dp_init). */
ChannelRegistry *GetChannelRegistry();
/* srpt_core_dp_init/exit: create the registry and free it. */
Status CreateChannelRegistry();
void DestroyChannelRegistry();

/*
 * Disconnects every channel of @port (a disabled port logs out): the
 * registry's DisconnectPort(), when the registry exists.
 */
void DisconnectPortChannels(Port &port);

} // namespace srpt

#endif /* SRPT_CHANNEL_REGISTRY_HPP */
