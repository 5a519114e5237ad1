/*
 * events.h
 *	  Cluster events and QueueingHints: what a change to the cluster is, as
 *	  kube-scheduler's ClusterEvent, and what a plugin registers for it.
 *
 * IDENTIFICATION
 *	  src/events.h
 */
#ifndef SCHEDULER_EVENTS_H
#define SCHEDULER_EVENTS_H

#include "cluster.h"

/* Resources, and kube-scheduler's ActionType bits (one per event) */
#define RES_NODE			1
#define RES_ASSIGNED_POD	2
/* the storage kinds (volumes.h): their events carry the objects */
#define RES_PVC						3	/* PersistentVolumeClaim */
#define RES_PV						4	/* PersistentVolume */
#define RES_STORAGE_CLASS			5
#define RES_CSI_NODE				6
#define RES_CSI_DRIVER				7
#define RES_CSI_STORAGE_CAPACITY	8
#define RES_VOLUME_ATTACHMENT		9

#define ACT_ADD						0x0001
#define ACT_DELETE					0x0002
#define ACT_UPDATE_NODE_ALLOCATABLE	0x0004
#define ACT_UPDATE_NODE_LABEL		0x0008
#define ACT_UPDATE_NODE_TAINT		0x0010
#define ACT_UPDATE_POD_LABEL		0x0100
#define ACT_UPDATE_POD_SCALE_DOWN	0x0200
#define ACT_UPDATE_OBJECT			0x0400	/* any update of another kind's object */
#define ACT_UPDATE					0x1FFC	/* every update */

typedef struct ClusterEvent
{
	int			resource;		/* RES_* */
	int			action;			/* one ACT_* */
	const char *label;			/* "NodeAdd", "NodeUpdateNodeTaint", ... */
	NodeInfo   *old_node;		/* node events: before (NULL on add) */
	NodeInfo   *new_node;		/* and after (NULL on delete) */
	PodRef	   *old_pod;		/* assigned pod events: before */
	PodRef	   *new_pod;		/* and after */
	Jsonb	   *old_obj;		/* other kinds' events: the object before */
	Jsonb	   *new_obj;		/* and after */
} ClusterEvent;

typedef enum QueueingHint
{
	HINT_SKIP = 0,
	HINT_QUEUE
} QueueingHint;

struct PodInfo;

/* EventsToRegister: an event of interest, and its hint (NULL: always Queue) */
typedef struct EventRegistration
{
	int			resource;
	int			actions;
	QueueingHint (*hint) (const struct PodInfo *pod, const ClusterEvent *ev);
} EventRegistration;

#define MAX_EVENT_REGISTRATIONS 10

#endif							/* SCHEDULER_EVENTS_H */
