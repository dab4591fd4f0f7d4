// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host implementation of include/srpt/platform.h for the unit tests, fuzzers
 * and benchmarks, and of the port query, RDMA/CM listener and address
 * parser of include/srpt/rdma_glue.h (tests/host/platform_dp_host.cpp fakes
 * the rest). Deterministic by design: deferred work runs only when a test
 * says so, the clock moves only when a test moves it.
 */
#include <srpt/host_platform.hpp>

#include <srpt/rdma_glue.h>

#include <arpa/inet.h>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>

namespace
{

struct AllocHeader {
	size_t size;
	uint64_t magic;
	uint64_t pad; /* keeps the payload 16-byte aligned, as kmalloc does */
};
constexpr uint64_t kAllocMagic = 0x53525054414c4c43ull; /* "SRPTALLC" */

std::mutex g_state_mutex;
size_t g_outstanding = 0;
size_t g_calls = 0;
size_t g_fail_countdown = 0;
bool g_fail_all = false;

std::vector<srpt::host::LogLine> g_logs;
size_t g_warns = 0;
std::function<void(const char *, int, const char *)> g_warn_handler;

uint64_t g_clock_ns = 1'000'000'000ull;

thread_local int t_spinlocks_held = 0;
thread_local uint64_t t_spinlock_acquisitions = 0;

struct HostWork {
	srpt_work_fn fn;
	void *ctx;
	bool pending;
	srpt_work_class cls;
};
std::deque<HostWork *> g_work_queue;

/* Delayed work: due on the host clock, run only by RunDueDelayedWork(). */
struct HostDelayedWork {
	srpt_work_fn fn;
	void *ctx;
	bool pending;
	uint64_t due_ns;
	srpt_work_class cls;
};

/*
 * The kernel's lockdep check for work items, on the host: a work function
 * that cancels or flushes a work item of its own class is reported (as
 * lockdep reports "possible recursive locking" on the work's class), and
 * so is one that waits for itself. The class of the work this thread runs
 * now, or SRPT_WORK_CLASS_COUNT when none.
 */
thread_local srpt_work_class t_running_work = SRPT_WORK_CLASS_COUNT;

void CheckWorkWait(srpt_work_class cls);

class RunningWork
{
public:
	explicit RunningWork(srpt_work_class cls) : prev_(t_running_work)
	{
		t_running_work = cls;
	}
	~RunningWork() { t_running_work = prev_; }

private:
	srpt_work_class prev_;
};
std::vector<HostDelayedWork *> g_delayed_work;

void Warn(const char *file, int line, const char *what);

/*
 * A spinlock or mutex of the core: records its owner, so that
 * srpt_*_assert_held() checks the calling thread as lockdep does.
 */
struct HostLock {
	std::mutex mutex;
	std::atomic<std::thread::id> owner{};

	void Lock()
	{
		mutex.lock();
		owner.store(std::this_thread::get_id(),
			    std::memory_order_relaxed);
	}
	void Unlock()
	{
		if (!HeldByMe())
			Warn(__FILE__, __LINE__,
			     "unlock of a lock this thread does not hold");
		owner.store(std::thread::id(), std::memory_order_relaxed);
		mutex.unlock();
	}
	bool HeldByMe() const
	{
		return owner.load(std::memory_order_relaxed) ==
		       std::this_thread::get_id();
	}
	void AssertHeld(const char *what) const
	{
		if (!HeldByMe())
			Warn(__FILE__, __LINE__, what);
	}
};

static_assert(sizeof(HostLock) <= SRPT_SPINLOCK_SIZE);
static_assert(alignof(HostLock) <= SRPT_SPINLOCK_ALIGN);
static_assert(sizeof(HostLock) <= SRPT_MUTEX_SIZE);
static_assert(alignof(HostLock) <= SRPT_MUTEX_ALIGN);
static_assert(sizeof(HostWork) <= SRPT_WORK_SIZE);
static_assert(alignof(HostWork) <= SRPT_WORK_ALIGN);
static_assert(sizeof(HostDelayedWork) <= SRPT_DELAYED_WORK_SIZE);
static_assert(alignof(HostDelayedWork) <= SRPT_DELAYED_WORK_ALIGN);

void Warn(const char *file, int line, const char *what)
{
	std::function<void(const char *, int, const char *)> handler;
	{
		std::lock_guard<std::mutex> guard(g_state_mutex);
		g_warns++;
		handler = g_warn_handler;
	}
	if (handler) {
		handler(file, line, what);
		return;
	}
	std::fprintf(stderr, "srpt_warn: %s:%d: %s\n", file, line, what);
	std::abort();
}

void CheckWorkWait(srpt_work_class cls)
{
	if (t_running_work != SRPT_WORK_CLASS_COUNT && t_running_work == cls)
		Warn(__FILE__, __LINE__,
		     "a work item cancels or flushes a work item of its own "
		     "class (lockdep: possible recursive locking)");
}

} // namespace

