/*
 * labels.h
 *	  Label keys, values and selectors, and pod affinity terms (labels.c).
 */
#ifndef SCHEDULER_LABELS_H
#define SCHEDULER_LABELS_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* validation.IsQualifiedName, for label keys */
extern bool LabelValidKey(const char *s);
/* validation.IsValidLabelValue */
extern bool LabelValidValue(const char *s);

typedef enum LabelOp
{
	LABEL_IN,					/* also matchLabels' equality */
	LABEL_NOT_IN,
	LABEL_EXISTS,
	LABEL_DOES_NOT_EXIST
} LabelOp;

typedef struct LabelRequirement
{
	char	   *key;
	int			keylen;
	LabelOp		op;
	int			nvalues;
	char	  **values;
} LabelRequirement;

/* A parsed metav1.LabelSelector: requirements ANDed */
typedef struct LabelSelector
{
	bool		nothing;		/* a nil selector: matches no labels */
	bool		everything;		/* {}: matches all labels */
	int			nreqs;
	int			maxreqs;
	LabelRequirement *reqs;
} LabelSelector;

extern const char *LabelGet(Jsonb *labels, const char *key, int keylen, int *len);
extern bool LabelMapMatches(Jsonb *map, Jsonb *labels);
extern LabelSelector *LabelSelectorParse(JsonbValue *v, char **err);
extern LabelSelector *LabelSelectorParseJsonb(Jsonb *jb, char **err);
extern void LabelSelectorAdd(LabelSelector *s, const char *key, LabelOp op, const char *value);
extern void LabelSelectorAppend(LabelSelector *s, const LabelSelector *other);
extern bool LabelSelectorMatches(const LabelSelector *s, Jsonb *labels);
extern void LabelSelectorAppendKey(StringInfo buf, const LabelSelector *s);

/* framework.AffinityTerm (and WeightedAffinityTerm, with weight) */
typedef struct AffinityTerm
{
	LabelSelector *selector;
	char	   *topology_key;
	int			nnamespaces;
	char	  **namespaces;
	LabelSelector *ns_selector; /* nothing when the term has none */
	int32		weight;
	struct OwnedTerm *owned;	/* topology.c's entry for it, once counted */
} AffinityTerm;

/* A pod's inter-pod affinity terms, as framework.PodInfo keeps them */
typedef struct PodAffinity
{
	int			nreq_aff;
	AffinityTerm *req_aff;
	int			nreq_anti;
	AffinityTerm *req_anti;
	int			npref_aff;
	AffinityTerm *pref_aff;
	int			npref_anti;
	AffinityTerm *pref_anti;
} PodAffinity;

extern PodAffinity *PodAffinityParse(Jsonb *affinity, const char *ns, Jsonb *pod_labels, char **err);
extern AffinityTerm AffinityTermCopy(const AffinityTerm *t);
extern bool AffinityTermMatches(const AffinityTerm *t, const char *ns, Jsonb *labels, Jsonb *ns_labels);

#endif
