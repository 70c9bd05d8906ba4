/* The launcher side of spawn: the server's spawn and abort callbacks. */
#ifndef PMIMOCK_SPAWN_H
#define PMIMOCK_SPAWN_H

#include "launch.h"

/* Register the callbacks on L's server: spawned jobs start through
 * launcher_start, abort with isworld=FALSE ends the calling rank only. */
int spawn_setup(launcher *L);

#endif