extern "C" {

void *srpt_kzalloc(size_t size, enum srpt_gfp gfp)
{
	if (gfp == SRPT_GFP_KERNEL)
		srpt::host::MightSleep("GFP_KERNEL allocation");
	{
		std::lock_guard<std::mutex> guard(g_state_mutex);
		g_calls++;
		if (g_fail_all)
			return nullptr;
		if (g_fail_countdown > 0 && --g_fail_countdown == 0)
			return nullptr;
	}
	auto *hdr = static_cast<AllocHeader *>(
	    std::calloc(1, sizeof(AllocHeader) + size));
	if (!hdr)
		return nullptr;
	hdr->size = size;
	hdr->magic = kAllocMagic;
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_outstanding++;
	return hdr + 1;
}

void srpt_kfree(const void *ptr)
{
	if (!ptr)
		return;
	auto *hdr = const_cast<AllocHeader *>(
	    static_cast<const AllocHeader *>(ptr) - 1);
	if (hdr->magic != kAllocMagic) {
		Warn(__FILE__, __LINE__, "srpt_kfree of a foreign pointer");
		return;
	}
	hdr->magic = 0;
	std::free(hdr);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_outstanding--;
}

void *srpt_kvzalloc(size_t size)
{
	return srpt_kzalloc(size, SRPT_GFP_KERNEL);
}

void srpt_kvfree(const void *ptr)
{
	srpt_kfree(ptr);
}

void srpt_vlog(enum srpt_log_level level, const char *session, const char *fmt,
	       va_list args)
{
	char buf[1024];
	std::vsnprintf(buf, sizeof(buf), fmt, args);
	if (std::getenv("SRPT_HOST_LOG"))
		std::fprintf(stderr, "ib_srpt: %s%s%s%s\n", session ? "[" : "",
			     session ? session : "", session ? "] " : "", buf);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_logs.push_back({level, session ? session : "", buf});
}

void srpt_log(enum srpt_log_level level, const char *session, const char *fmt,
	      ...)
{
	va_list args;
	va_start(args, fmt);
	srpt_vlog(level, session, fmt, args);
	va_end(args);
}

void srpt_warn(const char *file, int line, const char *what)
{
	Warn(file, line, what);
}

uint64_t srpt_now_ns(void)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_clock_ns;
}

void srpt_spin_lock_init(void *lock, enum srpt_lock_class)
{
	new (lock) HostLock();
}

unsigned long srpt_spin_lock_irqsave(void *lock)
{
	static_cast<HostLock *>(lock)->Lock();
	t_spinlocks_held++;
	t_spinlock_acquisitions++;
	return 0x200; /* "interrupts were on" */
}

void srpt_spin_unlock_irqrestore(void *lock, unsigned long flags)
{
	if (flags != 0x200)
		Warn(__FILE__, __LINE__, "spin_unlock with foreign flags");
	t_spinlocks_held--;
	static_cast<HostLock *>(lock)->Unlock();
}

