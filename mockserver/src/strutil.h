/* String helpers of the mock server, apart from internal.h so that parts
 * that must not see connections (kvs.c, groups.c) can use them too. */
#ifndef PMISERVER_STRUTIL_H
#define PMISERVER_STRUTIL_H

#include <stddef.h>

/* n bytes of p and a NUL, in malloc'd memory (NULL when out of memory). */
char *pms_strndup(const char *p, size_t n);

#endif
