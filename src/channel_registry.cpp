// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every channel and I_T nexus of the module: ChannelRegistry and Nexus
 * (one mutex: a login publishes its channel, the release unlinks it,
 * configfs and device removal disconnect by port or device, the ACL info
 * file lists them), and the registry singleton that srpt_core_dp_init()
 * creates. See include/srpt/channel_registry.hpp.
 */
#include <srpt/channel.hpp>
#include <srpt/channel_registry.hpp>
#include <srpt/log.hpp>

namespace srpt
{

/* ---- the module's registry ------------------------------------------ */

namespace
{

constinit ChannelRegistry *g_channels = nullptr;

} // namespace

ChannelRegistry *GetChannelRegistry()
{
	return g_channels;
}

Status CreateChannelRegistry()
{
	if (SRPT_WARN_ON(g_channels))
		return Status::kBusy;
	g_channels = new (Gfp::kKernel) ChannelRegistry();
	return g_channels ? Status::kOk : Status::kNoMemory;
}

void DestroyChannelRegistry()
{
	delete g_channels;
	g_channels = nullptr;
}

void DisconnectPortChannels(Port &port)
{
	if (ChannelRegistry *reg = g_channels)
		reg->DisconnectPort(&port);
}

/* ---- ChannelRegistry ------------------------------------------------ */

ChannelRegistry::~ChannelRegistry()
{
	SRPT_WARN_ON(!channels_.empty());
	while (Nexus *n = nexuses_.pop_front())
		delete n;
}

Nexus *ChannelRegistry::GetNexusLocked(Port *port,
				       const uint8_t (&i_port_id)[16],
				       const uint8_t (&t_port_id)[16])
{
	mutex.AssertHeld();
	Nexus *found = nullptr;
	nexuses_.ForEach([&](Nexus &n) {
		if (!found && n.port == port &&
		    __builtin_memcmp(n.i_port_id, i_port_id, 16) == 0 &&
		    __builtin_memcmp(n.t_port_id, t_port_id, 16) == 0)
			found = &n;
	});
	if (found)
		return found;
	Nexus *n = new (Gfp::kKernel) Nexus();
	if (!n)
		return nullptr;
	__builtin_memcpy(n->i_port_id, i_port_id, 16);
	__builtin_memcpy(n->t_port_id, t_port_id, 16);
	n->port = port;
	nexuses_.push_back(*n);
	return n;
}

void ChannelRegistry::AddLocked(Channel &ch, Nexus &nexus)
{
	mutex.AssertHeld();
	ch.id_ = ++last_id_;
	ch.nexus = &nexus;
	nexus.channels.push_back(ch);
	channels_.push_back(ch);
}

void ChannelRegistry::Remove(Channel &ch)
{
	MutexGuard guard(mutex);
	if (ch.registry_node.InContainer())
		channels_.erase(ch);
	Nexus *n = ch.nexus;
	if (n && ch.nexus_node.InContainer()) {
		n->channels.erase(ch);
		if (n->channels.empty()) {
			nexuses_.erase(*n);
			delete n;
		}
	}
	ch.nexus = nullptr;
}

void ChannelRegistry::DisconnectPort(Port *port)
{
	MutexGuard guard(mutex);
	channels_.ForEach([&](Channel &ch) {
		if (ch.port() == port)
			(void)ch.Disconnect("target port disabled");
	});
}

void ChannelRegistry::DisconnectDevice(Device *device)
{
	MutexGuard guard(mutex);
	/*
	 * The device goes: tell the initiator (DREQ) but do not wait for
	 * its answer, the QP is drained and released at once.
	 */
	channels_.ForEach([&](Channel &ch) {
		if (ch.device() != device)
			return;
		(void)ch.Disconnect("RDMA device removal");
		(void)ch.Close("RDMA device removal");
	});
}

size_t ChannelRegistry::CountDevice(Device *device)
{
	MutexGuard guard(mutex);
	size_t n = 0;
	channels_.ForEach([&](Channel &ch) { n += ch.device() == device; });
	return n;
}

size_t ChannelRegistry::Count()
{
	MutexGuard guard(mutex);
	return channels_.size();
}

} // namespace srpt
