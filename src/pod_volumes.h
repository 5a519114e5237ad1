/*
 * pod_volumes.h
 *	  A pod's volumes as the volume plugins read them (PodVolume, cluster.h).
 *
 * IDENTIFICATION
 *	  src/pod_volumes.h
 */
#ifndef SCHEDULER_POD_VOLUMES_H
#define SCHEDULER_POD_VOLUMES_H

#include "postgres.h"
#include "utils/jsonb.h"
#include "cluster.h"

/*
 * The volumes of a pod the plugins read, from the pods table's volumes
 * column (the other kinds of spec.volumes are not stored there); pod_name
 * makes an ephemeral volume's claim name.  Returns NULL and *n = 0 when
 * there are none; sets *err when the column does not read (a planted row).
 */
extern PodVolume *PodVolumesFromJsonb(Jsonb *jb, const char *pod_name, int *n, char **err);

/* spec.volumes of a pod object as the pods table keeps them (mirror.c): NULL when none */
extern Jsonb *PodVolumesColumn(JsonbContainer *spec, const char *what);

#endif							/* SCHEDULER_POD_VOLUMES_H */
