/*
 * default_preemption.c
 *	  DefaultPreemption: when no node passes, find a node where deleting
 *	  lower-priority pods lets the pod in, nominate it, and name the victims.
 *
 * kube-scheduler: pkg/scheduler/framework/plugins/defaultpreemption and
 * pkg/scheduler/framework/preemption (Evaluator.Preempt):
 *	 1. A pod with preemptionPolicy Never does not preempt; nor does one
 *		whose nominated node still has lower-priority pods terminating.
 *	 2. Candidates are the nodes whose filter status was Unschedulable (not
 *		UnschedulableAndUnresolvable).  From a random offset, each is tried
 *		in a dry run until enough are found (10% of them, at least 100,
 *		stopping once there are that many and one violates no budget):
 *		take every lower-priority pod off the node; if the pod still does
 *		not pass the filters the node is no candidate; else put the pods
 *		back one by one, most important first (priority, then earlier
 *		start), those whose PodDisruptionBudget would be violated first,
 *		keeping each that still lets the pod pass; the rest are victims.
 *	 3. The node is picked by: fewest budget violations, lowest highest
 *		victim priority, smallest sum of priorities, fewest victims, latest
 *		start of its highest-priority victims, then the first found.
 *	 4. The pod is nominated there and the victims are deleted (schedule.c
 *		writes both); failing, the message is a FitError over the dry runs,
 *		"preemption: 0/N nodes are available: ...", the nodes never tried
 *		reporting "Preemption is not helpful for scheduling".
 * A dry run takes pods off the snapshot and runs PreFilter and Filter
 * again, so the plugins whose state counts other pods (inter-pod affinity,
 * topology spread) see the node without them; then puts everything back.
 * A pod's start time is its creation time here.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "jsonutil.h"
#include "equivalence.h"
#include "explain.h"
#include "framework.h"

#define MIN_CANDIDATE_NODES_PERCENTAGE 10
#define MIN_CANDIDATE_NODES_ABSOLUTE 100
#define NotHelpful "Preemption is not helpful for scheduling"
#define NoVictims "No preemption victims found for incoming pod"

typedef struct Pdb
{
	char	   *namespace;
	LabelSelector *selector;
	int32		allowed;
	Jsonb	   *disrupted;		/* pod name -> time */
} Pdb;

typedef struct Candidate
{
	NodeInfo   *node;
	List	   *victims;		/* PodRef *, most important first */
	int			violations;
	/* what pickOneNodeForPreemption compares, worked out once */
	int32		top;			/* the highest victim priority */
	int64		sum;			/* sum of (priority + MaxInt32 + 1) */
	int			nvictims;
	TimestampTz earliest;		/* earliest start among the highest-priority victims */
} Candidate;

/*
 * A dry run's outcome, as equivalence.c keeps it: the candidate it makes
 * (but its node), compared from here alone when read back (the victims'
 * own rows lie all over memory), or no victims and the status saying why
 */
typedef struct DryRun
{
	Candidate	c;
	Status		status;
} DryRun;

/* Candidates as found, in an array grown as they come */
typedef struct Candidates
{
	Candidate  *c;
	int			n;
	int			cap;
} Candidates;

/* util.MoreImportantPod, as a list_sort comparator: higher priority, then started earlier */
int
PodMoreImportant(const ListCell *a, const ListCell *b)
{
	const PodRef *x = lfirst(a);
	const PodRef *y = lfirst(b);

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return 0;
}

/*
 * The budgets, read once per schedule_pending() call (nothing writes them
 * while it runs: it holds the writers off), into the snapshot's memory.
 */
static Pdb *cached_pdbs;
static int	cached_npdbs;
static PerCallCache pdb_cache;

