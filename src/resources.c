/*
 * resources.c
 *	  Resource vectors, Kubernetes ResourceLists, and a pod's effective request.
 *
 * A pod's effective request is kube-scheduler's (component-helpers
 * resource.PodRequests, which the scheduler's NodeInfo and NodeResourcesFit
 * use):
 *
 *	 - the sum of its containers' requests;
 *	 - then, per resource, the max with each init container's need, where a
 *	   restartable init container (restartPolicy: Always, a sidecar) is added
 *	   to the sum and keeps running, so every later init container needs its
 *	   own request plus the sidecars started before it;
 *	 - pod-level requests (spec.resources, PodLevelResources) of cpu, memory
 *	   and hugepages stand for the containers' (pod_level_requests);
 *	 - plus spec.overhead.
 *
 * For scoring the same is computed with the non-zero defaults (100m cpu,
 * 200Mi memory) for each container that sets no cpu or memory request at all
 * (an explicit "0" stays 0).
 *
 * Requests are read as the API server stores them: a container that sets a
 * limit but no request for a resource requests its limit (SetDefaults_Pod).
 */
#include "postgres.h"

#include "common/int.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "jsonutil.h"
#include "quantity.h"
#include "resources.h"

/* The four resources with a field of their own, and their presence bits */
static const struct
{
	const char *name;
	size_t		offset;
	int			present;
}			fixed_resources[] = {
	{"cpu", offsetof(ResourceVec, cpu), 0x01},
	{"memory", offsetof(ResourceVec, memory), 0x02},
	{"ephemeral-storage", offsetof(ResourceVec, ephemeral), 0x04},
	{"pods", offsetof(ResourceVec, pods), 0x08},
};

