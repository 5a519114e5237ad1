/*
 * labels.h
 *	  Label keys, values and selectors (labels.c).
 */
#ifndef SCHEDULER_LABELS_H
#define SCHEDULER_LABELS_H

/* validation.IsQualifiedName, for label keys */
extern bool LabelValidKey(const char *s);
/* validation.IsValidLabelValue */
extern bool LabelValidValue(const char *s);

#endif
