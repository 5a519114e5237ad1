/*
 * quantity.h
 *	  Kubernetes resource.Quantity parsing.
 */
#ifndef SCHEDULER_QUANTITY_H
#define SCHEDULER_QUANTITY_H

typedef enum QuantityResult
{
	QUANTITY_OK = 0,
	QUANTITY_INVALID,			/* not a quantity (apimachinery rejects it) */
	QUANTITY_OUT_OF_RANGE		/* valid, but its value at this scale overflows int64 */
} QuantityResult;

/* Scales: MilliValue() is scale 3, Value() is scale 0. */
#define QUANTITY_SCALE_MILLI	3
#define QUANTITY_SCALE_UNIT		0

extern QuantityResult QuantityParse(const char *str, int len, int scale, int64 *result);
extern void QuantityReportError(QuantityResult r, const char *input, const char *context);

#endif
