/*
 * tolerations.c
 *	  Does a toleration tolerate a taint (k8s.io/api core/v1
 *	  Toleration.ToleratesTaint, with the TaintTolerationComparisonOperators
 *	  feature's Gt and Lt).  Shared by TaintToleration and NodeUnschedulable.
 *
 * A toleration with an effect matches only that effect; with a key, only
 * that key (an empty key matches every key).  Operator Equal (or none)
 * needs equal values, Exists matches any value.  With the feature on, Gt
 * tolerates a taint whose value is greater than the toleration's, Lt one
 * whose value is smaller; both values must be decimal integers in canonical
 * form, or the match fails with an error naming the value.  With the feature
 * off, Gt and Lt tolerate nothing.
 */
#include "postgres.h"

#include <errno.h>

#include "feature_gates.h"
#include "tolerations.h"

/* Canonical decimal int64: "0", or an optional '-' and [1-9][0-9]* */
static bool
parse_canonical(const char *s, const char *what, int64 *out, char **err)
{
	const char *p = s;
	char	   *end;

	if (s[0] == '\0')
	{
		*err = psprintf("failed to parse %s value \"%s\" as int64: must be non-empty", what, s);
		return false;
	}
	if (strcmp(s, "0") != 0)
	{
		if (*p == '-')
			p++;
		if (*p < '1' || *p > '9')
			goto bad;
		for (p++; *p; p++)
			if (*p < '0' || *p > '9')
				goto bad;
	}
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (errno == ERANGE)
	{
		*err = psprintf("failed to parse %s value \"%s\" as int64: strconv.ParseInt: parsing \"%s\": value out of range",
						what, s, s);
		return false;
	}
	return true;
bad:
	*err = psprintf("failed to parse %s value \"%s\" as int64: must be a valid decimal integer in canonical form",
					what, s);
	return false;
}

/* One toleration against one taint; *err set when a value did not parse. */
bool
ToleratesTaint(const Toleration *tol, const Taint *taint, char **err)
{
	int64		tv,
				xv;

	*err = NULL;
	if (tol->effect && (taint->effect == NULL || strcmp(tol->effect, taint->effect) != 0))
		return false;
	if (tol->key && (taint->key == NULL || strcmp(tol->key, taint->key) != 0))
		return false;
	if (tol->operator == NULL || strcmp(tol->operator, "Equal") == 0)
		return strcmp(tol->value, taint->value) == 0;
	if (strcmp(tol->operator, "Exists") == 0)
		return true;
	if (strcmp(tol->operator, "Gt") == 0 || strcmp(tol->operator, "Lt") == 0)
	{
		if (!scheduler_features.TaintTolerationComparisonOperators)
			return false;
		if (!parse_canonical(tol->value, "toleration", &tv, err) ||
			!parse_canonical(taint->value, "taint", &xv, err))
			return false;
		return tol->operator[0] == 'G' ? xv > tv : xv < tv;
	}
	return false;
}

/*
 * Is the taint tolerated by any of the tolerations?  When not, *err is the
 * first error a toleration gave, if any.
 */
bool
TolerationsTolerateTaint(const Toleration *tols, int ntols, const Taint *taint, char **err)
{
	*err = NULL;
	for (int i = 0; i < ntols; i++)
	{
		char	   *e;

		if (ToleratesTaint(&tols[i], taint, &e))
		{
			*err = NULL;
			return true;
		}
		if (e && *err == NULL)
			*err = e;
	}
	return false;
}
