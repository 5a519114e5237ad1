/*
 * test/fuzz/harness.c
 *	  Coverage-guided fuzz targets (libFuzzer) for what the extension parses
 *	  and what it stores.  Linked into the sanitized build only (make
 *	  SANITIZE=1: AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's
 *	  coverage), and run inside a backend, since the code under test needs
 *	  one (palloc, ereport, jsonb, SPI):
 *
 *		SELECT scheduler_fuzz(target, options)
 *
 *	  hands libFuzzer the target's callback with the options (libFuzzer's
 *	  command line: flags and corpus folders).  libFuzzer ends the session
 *	  when its time is up; its report is in the server log.  Each input runs in a
 *	  subtransaction that is rolled back, in a memory context that is
 *	  reset: nothing stays from one input to the next.
 *
 *	  An input may be refused the way the API server or the loaders refuse
 *	  it: an ERROR of class 22 (data exception) or 54 (program limit: JSON
 *	  nested too deep), or 38000 for a watch's ERROR event given to apply().  Any other ERROR is a finding, made a crash (abort)
 *	  so that libFuzzer keeps the input; so is a crash or a sanitizer's
 *	  report, and a broken property (quantity).
 *
 *	  Targets:
 *		quantity	a resource quantity at both scales, which must agree
 *		selector	label selectors, pod affinity terms, tolerations, node selectors
 *		object		a Kubernetes object, event or List through apply()'s door
 *		watch		a watch stream cut in chunks, line by line, as the worker does
 *		args		plugin args (first byte picks the plugin)
 *		http		an API server response: status, body, streamed or whole
 *		rows		stored rows as the loaders, the volume catalog and QueueingHints read them
 *		cycle		objects, nodes and pods applied, then a scheduling call over them
 *		kubeconfig	a kubeconfig file, parsed (the YAML subset) and resolved:
 *					it must never throw, whatever it holds
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "codec.h"
#include "jsonutil.h"
#include "kinds.h"
#include "kube_client.h"
#include "kubeconfig.h"
#include "labels.h"
#include "mirror.h"
#include "quantity.h"
#include "resources.h"
#include "pod_volumes.h"
#include "profile.h"
#include "schedule.h"
#include "subxact.h"
#include "tolerations.h"
#include "volumes.h"
#include "watch.h"

extern int	LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb) (const uint8_t *data, size_t size));

/* The sanitizers' settings: postgres clears the environment's, so set here */
extern const char *__asan_default_options(void);
extern const char *__ubsan_default_options(void);

const char *
__asan_default_options(void)
{
	/*
	 * The runtime comes in with this library, not first: no link-order
	 * check.  Memory is palloc's: no leak check.  Reports go to the server
	 * log (stderr).
	 */
	return "detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:halt_on_error=1:"
		"handle_abort=1:allow_user_segv_handler=1:print_summary=1";
}

const char *
__ubsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}

typedef void (*TargetFn) (const uint8_t *data, size_t size);

static MemoryContext input_cxt;

/* ------------------------------------------------------------------------
 * Running one input
 * ------------------------------------------------------------------------
 */

/*
 * An ERROR the input may earn: a data exception, a program limit, or the
 * ERROR a watch's ERROR event given to apply() is (38000); anything else is
 * a finding
 */
static bool
refusal(int sqlerrcode)
{
	return ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_DATA_EXCEPTION ||
		ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
		sqlerrcode == ERRCODE_EXTERNAL_ROUTINE_EXCEPTION;
}

static void
finding(const char *what, const char *detail)
{
	fprintf(stderr, "scheduler_fuzz: FINDING: %s: %s\n", what, detail ? detail : "");
	fflush(stderr);
	abort();
}

/*
 * Run fn(data, size) in a subtransaction, rolled back; an ERROR it throws
 * must be a refusal.
 */