/* Index into fixed_resources (RESOURCE_CPU, ...), or -1 for any other resource */
int
ResourceFixedIndex(const char *name)
{
	for (int i = 0; i < (int) lengthof(fixed_resources); i++)
		if (strcmp(fixed_resources[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * v1helper's resource name classes.  A prefixed native resource has
 * "kubernetes.io/" anywhere in its name; an extended resource has a '/',
 * is not prefixed native and does not start with "requests.".
 */
bool
ResourceIsExtended(const char *name)
{
	return strchr(name, '/') != NULL && strstr(name, "kubernetes.io/") == NULL &&
		strncmp(name, "requests.", 9) != 0;
}

/*
 * ResourceIsScalar
 *		kube-scheduler's IsScalarResourceName: extended resources
 *		(example.com/foo), prefixed native ones (kubernetes.io/...), hugepages-*
 *		and attachable-volumes-*.  Other names are not scheduled on.
 */
bool
ResourceIsScalar(const char *name)
{
	return ResourceIsExtended(name) ||
		strncmp(name, "hugepages-", 10) == 0 ||
		strstr(name, "kubernetes.io/") != NULL ||
		strncmp(name, "attachable-volumes-", 19) == 0;
}

/* The slot for a resource; with create, add it (and mark it present). */
int64 *
ResourceSlot(ResourceVec *v, const char *name, bool create)
{
	int			f = ResourceFixedIndex(name);

	if (f >= 0)
	{
		if (create)
			v->present |= fixed_resources[f].present;
		return (int64 *) ((char *) v + fixed_resources[f].offset);
	}
	for (int i = 0; i < v->nscalar; i++)
		if (strcmp(v->scalar[i].name, name) == 0)
			return &v->scalar[i].value;
	if (!create)
		return NULL;
	if (v->nscalar == v->scalar_cap)
	{
		v->scalar_cap = v->scalar_cap ? v->scalar_cap * 2 : 4;
		v->scalar = v->scalar ? repalloc(v->scalar, sizeof(ScalarResource) * v->scalar_cap)
			: palloc(sizeof(ScalarResource) * v->scalar_cap);
	}
	v->scalar[v->nscalar].name = pstrdup(name);
	v->scalar[v->nscalar].value = 0;
	return &v->scalar[v->nscalar++].value;
}

int64
ResourceGet(const ResourceVec *v, const char *name)
{
	int64	   *slot = ResourceSlot((ResourceVec *) v, name, false);

	return slot ? *slot : 0;
}

/*
 * x += y, saturating at the int64 limits instead of wrapping; false when it
 * saturated.  Every sum of outside numbers goes through this.
 */
bool
AddSaturating(int64 *x, int64 y)
{
	if (pg_add_s64_overflow(*x, y, x))
	{
		*x = y > 0 ? PG_INT64_MAX : PG_INT64_MIN;
		return false;
	}
	return true;
}

/*
 * a * b / c, truncated toward zero as Go's integer division, computed
 * without overflow (the product in 128 bits) and clamped to int64; c must
 * not be 0.  For scores: (allocatable - requested) * 100 / allocatable
 * overflows int64 for large allocatable values.
 */
int64
MulDiv(int64 a, int64 b, int64 c)
{
	int64		ab;

	/* the usual case: a * b fits, and so does the quotient */
	if (!pg_mul_s64_overflow(a, b, &ab) && !(ab == PG_INT64_MIN && c == -1))
		return ab / c;
	{
#ifdef HAVE_INT128
		int128		r = (int128) a * (int128) b / (int128) c;

		if (r > PG_INT64_MAX)
			return PG_INT64_MAX;
		if (r < PG_INT64_MIN)
			return PG_INT64_MIN;
		return (int64) r;
#else
		long double r = (long double) a * (long double) b / (long double) c;

		if (r >= (long double) PG_INT64_MAX)
			return PG_INT64_MAX;
		if (r <= (long double) PG_INT64_MIN)
			return PG_INT64_MIN;
		return (int64) r;
#endif
	}
}

/*
 * dst += src, resource by resource, saturating: NULL when nothing
 * overflowed, else the name of the first resource that did (its slot left
 * at the limit).
 */
const char *
ResourceAddSaturating(ResourceVec *dst, const ResourceVec *src)
{
	const char *over = NULL;

	for (int f = 0; f < (int) lengthof(fixed_resources); f++)
	{
		int64	   *d = (int64 *) ((char *) dst + fixed_resources[f].offset);
		const int64 *x = (const int64 *) ((const char *) src + fixed_resources[f].offset);

		if (!AddSaturating(d, *x) && over == NULL)
			over = fixed_resources[f].name;
	}
	dst->present |= src->present;
	for (int i = 0; i < src->nscalar; i++)
		if (!AddSaturating(ResourceSlot(dst, src->scalar[i].name, true), src->scalar[i].value) && over == NULL)
			over = src->scalar[i].name;
	return over;
}

/* dst += src; the caller knows the sum fits (or accepts a saturated slot) */
void
ResourceAdd(ResourceVec *dst, const ResourceVec *src)
{
	(void) ResourceAddSaturating(dst, src);
}

void
ResourceSub(ResourceVec *dst, const ResourceVec *src)
{
	dst->cpu -= src->cpu;
	dst->memory -= src->memory;
	dst->ephemeral -= src->ephemeral;
	dst->pods -= src->pods;
	for (int i = 0; i < src->nscalar; i++)
		*ResourceSlot(dst, src->scalar[i].name, true) -= src->scalar[i].value;
}

/* Per resource present in src: dst = max(dst, src) (maxResourceList). */
void
ResourceMax(ResourceVec *dst, const ResourceVec *src)
{
	dst->cpu = Max(dst->cpu, src->cpu);
	dst->memory = Max(dst->memory, src->memory);
	dst->ephemeral = Max(dst->ephemeral, src->ephemeral);
	dst->pods = Max(dst->pods, src->pods);
	dst->present |= src->present;
	for (int i = 0; i < src->nscalar; i++)
	{
		int64	   *slot = ResourceSlot(dst, src->scalar[i].name, true);

		*slot = Max(*slot, src->scalar[i].value);
	}
}

static void
ResourceCopy(ResourceVec *dst, const ResourceVec *src)
{
	memset(dst, 0, sizeof(*dst));
	ResourceAdd(dst, src);
}

/* ResourceVecFromNormalized's reading of a map (below) */
static bool
read_normalized(ResourceVec *v, Jsonb *jb, char **err)
{
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	memset(v, 0, sizeof(*v));
	*err = NULL;
	if (jb == NULL)
		return true;
	if (!JB_ROOT_IS_OBJECT(jb))
	{
		*err = "not an object of resource names";
		return false;
	}
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;
		int64		x;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		tok = JsonbIteratorNext(&it, &val, true);
		if (tok != WJB_VALUE || !JValueInt64(&val, &x) || x < 0)
		{
			if (*err == NULL)
				*err = psprintf("%s: not a non-negative integer in range", JShort(name));
			continue;
		}
		*ResourceSlot(v, name, true) = x;
	}
	return *err == NULL;
}

/*
 * The last map read, kept: the pods of one template request alike, and a
 * snapshot reads its pods' maps by the ten thousand (each read walks the
 * map and converts its numbers: some 5,000 instructions).  A map stored in
 * the same bytes reads the same; the caller gets its own copy.
 */
static struct
{
	MemoryContext cxt;
	bool		valid;
	Jsonb	   *jb;
	ResourceVec v;
	bool		ok;
	char	   *err;
}			last_read;

/*
 * A normalized map {"cpu": 4000, "memory": 1024, ...} into a vector, as the
 * mirror stores it, in the current memory context.  It throws only for
 * memory: a stored row may have been written past scheduler.apply().  A
 * value that is not a non-negative integer in range is left out, and the
 * first such is described in *err (NULL when all was read); a map that is
 * not an object reads as empty, with *err set.  A map stored in the same
 * bytes as the last one read is not read again (a miss costs the copy it
 * keeps: little beside the reading).
 */
bool
ResourceVecFromNormalized(ResourceVec *v, Jsonb *jb, char **err)
{
	bool		ok;
	MemoryContext old;

	if (jb != NULL && last_read.valid && JSameBytes(jb, last_read.jb))
	{
		ResourceCopy(v, &last_read.v);
		*err = last_read.err ? pstrdup(last_read.err) : NULL;
		return last_read.ok;
	}
	ok = read_normalized(v, jb, err);
	if (jb == NULL)
		return ok;
	if (last_read.cxt == NULL)
		last_read.cxt = AllocSetContextCreate(TopMemoryContext, "scheduler last resource map",
											  ALLOCSET_SMALL_SIZES);
	/* invalid until whole: a copy that fails (out of memory) leaves no half */
	last_read.valid = false;
	MemoryContextReset(last_read.cxt);
	old = MemoryContextSwitchTo(last_read.cxt);
	last_read.jb = DatumGetJsonbPCopy(JsonbPGetDatum(jb));
	ResourceCopy(&last_read.v, v);
	last_read.ok = ok;
	last_read.err = *err ? pstrdup(*err) : NULL;
	MemoryContextSwitchTo(old);
	last_read.valid = true;
	return ok;
}

static void
push_resource(JsonbParseState **st, const char *name, int64 value)
{
	JsonbValue	k,
				v;

	k.type = jbvString;
	k.val.string.val = (char *) name;
	k.val.string.len = strlen(name);
	pushJsonbValue(st, WJB_KEY, &k);
	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(value);
	pushJsonbValue(st, WJB_VALUE, &v);
}

/* The vector as a normalized map; only resources that were set appear. */
Jsonb *
ResourceVecToJsonb(const ResourceVec *v)
{
	JsonbParseState *st = NULL;
	JsonbValue *res;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	for (int f = 0; f < (int) lengthof(fixed_resources); f++)
		if (v->present & fixed_resources[f].present)
			push_resource(&st, fixed_resources[f].name,
						  *(const int64 *) ((const char *) v + fixed_resources[f].offset));
	for (int i = 0; i < v->nscalar; i++)
		push_resource(&st, v->scalar[i].name, v->scalar[i].value);
	res = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/*
 * ParseResourceList
 *		Add a Kubernetes ResourceList ({"cpu": "100m", ...}) into *v.
 *		Quantities may be JSON strings or numbers, as Quantity's UnmarshalJSON
 *		allows.  cpu is read in millicores, everything else in whole units.
 *		Negative values are refused, as the API server's validation does.
 *		skip, if not NULL, names resources already set, which are left alone.
 */
void
ParseResourceList(JsonbContainer *rl, ResourceVec *v, const ResourceVec *skip,
				  const char *what, const char *path)
{
	JsonbIterator *it;
	JsonbValue	k,
				val;
	JsonbIteratorToken tok;

	if (rl == NULL)
		return;
	it = JsonbIteratorInit(rl);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *text;
		int64		amount;
		QuantityResult r;

		if (tok != WJB_KEY)
			continue;
		name = pnstrdup(k.val.string.val, k.val.string.len);
		(void) JsonbIteratorNext(&it, &val, true);
		/* the field's path, written out only for a message */
#define FIELD psprintf("%s.%s", path, JShort(name))
		if (val.type != jbvString && val.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s: expected a quantity, got %s", what, FIELD, JTypeName(&val))));

		if (skip && ResourceHas(skip, name))
			continue;
		text = JScalarText(&val);
		r = QuantityParse(text, strlen(text),
						  strcmp(name, "cpu") == 0 ? QUANTITY_SCALE_MILLI : QUANTITY_SCALE_UNIT,
						  &amount);
		if (r != QUANTITY_OK)
			QuantityReportError(r, JShort(text), psprintf("%s: %s", what, FIELD));
		if (amount < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s: Invalid value: \"%s\": must be greater than or equal to 0",
							what, FIELD, JShort(text))));
#undef FIELD
		*ResourceSlot(v, name, true) = amount;
	}
}

bool
ResourceHas(const ResourceVec *v, const char *name)
{
	int			f = ResourceFixedIndex(name);

	if (f >= 0)
		return (v->present & fixed_resources[f].present) != 0;
	return ResourceSlot((ResourceVec *) v, name, false) != NULL;
}

/*
 * A container's requests, as the API server stores them: its requests,
 * plus its limits for resources it sets no request for.
 */
static void
ContainerRequests(JsonbContainer *ctr, ResourceVec *req, const char *what, const char *path)
{
	JsonbContainer *resources = JGetObject(ctr, "resources", what, path);
	char	   *rpath = JPathChild(path, "resources");

	memset(req, 0, sizeof(*req));
	if (resources == NULL)
		return;
	ParseResourceList(JGetObject(resources, "requests", what, rpath), req, NULL,
					  what, JPathChild(rpath, "requests"));
	ParseResourceList(JGetObject(resources, "limits", what, rpath), req, req,
					  what, JPathChild(rpath, "limits"));
}

/*
 * dst += src for one pod's own requests: a total out of int64's range is
 * refused, naming the field where it happened.
 */
static void
pod_sum(ResourceVec *dst, const ResourceVec *src, const char *what, const char *path)
{
	const char *over = ResourceAddSaturating(dst, src);

	if (over)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s: Invalid value: the pod's total %s request is out of range",
						what, path, JShort(over)),
				 errdetail("The requests of a pod's containers, sidecars and overhead must add up to at most %lld %s.",
						   (long long) PG_INT64_MAX, strcmp(over, "cpu") == 0 ? "millicores" : "units")));
}

