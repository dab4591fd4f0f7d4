/*
 * libstdc++'s c++config.h includes glibc's <features.h>; a freestanding
 * module has no glibc. This stub says so.
 */
#define __GLIBC_PREREQ(major, minor) 0