static void
run_input(TargetFn fn, const uint8_t *data, size_t size)
{
	MemoryContext old = MemoryContextSwitchTo(input_cxt);
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	PG_TRY();
	{
		fn(data, size);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(input_cxt);
		edata = CopyErrorData();
		FlushErrorState();
		if (!refusal(edata->sqlerrcode))
			finding(psprintf("ERROR %s", unpack_sql_state(edata->sqlerrcode)), edata->message);
	}
	PG_END_TRY();
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(old);
	CurrentResourceOwner = owner;
	MemoryContextReset(input_cxt);
}

/* Run fn(arg) in its own subtransaction, rolled back; true when it threw a refusal */
static bool
refused(void (*fn) (void *arg), void *arg)
{
	ErrorData  *edata = RunInSubxact(fn, arg);

	if (edata == NULL)
		return false;
	if (!refusal(edata->sqlerrcode))
		finding(psprintf("ERROR %s", unpack_sql_state(edata->sqlerrcode)), edata->message);
	return true;
}

/* The input as JSON, or NULL when it is none (as the watch worker parses) */
static Jsonb *
input_json(const uint8_t *data, size_t size)
{
	return KubeParseJson((const char *) data, size);
}

static void
apply_doc(void *arg)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) MirrorApply((Jsonb *) arg, NULL);
	SPI_finish();
}

/* ------------------------------------------------------------------------
 * quantity
 * ------------------------------------------------------------------------
 */
static void
target_quantity(const uint8_t *data, size_t size)
{
	int64		unit = 0;
	int64		milli = 0;
	QuantityResult ru = QuantityParse((const char *) data, (int) Min(size, INT_MAX), QUANTITY_SCALE_UNIT, &unit);
	QuantityResult rm = QuantityParse((const char *) data, (int) Min(size, INT_MAX), QUANTITY_SCALE_MILLI, &milli);

	if ((ru == QUANTITY_INVALID) != (rm == QUANTITY_INVALID))
		finding("quantity", "valid at one scale and not at the other");
	if (ru == QUANTITY_OK && rm == QUANTITY_OK)
	{
		/* both round away from zero (Quantity.Value, MilliValue) */
		int64		q = milli / 1000;

		if (milli % 1000 > 0)
			q++;
		else if (milli % 1000 < 0)
			q--;
		if (q != unit)
			finding("quantity", psprintf("unit %lld is not milli %lld / 1000 rounded away from zero",
										 (long long) unit, (long long) milli));
	}
	if (rm == QUANTITY_OK && ru == QUANTITY_OUT_OF_RANGE)
		finding("quantity", "fits at the milli scale and not at the unit scale");
	if (rm != QUANTITY_OK)
		QuantityReportError(rm, pnstrdup((const char *) data, size), "fuzz");
}

/* ------------------------------------------------------------------------
 * selector
 * ------------------------------------------------------------------------
 */
static Jsonb *label_sets[3];

