/*
 * labels.c
 *	  Kubernetes labels as apimachinery reads them: label keys and values,
 *	  and label selectors (metav1.LabelSelector), which pod affinity, pod
 *	  topology spread and disruption budgets use to pick pods.
 */
#include "postgres.h"

#include "labels.h"

/* ------------------------------------------------------------------------
 * Validation, as apimachinery's: qualified names and label values
 * ------------------------------------------------------------------------
 */
static bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most max chars; empty if allow_empty */
static bool
valid_name_part(const char *s, int len, int max, bool allow_empty)
{
	if (len == 0)
		return allow_empty;
	if (len > max || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (int i = 1; i < len - 1; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* DNS-1123 subdomain: lowercase, [a-z0-9]([-a-z0-9]*[a-z0-9])? parts joined by '.', <= 253 */
static bool
valid_dns_subdomain(const char *s, int len)
{
	if (len == 0 || len > 253)
		return false;
	for (int i = 0; i < len; i++)
	{
		char		c = s[i];
		bool		alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && c != '-' && c != '.')
			return false;
		if ((i == 0 || i == len - 1) && !alnum)
			return false;
		if (c == '.' && (s[i - 1] == '.' || s[i - 1] == '-' || s[i + 1] == '-'))
			return false;
	}
	return true;
}

bool
LabelValidKey(const char *s)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL)
		return valid_name_part(s, strlen(s), 63, false);
	if (strchr(slash + 1, '/') != NULL)
		return false;
	return valid_dns_subdomain(s, slash - s) && valid_name_part(slash + 1, strlen(slash + 1), 63, false);
}

bool
LabelValidValue(const char *s)
{
	return valid_name_part(s, strlen(s), 63, true);
}
