/*
 * node_volume_limits.c
 *	  NodeVolumeLimits: not yet implemented (a placeholder in its default-profile place).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/nodevolumelimits (csi.go)
 *
 * IDENTIFICATION
 *	  src/plugins/node_volume_limits.c
 */
#include "postgres.h"

#include "plugin.h"
#include "volumes.h"

const Plugin NodeVolumeLimitsPlugin = {
	.name = "NodeVolumeLimits",
};