static void
target_selector(const uint8_t *data, size_t size)
{
	Jsonb	   *jb = input_json(data, size);
	char	   *err = NULL;
	LabelSelector *sel;
	PodAffinity *aff;
	Toleration *tols;
	int			ntols = 0;

	if (jb == NULL)
		return;

	/* a label selector (a workload's, a budget's, a spread constraint's) */
	sel = LabelSelectorParseJsonb(jb, &err);
	if (sel != NULL && err == NULL)
	{
		StringInfoData key;

		initStringInfo(&key);
		for (int i = 0; i < (int) lengthof(label_sets); i++)
			(void) LabelSelectorMatches(sel, label_sets[i]);
		LabelSelectorAppendKey(&key, sel);
	}

	/* spec.affinity: inter-pod terms */
	err = NULL;
	aff = PodAffinityParse(jb, "default", label_sets[0], &err);
	(void) aff;

	/* spec.tolerations against a node's taints */
	tols = TolerationsFromJsonb(jb, &ntols);
	for (int i = 0; i < ntols; i++)
	{
		static const Taint taints[] = {
			{.key = "k", .value = "v", .effect = "NoSchedule"},
			{.key = "node.kubernetes.io/unschedulable", .value = "", .effect = "NoSchedule"},
			{.key = "gpu", .value = "5", .effect = "NoExecute"},
		};

		for (int t = 0; t < (int) lengthof(taints); t++)
		{
			char	   *terr = NULL;

			(void) ToleratesTaint(&tols[i], &taints[t], &terr);
		}
	}

	/* spec.affinity.nodeAffinity and spec.nodeSelector, against nodes */
	{
		PodInfo		pod;
		const void *req;

		memset(&pod, 0, sizeof(pod));
		pod.uid = "u";
		pod.namespace = "default";
		pod.name = "p";
		pod.affinity = jb;
		pod.node_selector = jb;
		req = RequiredNodeAffinity(&pod);
		for (int i = 0; i < (int) lengthof(label_sets); i++)
		{
			NodeInfo	node;

			memset(&node, 0, sizeof(node));
			node.name = "n";
			node.exists = true;
			node.labels = label_sets[i];
			(void) RequiredNodeAffinityMatches(req, NULL, &pod, &node);
		}
	}
}

/* ------------------------------------------------------------------------
 * object: apply()'s door and what it stores
 * ------------------------------------------------------------------------
 */
static void
target_object(const uint8_t *data, size_t size)
{
	Jsonb	   *jb = input_json(data, size);

	if (jb != NULL)
		apply_doc(jb);
}

/* ------------------------------------------------------------------------
 * watch: chunks -> lines -> events, as the watch worker takes them
 * ------------------------------------------------------------------------
 */
typedef struct WatchInput
{
	const char *resource;
	const char *kind;
	int			lines;
} WatchInput;

typedef struct Line
{
	WatchInput *in;
	char	   *text;
	size_t		len;
} Line;

/* one line: read, and applied when it is an event */
static void
read_line(void *arg)
{
	Line	   *l = (Line *) arg;
	Jsonb	   *event;
	char	   *rv;

	if (WatchReadLine(l->in->resource, l->in->kind, l->text, l->len, &event, &rv) == WATCH_LINE_EVENT)
		apply_doc(event);
}

static void
watch_line(KubeRequest *req, char *line, size_t len)
{
	Line		l = {.in = (WatchInput *) req->arg, .text = line, .len = len};

	if (++l.in->lines > 64)
	{
		req->failed = true;		/* the owner stops a long stream */
		return;
	}
	/* a line that cannot be applied is skipped, alone */
	(void) refused(read_line, &l);
}

static void
target_watch(const uint8_t *data, size_t size)
{
	WatchInput	in;
	KubeRequest req;
	size_t		at;
	unsigned	chunk;

	if (size < 2)
		return;
	in.resource = data[0] & 1 ? "nodes" : "pods";
	in.kind = data[0] & 1 ? "Node" : "Pod";
	in.lines = 0;
	chunk = 1 + data[1] % 64;	/* how curl happens to hand the bytes over */
	data += 2;
	size -= 2;

	memset(&req, 0, sizeof(req));
	initStringInfo(&req.response);
	req.on_line = watch_line;
	req.arg = &in;
	for (at = 0; at < size;)
	{
		size_t		n = Min((size_t) chunk, size - at);

		if (KubeFeed(&req, (const char *) data + at, n, true) != n)
			break;
		at += n;
	}
}

/* ------------------------------------------------------------------------
 * args
 * ------------------------------------------------------------------------
 */
/* every plugin, in plugins.def's order (make_corpus.py reads it too) */
static const char *const plugin_names[] = {
#define PLUGIN(name, weight, position) #name,
#include "plugins/plugins.def"
};