/* The non-zero variant of a container's request (applyNonMissing) */
static void
NonZeroRequests(ResourceVec *nz, const ResourceVec *req)
{
	ResourceCopy(nz, req);
	if (!ResourceHas(req, "cpu"))
		*ResourceSlot(nz, "cpu", true) = DEFAULT_MILLI_CPU_REQUEST;
	if (!ResourceHas(req, "memory"))
		*ResourceSlot(nz, "memory", true) = DEFAULT_MEMORY_REQUEST;
}

/* IsSupportedPodLevelResource: cpu, memory and hugepages-<size> */
static bool
pod_level_resource(const char *name)
{
	return strcmp(name, "cpu") == 0 || strcmp(name, "memory") == 0 ||
		strncmp(name, "hugepages-", 10) == 0;
}

/* dst[name] = src[name] for each supported pod-level resource src has and dst lacks */
static void
pod_level_fill(ResourceVec *dst, const ResourceVec *src)
{
	static const char *const fixed[] = {"cpu", "memory"};

	for (int i = 0; i < (int) lengthof(fixed); i++)
		if (ResourceHas(src, fixed[i]) && !ResourceHas(dst, fixed[i]))
			*ResourceSlot(dst, fixed[i], true) = ResourceGet(src, fixed[i]);
	for (int i = 0; i < src->nscalar; i++)
		if (pod_level_resource(src->scalar[i].name) && !ResourceHas(dst, src->scalar[i].name))
			*ResourceSlot(dst, src->scalar[i].name, true) = src->scalar[i].value;
}

