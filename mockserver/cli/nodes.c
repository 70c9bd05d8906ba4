/* Node emulation made visible (--nodes K, K > 1): each emulated node's ranks
 * see a host of their own, as ranks on a real cluster do, so a harness that
 * learns the node map from host names (pmi2-conform) sees K nodes on one
 * machine.  Each rank gets a UTS namespace of its own named pmi-mock-node<k>
 * (root, or CAP_SYS_ADMIN); where that is refused, PMI2_CONFORM_HOST names
 * the node instead (the harness documents the variable as the override for
 * launchers that emulate nodes).  Nothing else is isolated: the ranks share
 * the machine's network, filesystem and /tmp. */
#include "nodes.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void node_identity(int node, int nodes)
{
    if (nodes < 2 || node < 0)
        return;
    char name[64];
    snprintf(name, sizeof name, "pmi-mock-node%d", node);
    const char *force = getenv("PMI_MOCK_NODE_ENV"); /* tests: the fallback, as root */
    if (!(force && *force) && unshare(CLONE_NEWUTS) == 0 && sethostname(name, strlen(name)) == 0) {
        unsetenv("PMI2_CONFORM_HOST"); /* the host name says it */
        return;
    }
    setenv("PMI2_CONFORM_HOST", name, 1);
}