static void
target_args(const uint8_t *data, size_t size)
{
	const Plugin *pl;
	Jsonb	   *jb;

	if (size < 1)
		return;
	pl = FindPlugin(plugin_names[data[0] % lengthof(plugin_names)]);
	jb = input_json(data + 1, size - 1);
	if (pl == NULL || pl->parse_args == NULL || jb == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(jb))
		return;					/* check_plugin's caller sees to that */
	(void) pl->parse_args(jb);
}

/* ------------------------------------------------------------------------
 * http: a response as the workers read it
 * ------------------------------------------------------------------------
 */
static void
relist_doc(void *arg)
{
	Oid			type = JSONBOID;
	Datum		value = JsonbPGetDatum((Jsonb *) arg);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT scheduler.relist($1)", 1, &type, &value, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "scheduler.relist failed");
	SPI_finish();
}

static void
target_http(const uint8_t *data, size_t size)
{
	static const long codes[] = {200, 201, 400, 403, 404, 409, 410, 422, 429, 500, 503, 504};
	long		code;
	bool		stream;

	if (size < 1)
		return;
	code = codes[data[0] % lengthof(codes)];
	stream = (data[0] / lengthof(codes)) & 1;
	data++;
	size--;

	/* any status: the one-line message the logs and the outbox keep */
	(void) KubeResponseMessage(code, (const char *) data, size);

	/* a 200 body: a watch stream, or a List to relist from */
	if (code == 200 && stream)
	{
		WatchInput	in = {.resource = "pods", .kind = "Pod", .lines = 0};
		KubeRequest req;

		memset(&req, 0, sizeof(req));
		initStringInfo(&req.response);
		req.on_line = watch_line;
		req.arg = &in;
		(void) KubeFeed(&req, (const char *) data, size, true);
	}
	else if (code == 200)
	{
		Jsonb	   *jb = input_json(data, size);

		if (jb != NULL)
			(void) refused(relist_doc, jb);
	}
}

/* ------------------------------------------------------------------------
 * rows: what the loaders and the QueueingHints read from the tables (a row
 * planted past apply() included); they never throw
 * ------------------------------------------------------------------------
 */
static void
decode_rows(void *arg)
{
	Datum		doc = JsonbPGetDatum((Jsonb *) arg);
	Oid			type = JSONBOID;
	List	   *problems = NIL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* the input as a row of each table (what does not fit a column is refused) */
	if (SPI_execute_with_args(psprintf("SELECT %s FROM jsonb_populate_record(NULL::scheduler.nodes, $1)",
									   NodeColumns), 1, &type, &doc, NULL, true, 0) == SPI_OK_SELECT)
	{
		NodeInfo   *n = palloc0(sizeof(NodeInfo));

		NodeInfoFromTuple(n, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, CurrentMemoryContext, &problems);
	}
	if (SPI_execute_with_args(psprintf("SELECT %s FROM jsonb_populate_record(NULL::scheduler.pods, $1)",
									   PodRefColumns), 1, &type, &doc, NULL, true, 0) == SPI_OK_SELECT)
	{
		PodRef		p;

		(void) PodRefFromTuple(&p, SPI_tuptable->vals[0], SPI_tuptable->tupdesc, CurrentMemoryContext,
							   &problems);
	}
	SPI_finish();
}

/*
 * An object as the object of a row of each storage kind's table (a row
 * planted past apply(): written here directly), then the volume catalog
 * read from them as the volume plugins read it, and looked up by the
 * names the input holds
 */
