/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Clang's thread-safety analysis (-Wthread-safety): the lock contracts that
 * comments used to state, checked by `make unit-clang`. Under GCC (the
 * kernel module, the gcc host build) every macro expands to nothing.
 * https://clang.llvm.org/docs/ThreadSafetyAnalysis.html
 */
#ifndef SRPT_THREAD_SAFETY_HPP
#define SRPT_THREAD_SAFETY_HPP

#if defined(__clang__)
#define SRPT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SRPT_THREAD_ANNOTATION(x)
#endif

/* A class whose objects are locks. */
#define SRPT_CAPABILITY(x) SRPT_THREAD_ANNOTATION(capability(x))
/* An RAII class that holds a lock for its scope. */
#define SRPT_SCOPED_CAPABILITY SRPT_THREAD_ANNOTATION(scoped_lockable)
/* A data member read or written only with lock @x held. */
#define SRPT_GUARDED_BY(x) SRPT_THREAD_ANNOTATION(guarded_by(x))
/* A function called with the locks held (the ...Locked() helpers). */
#define SRPT_REQUIRES(...)                                                     \
	SRPT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
/* A function that takes the locks (none: the object itself). */
#define SRPT_ACQUIRE(...)                                                      \
	SRPT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
/* A function that drops the locks (none: the object itself). */
#define SRPT_RELEASE(...)                                                      \
	SRPT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
/* A function that fails at run time unless the lock is held. */
#define SRPT_ASSERT_CAPABILITY(x) SRPT_THREAD_ANNOTATION(assert_capability(x))
/*
 * The escape for a correct pattern the analysis cannot follow; every use
 * says why next to it.
 */
#define SRPT_NO_THREAD_SAFETY_ANALYSIS                                         \
	SRPT_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif
