/*
 * quantity.c
 *	  Kubernetes resource.Quantity parsing, done exactly.
 *
 * The grammar is apimachinery's parseQuantityString (pkg/api/resource):
 *
 *	  quantity ::= [+-] digits [ "." digits ] suffix
 *	  suffix   ::= "" | n | u | m | k | M | G | T | P | E
 *				 | Ki | Mi | Gi | Ti | Pi | Ei
 *				 | (e|E) [+-] digits
 *
 * where either run of digits may be empty ("." and "-" are both zero, "1.G"
 * is 1G), as apimachinery allows.  The empty string is invalid.
 *
 * apimachinery rounds a parsed value up to whole nanos, and MilliValue() and
 * Value() round up again, away from zero.  For a value x that is the same as
 * rounding |x| * 10^scale up to an integer, which is what we compute, exactly,
 * with a small base-10^9 bignum: no floating point, no silent truncation.
 *
 * One deliberate difference: apimachinery caps values at 2^63-1 units, and
 * MilliValue() of a capped value wraps.  We store int64 millicores and bytes,
 * so a value that does not fit is an error (QUANTITY_OUT_OF_RANGE), never a
 * wrapped or capped number.
 */
#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"
#include "utils/builtins.h"

#include "access.h"
#include "jsonutil.h"
#include "quantity.h"

#define LIMB_BASE	UINT64CONST(1000000000)
#define LIMB_DIGITS 9

/* Digits of 10^k for k = 0..9 */
static const uint32 pow10_small[] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
};

typedef struct BigNum
{
	int			n;				/* limbs in use */
	int			cap;
	uint32	   *limb;			/* little-endian, base 10^9 */
} BigNum;

static void
big_mul_small(BigNum *b, uint32 m)
{
	uint64		carry = 0;

	for (int i = 0; i < b->n; i++)
	{
		uint64		t = (uint64) b->limb[i] * m + carry;

		b->limb[i] = (uint32) (t % LIMB_BASE);
		carry = t / LIMB_BASE;
	}
	while (carry > 0)
	{
		Assert(b->n < b->cap);
		b->limb[b->n++] = (uint32) (carry % LIMB_BASE);
		carry /= LIMB_BASE;
	}
}

/* Divide by m (< 10^9); returns true if the remainder was non-zero. */
static bool
big_div_small(BigNum *b, uint32 m)
{
	uint64		rem = 0;

	for (int i = b->n - 1; i >= 0; i--)
	{
		uint64		t = rem * LIMB_BASE + b->limb[i];

		b->limb[i] = (uint32) (t / m);
		rem = t % m;
	}
	while (b->n > 0 && b->limb[b->n - 1] == 0)
		b->n--;
	return rem != 0;
}

/* Mantissa, exponents and sign of a syntactically valid quantity */
typedef struct ParsedQuantity
{
	bool		negative;
	const char *digits;			/* significant digits, integer part then fraction */
	int			ndigits_int;
	const char *frac;
	int			ndigits_frac;
	int			base;			/* 10 or 2 */
	int64		exponent;		/* power of base */
} ParsedQuantity;

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse the suffix as apimachinery's quantitySuffixer.interpret does. */
static bool
interpret_suffix(const char *s, int len, int *base, int64 *exponent)
{
	static const struct
	{
		const char *sfx;
		int			base;
		int			exp;
	}			table[] = {
		{"", 10, 0}, {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},
		{"k", 10, 3}, {"M", 10, 6}, {"G", 10, 9}, {"T", 10, 12},
		{"P", 10, 15}, {"E", 10, 18},
		{"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40},
		{"Pi", 2, 50}, {"Ei", 2, 60},
	};

	for (size_t i = 0; i < lengthof(table); i++)
	{
		if ((int) strlen(table[i].sfx) == len && memcmp(table[i].sfx, s, len) == 0)
		{
			*base = table[i].base;
			*exponent = table[i].exp;
			return true;
		}
	}

	/* decimal exponent: e or E, then an integer as strconv.ParseInt reads it */
	if (len > 1 && (s[0] == 'e' || s[0] == 'E'))
	{
		int			i = 1;
		bool		neg = false;
		int64		v = 0;

		if (s[i] == '+' || s[i] == '-')
		{
			neg = (s[i] == '-');
			i++;
		}
		if (i >= len)
			return false;
		for (; i < len; i++)
		{
			/* strconv.ParseInt fails on overflow, so the suffix is invalid */
			if (!is_digit(s[i]) ||
				pg_mul_s64_overflow(v, 10, &v) ||
				pg_add_s64_overflow(v, s[i] - '0', &v))
				return false;
		}
		*base = 10;
		*exponent = neg ? -v : v;
		return true;
	}
	return false;
}

static bool
parse_syntax(const char *str, int len, ParsedQuantity *pq)
{
	int			pos = 0;
	int			sfx_start;

	memset(pq, 0, sizeof(*pq));
	if (len == 0)
		return false;

	if (str[0] == '-' || str[0] == '+')
	{
		pq->negative = (str[0] == '-');
		pos++;
	}

	/* integer part, with leading zeros stripped */
	while (pos < len && str[pos] == '0')
		pos++;
	pq->digits = str + pos;
	while (pos < len && is_digit(str[pos]))
		pos++;
	pq->ndigits_int = (int) (str + pos - pq->digits);

	/* fraction */
	if (pos < len && str[pos] == '.')
	{
		pos++;
		pq->frac = str + pos;
		while (pos < len && is_digit(str[pos]))
			pos++;
		pq->ndigits_frac = (int) (str + pos - pq->frac);
	}

	/* suffix: letters from "eEinumkKMGTP", then an optional sign and digits */
	sfx_start = pos;
	while (pos < len && strchr("eEinumkKMGTP", str[pos]) != NULL && str[pos] != '\0')
		pos++;
	if (pos < len && (str[pos] == '+' || str[pos] == '-'))
		pos++;
	while (pos < len && is_digit(str[pos]))
		pos++;
	if (pos != len)
		return false;

	return interpret_suffix(str + sfx_start, len - sfx_start, &pq->base, &pq->exponent);
}


/*
 * b /= 10^m, truncating; true when a nonzero remainder was dropped (the
 * caller rounds up).  Everything fraction rounds up to 1 so.
 */
static bool
big_div_pow10(BigNum *b, int64 m)
{
	int64		drop = m / LIMB_DIGITS;
	bool		sticky = false;

	if (drop >= b->n)
	{
		b->n = 0;
		return true;
	}
	for (int i = 0; i < drop; i++)
		if (b->limb[i] != 0)
			sticky = true;
	memmove(b->limb, b->limb + drop, sizeof(uint32) * (b->n - drop));
	b->n -= (int) drop;
	if (m % LIMB_DIGITS != 0 && big_div_small(b, pow10_small[m % LIMB_DIGITS]))
		sticky = true;
	return sticky;
}

/*
 * QuantityParse
 *		Parse str (len bytes) and return its value times 10^scale, rounded up
 *		away from zero, in *result.
 */
QuantityResult
QuantityParse(const char *str, int len, int scale, int64 *result)
{
	ParsedQuantity pq;
	int			ndig;
	char	   *dig;
	int64		exp10;
	int			bin = 0;
	BigNum		b;
	bool		sticky = false;
	uint64		mag = 0;

	*result = 0;
	if (!parse_syntax(str, len, &pq))
		return QUANTITY_INVALID;

	/* gather the significant digits; the fraction moves the exponent */
	dig = palloc(pq.ndigits_int + pq.ndigits_frac + 1);
	memcpy(dig, pq.digits, pq.ndigits_int);
	if (pq.ndigits_frac > 0)
		memcpy(dig + pq.ndigits_int, pq.frac, pq.ndigits_frac);
	ndig = pq.ndigits_int + pq.ndigits_frac;
	exp10 = scale - pq.ndigits_frac;
	if (pq.base == 10)
	{
		/*
		 * Clamp: past 2^40 the answer no longer changes (a text has fewer
		 * than 2^30 digits), and the sums below cannot overflow.
		 */
		exp10 += Max(Min(pq.exponent, INT64CONST(1) << 40), -(INT64CONST(1) << 40));
	}
	else
		bin = (int) pq.exponent;

	/* strip leading zeros (from the fraction) and trailing zeros */
	{
		int			lead = 0;

		while (lead < ndig && dig[lead] == '0')
			lead++;
		dig += lead;
		ndig -= lead;
		while (ndig > 0 && dig[ndig - 1] == '0')
		{
			ndig--;
			exp10++;
		}
	}
	if (ndig == 0)
		return QUANTITY_OK;		/* zero, whatever the suffix */

	/* the value is at least 10^(ndig - 1 + exp10); int64 holds less than 10^19 */
	if (exp10 + ndig - 1 >= 19)
		return QUANTITY_OUT_OF_RANGE;

	/* load the digits into limbs */
	b.cap = ndig / LIMB_DIGITS + 2 + 3 + 6;
	b.limb = palloc0(sizeof(uint32) * b.cap);
	b.n = 0;
	for (int end = ndig; end > 0; end -= LIMB_DIGITS)
	{
		int			start = Max(0, end - LIMB_DIGITS);
		uint32		v = 0;

		for (int i = start; i < end; i++)
			v = v * 10 + (dig[i] - '0');
		b.limb[b.n++] = v;
	}

	/* binary suffix: times 2^bin (bin <= 60) */
	while (bin > 0)
	{
		int			step = Min(bin, 29);

		big_mul_small(&b, (uint32) 1 << step);
		bin -= step;
	}

	if (exp10 > 0)
	{
		while (exp10 > 0)
		{
			int			step = (int) Min(exp10, 9);

			if (b.n > 4)
				return QUANTITY_OUT_OF_RANGE;
			big_mul_small(&b, pow10_small[step]);
			exp10 -= step;
		}
	}
	else if (exp10 < 0)
		sticky = big_div_pow10(&b, -exp10);

	/* to uint64, checking range */
	for (int i = b.n - 1; i >= 0; i--)
	{
		if (pg_mul_u64_overflow(mag, LIMB_BASE, &mag) ||
			pg_add_u64_overflow(mag, b.limb[i], &mag))
			return QUANTITY_OUT_OF_RANGE;
	}
	if (sticky && pg_add_u64_overflow(mag, 1, &mag))
		return QUANTITY_OUT_OF_RANGE;
	if (pq.negative && mag == (uint64) PG_INT64_MAX + 1)
	{
		*result = PG_INT64_MIN;
		return QUANTITY_OK;
	}
	if (mag > (uint64) PG_INT64_MAX)
		return QUANTITY_OUT_OF_RANGE;

	*result = pq.negative ? -(int64) mag : (int64) mag;
	return QUANTITY_OK;
}

/*
 * QuantityReportError
 *		Raise the error for a failed parse.  context, when given, names the
 *		object and field ("pod default/web-1: spec.containers[0]...cpu").
 */
void
QuantityReportError(QuantityResult r, const char *input, const char *context)
{
	const char *prefix = context ? psprintf("%s: ", context) : "";

	if (r == QUANTITY_INVALID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%sinvalid quantity \"%s\"", prefix, input),
				 errhint("A quantity is a number with an optional suffix: m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei, or an exponent such as e3.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%squantity \"%s\" is out of range", prefix, input),
			 errdetail("Its value does not fit in a signed 64-bit integer of millicores or bytes.")));
}

static int64
quantity_sql(text *t, int scale)
{
	int64		v;
	QuantityResult r;

	RequireRole(ROLE_READER, "use the scheduler's functions");
	r = QuantityParse(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), scale, &v);
	if (r != QUANTITY_OK)
	{
		char	   *s = text_to_cstring(t);

		QuantityReportError(r, JShort(s), NULL);
	}
	return v;
}

PG_FUNCTION_INFO_V1(quantity_milli);
/* scheduler.quantity_milli(text): the quantity's MilliValue() */
Datum
quantity_milli(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(quantity_sql(PG_GETARG_TEXT_PP(0), QUANTITY_SCALE_MILLI));
}

PG_FUNCTION_INFO_V1(quantity_value);
/* scheduler.quantity_value(text): the quantity's Value() */
Datum
quantity_value(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(quantity_sql(PG_GETARG_TEXT_PP(0), QUANTITY_SCALE_UNIT));
}
