/*
 * resources.h
 *	  Resource vectors: kube-scheduler's framework.Resource.
 *
 * cpu is in millicores; memory, ephemeral-storage and hugepages-* in bytes;
 * pods is a count; any other resource keeps its name and integer value.
 */
#ifndef SCHEDULER_RESOURCES_H
#define SCHEDULER_RESOURCES_H

#include "utils/jsonb.h"

typedef struct ScalarResource
{
	const char *name;
	int64		value;
} ScalarResource;

typedef struct ResourceVec
{
	int64		cpu;
	int64		memory;
	int64		ephemeral;
	int64		pods;
	int			present;		/* which of the four above were set */
	int			nscalar;
	int			scalar_cap;
	ScalarResource *scalar;		/* every other resource, by name */
} ResourceVec;

/* Non-zero defaults kube-scheduler uses when scoring (schedutil). */
#define DEFAULT_MILLI_CPU_REQUEST	100
#define DEFAULT_MEMORY_REQUEST		(200 * 1024 * 1024)

extern bool ResourceIsScalar(const char *name);
extern bool ResourceIsExtended(const char *name);
/* A resource with a field of its own (ResourceFixedIndex), -1 for any other */
#define RESOURCE_CPU		0
#define RESOURCE_MEMORY		1
#define RESOURCE_EPHEMERAL	2
#define RESOURCE_PODS		3
extern int	ResourceFixedIndex(const char *name);
extern int64 *ResourceSlot(ResourceVec *v, const char *name, bool create);
extern bool ResourceHas(const ResourceVec *v, const char *name);
extern int64 ResourceGet(const ResourceVec *v, const char *name);
extern bool AddSaturating(int64 *x, int64 y);
extern int64 MulDiv(int64 a, int64 b, int64 c);
extern const char *ResourceAddSaturating(ResourceVec *dst, const ResourceVec *src);
extern void ResourceAdd(ResourceVec *dst, const ResourceVec *src);
extern void ResourceSub(ResourceVec *dst, const ResourceVec *src);
extern void ResourceMax(ResourceVec *dst, const ResourceVec *src);
extern bool ResourceVecFromNormalized(ResourceVec *v, Jsonb *jb, char **err);
extern Jsonb *ResourceVecToJsonb(const ResourceVec *v);
extern void ParseResourceList(JsonbContainer *rl, ResourceVec *v, const ResourceVec *skip,
							  const char *what, const char *path);
extern void PodEffectiveRequests(JsonbContainer *spec, JsonbContainer *status, bool assigned,
								 const char *what, ResourceVec *req, int64 *nonzero_cpu,
								 int64 *nonzero_memory, int64 *scored_cpu, int64 *scored_memory);

#endif