void srpt_spin_assert_held(void *lock)
{
	static_cast<HostLock *>(lock)->AssertHeld(
	    "spinlock not held by this thread (lockdep_assert_held)");
}

void srpt_mutex_init(void *mutex, enum srpt_lock_class)
{
	new (mutex) HostLock();
}

void srpt_mutex_lock(void *mutex)
{
	srpt::host::MightSleep("mutex_lock");
	static_cast<HostLock *>(mutex)->Lock();
}

void srpt_mutex_unlock(void *mutex)
{
	static_cast<HostLock *>(mutex)->Unlock();
}

void srpt_mutex_assert_held(void *mutex)
{
	static_cast<HostLock *>(mutex)->AssertHeld(
	    "mutex not held by this thread (lockdep_assert_held)");
}

void srpt_mutex_destroy(void *mutex)
{
	static_cast<HostLock *>(mutex)->~HostLock();
}

void srpt_work_init(void *work, srpt_work_fn fn, void *ctx, srpt_work_class cls)
{
	new (work) HostWork{fn, ctx, false, cls};
}

bool srpt_work_queue(void *work)
{
	auto *w = static_cast<HostWork *>(work);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	if (w->pending)
		return false;
	w->pending = true;
	g_work_queue.push_back(w);
	return true;
}

bool srpt_work_cancel_sync(void *work)
{
	auto *w = static_cast<HostWork *>(work);
	CheckWorkWait(w->cls);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	if (!w->pending)
		return false;
	for (auto it = g_work_queue.begin(); it != g_work_queue.end(); ++it) {
		if (*it == w) {
			g_work_queue.erase(it);
			break;
		}
	}
	w->pending = false;
	return true;
}

void srpt_delayed_work_init(void *dwork, srpt_work_fn fn, void *ctx,
			    srpt_work_class cls)
{
	new (dwork) HostDelayedWork{fn, ctx, false, 0, cls};
}

bool srpt_delayed_work_queue(void *dwork, uint32_t delay_us)
{
	auto *w = static_cast<HostDelayedWork *>(dwork);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	if (w->pending)
		return false;
	w->pending = true;
	w->due_ns = g_clock_ns + uint64_t{delay_us} * 1000;
	g_delayed_work.push_back(w);
	return true;
}

bool srpt_delayed_work_cancel_sync(void *dwork)
{
	auto *w = static_cast<HostDelayedWork *>(dwork);
	CheckWorkWait(w->cls);
	std::lock_guard<std::mutex> guard(g_state_mutex);
	if (!w->pending)
		return false;
	for (auto it = g_delayed_work.begin(); it != g_delayed_work.end();
	     ++it) {
		if (*it == w) {
			g_delayed_work.erase(it);
			break;
		}
	}
	w->pending = false;
	return true;
}

namespace
{
struct HostListener {
	uint16_t port;
};
std::map<std::pair<void *, uint32_t>, std::pair<srpt_port_desc, int>>
    g_port_query;
std::vector<HostListener *> g_listeners;
std::map<uint16_t, int> g_listen_failures;
} // namespace

int srpt_ib_query_port(void *ib_device, uint32_t port_num,
		       struct srpt_port_desc *desc)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	auto it = g_port_query.find({ib_device, port_num});
	if (it == g_port_query.end())
		return -SRPT_ENODEV;
	*desc = it->second.first;
	return it->second.second;
}

int srpt_rdma_cm_listen(uint16_t port, void **listener)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	auto fail = g_listen_failures.find(port);
	if (fail != g_listen_failures.end())
		return fail->second;
	auto *l = new HostListener{port};
	g_listeners.push_back(l);
	*listener = l;
	return 0;
}

void srpt_rdma_cm_destroy(void *listener)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	auto *l = static_cast<HostListener *>(listener);
	for (auto it = g_listeners.begin(); it != g_listeners.end(); ++it) {
		if (*it == l) {
			g_listeners.erase(it);
			delete l;
			return;
		}
	}
	Warn(__FILE__, __LINE__, "destroying an unknown RDMA/CM listener");
}

