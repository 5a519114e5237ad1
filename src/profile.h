/*
 * profile.h
 *	  Profiles (scheduler.profiles) and the plugin registry.
 *
 * IDENTIFICATION
 *	  src/profile.h
 */
#ifndef SCHEDULER_PROFILE_H
#define SCHEDULER_PROFILE_H

#include "plugin.h"

extern Profile *ProfileLoad(const char *scheduler_name);
extern Profile *ProfileFromConfig(Jsonb *config, const char *scheduler_name);
extern const Plugin *FindPlugin(const char *name);
extern bool EventOfInterest(const ClusterEvent *ev);

#endif							/* SCHEDULER_PROFILE_H */
