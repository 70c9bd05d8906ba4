/* Where pmi-trace is: the reproducers (fuzz, --json) use its replay and scrub. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *pcf_pmitrace_path(const char *self, char *buf, size_t n)
{
    const char *env = getenv("PMI2_CONFORM_PMI_TRACE");
    if (env && *env)
        return env;
    char me[1024];
    if (!self) {
        ssize_t k = readlink("/proc/self/exe", me, sizeof me - 1);
        if (k <= 0)
            return "pmi-trace";
        me[k] = 0;
        self = me;
    }
    snprintf(buf, n, "%s", self);
    char *sl = strrchr(buf, '/');
    if (sl) {
        *sl = 0;
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "/../tools/pmi-trace/pmi-trace"); /* a build tree */
        if (access(buf, X_OK) == 0)
            return buf;
        snprintf(buf + l, n - l, "/pmi-trace"); /* installed side by side */
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return "pmi-trace"; /* PATH */
}
