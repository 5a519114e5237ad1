/*
 * pod_volumes.c
 *	  A pod's volumes as the volume plugins read them: the pods table's
 *	  volumes column (kept at apply, mirror.c) and its decoding with the pod
 *	  (codec.c).  See volumes.h for the storage objects they name.
 *
 * IDENTIFICATION
 *	  src/pod_volumes.c
 */
#include "postgres.h"

#include "jsonutil.h"
#include "pod_volumes.h"

/* the lenient readers of jsonutil.c: a field of another type reads as unset */
#define obj_at JAtObject
#define arr_at JAtArray
#define str_at JAtString
#define bool_at JAtBool
#define int32_at JAtInt32

/* ------------------------------------------------------------------------
 * The pod's volumes
 * ------------------------------------------------------------------------
 */

/* The sources a volume plugin reads, in PodVolumeKind order */
static const char *const sources[] = {
	[PVOL_PVC] = "persistentVolumeClaim",
	[PVOL_EPHEMERAL] = "ephemeral",
	[PVOL_GCE_PD] = "gcePersistentDisk",
	[PVOL_AWS_EBS] = "awsElasticBlockStore",
	[PVOL_RBD] = "rbd",
	[PVOL_ISCSI] = "iscsi",
};

/* the source of a volume the plugins read, or 0 */
static PodVolumeKind
volume_kind(JsonbContainer *vol, JsonbContainer **src)
{
	for (int k = PVOL_PVC; k < (int) lengthof(sources); k++)
		if ((*src = obj_at(vol, sources[k])) != NULL)
			return (PodVolumeKind) k;
	return 0;
}

/*
 * PodVolumesColumn
 *		The pods table's volumes column: the elements of spec.volumes with a
 *		source a volume plugin reads, as they are; NULL when there are none.
 *		spec.volumes was validated (ValidatePod).
 */
Jsonb *
PodVolumesColumn(JsonbContainer *spec, const char *what pg_attribute_unused())
{
	JsonbContainer *vols = arr_at(spec, "volumes");
	JsonbParseState *st = NULL;
	int			kept = 0;

	if (vols == NULL)
		return NULL;
	for (int i = 0; i < (int) JsonContainerSize(vols); i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(vols, i);
		JsonbContainer *src;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data) ||
			volume_kind(e->val.binary.data, &src) == 0)
			continue;
		if (kept++ == 0)
			pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		pushJsonbValue(&st, WJB_ELEM, e);
	}
	if (kept == 0)
		return NULL;
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

static void
decode_volume(PodVolume *v, PodVolumeKind kind, JsonbContainer *src, const char *pod_name)
{
	char	   *s;
	bool		has;

	v->kind = kind;
	v->read_only = bool_at(src, "readOnly", false);
	v->fs_type = (s = str_at(src, "fsType")) ? s : "";
	switch (kind)
	{
		case PVOL_PVC:
			v->claim = (s = str_at(src, "claimName")) ? s : "";
			break;
		case PVOL_EPHEMERAL:
			/* ephemeral.VolumeClaimName: <pod name>-<volume name> */
			v->claim = psprintf("%s-%s", pod_name ? pod_name : "", v->name);
			break;
		case PVOL_GCE_PD:
			v->disk = (s = str_at(src, "pdName")) ? s : "";
			v->partition = int32_at(src, "partition", &has);
			break;
		case PVOL_AWS_EBS:
			v->disk = (s = str_at(src, "volumeID")) ? s : "";
			v->partition = int32_at(src, "partition", &has);
			break;
		case PVOL_RBD:
			{
				JsonbContainer *mons = arr_at(src, "monitors");
				int			n = mons ? JsonContainerSize(mons) : 0;

				v->disk = (s = str_at(src, "image")) ? s : "";
				/* RBDVolumeSource defaults pool to "rbd" */
				v->pool = (s = str_at(src, "pool")) && s[0] ? s : "rbd";
				v->monitors = palloc0(sizeof(char *) * Max(n, 1));
				for (int i = 0; i < n; i++)
				{
					JsonbValue *e = getIthJsonbValueFromContainer(mons, i);

					if (e->type == jbvString)
						v->monitors[v->nmonitors++] = pnstrdup(e->val.string.val, e->val.string.len);
				}
				break;
			}
		case PVOL_ISCSI:
			v->disk = (s = str_at(src, "iqn")) ? s : "";
			v->portal = (s = str_at(src, "targetPortal")) ? s : "";
			v->lun = int32_at(src, "lun", &has);
			break;
	}
}

/*
 * PodVolumesFromJsonb
 *		The volumes column decoded (NULL: none).  What is not an array of
 *		objects sets *err; an element without a source the plugins read is
 *		left out.
 */
PodVolume *
PodVolumesFromJsonb(Jsonb *jb, const char *pod_name, int *n, char **err)
{
	PodVolume  *vols;
	int			size;

	*n = 0;
	*err = NULL;
	if (jb == NULL)
		return NULL;
	if (!JB_ROOT_IS_ARRAY(jb) || JB_ROOT_IS_SCALAR(jb))
	{
		*err = "not an array";
		return NULL;
	}
	size = JsonContainerSize(&jb->root);
	if (size == 0)
		return NULL;
	vols = palloc0(sizeof(PodVolume) * size);
	for (int i = 0; i < size; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&jb->root, i);
		JsonbContainer *src;
		PodVolumeKind kind;
		char	   *name;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		{
			*err = "an element is not an object";
			continue;
		}
		kind = volume_kind(e->val.binary.data, &src);
		if (kind == 0)
			continue;
		name = str_at(e->val.binary.data, "name");
		vols[*n].name = name ? name : "";
		decode_volume(&vols[*n], kind, src, pod_name);
		(*n)++;
	}
	if (*n == 0)
	{
		pfree(vols);
		return NULL;
	}
	return vols;
}
