/*
 * feature_gates.h
 *	  Feature gates (scheduler.feature_gates), as kube-scheduler's; set in scheduler.c.
 *
 * IDENTIFICATION
 *	  src/feature_gates.h
 */
#ifndef SCHEDULER_FEATURE_GATES_H
#define SCHEDULER_FEATURE_GATES_H

#include "postgres.h"

/* Feature gates (scheduler.feature_gates), as kube-scheduler's */
typedef struct FeatureGates
{
	bool		SidecarContainers;
	bool		TaintTolerationComparisonOperators;
	bool		MatchLabelKeysInPodTopologySpread;
	bool		NodeInclusionPolicyInPodTopologySpread;
	bool		VolumeCapacityPriority;	/* VolumeBinding's Score (alpha, off) */
} FeatureGates;
extern FeatureGates scheduler_features;

#endif							/* SCHEDULER_FEATURE_GATES_H */