/*
 * Pod-level requests (spec.resources: the PodLevelResources feature, on by
 * default since Kubernetes 1.34), as the API server stores them
 * (defaultPodRequests: when pod-level limits are set, a cpu or memory
 * request left out is the containers' effective request for it where a
 * container requests it, and any other left out is its pod-level limit).
 * Each supported one (cpu, memory, hugepages-*) stands for the containers'
 * in the pod's request and in its non-zero variant (component-helpers'
 * PodRequests, which the scheduler's NodeInfo and scores use); the others
 * are left alone, as PodRequests leaves them.  spec_req: the containers'
 * effective cpu and memory (the overcommittable resources) from their
 * specs, where requested, which the API server's defaulting reads.  Called
 * before the overhead is added.  True when the pod has
 * pod-level requests (IsPodLevelRequestsSet, once defaulted).
 */
static bool
pod_level_requests(JsonbContainer *spec, const char *what, const ResourceVec *spec_req,
				   ResourceVec *req, ResourceVec *nz)
{
	JsonbContainer *res = JGetObject(spec, "resources", what, "spec");
	bool		set = false;
	ResourceVec preq;
	ResourceVec plim;

	if (res == NULL)
		return false;
	memset(&preq, 0, sizeof(preq));
	memset(&plim, 0, sizeof(plim));
	ParseResourceList(JGetObject(res, "requests", what, "spec.resources"), &preq, NULL,
					  what, "spec.resources.requests");
	ParseResourceList(JGetObject(res, "limits", what, "spec.resources"), &plim, NULL,
					  what, "spec.resources.limits");
	if (plim.present != 0 || plim.nscalar > 0)
	{
		pod_level_fill(&preq, spec_req);
		pod_level_fill(&preq, &plim);
	}
	if (ResourceHas(&preq, "cpu"))
	{
		*ResourceSlot(req, "cpu", true) = *ResourceSlot(nz, "cpu", true) = preq.cpu;
		set = true;
	}
	if (ResourceHas(&preq, "memory"))
	{
		*ResourceSlot(req, "memory", true) = *ResourceSlot(nz, "memory", true) = preq.memory;
		set = true;
	}
	for (int i = 0; i < preq.nscalar; i++)
		if (pod_level_resource(preq.scalar[i].name))
		{
			*ResourceSlot(req, preq.scalar[i].name, true) = preq.scalar[i].value;
			*ResourceSlot(nz, preq.scalar[i].name, true) = preq.scalar[i].value;
			set = true;
		}
	return set;
}