static Pdb *
load_pdbs(ClusterSnapshot *snap, int *n)
{
	Pdb		   *pdbs;
	MemoryContext cxt = SnapshotPerCall(snap, &pdb_cache, "scheduler disruption budgets");
	MemoryContext old;

	if (cxt == NULL)
	{
		*n = cached_npdbs;
		return cached_pdbs;
	}
	old = MemoryContextSwitchTo(cxt);

	if (SPI_execute("SELECT namespace, selector, disruptions_allowed, disrupted_pods FROM scheduler.pdbs"
					" ORDER BY namespace, name", false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read scheduler.pdbs");
	pdbs = palloc0(sizeof(Pdb) * Max(SPI_processed, 1));
	*n = 0;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	d = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		sel = SPI_getbinval(t, d, 2, &isnull);
		Pdb		   *p = &pdbs[*n];
		char	   *err;

		if (isnull)
			continue;			/* a nil selector matches nothing */
		p->selector = LabelSelectorParseJsonb(DatumGetJsonbPCopy(sel), &err);
		/* an invalid selector matches nothing; so does an empty one here */
		if (p->selector == NULL || p->selector->everything || p->selector->nothing)
			continue;
		p->namespace = SPI_getvalue(t, d, 1);
		p->allowed = DatumGetInt32(SPI_getbinval(t, d, 3, &isnull));
		p->disrupted = DatumGetJsonbPCopy(SPI_getbinval(t, d, 4, &isnull));
		(*n)++;
	}
	SPI_freetuptable(SPI_tuptable);
	MemoryContextSwitchTo(old);
	cached_pdbs = pdbs;
	cached_npdbs = *n;
	SnapshotPerCallFilled(snap, &pdb_cache);
	return pdbs;
}

/*
 * filterPodsWithPDBViolation: in order, a pod whose budget (one of its
 * namespace's PDBs selecting it, unless already among its disrupted pods)
 * would go below zero is violating.
 */
static void
split_by_pdb(List *pods, Pdb *pdbs, int npdbs, List **violating, List **fine)
{
	int32	   *allowed = palloc(sizeof(int32) * Max(npdbs, 1));
	ListCell   *lc;

	for (int i = 0; i < npdbs; i++)
		allowed[i] = pdbs[i].allowed;
	*violating = *fine = NIL;
	foreach(lc, pods)
	{
		PodRef	   *p = lfirst(lc);
		bool		violated = false;

		if (p->labels && JB_ROOT_COUNT(p->labels) > 0)
			for (int i = 0; i < npdbs; i++)
			{
				int			len;

				if (strcmp(pdbs[i].namespace, p->namespace) != 0 ||
					!LabelSelectorMatches(pdbs[i].selector, p->labels))
					continue;
				if (LabelGet(pdbs[i].disrupted, p->name, strlen(p->name), &len) != NULL)
					continue;
				/* kube-scheduler's pdbsAllowed[i]-- then < 0; a planted
				 * minimum stays below zero rather than wrap */
				if (allowed[i] > PG_INT32_MIN)
					allowed[i]--;
				if (allowed[i] < 0)
					violated = true;
			}
		if (violated)
			*violating = lappend(*violating, p);
		else
			*fine = lappend(*fine, p);
	}
}

/* Does the pod pass every filter on node as the snapshot stands?  *st gets the verdict. */
static bool
fits(const CycleResult *res, const PodInfo *pod, NodeInfo *node, Status *st)
{
	CycleCtx   *ctx;
	CycleResult pre;
	List	   *names;
	bool		restricted;

	st->code = CODE_SUCCESS;
	st->reasons = NIL;
	/* no PreFilter state counts other pods: the cycle's still holds */
	if (res->ctx && PreFilterIsPodLocal(res->ctx))
		return RunFilters(res->ctx, pod, node, st) < 0;
	ctx = NewCycleCtx(res->snap, res->profile);
	memset(&pre, 0, sizeof(pre));
	if (!RunPreFilters(ctx, pod, &pre, &names, &restricted))
	{
		*st = pre.prefilter_status;
		return false;
	}
	if (restricted)
	{
		bool		in = false;
		ListCell   *lc;

		foreach(lc, names)
			in |= (strcmp(lfirst(lc), node->name) == 0);
		if (!in)
		{
			StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE,
					  psprintf("node(s) didn't satisfy plugin(s) %s", AbsentPluginsText(&pre)));
			return false;
		}
	}
	return RunFilters(ctx, pod, node, st) < 0;
}

