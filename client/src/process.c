/* The process's one session record (pmic_S: what session.c sets up and
 * every API file reads) and the debug log.  Kept apart from session.c so
 * that the engine, which logs, does not call back into the session that
 * drives it (docs/architecture.md: one direction per component). */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

pmic_session pmic_S = {
    .init_mu = PTHREAD_MUTEX_INITIALIZER,
    .local_mu = PTHREAD_MUTEX_INITIALIZER,
    .local_cv = PTHREAD_COND_INITIALIZER,
    .cache_mu = PTHREAD_MUTEX_INITIALIZER,
    .grp_mu = PTHREAD_MUTEX_INITIALIZER,
};

void pmic_log(int level, const char *fmt, ...)
{
    if (pmic_S.env.debug < level)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "pmiclient[%d]: %s\n", pmic_S.rank, line);
}
