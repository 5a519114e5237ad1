/*
 * volume_zone.c
 *	  VolumeZone: not yet implemented (a placeholder in its default-profile place).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumezone
 *
 * IDENTIFICATION
 *	  src/plugins/volume_zone.c
 */
#include "postgres.h"

#include "plugin.h"
#include "volumes.h"

const Plugin VolumeZonePlugin = {
	.name = "VolumeZone",
};