/*
 * SelectVictimsOnNode: the victims, or NIL with *st saying why the node is
 * no candidate.  The snapshot is as it was on return.
 */
static List *
select_victims(const CycleResult *res, const PodInfo *pod, NodeInfo *node, Pdb *pdbs, int npdbs,
			   int *violations, Status *st)
{
	List	   *potential = NIL;
	List	   *violating;
	List	   *fine;
	List	   *victims = NIL;
	ListCell   *lc;
	uint64		generation = node->generation;	/* the same node after, for equivalence.c */

	*violations = 0;
	foreach(lc, node->pods)
	{
		PodRef	   *p = lfirst(lc);

		if (p->priority < pod->priority)
			potential = lappend(potential, p);
	}
	if (potential == NIL)
	{
		StatusSet(st, CODE_UNSCHEDULABLE_AND_UNRESOLVABLE, NoVictims);
		return NIL;
	}
	foreach(lc, potential)
		SnapshotTakeOut(res->snap, lfirst(lc));
	if (!fits(res, pod, node, st))
	{
		foreach(lc, potential)
			SnapshotPutBack(res->snap, lfirst(lc));
		SnapshotSetGeneration(res->snap, node, generation);
		return NIL;
	}
	list_sort(potential, PodMoreImportant);
	split_by_pdb(potential, pdbs, npdbs, &violating, &fine);
	for (int pass = 0; pass < 2; pass++)
		foreach(lc, pass == 0 ? violating : fine)
		{
			PodRef	   *p = lfirst(lc);
			Status		s = {CODE_SUCCESS, NIL};

			SnapshotPutBack(res->snap, p);
			if (fits(res, pod, node, &s))
				continue;		/* reprieved */
			SnapshotTakeOut(res->snap, p);
			victims = lappend(victims, p);
			if (pass == 0)
				(*violations)++;
		}
	foreach(lc, victims)
		SnapshotPutBack(res->snap, lfirst(lc));
	SnapshotSetGeneration(res->snap, node, generation);
	list_sort(victims, PodMoreImportant);
	st->code = CODE_SUCCESS;
	st->reasons = NIL;
	return victims;
}

/* The start time of the earliest-started among the highest-priority victims */
static TimestampTz
earliest_start_of_highest(List *victims)
{
	int32		top = ((PodRef *) linitial(victims))->priority;
	TimestampTz earliest = DT_NOEND;
	ListCell   *lc;

	foreach(lc, victims)
	{
		PodRef	   *p = lfirst(lc);

		if (p->priority == top && p->start_time < earliest)
			earliest = p->start_time;
	}
	return earliest;
}

/* A dry run's candidate: its victims (most important first), the budgets they violate, and what is compared */
static void
make_candidate(Candidate *c, List *victims, int violations)
{
	ListCell   *lc;

	memset(c, 0, sizeof(*c));
	c->victims = victims;
	c->violations = violations;
	if (victims == NIL)
		return;
	c->top = ((PodRef *) linitial(victims))->priority;
	c->sum = 0;
	foreach(lc, victims)
		c->sum += (int64) ((PodRef *) lfirst(lc))->priority + (int64) PG_INT32_MAX + 1;
	c->nvictims = list_length(victims);
	c->earliest = earliest_start_of_highest(victims);
}

/*
 * A candidate found: the dry run's on node.  The first makes room for as
 * many as the search wants (want), so that they are not copied over as the
 * list grows; violating ones may go past that.
 */
static void
add_candidate(Candidates *cs, NodeInfo *node, const Candidate *found, int want)
{
	Candidate  *c;

	if (cs->n == cs->cap)
	{
		cs->cap = cs->c ? cs->cap * 2 : Max(want, 16);
		cs->c = cs->c ? repalloc(cs->c, sizeof(Candidate) * cs->cap) : palloc(sizeof(Candidate) * cs->cap);
	}
	c = &cs->c[cs->n++];
	*c = *found;
	c->node = node;
}