/*
 * Where a container's requests are read from (component-helpers'
 * AggregateContainerRequests with UseStatusResources, the in-place resize
 * of InPlacePodVerticalScaling, on by default since Kubernetes 1.33):
 *	 - REQ_SPEC: its spec (containerSpecRequests);
 *	 - REQ_ALLOCATED: its status' allocatedResources, else none when the
 *	   resize is infeasible, else its spec (containerAllocatedRequests);
 *	 - REQ_ACTUATED: its status' resources.requests, else its
 *	   allocatedResources, else none when infeasible, else its spec
 *	   (containerActuatedRequests).
 */
typedef enum RequestSource
{
	REQ_SPEC,
	REQ_ALLOCATED,
	REQ_ACTUATED
} RequestSource;

/*
 * findContainerStatus: the status of the container named name, and its
 * path; NULL when none.  Names are compared in place: the path is made
 * for the match only.
 */
static JsonbContainer *
container_status(JsonbContainer *status, const char *name, const char *what, char **path)
{
	static const char *const lists[] = {"containerStatuses", "initContainerStatuses"};
	size_t		len = name ? strlen(name) : 0;

	if (status == NULL || name == NULL)
		return NULL;
	for (int l = 0; l < (int) lengthof(lists); l++)
	{
		JsonbContainer *arr = JGetArray(status, lists[l], what, "status");
		int			n = arr ? JsonContainerSize(arr) : 0;

		for (int i = 0; i < n; i++)
		{
			JsonbValue *v = getIthJsonbValueFromContainer(arr, i);
			JsonbValue *nm;
			char	   *ipath;

			if (v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data) &&
				(nm = JGet(v->val.binary.data, "name")) != NULL && nm->type == jbvString)
			{
				if (nm->val.string.len != (int) len || memcmp(nm->val.string.val, name, len) != 0)
					continue;
				*path = JPathIndex(JPathChild("status", lists[l]), i);
				return v->val.binary.data;
			}
			/* not an object, or a name that is no string: the error names it */
			ipath = JPathIndex(JPathChild("status", lists[l]), i);
			(void) JGetString(JObject(v, what, ipath), "name", what, ipath);
		}
	}
	return NULL;
}

