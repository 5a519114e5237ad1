/*
 * volume_restrictions.c
 *	  VolumeRestrictions: not yet implemented (a placeholder in its default-profile place).
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/volumerestrictions
 *
 * IDENTIFICATION
 *	  src/plugins/volume_restrictions.c
 */
#include "postgres.h"

#include "plugin.h"
#include "volumes.h"

const Plugin VolumeRestrictionsPlugin = {
	.name = "VolumeRestrictions",
};
