/* SPDX-License-Identifier: GPL-2.0-only */
/* C++ names as people read them: the kernels' symbols from the probes'
 * stubs and from the profiling interface are Itanium-mangled. The C++
 * runtime's __cxa_demangle does the work, from libstdc++ loaded with dlopen
 * the first time a mangled name comes (asys does not link the C++ runtime;
 * without it the mangled name is shown). Needs no eBPF. */
#ifndef ASYS_DEMANGLE_H
#define ASYS_DEMANGLE_H

#include <stddef.h>

/* Demangles an Itanium C++ name into buf; copies it unchanged when it is not
 * one or no demangler is available. Returns 0 when demangled. */
int demangle_name(const char *name, char *buf, size_t n);

#endif