/* One container's requests, read from src */
static void
source_requests(JsonbContainer *ctr, JsonbContainer *status, RequestSource src, bool infeasible,
				ResourceVec *req, const char *what, const char *path)
{
	char	   *cspath = NULL;
	JsonbContainer *cs = NULL;
	JsonbContainer *allocated = NULL;
	JsonbContainer *actuated = NULL;

	if (src != REQ_SPEC)
	{
		cs = container_status(status, JGetString(ctr, "name", what, path), what, &cspath);
		if (cs != NULL)
		{
			JsonbContainer *res = JGetObject(cs, "resources", what, cspath);

			allocated = JGetObject(cs, "allocatedResources", what, cspath);
			if (res != NULL)
				actuated = JGetObject(res, "requests", what, JPathChild(cspath, "resources"));
		}
	}
	memset(req, 0, sizeof(*req));
	if (src == REQ_ACTUATED && actuated != NULL)
		ParseResourceList(actuated, req, NULL, what, JPathChild(JPathChild(cspath, "resources"), "requests"));
	else if (src != REQ_SPEC && allocated != NULL)
		ParseResourceList(allocated, req, NULL, what, JPathChild(cspath, "allocatedResources"));
	else if (src == REQ_SPEC || !infeasible)
		ContainerRequests(ctr, req, what, path);
}

/*
 * The containers' effective request, each container's read from src, and
 * its non-zero variant (aggregateContainerResourcesByFn, with the
 * scheduler's NonMissingContainerRequests for *nz).
 */
