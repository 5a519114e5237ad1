/*
 * volume_binding.c
 *	  VolumeBinding: not yet implemented (a placeholder in its default-profile place).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumebinding
 *
 * IDENTIFICATION
 *	  src/plugins/volume_binding.c
 */
#include "postgres.h"

#include "plugin.h"
#include "volumes.h"

const Plugin VolumeBindingPlugin = {
	.name = "VolumeBinding",
};