static void
decode_storage_rows(void *arg)
{
	Datum		doc = JsonbPGetDatum((Jsonb *) arg);
	Oid			type = JSONBOID;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < NumMirrorKinds; i++)
	{
		const MirrorKind *k = &MirrorKinds[i];

		if (k->apply != MirrorApplyObject)
			continue;
		if (SPI_execute_with_args(psprintf("INSERT INTO %s (uid, %sname, object)"
										   " VALUES ('fuzz-row', %scoalesce($1->'metadata'->>'name', 'fuzz'), $1)",
										   k->table, k->namespaced ? "namespace, " : "",
										   k->namespaced ? "coalesce($1->'metadata'->>'namespace', 'default'), " : ""),
								  1, &type, &doc, NULL, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not plant a row in %s", k->table);
	}
	{
		VolumeCatalog *c = VolumeCatalogGet(NULL);
		JsonbContainer *meta = JAtObject(&((Jsonb *) arg)->root, "metadata");
		char	   *name = JAtString(meta, "name");
		char	   *ns = JAtString(meta, "namespace");
		Pvc		   *pvc = VolumeFindPvc(c, ns ? ns : "default", name ? name : "fuzz");
		ListCell   *lc;

		if (pvc != NULL)
			(void) VolumePvcClass(pvc);
		(void) VolumeFindPv(c, name);
		(void) VolumeFindClass(c, name);
		(void) VolumeFindCsiNode(c, name);
		(void) VolumeFindDriver(c, name);
		foreach(lc, c->pv_list)
			(void) VolumeFindPvc(c, ((Pv *) lfirst(lc))->claim_namespace, ((Pv *) lfirst(lc))->claim_name);
	}
	SPI_finish();
}

static void
target_rows(const uint8_t *data, size_t size)
{
	Jsonb	   *jb = input_json(data, size);
	ResourceVec v;
	char	   *err = NULL;
	int			n;

	if (jb == NULL)
		return;
	if (JB_ROOT_IS_OBJECT(jb))
	{
		(void) refused(decode_rows, jb);
		/* (an object's shape only: the writes are slow next to the rest) */
		if (JGet(&jb->root, "metadata") || JGet(&jb->root, "spec"))
			(void) refused(decode_storage_rows, jb);
	}
	memset(&v, 0, sizeof(v));
	(void) ResourceVecFromNormalized(&v, jb, &err);
	err = NULL;
	(void) HostPortsFromJsonb(jb, &n, &err);
	(void) TolerationsFromJsonb(jb, &n);
	/* the pods table's volumes column, as the cycle decodes it */
	err = NULL;
	(void) PodVolumesFromJsonb(jb, "p", &n, &err);
}

/* ------------------------------------------------------------------------
 * cycle: {"objects": [...], "nodes": [...], "pods": [...]} applied in that
 * order (objects: any kind, the storage objects the pods' volumes name;
 * optional; the pods unbound or bound), then one scheduling call over them
 * ------------------------------------------------------------------------
 */
static void
schedule_all(void *arg pg_attribute_unused())
{
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) SchedulePending(-1, NULL);
	SPI_finish();
}

