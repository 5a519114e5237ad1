/*
 * shape.c
 *	  A scoring shape, parsed and validated as validateFunctionShape does and
 *	  scaled to node scores, and the broken linear function over it
 *	  (helper.BuildBrokenLinearFunction): NodeResourcesFit's
 *	  RequestedToCapacityRatio and VolumeBinding's capacity scoring.
 *
 * IDENTIFICATION
 *	  src/shape.c
 */
#include "postgres.h"

#include "jsonutil.h"
#include "shape.h"

#define MAX_NODE_SCORE 100
#define MAX_CUSTOM_PRIORITY_SCORE 10
#define MAX_UTILIZATION 100

/* A Kubernetes field error of the plugin's args: "<args>: <path>: <type>[: <value>][: <detail>]" */
static void
field_error(const char *args, const char *type, const char *path, const char *value, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s: %s%s%s%s%s", args, path, type,
					value ? ": " : "", value ? value : "", detail ? ": " : "", detail ? detail : "")));
}

static int64
point_int(JsonbValue *v, const char *args, const char *path)
{
	int64		x;

	if (v == NULL)
		return 0;
	if (!JValueInt64(v, &x))
		field_error(args, "Invalid value", path, JShortScalar(v), "must be an integer");
	return x;
}

/*
 * ShapeParse
 *		The shape at path of a plugin's args (args names them in messages:
 *		"VolumeBinding args"), checked as validateFunctionShape: a list of at
 *		least one point, utilizations increasing (unsorted: the message the
 *		plugin's version gives) within [0, 100], scores within [0, 10]; the
 *		scores then scaled to [0, 100].  shape NULL: no points given.
 */
void
ShapeParse(Shape *out, JsonbValue *shape, const char *args, const char *path, const char *unsorted)
{
	static const char *const point_fields[] = {"utilization", "score", NULL};
	ShapePoint *pts;
	int			n;

	if (shape && (shape->type != jbvBinary || !JsonContainerIsArray(shape->val.binary.data)))
		field_error(args, "Invalid value", path, NULL, "must be a list");
	if (shape == NULL || JsonContainerSize(shape->val.binary.data) == 0)
		field_error(args, "Required value", path, NULL, "at least one point must be specified");
	n = JsonContainerSize(shape->val.binary.data);
	pts = palloc(sizeof(ShapePoint) * n);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *p = getIthJsonbValueFromContainer(shape->val.binary.data, i);
		char	   *ppath = psprintf("%s[%d]", path, i);

		if (p->type != jbvBinary || !JsonContainerIsObject(p->val.binary.data))
			field_error(args, "Invalid value", ppath, NULL, "must be an object");
		JCheckKnownFields(p->val.binary.data, point_fields, args, ppath);
		pts[i].utilization = point_int(JGet(p->val.binary.data, "utilization"), args,
									   psprintf("%s.utilization", ppath));
		pts[i].score = point_int(JGet(p->val.binary.data, "score"), args, psprintf("%s.score", ppath));
	}
	for (int i = 1; i < n; i++)
		if (pts[i - 1].utilization >= pts[i].utilization)
			field_error(args, "Invalid value", psprintf("%s[%d].utilization", path, i),
						psprintf("%lld", (long long) pts[i].utilization), unsorted);
	for (int i = 0; i < n; i++)
	{
		if (pts[i].utilization < 0 || pts[i].utilization > MAX_UTILIZATION)
			field_error(args, "Invalid value", psprintf("%s[%d].utilization", path, i),
						psprintf("%lld", (long long) pts[i].utilization), "not in valid range [0, 100]");
		if (pts[i].score < 0 || pts[i].score > MAX_CUSTOM_PRIORITY_SCORE)
			field_error(args, "Invalid value", psprintf("%s[%d].score", path, i),
						psprintf("%lld", (long long) pts[i].score), "not in valid range [0, 10]");
		pts[i].score *= MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
	}
	out->n = n;
	out->points = pts;
}

/* helper.BuildBrokenLinearFunction: the score at utilization (0..100) */
int64
ShapeScore(const Shape *s, int64 utilization)
{
	const ShapePoint *p = s->points;

	for (int k = 0; k < s->n; k++)
		if (utilization <= p[k].utilization)
		{
			if (k == 0)
				return p[0].score;
			return p[k - 1].score + (p[k].score - p[k - 1].score) * (utilization - p[k - 1].utilization) /
				(p[k].utilization - p[k - 1].utilization);
		}
	return p[s->n - 1].score;
}