static void
aggregate_requests(JsonbContainer *spec, JsonbContainer *status, RequestSource src, bool infeasible,
				   const char *what, ResourceVec *req, ResourceVec *nz)
{
	ResourceVec init_req,
				init_nz;
	ResourceVec side_req,
				side_nz;
	JsonbContainer *containers;
	JsonbContainer *inits;

	memset(req, 0, sizeof(*req));
	memset(nz, 0, sizeof(*nz));
	memset(&init_req, 0, sizeof(init_req));
	memset(&init_nz, 0, sizeof(init_nz));
	memset(&side_req, 0, sizeof(side_req));
	memset(&side_nz, 0, sizeof(side_nz));

	containers = JGetArray(spec, "containers", what, "spec");
	if (containers)
	{
		int			n = JsonContainerSize(containers);

		for (int i = 0; i < n; i++)
		{
			char	   *path = JPathIndex("spec.containers", i);
			JsonbValue *c = getIthJsonbValueFromContainer(containers, i);
			ResourceVec creq,
						cnz;

			source_requests(JObject(c, what, path), status, src, infeasible, &creq, what, path);
			NonZeroRequests(&cnz, &creq);
			pod_sum(req, &creq, what, path);
			pod_sum(nz, &cnz, what, path);
		}
	}

	inits = JGetArray(spec, "initContainers", what, "spec");
	if (inits)
	{
		int			n = JsonContainerSize(inits);

		for (int i = 0; i < n; i++)
		{
			char	   *path = JPathIndex("spec.initContainers", i);
			JsonbValue *c = getIthJsonbValueFromContainer(inits, i);
			JsonbContainer *ctr = JObject(c, what, path);
			char	   *policy = JGetString(ctr, "restartPolicy", what, path);
			ResourceVec creq,
						cnz;

			source_requests(ctr, status, src, infeasible, &creq, what, path);
			NonZeroRequests(&cnz, &creq);
			if (policy && strcmp(policy, "Always") == 0)
			{
				/* a sidecar: runs beside everything started after it */
				pod_sum(req, &creq, what, path);
				pod_sum(nz, &cnz, what, path);
				pod_sum(&side_req, &creq, what, path);
				pod_sum(&side_nz, &cnz, what, path);
				ResourceMax(&init_req, &side_req);
				ResourceMax(&init_nz, &side_nz);
			}
			else
			{
				if (policy)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s: %s.restartPolicy: unsupported value \"%s\": supported values: \"Always\"",
									what, path, policy)));
				pod_sum(&creq, &side_req, what, path);
				pod_sum(&cnz, &side_nz, what, path);
				ResourceMax(&init_req, &creq);
				ResourceMax(&init_nz, &cnz);
			}
		}
	}
	ResourceMax(req, &init_req);
	ResourceMax(nz, &init_nz);
}

/*
 * IsPodResizeInfeasible: the pod's PodResizePending condition (the first)
 * says Infeasible
 */
static bool
resize_infeasible(JsonbContainer *status, const char *what)
{
	JsonbContainer *conds = JGetArray(status, "conditions", what, "status");
	int			n = conds ? JsonContainerSize(conds) : 0;

	for (int i = 0; i < n; i++)
	{
		char	   *path = JPathIndex("status.conditions", i);
		JsonbContainer *c = JObject(getIthJsonbValueFromContainer(conds, i), what, path);
		char	   *type = JGetString(c, "type", what, path);

		if (type && strcmp(type, "PodResizePending") == 0)
		{
			char	   *reason = JGetString(c, "reason", what, path);

			return reason != NULL && strcmp(reason, "Infeasible") == 0;
		}
	}
	return false;
}

/* Has the pod a container status (what an in-place resize reads)? */
static bool
has_container_statuses(JsonbContainer *status, const char *what)
{
	JsonbContainer *a = JGetArray(status, "containerStatuses", what, "status");
	JsonbContainer *b = JGetArray(status, "initContainerStatuses", what, "status");

	return (a && JsonContainerSize(a) > 0) || (b && JsonContainerSize(b) > 0);
}