static void
target_cycle(const uint8_t *data, size_t size)
{
	Jsonb	   *jb = input_json(data, size);
	const char *const lists[] = {"objects", "nodes", "pods"};

	if (jb == NULL || !JB_ROOT_IS_OBJECT(jb))
		return;
	for (int l = 0; l < (int) lengthof(lists); l++)
	{
		JsonbValue *arr = JGet(&jb->root, lists[l]);

		if (arr == NULL || arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
			continue;
		for (int i = 0; i < (int) JsonContainerSize(arr->val.binary.data) && i < 32; i++)
		{
			JsonbValue *obj = getIthJsonbValueFromContainer(arr->val.binary.data, i);

			if (obj->type == jbvBinary && JsonContainerIsObject(obj->val.binary.data))
				(void) refused(apply_doc, JsonbValueToJsonb(obj));
		}
	}
	/* what a cycle throws is a finding: a pod fails alone, never the call */
	{
		MemoryContext cxt = CurrentMemoryContext;

		PG_TRY();
		{
			schedule_all(NULL);
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			finding(psprintf("schedule_pending() threw %s", unpack_sql_state(edata->sqlerrcode)), edata->message);
		}
		PG_END_TRY();
	}
}

/* ------------------------------------------------------------------------
 * kubeconfig: the workers read it, so it must never throw (a bad file is a
 * logged failure); any ERROR is a finding
 * ------------------------------------------------------------------------
 */
static void
target_kubeconfig(const uint8_t *data, size_t size)
{
	char	   *error = NULL;
	YNode	   *root = YamlParse((const char *) data, size, &error);
	KubeConfig	cfg;

	if ((root == NULL) != (error != NULL))
		finding("kubeconfig", "a parse gave neither a document nor an error, or both");
	if (root == NULL)
		return;
	memset(&cfg, 0, sizeof(cfg));
	if (KubeconfigResolve(&cfg, root, NULL, "/nonexistent", &error))
	{
		if (cfg.url == NULL)
			finding("kubeconfig", "resolved without a server");
	}
	else if (error == NULL)
		finding("kubeconfig", "refused without a message");
	KubeConfigFree(&cfg);
	YamlWipe(root);
}

/* ------------------------------------------------------------------------
 * The driver
 * ------------------------------------------------------------------------
 */
static const struct
{
	const char *name;
	TargetFn	fn;
}			targets[] = {
	{"quantity", target_quantity},
	{"selector", target_selector},
	{"object", target_object},
	{"watch", target_watch},
	{"args", target_args},
	{"http", target_http},
	{"rows", target_rows},
	{"cycle", target_cycle},
	{"kubeconfig", target_kubeconfig},
};

static TargetFn current;
static bool fuzzing = false;

/*
 * libFuzzer ends the process with exit(0) when its time is up: leave as a
 * backend leaves (proc_exit's shared-memory cleanup), so that the
 * postmaster sees a session end, not a crash.  The call never returns; the
 * runner reads libFuzzer's report in the server log.
 */
static void
fuzz_exit(void)
{
	if (fuzzing)
	{
		fuzzing = false;
		shmem_exit(0);
	}
}

static int
one_input(const uint8_t *data, size_t size)
{
	CHECK_FOR_INTERRUPTS();
	run_input(current, data, size);
	return 0;
}

PG_FUNCTION_INFO_V1(scheduler_fuzz);
/*
 * scheduler_fuzz(target text, options text) RETURNS integer
 *		libFuzzer's exit status; options are its command line, split at
 *		spaces.
 */
Datum
scheduler_fuzz(PG_FUNCTION_ARGS)
{
	char	   *target = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *options = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *argv0[64];
	char	  **argv = argv0;
	int			argc = 0;
	char	   *save = NULL;
	int			rc;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("scheduler_fuzz() is for the test suite's superuser")));
	current = NULL;
	for (int i = 0; i < (int) lengthof(targets); i++)
		if (strcmp(targets[i].name, target) == 0)
			current = targets[i].fn;
	if (current == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no fuzz target \"%s\"", target)));

	argv0[argc++] = "scheduler_fuzz";
	for (char *t = strtok_r(options, " ", &save); t && argc < (int) lengthof(argv0) - 1;
		 t = strtok_r(NULL, " ", &save))
		argv0[argc++] = t;
	argv0[argc] = NULL;

	input_cxt = AllocSetContextCreate(CurrentMemoryContext, "fuzz input", ALLOCSET_DEFAULT_SIZES);
	label_sets[0] = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
													   CStringGetDatum("{\"app\": \"web\", \"tier\": \"front\", \"kubernetes.io/hostname\": \"n1\"}")));
	label_sets[1] = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
													   CStringGetDatum("{\"zone\": \"a\", \"gpu\": \"5\", \"x\": \"\"}")));
	label_sets[2] = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));

	if (atexit(fuzz_exit) != 0)
		elog(ERROR, "atexit failed");
	fuzzing = true;
	rc = LLVMFuzzerRunDriver(&argc, &argv, one_input);
	fuzzing = false;
	PG_RETURN_INT32(rc);
}