/* inet_pton_with_scope(AF_UNSPEC): IPv4, or IPv6 with an optional %scope. */
int srpt_inet_pton_with_scope(const char *text)
{
	unsigned char buf[16];
	if (inet_pton(AF_INET, text, buf) == 1)
		return 0;
	std::string addr(text);
	const size_t pct = addr.find('%');
	if (pct != std::string::npos) {
		const std::string scope = addr.substr(pct + 1);
		addr.resize(pct);
		if (scope.empty())
			return -SRPT_EINVAL;
		/* A numeric scope must be a number; a name is looked up. */
		for (char c : scope)
			if (c < '0' || c > '9')
				return -SRPT_EINVAL;
	}
	return inet_pton(AF_INET6, addr.c_str(), buf) == 1 ? 0 : -SRPT_EINVAL;
}

} // extern "C"

namespace srpt::host
{

void SetPortQueryResult(void *ib_device, uint32_t port_num,
			const struct srpt_port_desc &desc, int rc)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_port_query[{ib_device, port_num}] = {desc, rc};
}

std::vector<uint16_t> RdmaCmListeners()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	std::vector<uint16_t> ports;
	for (HostListener *l : g_listeners)
		ports.push_back(l->port);
	return ports;
}

void FailRdmaCmListen(uint16_t port, int negative_errno)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	if (negative_errno)
		g_listen_failures[port] = negative_errno;
	else
		g_listen_failures.erase(port);
}

size_t OutstandingAllocations()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_outstanding;
}

size_t AllocationCalls()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_calls;
}

void ResetAllocationStats()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_calls = 0;
	g_fail_countdown = 0;
	g_fail_all = false;
}

void FailNthAllocation(size_t nth)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_fail_countdown = nth;
}

void FailAllAllocations(bool on)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_fail_all = on;
}

const std::vector<LogLine> &Logs()
{
	return g_logs;
}

void ClearLogs()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_logs.clear();
}

bool LogsContain(const std::string &needle)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	for (const LogLine &line : g_logs)
		if (line.text.find(needle) != std::string::npos)
			return true;
	return false;
}

void SetWarnHandler(
    std::function<void(const char *file, int line, const char *what)> handler)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_warn_handler = std::move(handler);
}

size_t WarnCount()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_warns;
}

size_t RunPendingWork()
{
	size_t ran = 0;
	for (;;) {
		HostWork *w;
		{
			std::lock_guard<std::mutex> guard(g_state_mutex);
			if (g_work_queue.empty())
				return ran;
			w = g_work_queue.front();
			g_work_queue.pop_front();
			w->pending = false;
		}
		RunningWork running(w->cls);
		w->fn(w->ctx);
		ran++;
	}
}

size_t RunDueDelayedWork()
{
	size_t ran = 0;
	for (;;) {
		HostDelayedWork *w = nullptr;
		{
			std::lock_guard<std::mutex> guard(g_state_mutex);
			for (auto it = g_delayed_work.begin();
			     it != g_delayed_work.end(); ++it) {
				if ((*it)->due_ns <= g_clock_ns) {
					w = *it;
					g_delayed_work.erase(it);
					break;
				}
			}
			if (!w)
				return ran;
			w->pending = false;
		}
		RunningWork running(w->cls);
		w->fn(w->ctx);
		ran++;
	}
}

size_t PendingDelayedWork()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_delayed_work.size();
}

size_t PendingWork()
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	return g_work_queue.size();
}

void AdvanceClock(uint64_t ns)
{
	std::lock_guard<std::mutex> guard(g_state_mutex);
	g_clock_ns += ns;
}

int SpinLocksHeld()
{
	return t_spinlocks_held;
}

uint64_t SpinLockAcquisitions()
{
	return t_spinlock_acquisitions;
}

void MightSleep(const char *what)
{
	if (t_spinlocks_held > 0)
		Warn(__FILE__, __LINE__,
		     (std::string(what) + " while holding a spinlock").c_str());
}

} // namespace srpt::host