/* pickOneNodeForPreemption: is a a better choice than b? */
static bool
better(const Candidate *a, const Candidate *b)
{
	if (a->violations != b->violations)
		return a->violations < b->violations;
	if (a->top != b->top)
		return a->top < b->top;
	if (a->sum != b->sum)
		return a->sum < b->sum;
	if (a->nvictims != b->nvictims)
		return a->nvictims < b->nvictims;
	return a->earliest > b->earliest;
}

/* The FitError of the dry runs, as PostFilter's message */
static void
dry_run_failure(const CycleResult *res, NodeVerdict *verdicts, int nverdicts, Status *st)
{
	CycleResult fe;

	memset(&fe, 0, sizeof(fe));
	fe.nnodes = res->nnodes;
	fe.prefilter_plugin = -1;
	fe.verdicts = verdicts;
	fe.nverdicts = nverdicts;
	fe.nabsent = res->nnodes - nverdicts;
	fe.absent_status = NotHelpful;
	StatusSet(st, CODE_UNSCHEDULABLE, psprintf("preemption: %s", FitErrorMessage(&fe)));
}

/*
 * PodEligibleToPreemptOthers: false, with the status saying why, for a pod
 * whose preemptionPolicy is Never, or whose nominated node (still not
 * unresolvable for it) has a terminating pod of lower priority: it waits.
 */
static bool
eligible(const CycleResult *res, const PodInfo *pod, Status *st)
{
	ListCell   *lc;

	if (pod->preempt_never)
	{
		StatusSet(st, CODE_UNSCHEDULABLE, "preemption: not eligible due to preemptionPolicy=Never.");
		return false;
	}
	if (pod->nominated_node)
	{
		NodeInfo   *nom = SnapshotNode(res->snap, pod->nominated_node);
		bool		unresolvable = false;

		for (int i = 0; i < res->nverdicts; i++)
			if (res->verdicts[i].node == nom &&
				res->verdicts[i].status.code == CODE_UNSCHEDULABLE_AND_UNRESOLVABLE)
				unresolvable = true;
		if (nom && !unresolvable)
			foreach(lc, nom->pods)
			{
				PodRef	   *p = lfirst(lc);

				if (p->priority < pod->priority && p->terminating)
				{
					StatusSet(st, CODE_UNSCHEDULABLE,
							  "preemption: not eligible due to a terminating pod on the nominated node.");
					return false;
				}
			}
	}
	return true;
}

/*
 * The candidate the pod makes on node: the victims it needs (NIL: none
 * helps, the status says why), how many PDBs they violate.  Kept in the
 * cycle's equivalence class, for the next pod of this shape while the node
 * stays as it is.
 */
static const DryRun *
dry_run(const CycleResult *res, const PodInfo *pod, NodeInfo *node, Pdb *pdbs, int npdbs)
{
	EquivClass *equiv = res->ctx ? res->ctx->equiv : NULL;
	DryRun	   *dr = equiv ? EquivPreemptGet(equiv, node) : NULL;
	List	   *victims;
	int			violations;
	Status		s = {CODE_SUCCESS, NIL};
	MemoryContext old;
	ListCell   *x;

	if (dr != NULL)
		return dr;
	victims = select_victims(res, pod, node, pdbs, npdbs, &violations, &s);
	/* made in the class's memory when kept (else where the caller is) */
	old = MemoryContextSwitchTo(equiv ? EquivMemory(equiv) : CurrentMemoryContext);
	dr = palloc0(sizeof(DryRun));
	make_candidate(&dr->c, list_copy(victims), violations);
	dr->status.code = s.code;
	foreach(x, s.reasons)
		dr->status.reasons = lappend(dr->status.reasons, pstrdup(lfirst(x)));
	MemoryContextSwitchTo(old);
	if (equiv)
		EquivPreemptPut(equiv, node, dr);
	return dr;
}

