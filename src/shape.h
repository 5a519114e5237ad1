/*
 * shape.h
 *	  A scoring shape: utilization points mapped to scores, as
 *	  NodeResourcesFit's RequestedToCapacityRatio and VolumeBinding's capacity
 *	  scoring both take it (kube-scheduler's UtilizationShapePoint,
 *	  validateFunctionShape and helper.BuildBrokenLinearFunction).
 *
 * IDENTIFICATION
 *	  src/shape.h
 */
#ifndef SCHEDULER_SHAPE_H
#define SCHEDULER_SHAPE_H

#include "postgres.h"
#include "utils/jsonb.h"

typedef struct ShapePoint
{
	int64		utilization;	/* 0..100 */
	int64		score;			/* already times MaxNodeScore / MaxCustomPriorityScore */
} ShapePoint;

typedef struct Shape
{
	int			n;
	ShapePoint *points;
} Shape;

extern void ShapeParse(Shape *out, JsonbValue *shape, const char *args, const char *path,
					   const char *unsorted);
extern int64 ShapeScore(const Shape *s, int64 utilization);

#endif							/* SCHEDULER_SHAPE_H */
