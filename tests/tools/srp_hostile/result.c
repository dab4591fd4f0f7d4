// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* srp_hostile: the options and the result line (outcome, verdict, detail). */

#include "hostile.h"

/* ---- options and result -------------------------------------------- */
struct hostile_opts opt = { .port = "5555", .timeout_ms = 5000 };

char g_outcome[128] = "none", g_detail[1024], g_verdict[16] = "ok";
void outcome(const char *fmt, ...)
{
	va_list ap; va_start(ap, fmt);
	vsnprintf(g_outcome, sizeof(g_outcome), fmt, ap); va_end(ap);
}
void detail(const char *fmt, ...)
{
	size_t n = strlen(g_detail);
	va_list ap; va_start(ap, fmt);
	if (n && n < sizeof(g_detail) - 2) { g_detail[n++] = ';'; g_detail[n++] = ' '; g_detail[n] = 0; }
	vsnprintf(g_detail + n, sizeof(g_detail) - n, fmt, ap); va_end(ap);
}
void bad(const char *fmt, ...)
{
	char b[256]; va_list ap; va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap); va_end(ap);
	strcpy(g_verdict, "bad"); detail("BAD: %s", b);
}
void tool_error(const char *fmt, ...)
{
	char b[256]; va_list ap; va_start(ap, fmt);
	vsnprintf(b, sizeof(b), fmt, ap); va_end(ap);
	strcpy(g_verdict, "error"); detail("ERROR: %s", b);
}
void vlog(const char *fmt, ...)
{
	if (!opt.verbose) return;
	va_list ap; va_start(ap, fmt); vfprintf(stderr, fmt, ap); va_end(ap);
	fputc('\n', stderr);
}

long now_ms(void)
{
	struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}