/*
 * PodEffectiveRequests
 *		Compute a pod's effective request (*req) and its non-zero cpu and
 *		memory, from its spec and status (NULL: none): as a node counts the
 *		pod (*nonzero_cpu, *nonzero_memory) and as the scorer reads it while
 *		it is scheduled (*scored_cpu, *scored_memory).
 *
 * The request of a pod on a node (assigned) is read as kube-scheduler's
 * NodeInfo reads it (PodInfo.CalculateResource); of a pending one as
 * NodeResourcesFit reads the pod it schedules (computePodResourceRequest):
 * from its spec alone.  An assigned pod's status counts as kube-scheduler
 * reads a pod being resized in place (UseStatusResources): per resource
 * the most of the spec's, the actuated and the allocated requests; when
 * the resize is infeasible, of the actuated and the allocated only.
 *
 * The two non-zero pairs differ only under pod-level requests.  A node's
 * sums (CalculateResource, which reads any pod it is given the same way,
 * pending or not: an assumed or nominated one too) take the pod-level
 * values, and add the defaults only where the pod's request has no cpu or
 * memory at all (getNonMissingContainerRequests).  NodeResourcesFit's
 * scorer (calculatePodResourceRequest) reads the pod it schedules from its
 * containers alone, a default for each that lacks cpu or memory, plus the
 * overhead: released kube-scheduler never sets the feature flags of the
 * scorer NodeResourcesFit embeds (its own fields of the same names shadow
 * them), so it skips pod-level resources whatever PodLevelResources says
 * (kubernetes/kubernetes PR 141387, open).  BalancedAllocation reads the
 * plain request, pod level included.
 */
void
PodEffectiveRequests(JsonbContainer *spec, JsonbContainer *status, bool assigned, const char *what,
					 ResourceVec *req, int64 *nonzero_cpu, int64 *nonzero_memory,
					 int64 *scored_cpu, int64 *scored_memory)
{
	ResourceVec nz;
	ResourceVec scored;
	ResourceVec spec_req;
	bool		pod_level;
	bool		infeasible;

	if (!assigned)
		status = NULL;
	infeasible = status != NULL && resize_infeasible(status, what);

	aggregate_requests(spec, status, REQ_SPEC, infeasible, what, req, &nz);
	memset(&spec_req, 0, sizeof(spec_req));
	if (ResourceHas(req, "cpu"))
		*ResourceSlot(&spec_req, "cpu", true) = req->cpu;
	if (ResourceHas(req, "memory"))
		*ResourceSlot(&spec_req, "memory", true) = req->memory;
	if (infeasible || (status != NULL && has_container_statuses(status, what)))
	{
		ResourceVec allocated,
					allocated_nz;
		ResourceVec actuated,
					actuated_nz;

		aggregate_requests(spec, status, REQ_ALLOCATED, infeasible, what, &allocated, &allocated_nz);
		aggregate_requests(spec, status, REQ_ACTUATED, infeasible, what, &actuated, &actuated_nz);
		if (infeasible)
		{
			memset(req, 0, sizeof(*req));
			memset(&nz, 0, sizeof(nz));
		}
		ResourceMax(req, &actuated);
		ResourceMax(req, &allocated);
		ResourceMax(&nz, &actuated_nz);
		ResourceMax(&nz, &allocated_nz);
	}
	/* the scorer's, before the pod level stands for the containers */
	ResourceCopy(&scored, &nz);
	pod_level = pod_level_requests(spec, what, &spec_req, req, &nz);

	{
		JsonbContainer *overhead = JGetObject(spec, "overhead", what, "spec");
		ResourceVec oh;

		memset(&oh, 0, sizeof(oh));
		ParseResourceList(overhead, &oh, NULL, what, "spec.overhead");
		pod_sum(req, &oh, what, "spec.overhead");
		pod_sum(&nz, &oh, what, "spec.overhead");
		pod_sum(&scored, &oh, what, "spec.overhead");
	}

	*scored_cpu = scored.cpu;
	*scored_memory = scored.memory;

	/*
	 * With pod-level requests, a node counts the defaults only for cpu or
	 * memory the request has not at all: no container, pod-level or
	 * overhead value sets it then, so the full defaults' sum is that.
	 */
	if (pod_level)
	{
		if (ResourceHas(req, "cpu"))
			nz.cpu = req->cpu;
		if (ResourceHas(req, "memory"))
			nz.memory = req->memory;
	}

	*nonzero_cpu = nz.cpu;
	*nonzero_memory = nz.memory;
}