static void
postfilter(PluginCall *call pg_attribute_unused(), const PodInfo *pod, CycleResult *res, Status *st)
{
	NodeInfo  **potential = NULL;
	const NodeVerdict *all_verdicts = NULL; /* the potential nodes: each verdict's */
	int			npotential = 0;
	int			ncandidates;
	int			offset;
	Pdb		   *pdbs;
	int			npdbs;
	NodeVerdict *tried;
	int			ntried = 0;
	Candidates	nonviolating = {NULL, 0, 0};
	Candidates	violating = {NULL, 0, 0};
	Candidate  *best = NULL;

	/* 1. eligible? */
	if (!eligible(res, pod, st))
		return;

	/*
	 * 2. the nodes where preemption might help: those whose verdict is
	 * Unschedulable, in the search's order; all of them, read off the
	 * verdicts as they are, when the verdicts are alike and so
	 */
	if (res->prefilter_plugin < 0 && res->verdicts_alike && res->nverdicts > 0 &&
		res->verdicts[0].status.code == CODE_UNSCHEDULABLE)
	{
		all_verdicts = res->verdicts;
		npotential = res->nverdicts;
	}
	else
	{
		potential = palloc(sizeof(NodeInfo *) * Max(res->snap->nnodes, 1));
		if (res->prefilter_plugin >= 0)
		{
			if (res->prefilter_status.code == CODE_UNSCHEDULABLE)
				for (int i = 0; i < res->snap->nnodes; i++)
					potential[npotential++] = res->snap->nodes[i];
		}
		else
			for (int i = 0; i < res->nverdicts; i++)
				if (res->verdicts[i].status.code == CODE_UNSCHEDULABLE)
					potential[npotential++] = res->verdicts[i].node;
	}
	res->clear_nomination = true;
	if (npotential == 0)
	{
		dry_run_failure(res, NULL, 0, st);
		return;
	}

	ncandidates = Max(npotential * MIN_CANDIDATE_NODES_PERCENTAGE / 100, MIN_CANDIDATE_NODES_ABSOLUTE);
	if (ncandidates > npotential)
		ncandidates = npotential;
	offset = (int) pg_prng_uint64_range(&scheduler_prng, 0, npotential - 1);
	pdbs = load_pdbs(res->snap, &npdbs);
	tried = palloc(sizeof(NodeVerdict) * npotential);
	for (int i = 0; i < npotential; i++)
	{
		int			k = offset + i < npotential ? offset + i : offset + i - npotential;
		NodeInfo   *node = all_verdicts ? all_verdicts[k].node : potential[k];
		const DryRun *dr;

		CHECK_FOR_INTERRUPTS();
		dr = dry_run(res, pod, node, pdbs, npdbs);
		if (dr->c.victims != NIL)
		{
			add_candidate(dr->c.violations == 0 ? &nonviolating : &violating, node, &dr->c, ncandidates);
			if (nonviolating.n > 0 && nonviolating.n + violating.n >= ncandidates)
				break;
			continue;
		}
		tried[ntried].node = node;
		tried[ntried].rejected_by = -1;
		tried[ntried].status = dr->status;
		ntried++;
	}
	if (nonviolating.n == 0 && violating.n == 0)
	{
		dry_run_failure(res, tried, ntried, st);
		return;
	}

	/* 3. the best candidate, non-violating ones first as found */
	for (int i = 0; i < nonviolating.n + violating.n; i++)
	{
		Candidate  *c = i < nonviolating.n ? &nonviolating.c[i] : &violating.c[i - nonviolating.n];

		if (best == NULL || better(c, best))
			best = c;
	}

	/* 4. nominate; schedule.c deletes the victims */
	res->clear_nomination = false;
	res->nominated = best->node->name;
	res->victims = best->victims;
}

/* SignPod: PostFilter reads the priority, the preemption policy and the nomination (its dry runs are kept per class) */
static void
sign(const PodInfo *pod pg_attribute_unused(), PodKey *key)
{
	PodKeyAdd(key, POD_FIELD(priority) | POD_FIELD(preempt_never) | POD_FIELD(nominated_node));
}

const Plugin DefaultPreemptionPlugin = {
	.sign = sign,
	.name = "DefaultPreemption",
	.postfilter = postfilter,
};
