/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Controls of the host implementation of the platform API: what a test
 * uses to make the environment do what the kernel would do at the worst
 * moment (fail an allocation, run deferred work now, move the clock).
 */
#ifndef SRPT_HOST_PLATFORM_HPP
#define SRPT_HOST_PLATFORM_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <srpt/platform.h>
#include <srpt/rdma_glue.h>

namespace srpt::host
{

/* ---- allocation ---- */
/* Allocations made and not yet freed. */
size_t OutstandingAllocations();
/* Total allocation calls since the last ResetAllocationStats(). */
size_t AllocationCalls();
void ResetAllocationStats();
/*
 * Makes the @nth allocation from now fail (1 = the next one); 0 disarms.
 * Only one failure is armed at a time.
 */
void FailNthAllocation(size_t nth);
/* Makes every allocation fail while @on. */
void FailAllAllocations(bool on);

/* ---- logging ---- */
struct LogLine {
	srpt_log_level level;
	std::string session; /* empty when the line names no session */
	std::string text;
};
const std::vector<LogLine> &Logs();
void ClearLogs();
/* True if some captured line contains @needle. */
bool LogsContain(const std::string &needle);

/* ---- broken invariants (srpt_warn) ---- */
/*
 * Called for every srpt_warn(). The default aborts (so a fuzzer reports
 * it); the unit-test main installs one that fails the current test.
 */
void SetWarnHandler(
    std::function<void(const char *file, int line, const char *what)> handler);
size_t WarnCount();

/* ---- deferred work ---- */
/* Runs queued work items in FIFO order until none is left; returns count. */
size_t RunPendingWork();
size_t PendingWork();
/*
 * Delayed work (srpt_delayed_work_queue) is due on the host clock and runs
 * only here: every item due by now, in queueing order, until none is due
 * (an item may queue itself again). Returns the count.
 */
size_t RunDueDelayedWork();
size_t PendingDelayedWork();

/* ---- time ---- */
void AdvanceClock(uint64_t ns);

/* ---- RDMA ---- */
/* What srpt_ib_query_port() answers for (device, port): set by the test. */
void SetPortQueryResult(void *ib_device, uint32_t port_num,
			const struct srpt_port_desc &desc, int rc = 0);
/* RDMA/CM listeners alive, and the port each listens on. */
std::vector<uint16_t> RdmaCmListeners();
/* Makes srpt_rdma_cm_listen(@port) fail with @negative_errno (0 clears). */
void FailRdmaCmListen(uint16_t port, int negative_errno);

/* ---- tracepoints (tests/host/trace_host.cpp) ---- */
/* Turns the core's tracepoints on or off and forgets what was recorded. */
void SetTracing(bool on);
/* One line per event since SetTracing: "<event> session=... ...". */
std::vector<std::string> TraceEvents();

/* ---- context ---- */
/* Spinlocks held by the calling thread (sleeping while > 0 is a bug). */
int SpinLocksHeld();
/*
 * Spinlock acquisitions by the calling thread since it started: what a
 * path costs in lock round trips (each one an IRQ-off critical section in
 * the kernel), counted by the tests that hold a path to its budget.
 */
uint64_t SpinLockAcquisitions();
/*
 * For a fake of a kernel call that may sleep: a warning (a test failure)
 * when the calling thread holds a spinlock, where the kernel would report
 * "scheduling while atomic".
 */
void MightSleep(const char *what);

} // namespace srpt::host

#endif
