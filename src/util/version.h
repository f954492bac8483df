/* SPDX-License-Identifier: MIT */
/*
 * version.h - the release the tools say they are (iolat --version, iolatd
 * --version): the Makefile's VERSION, passed as -DIOLAT_VERSION=0.1.0 (a
 * pp-number, stringified here so that no quoting crosses make and the shell).
 * Context: any thread (constants only).
 */
#ifndef IOLAT_UTIL_VERSION_H
#define IOLAT_UTIL_VERSION_H

#ifndef IOLAT_VERSION
#define IOLAT_VERSION unknown
#endif
#define IOLAT_VERSION_STR_(x) #x
#define IOLAT_VERSION_STR(x) IOLAT_VERSION_STR_(x)
#define IOLAT_VERSION_STRING IOLAT_VERSION_STR(IOLAT_VERSION)

#endif
