#!/usr/bin/env python3
"""A stand-in Kubernetes API server for tests (core/v1 nodes, pods, events,
namespaces, pod bindings, services, replicationcontrollers; apps/v1
replicasets, statefulsets; policy/v1 poddisruptionbudgets; events.k8s.io/v1
events, a second view of the core ones), Python 3 standard library only.

    python3 kube_apiserver.py --port N --cert-dir DIR [--token TOKEN] [--plain-http]

It binds 127.0.0.1 only.  On start it writes into DIR (made if missing) a test
CA and a server certificate for 127.0.0.1/localhost (made with the openssl
CLI, kept and reused on later starts), the bearer token (DIR/token), a
kubeconfig for kubectl and client libraries (DIR/kubeconfig) and
DIR/server.json ({"url", "token", "ca", "kubeconfig", "port", "pid"}); then it
prints one line "READY https://127.0.0.1:N" (port 0 picks a free port).

What it speaks, as the real server does (v1.20 wire format, JSON only):
  * discovery: /version /api /api/v1 /apis /apis/apps /apis/apps/v1
    /apis/events.k8s.io /apis/events.k8s.io/v1 /apis/policy /apis/policy/v1
    /openapi/v2, /healthz /livez /readyz
  * GET/LIST/WATCH/POST/PUT/PATCH/DELETE and DELETE-collection on
    /api/v1/{nodes,namespaces}, /api/v1/{pods,events,services,
    replicationcontrollers} (all namespaces, list and watch) and
    /api/v1/namespaces/{ns}/{pods,events,services,replicationcontrollers};
    status subresources (all but events'); pods/{name}/binding and
    namespaces/{ns}/bindings.  The same for
    /apis/policy/v1/poddisruptionbudgets (all namespaces) and
    /apis/policy/v1/namespaces/{ns}/poddisruptionbudgets (kind
    PodDisruptionBudget, apiVersion policy/v1, short name pdb), and for
    /apis/apps/v1/{replicasets,statefulsets} (all namespaces) and
    /apis/apps/v1/namespaces/{ns}/{replicasets,statefulsets} (kinds ReplicaSet
    and StatefulSet, apiVersion apps/v1, short names rs and sts).  Services
    (svc) and ReplicationControllers (rc) are core v1.
  * lists: labelSelector, fieldSelector (the fields the real server supports),
    limit/continue paging over a consistent snapshot, resourceVersion,
    resourceVersionMatch=Exact; list items carry no kind (as the real server).
  * watches: chunked JSON lines of {"type","object"}, resourceVersion
    semantics (unset/"0": initial ADDED events first), selector transitions
    become ADDED/DELETED, 410 Expired ERROR events for compacted versions,
    BOOKMARK events with allowWatchBookmarks, timeoutSeconds/timeout,
    sendInitialEvents.
  * Accept "as=Table" (kubectl's printing) and "as=PartialObjectMetadata".
  * patches: merge-patch, strategic-merge-patch (with the patch keys and
    $patch / $setElementOrder / $deleteFromPrimitiveList / $retainKeys
    directives for the fields of these types) and json-patch.
  * optimistic concurrency (resourceVersion and uid preconditions, 409),
    no-op writes keep the resourceVersion, finalizers, pod defaults (status
    Pending, schedulerName, priority, default tolerations, requests from
    limits, qosClass), pod spec immutability on update, status only through
    /status, node allocatable defaulting to capacity.
  * Status objects for every error (401, 404, 405, 409, 410, 413, 415, 422...).
  * DELETE removes an object at once (no kubelet, no graceful termination of
    pods unless the graceful_delete_seconds fault asks for it), DeleteOptions
    preconditions {uid, resourceVersion} checked (409 Conflict).

Events are stored once, in core/v1 form, and served twice: at /api/v1 as
stored (legacy rules: no event validation), and at
/apis/events.k8s.io/v1/events (all namespaces: list, watch, DELETE-collection)
and /apis/events.k8s.io/v1/namespaces/{ns}/events[/{name}] (GET, POST, PUT,
PATCH, DELETE) converted as kube does (regarding <-> involvedObject, note <->
message, reportingController <-> reportingComponent, deprecatedSource <->
source, deprecatedFirstTimestamp/deprecatedLastTimestamp/deprecatedCount <->
firstTimestamp/lastTimestamp/count), kind Event / EventList, apiVersion
events.k8s.io/v1; field selectors metadata.name, metadata.namespace, reason,
type, reportingController, regarding.{kind,namespace,name,uid,apiVersion,
resourceVersion,fieldPath}.  There, as the real server: eventTime and
series.lastObservedTime are MicroTime (exactly 6 digits of fraction, else 400
as Go's decoding), written back in UTC; a create is kube's
ValidateEventCreate for events.k8s.io/v1 (422 Invalid, the fields named as in
the core type: eventTime required, type Normal or Warning, the deprecated
fields unset, a series with count >= 2 and lastObservedTime,
reportingController a qualified name, reportingInstance, action and reason
required (<= 128 bytes), note <= 1024, regarding.namespace empty only in
default or kube-system); a PUT or PATCH is ValidateEventUpdate (those rules,
the series when changed, and the immutable fields: involvedObject, reason,
message, source, the deprecated timestamps and count, type, eventTime,
action, related, reportingController, reportingInstance); a PATCH is applied
to the events.k8s.io/v1 form, 404 when the event is not there; a PUT of a
name not there creates it (201); DELETE answers a Status.  Errors name the
resource events.events.k8s.io (kind Event.events.k8s.io for 422), the group
in their details.  kubectl's table (both paths) is kube's printEvent: LAST
SEEN the series' lastObservedTime, else lastTimestamp, else the first seen
(firstTimestamp, else eventTime); COUNT the series' count, else count, else
1; SOURCE "<source.component or reportingComponent>, <source.host or
reportingInstance>".  Events do not expire (no --event-ttl).

Services, ReplicationControllers, ReplicaSets and StatefulSets are stored,
listed and watched only: no controller runs, so a ReplicaSet, StatefulSet or
ReplicationController makes no pods and its status stays as created
({"replicas": 0}) unless written through /status, and a Service gets no
endpoints.  Defaults: a Service's spec.type ClusterIP, sessionAffinity None,
ports' protocol TCP and targetPort = port, and a spec.clusterIP (with
clusterIPs) allocated from 10.96.0.0/12 unless given (or "None") -- kept on
update when left out, 422 when changed or already taken; no nodePorts;
status {"loadBalancer": {}}.  spec.replicas 1 for the other three; a
ReplicationController's spec.selector (and metadata.labels) from its
template's labels when empty; a StatefulSet's podManagementPolicy
(OrderedReady), updateStrategy (RollingUpdate, partition 0) and
revisionHistoryLimit (10).  The pod template gets no pod defaults.
metadata.generation is 1 on create and grows by one with each spec change
(not for Services).  Validation is minimal (422 Invalid naming the field):
metadata.name; a Service's or ReplicationController's spec.selector, when
set, a map of strings; a ReplicaSet's or StatefulSet's spec.selector a
LabelSelector (required; keys other than matchLabels and matchExpressions
refused, as in a budget's; {} accepted, which the real server refuses);
spec.replicas >= 0; a Service's spec.type and ports[*].port.  Immutable
fields (apps/v1 selectors, a StatefulSet's spec) are not enforced, nor that
a template's labels match the selector.  Field selectors: metadata.name and
metadata.namespace, and status.replicas for ReplicationControllers and
ReplicaSets.  Errors name a group's resources qualified
("replicasets.apps", "poddisruptionbudgets.policy"), as the real server.

PodDisruptionBudgets (policy/v1 only: no policy/v1beta1, so kubectl 1.20's
"describe pdb", which asks for v1beta1, gets 404; get/create/apply/patch/
delete work).  Exactly one of spec.minAvailable and spec.maxUnavailable must
be set (422 Invalid otherwise; the real server accepts neither, this one does
not), each an int >= 0 or "N%" (N <= 100); spec.selector is validated as a
LabelSelector.  metadata.generation is 1 on create and grows by one with each
spec change.  The disruption controller runs inside the request that changes
a budget or a pod of its namespace: the budget's status is written (a new
resourceVersion, a MODIFIED event) when, and only when, it changes, as
kube-controller-manager's disruption controller computes it
(pkg/controller/disruption):
  * its pods: those of the budget's namespace that spec.selector matches
    (matchLabels; matchExpressions In/NotIn/Exists/DoesNotExist; {} matches
    every pod, no selector none), whatever their phase (getPodsForPdb).
  * currentHealthy: those of them not being deleted whose Ready condition is
    "True" (IsPodReady; no kubelet runs here: a test writes the condition
    through /status).  Pods named in status.disruptedPods (as an eviction
    writes them) are not healthy either; an entry is kept while its pod is
    there and for 2 minutes (dropped at the next recount after that).
  * expectedPods and desiredHealthy: with an int spec.minAvailable, the
    number of its pods and minAvailable.  With spec.maxUnavailable or a
    percent minAvailable, expectedPods is the sum of spec.replicas of the
    controllers of its pods (the ReplicationController, ReplicaSet or
    StatefulSet of each pod's controller ownerReference, by name and uid,
    each counted once; a pod with no controller is left out), and
    desiredHealthy is expectedPods - maxUnavailable (an int, or "N%" of
    expectedPods rounded up), at least 0, or minAvailable's percent of
    expectedPods rounded up.  A controller that is not there fails the
    sync: disruptionsAllowed 0, condition DisruptionAllowed "False", reason
    SyncFailed, message 'found no controllers for pod "NAME"', the rest of
    the status as it was (failSafe).
  * disruptionsAllowed = currentHealthy - desiredHealthy, or 0 when that is
    not positive or expectedPods is 0 (so a maxUnavailable budget over pods
    with no controller allows none); observedGeneration =
    metadata.generation; conditions: DisruptionAllowed "True" (reason
    SufficientPods) when disruptionsAllowed > 0, else "False"
    (InsufficientPods), lastTransitionTime moving only when it flips.
  A write of the budget (spec, or status through /status) recounts its pods,
  as the controller would at once; a pod change adjusts the counts of the
  budgets it joins, leaves or changes health in (those that count by scale
  are recounted), and a write of a controller recounts the budgets of its
  namespace that count by scale.

Storage (core/v1 persistentvolumeclaims (pvc), persistentvolumes (pv);
storage.k8s.io/v1 storageclasses (sc), csinodes, csidrivers,
csistoragecapacities, volumeattachments) is stored as given, with the API's
defaults on create (a claim's and a volume's status.phase Pending and
spec.volumeMode Filesystem, a volume's persistentVolumeReclaimPolicy Retain,
a class's reclaimPolicy Delete and volumeBindingMode Immediate) and the
DefaultStorageClass admission (a claim with no storageClassName gets the
class annotated storageclass.kubernetes.io/is-default-class "true").  Inside
each write of a claim, volume or class (and after /debug/bulk), the PV
controller and an external CSI provisioner do what they would do next, each
step an ordinary write (a new resourceVersion, MODIFIED or ADDED events, after
the request's own; see App._sync_volumes_once, App._bind_volume,
App._provision).  They look only at the claims and volumes a write can affect
(VolumeIndex), with the writes a walk over all of them would make:
  * a new volume bound to no claim becomes Available;
  * an unbound claim is bound to a volume whose spec.claimRef names it
    (namespace/name, and uid if set: the scheduler's static binding), else --
    unless its class is WaitForFirstConsumer -- to the smallest Available
    volume of its class whose access modes contain its own and whose capacity
    covers its request.  Binding: the volume's claimRef gets the claim's uid
    and status.phase Bound; the claim gets spec.volumeName, annotations
    pv.kubernetes.io/bind-completed and pv.kubernetes.io/bound-by-controller
    "yes", status.phase Bound with the volume's accessModes and capacity;
  * a claim of a class whose provisioner is not kubernetes.io/no-provisioner,
    with no volume to bind, annotated volume.kubernetes.io/selected-node (or
    of an Immediate class) gets a volume made for it: pvc-<claim uid>, its
    request as capacity, its access modes, spec.csi {driver: the
    provisioner, volumeHandle}, a claimRef with the uid, nodeAffinity on the
    selected node's topology.kubernetes.io/zone (also a label of the volume)
    or, when the node has none, its kubernetes.io/hostname; then bound;
  * the provision_fail / provision_fail_next faults make the provisioner
    refuse: the selected-node annotation is removed (as external-provisioner
    does to have the pod rescheduled), a ProvisioningFailed event recorded,
    no volume made.  A selected node that does not exist is refused alike;
  * a Bound volume whose claim is gone becomes Released (a provisioned one
    with reclaim policy Delete is deleted).
Not done: Lost claims, recycling, resizing, attach/detach (VolumeAttachments
stay as written), CSIStorageCapacity, a class's allowedTopologies with a
selected node.

Test hooks (bearer token required too):
  GET  /debug/state            summary: counts, resourceVersion, watches, threads
  GET  /debug/bindings         every binding request and its result
                               (?pod=ns/name filters, ?summary=1 per pod uid);
                               DELETE clears the record
  GET  /debug/requests         the last requests (?limit=N)
  GET|POST /debug/faults       see Faults.apply for the keys (provision_fail:
                               the provisioner refuses)
  POST /debug/bulk             create many objects at once, of any kind above
                               but bindings (see App.bulk)
  POST /debug/reset            delete every object (DELETED events; the initial
                               namespaces stay) and records
"""

import argparse
import base64
import bisect
import collections
import copy
import datetime
import decimal
import gc
import heapq
import http.server
import itertools
import json
import os
import random
import re
import secrets
import select
import signal
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse
import uuid

SERVER_VERSION = {
    "major": "1",
    "minor": "20",
    "gitVersion": "v1.20.2",
    "gitCommit": "faecb196815e248d3ecfb03c680a4507229c2a56",
    "gitTreeState": "clean",
    "buildDate": "2021-01-13T13:20:00Z",
    "goVersion": "go1.15.5",
    "compiler": "gc",
    "platform": "linux/amd64",
}

VERBS_ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


class Resource:
    def __init__(self, name, kind, namespaced, short=(), categories=(), subresources=(), fields=None,
                 singular="", group=""):
        self.name = name
        self.kind = kind
        self.list_kind = kind + "List"
        self.group = group
        self.api_version = group + "/v1" if group else "v1"
        self.namespaced = namespaced
        self.short = list(short)
        self.categories = list(categories)
        self.subresources = tuple(subresources)
        self.fields = fields or {}
        self.singular = singular


def _get(obj, *path):
    for p in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(p)
    return obj


def _s(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _field(*path, default=""):
    def get(obj):
        v = _get(obj, *path)
        return default if v is None else _s(v)
    return get


META_FIELDS = {"metadata.name": _field("metadata", "name"),
               "metadata.namespace": _field("metadata", "namespace")}

RESOURCES = {
    "pods": Resource("pods", "Pod", True, short=["po"], categories=["all"], subresources=("status", "binding"),
                     singular="pod", fields=dict(META_FIELDS, **{
                         "spec.nodeName": _field("spec", "nodeName"),
                         "spec.restartPolicy": _field("spec", "restartPolicy"),
                         "spec.schedulerName": _field("spec", "schedulerName"),
                         "spec.serviceAccountName": _field("spec", "serviceAccountName"),
                         "spec.hostNetwork": _field("spec", "hostNetwork", default="false"),
                         "status.phase": _field("status", "phase"),
                         "status.podIP": _field("status", "podIP"),
                         "status.nominatedNodeName": _field("status", "nominatedNodeName"),
                     })),
    "nodes": Resource("nodes", "Node", False, short=["no"], subresources=("status",), singular="node",
                      fields=dict(META_FIELDS, **{
                          "spec.unschedulable": _field("spec", "unschedulable", default="false"),
                      })),
    "events": Resource("events", "Event", True, short=["ev"], singular="event", fields=dict(META_FIELDS, **{
        "involvedObject.kind": _field("involvedObject", "kind"),
        "involvedObject.namespace": _field("involvedObject", "namespace"),
        "involvedObject.name": _field("involvedObject", "name"),
        "involvedObject.uid": _field("involvedObject", "uid"),
        "involvedObject.apiVersion": _field("involvedObject", "apiVersion"),
        "involvedObject.resourceVersion": _field("involvedObject", "resourceVersion"),
        "involvedObject.fieldPath": _field("involvedObject", "fieldPath"),
        "reason": _field("reason"),
        "reportingComponent": _field("reportingComponent"),
        "source": _field("source", "component"),
        "type": _field("type"),
    })),
    "namespaces": Resource("namespaces", "Namespace", False, short=["ns"], subresources=("status",),
                           singular="namespace", fields=dict(META_FIELDS, **{
                               "status.phase": _field("status", "phase"),
                           })),
    "poddisruptionbudgets": Resource("poddisruptionbudgets", "PodDisruptionBudget", True, short=["pdb"],
                                     subresources=("status",), singular="poddisruptionbudget", group="policy",
                                     fields=dict(META_FIELDS)),
    "services": Resource("services", "Service", True, short=["svc"], categories=["all"], subresources=("status",),
                         singular="service", fields=dict(META_FIELDS)),
    "replicationcontrollers": Resource("replicationcontrollers", "ReplicationController", True, short=["rc"],
                                       categories=["all"], subresources=("status",),
                                       singular="replicationcontroller", fields=dict(META_FIELDS, **{
                                           "status.replicas": _field("status", "replicas", default="0"),
                                       })),
    "replicasets": Resource("replicasets", "ReplicaSet", True, short=["rs"], categories=["all"],
                            subresources=("status",), singular="replicaset", group="apps",
                            fields=dict(META_FIELDS, **{
                                "status.replicas": _field("status", "replicas", default="0"),
                            })),
    "statefulsets": Resource("statefulsets", "StatefulSet", True, short=["sts"], categories=["all"],
                             subresources=("status",), singular="statefulset", group="apps",
                             fields=dict(META_FIELDS)),
    # the storage kinds the volume plugins read
    "persistentvolumeclaims": Resource("persistentvolumeclaims", "PersistentVolumeClaim", True, short=["pvc"],
                                       subresources=("status",), singular="persistentvolumeclaim",
                                       fields=dict(META_FIELDS)),
    "persistentvolumes": Resource("persistentvolumes", "PersistentVolume", False, short=["pv"],
                                  subresources=("status",), singular="persistentvolume",
                                  fields=dict(META_FIELDS)),
    "storageclasses": Resource("storageclasses", "StorageClass", False, short=["sc"], singular="storageclass",
                               group="storage.k8s.io", fields=dict(META_FIELDS)),
    "csinodes": Resource("csinodes", "CSINode", False, singular="csinode", group="storage.k8s.io",
                         fields=dict(META_FIELDS)),
    "csidrivers": Resource("csidrivers", "CSIDriver", False, singular="csidriver", group="storage.k8s.io",
                           fields=dict(META_FIELDS)),
    "csistoragecapacities": Resource("csistoragecapacities", "CSIStorageCapacity", True,
                                     singular="csistoragecapacity", group="storage.k8s.io",
                                     fields=dict(META_FIELDS)),
    "volumeattachments": Resource("volumeattachments", "VolumeAttachment", False, subresources=("status",),
                                  singular="volumeattachment", group="storage.k8s.io",
                                  fields=dict(META_FIELDS)),
}
KIND_TO_RESOURCE = {r.kind: r.name for r in RESOURCES.values()}
KIND_API_VERSION = {r.kind: r.api_version for r in RESOURCES.values()}
API_GROUPS = {"apps": "apps/v1", "events.k8s.io": "events.k8s.io/v1", "policy": "policy/v1",
              "storage.k8s.io": "storage.k8s.io/v1"}
# workloads: metadata.generation is 1 on create and grows with each spec change
GENERATION_RESOURCES = ("poddisruptionbudgets", "replicationcontrollers", "replicasets", "statefulsets")
INITIAL_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"]

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
QUANTITY_RE = re.compile(r"^([+-]?[0-9]+(?:\.[0-9]*)?|[+-]?\.[0-9]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$")
QUANTITY_SUFFIX = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
                   "n": decimal.Decimal("1e-9"), "u": decimal.Decimal("1e-6"), "m": decimal.Decimal("1e-3"),
                   "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12, "P": 10 ** 15, "E": 10 ** 18}

TRUE_STRINGS = {"1", "t", "T", "TRUE", "true", "True"}


def now_rfc3339(t=None):
    return datetime.datetime.fromtimestamp(time.time() if t is None else t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(s):
    try:
        s = s.replace("Z", "+00:00")
        return datetime.datetime.fromisoformat(s).timestamp()
    except (ValueError, AttributeError, TypeError):
        return None


def human_duration(seconds):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration"""
    s = int(max(seconds, 0))
    if s < 120:
        return "%ds" % s
    m = s // 60
    if m < 10:
        return "%dm%ds" % (m, s % 60) if s % 60 else "%dm" % m
    if m < 180:
        return "%dm" % m
    h = s // 3600
    if h < 8:
        return "%dh%dm" % (h, m % 60) if m % 60 else "%dh" % h
    if h < 48:
        return "%dh" % h
    d = h // 24
    if h < 24 * 8:
        return "%dd%dh" % (d, h % 24) if h % 24 else "%dd" % d
    if h < 24 * 365 * 2:
        return "%dd" % d
    if h < 24 * 365 * 8:
        return "%dy%dd" % (d // 365, d % 365)
    return "%dy" % (d // 365)


def parse_quantity(s):
    if isinstance(s, (int, float)) and not isinstance(s, bool):
        return decimal.Decimal(str(s))
    if not isinstance(s, str):
        return None
    m = QUANTITY_RE.match(s.strip())
    if not m:
        return None
    num = decimal.Decimal(m.group(1))
    if m.group(2):
        num = num * (decimal.Decimal(10) ** int(m.group(2)[1:]))
    elif m.group(3):
        num = num * decimal.Decimal(QUANTITY_SUFFIX[m.group(3)])
    return num


def parse_go_duration(s):
    if not s:
        return None
    units = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    total, pos = 0.0, 0
    for m in re.finditer(r"([0-9]*\.?[0-9]+)(ns|us|\u00b5s|ms|s|m|h)", s):
        if m.start() != pos:
            return None
        total += float(m.group(1)) * units[m.group(2)]
        pos = m.end()
    return total if pos == len(s) and pos else None


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None, headers=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.headers = headers or {}

    def status(self):
        return status_obj(self.code, self.reason, self.message, self.details)


def status_obj(code, reason, message, details=None):
    st = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
          "reason": reason}
    if details is not None:
        st["details"] = details
    st["code"] = code
    return st


def qualified(resource):
    """(resource as errors name it, the Status details' name/group/kind) for a
    resource ("replicasets", "pods/binding"): a group's resources are
    qualified ("replicasets.apps"), as the real server's errors say."""
    R = RESOURCES.get(resource.split("/", 1)[0])
    if R is None or not R.group:
        return resource, {}
    return R.name + "." + R.group + resource[len(R.name):], {"group": R.group}


def _error_details(resource, name):
    q, g = qualified(resource)
    d = {"name": name}
    d.update(g)
    d["kind"] = resource
    return q, d


def not_found(resource, name):
    q, d = _error_details(resource, name)
    return ApiError(404, "NotFound", '%s "%s" not found' % (q, name), d)


def already_exists(resource, name):
    q, d = _error_details(resource, name)
    return ApiError(409, "AlreadyExists", '%s "%s" already exists' % (q, name), d)


def conflict(resource, name, msg):
    q, d = _error_details(resource, name)
    return ApiError(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": %s' % (q, name, msg), d)


def bad_request(msg):
    return ApiError(400, "BadRequest", msg)


# a field error's message -> its cause type (apimachinery's field.ErrorType)
CAUSE_TYPES = (("Required value", "FieldValueRequired"), ("Forbidden", "FieldValueForbidden"),
               ("Duplicate value", "FieldValueDuplicate"), ("Unsupported value", "FieldValueNotSupported"),
               ("Too long", "FieldValueTooLong"), ("Not found", "FieldValueNotFound"))


def _cause_type(message):
    for prefix, t in CAUSE_TYPES:
        if message.startswith(prefix):
            return t
    return "FieldValueInvalid"


def invalid(kind, name, causes, group=""):
    """causes: list of (field, message).  A group's kind is named qualified
    ("Event.events.k8s.io") and the details carry the group, as the real
    server's; a message repeated is said once (the causes keep each)."""
    seen, text = set(), []
    for f, m in causes:
        if (f, m) not in seen:
            seen.add((f, m))
            text.append("%s: %s" % (f, m))
    details = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = kind
    details["causes"] = [{"reason": _cause_type(m), "message": m, "field": f} for f, m in causes]
    return ApiError(422, "Invalid", '%s "%s" is invalid: %s' % (kind + "." + group if group else kind, name,
                                                                "; ".join(text)), details)


def expired(message):
    return ApiError(410, "Expired", message)


# ---------------------------------------------------------------- records

class Rec:
    """One stored version of an object.  obj is never mutated after storing;
    it holds no kind/apiVersion (list items carry none)."""
    __slots__ = ("obj", "kind", "rv", "_item", "_full", "_matches")

    def __init__(self, obj, kind):
        self.obj = obj
        self.kind = kind
        self.rv = int(obj["metadata"]["resourceVersion"])
        self._item = None
        self._full = None
        self._matches = None       # Selector.key -> whether obj matches it (Selector.match_rec)

    def item_json(self):
        if self._item is None:
            self._item = dumps(self.obj)
        return self._item

    def full_json(self):
        if self._full is None:
            self._full = b'{"kind":"%s","apiVersion":"%s",%s' % (self.kind.encode(),
                                                                  KIND_API_VERSION[self.kind].encode(),
                                                                  self.item_json()[1:])
        return self._full

    def full_obj(self):
        d = {"kind": self.kind, "apiVersion": KIND_API_VERSION[self.kind]}
        d.update(self.obj)
        return d

    def clone(self):
        return json.loads(self.item_json())

    @property
    def name(self):
        return self.obj["metadata"]["name"]

    @property
    def namespace(self):
        return self.obj["metadata"].get("namespace", "")


class Event:
    __slots__ = ("rv", "res", "type", "key", "rec", "prev", "_line")

    def __init__(self, rv, res, etype, key, rec, prev):
        self.rv, self.res, self.type, self.key, self.rec, self.prev = rv, res, etype, key, rec, prev
        self._line = None

    def line(self):
        if self._line is None:
            self._line = b'{"type":"%s","object":%s}\n' % (self.type.encode(), self.rec.full_json())
        return self._line


def pod_bound(obj):
    return bool((obj.get("spec") or {}).get("nodeName"))


def order_object(obj):
    out = {}
    for k in ("metadata", "spec", "status"):
        if k in obj:
            out[k] = obj[k]
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


# ---------------------------------------------------------------- selectors

def parse_field_selector(s, res, fields=None):
    """fields: the getters by name (the resource's unless given: a view's)."""
    fields = RESOURCES[res].fields if fields is None else fields
    reqs = []
    if not s:
        return reqs
    for term in s.split(","):
        term = term.strip()
        if not term:
            continue
        m = re.match(r"^([^=!]+)(!=|==|=)(.*)$", term)
        if not m:
            raise bad_request('invalid selector: \'%s\'; can\'t understand \'%s\'' % (s, term))
        field, op, value = m.group(1).strip(), m.group(2), m.group(3).strip()
        getter = fields.get(field)
        if getter is None:
            raise bad_request('"%s" is not a known field selector: only "%s"' % (
                field, '", "'.join(sorted(fields))))
        reqs.append((getter, op != "!=", value))
    return reqs


def _split_outside_parens(s):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_label_selector(s):
    reqs = []
    if not s:
        return reqs
    for term in _split_outside_parens(s):
        m = re.match(r"^([A-Za-z0-9._/-]+)\s+(in|notin)\s*\((.*)\)$", term)
        if m:
            vals = {v.strip() for v in m.group(3).split(",") if v.strip()}
            reqs.append((m.group(1), m.group(2), vals))
            continue
        m = re.match(r"^!\s*([A-Za-z0-9._/-]+)$", term)
        if m:
            reqs.append((m.group(1), "!exists", None))
            continue
        m = re.match(r"^([A-Za-z0-9._/-]+)\s*(!=|==|=|>|<)\s*([A-Za-z0-9._-]*)$", term)
        if m:
            op = {"==": "=", "=": "="}.get(m.group(2), m.group(2))
            reqs.append((m.group(1), op, m.group(3)))
            continue
        m = re.match(r"^([A-Za-z0-9._/-]+)$", term)
        if m:
            reqs.append((m.group(1), "exists", None))
            continue
        raise bad_request("unable to parse requirement: %s" % term)
    return reqs


def label_match(labels, reqs):
    labels = labels or {}
    for key, op, val in reqs:
        has = key in labels
        v = labels.get(key)
        if op == "=" and v != val:
            return False
        if op == "!=" and has and v == val:
            return False
        if op == "in" and (not has or v not in val):
            return False
        if op == "notin" and has and v in val:
            return False
        if op == "exists" and not has:
            return False
        if op == "!exists" and has:
            return False
        if op in (">", "<"):
            try:
                a, b = int(v), int(val)
            except (TypeError, ValueError):
                return False
            if (op == ">" and not a > b) or (op == "<" and not a < b):
                return False
    return True


class Selector:
    def __init__(self, res, params, fields=None):
        self.fields = parse_field_selector(params.get("fieldSelector", ""), res, fields)
        self.labels = parse_label_selector(params.get("labelSelector", ""))
        self.empty = not self.fields and not self.labels
        # what the answer depends on: the getters (a view's or the resource's) and the text
        self.key = (res, id(fields), params.get("fieldSelector", ""), params.get("labelSelector", ""))

    def match_rec(self, rec):
        """match(rec.obj), remembered on the Rec (its obj never changes): a
        watch tests each stored version as the new object and again as the
        old one, and every watch with the same selectors asks the same."""
        if self.empty:
            return True
        m = rec._matches
        if m is None:
            m = rec._matches = {}
        r = m.get(self.key)
        if r is None:
            r = m[self.key] = self.match(rec.obj)
        return r

    def match(self, obj):
        if self.empty:
            return True
        for getter, eq, value in self.fields:
            if (getter(obj) == value) != eq:
                return False
        return label_match(_get(obj, "metadata", "labels"), self.labels)


# ---------------------------------------------------------------- patches

PRIMITIVE = object()
_DELETE = object()


def _container_keys(prefix):
    d = {}
    for c in ("containers", "initContainers", "ephemeralContainers"):
        d[prefix + (c,)] = "name"
        d[prefix + (c, "env")] = "name"
        d[prefix + (c, "ports")] = "containerPort"
        d[prefix + (c, "volumeMounts")] = "mountPath"
        d[prefix + (c, "volumeDevices")] = "devicePath"
    return d


SMP_COMMON = {("metadata", "ownerReferences"): "uid", ("metadata", "finalizers"): PRIMITIVE}
SMP_KEYS = {
    "pods": {**_container_keys(("spec",)), **{
        ("spec", "volumes"): "name", ("spec", "imagePullSecrets"): "name", ("spec", "hostAliases"): "ip",
        ("spec", "schedulingGates"): "name", ("spec", "resourceClaims"): "name",
        ("status", "conditions"): "type", ("status", "podIPs"): "ip", ("status", "hostIPs"): "ip",
        ("status", "resourceClaimStatuses"): "name"}},
    "nodes": {("status", "conditions"): "type", ("status", "addresses"): "type", ("spec", "podCIDRs"): PRIMITIVE},
    "namespaces": {("status", "conditions"): "type"},
    "events": {},
    "poddisruptionbudgets": {("status", "conditions"): "type"},
    "services": {("spec", "ports"): "port", ("status", "conditions"): "type"},
}


def _template_keys():
    """The pod template's patch keys (spec.template.spec) and the status
    conditions of the workload controllers."""
    t = ("spec", "template", "spec")
    d = _container_keys(t)
    d.update({t + ("volumes",): "name", t + ("imagePullSecrets",): "name", t + ("hostAliases",): "ip",
              t + ("schedulingGates",): "name", t + ("resourceClaims",): "name",
              ("status", "conditions"): "type"})
    return d


for _r in ("replicationcontrollers", "replicasets", "statefulsets"):
    SMP_KEYS[_r] = _template_keys()


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            result.pop(k, None)
        else:
            result[k] = merge_patch(result.get(k), v)
    return result


def _strip_directives(v):
    if isinstance(v, dict):
        return {k: _strip_directives(x) for k, x in v.items() if not k.startswith("$")}
    if isinstance(v, list):
        return [_strip_directives(x) for x in v]
    return v


def strategic_merge(orig, patch, res, path=()):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "replace":
        return _strip_directives({k: v for k, v in patch.items() if k != "$patch"})
    if directive == "delete":
        return _DELETE
    result = dict(orig) if isinstance(orig, dict) else {}
    keys = SMP_KEYS.get(res, {})
    orders = {}
    retain = patch.get("$retainKeys")
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys"):
            continue
        if k.startswith("$setElementOrder/"):
            orders[k.split("/", 1)[1]] = v
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            f = k.split("/", 1)[1]
            if isinstance(result.get(f), list) and isinstance(v, list):
                result[f] = [x for x in result[f] if x not in v]
            continue
        p = path + (k,)
        if v is None:
            result.pop(k, None)
            continue
        mk = keys.get(p) or SMP_COMMON.get(p)
        if isinstance(v, list) and mk is not None:
            result[k] = _merge_list(result.get(k), v, mk, res, p)
        elif isinstance(v, dict):
            r = strategic_merge(result.get(k), v, res, p)
            if r is _DELETE:
                result.pop(k, None)
            else:
                result[k] = r
        else:
            result[k] = _strip_directives(copy.deepcopy(v))
    for f, order in orders.items():
        lst = result.get(f)
        if not isinstance(lst, list) or not isinstance(order, list):
            continue
        mk = keys.get(path + (f,)) or SMP_COMMON.get(path + (f,))
        if mk is PRIMITIVE:
            pos = {json.dumps(x): i for i, x in enumerate(order)}
            result[f] = sorted(lst, key=lambda x: pos.get(json.dumps(x), len(pos)))
        elif mk:
            pos = {json.dumps(x.get(mk)): i for i, x in enumerate(order) if isinstance(x, dict)}
            result[f] = sorted(lst, key=lambda x: pos.get(json.dumps(x.get(mk) if isinstance(x, dict) else x),
                                                          len(pos)))
    if isinstance(retain, list):
        result = {k: v for k, v in result.items() if k in retain}
    return result


def _merge_list(orig, plist, mk, res, path):
    out = list(orig) if isinstance(orig, list) else []
    if mk is PRIMITIVE:
        for x in plist:
            if x not in out:
                out.append(copy.deepcopy(x))
        return out
    if any(isinstance(e, dict) and e.get("$patch") == "replace" for e in plist):
        return [_strip_directives(e) for e in plist if not (isinstance(e, dict) and e.get("$patch") == "replace")]
    for e in plist:
        if not isinstance(e, dict) or mk not in e:
            out.append(_strip_directives(copy.deepcopy(e)))
            continue
        idx = next((i for i, x in enumerate(out) if isinstance(x, dict) and x.get(mk) == e[mk]), None)
        if e.get("$patch") == "delete":
            if idx is not None:
                del out[idx]
            continue
        if idx is None:
            out.append(strategic_merge({}, e, res, path))
        else:
            out[idx] = strategic_merge(out[idx], e, res, path)
    return out


def _pointer(path):
    if path == "":
        return []
    if not path.startswith("/"):
        raise bad_request("invalid json patch path %r" % path)
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise bad_request("json patch must be a list of operations")

    def parent(d, parts):
        for p in parts[:-1]:
            if isinstance(d, list):
                d = d[int(p)]
            elif isinstance(d, dict):
                d = d[p]
            else:
                raise KeyError(p)
        return d

    def get(d, parts):
        for p in parts:
            d = d[int(p)] if isinstance(d, list) else d[p]
        return d

    def add(d, parts, value):
        if not parts:
            return value
        par = parent(d, parts)
        last = parts[-1]
        if isinstance(par, list):
            if last == "-":
                par.append(value)
            else:
                i = int(last)
                if i < 0 or i > len(par):
                    raise IndexError(last)
                par.insert(i, value)
        else:
            par[last] = value
        return d

    def remove(d, parts):
        par = parent(d, parts)
        last = parts[-1]
        if isinstance(par, list):
            return par.pop(int(last))
        return par.pop(last)

    try:
        for op in ops:
            kind = op.get("op")
            parts = _pointer(op.get("path", ""))
            if kind == "add":
                doc = add(doc, parts, copy.deepcopy(op.get("value")))
            elif kind == "remove":
                remove(doc, parts)
            elif kind == "replace":
                get(doc, parts)
                if not parts:
                    doc = copy.deepcopy(op.get("value"))
                else:
                    par = parent(doc, parts)
                    par[int(parts[-1]) if isinstance(par, list) else parts[-1]] = copy.deepcopy(op.get("value"))
            elif kind == "move":
                v = remove(doc, _pointer(op.get("from", "")))
                doc = add(doc, parts, v)
            elif kind == "copy":
                v = copy.deepcopy(get(doc, _pointer(op.get("from", ""))))
                doc = add(doc, parts, v)
            elif kind == "test":
                if get(doc, parts) != op.get("value"):
                    raise ApiError(422, "Invalid", "the server rejected our request due to an error in our "
                                   "request: testing value %s failed" % op.get("path"))
            else:
                raise bad_request("unexpected json patch operation %r" % kind)
    except (KeyError, IndexError, ValueError, TypeError) as e:
        raise ApiError(422, "Invalid", "the server rejected our request due to an error in our request: %s"
                       % e) from None
    return doc


def apply_patch(doc, patch, ctype, res):
    """doc patched (a PATCH's body patch of Content-Type ctype); res names
    the strategic merge patch's keys."""
    if ctype == "application/json-patch+json":
        doc = json_patch(doc, patch)
    elif ctype == "application/merge-patch+json":
        if not isinstance(patch, dict):
            raise bad_request("a merge patch must be a JSON object")
        doc = merge_patch(doc, patch)
    elif ctype == "application/strategic-merge-patch+json":
        if not isinstance(patch, dict):
            raise bad_request("a strategic merge patch must be a JSON object")
        doc = strategic_merge(doc, patch, res)
    else:
        raise ApiError(415, "UnsupportedMediaType", 'the body of the request was in an unknown format - '
                       'accepted media types include: application/json-patch+json, '
                       'application/merge-patch+json, application/strategic-merge-patch+json')
    if not isinstance(doc, dict):
        raise bad_request("the patch did not produce an object")
    return doc


# ---------------------------------------------------------------- defaults and validation

DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
]


def default_namespace(obj):
    """SetDefaults_Namespace: the label kubernetes.io/metadata.name is the
    namespace's name, on every write"""
    md = obj.setdefault("metadata", {})
    if not isinstance(md.get("labels"), dict):
        md["labels"] = {}
    if md.get("name"):
        md["labels"]["kubernetes.io/metadata.name"] = md["name"]


def default_pod(obj):
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("priority", 0)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    tols = spec.get("tolerations")
    if not isinstance(tols, list):
        tols = []
    for dt in DEFAULT_TOLERATIONS:
        # DefaultTolerationSeconds: unless a toleration of that key (or of
        # every key: no key) with effect NoExecute (or every effect) is there
        if not any(isinstance(t, dict) and t.get("key") in (dt["key"], None, "")
                   and t.get("effect") in ("NoExecute", None, "") for t in tols):
            tols.append(dict(dt))
    spec["tolerations"] = tols
    for group in ("initContainers", "containers"):
        for c in spec.get(group) or []:
            if not isinstance(c, dict):
                continue
            c.setdefault("terminationMessagePath", "/dev/termination-log")
            c.setdefault("terminationMessagePolicy", "File")
            img = c.get("image") or ""
            last = img.rsplit("/", 1)[-1]
            if "imagePullPolicy" not in c:
                c["imagePullPolicy"] = "Always" if ("@" not in img and (":" not in last or last.endswith(":latest"))) \
                    else "IfNotPresent"
            r = c.get("resources")
            if not isinstance(r, dict):
                r = c["resources"] = {}
            lim = r.get("limits")
            if isinstance(lim, dict) and lim:
                req = r.get("requests")
                if not isinstance(req, dict):
                    req = r["requests"] = {}
                for k, v in lim.items():
                    req.setdefault(k, v)
            for p in c.get("ports") or []:
                if isinstance(p, dict):
                    p.setdefault("protocol", "TCP")


def pod_qos(spec):
    containers = [c for c in (spec.get("containers") or []) + (spec.get("initContainers") or []) if isinstance(c, dict)]
    any_set = False
    guaranteed = True
    for c in containers:
        r = c.get("resources") or {}
        req, lim = r.get("requests") or {}, r.get("limits") or {}
        for res in ("cpu", "memory"):
            if res in req or res in lim:
                any_set = True
            if res not in lim or parse_quantity(req.get(res, lim.get(res))) != parse_quantity(lim.get(res)):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def validate_name(res, name, kind):
    rx, maxlen = (DNS1123_LABEL, 63) if res == "namespaces" else (DNS1123_SUBDOMAIN, 253)
    if not isinstance(name, str) or len(name) > maxlen or not rx.match(name):
        raise invalid(kind, name, [("metadata.name", "Invalid value: %s: a lowercase RFC 1123 %s must consist of "
                                    "lower case alphanumeric characters, '-' or '.'" % (
                                        json.dumps(name), "label" if res == "namespaces" else "subdomain"))])


def _check_quantities(kind, name, where, m, causes):
    if m is None:
        return
    if not isinstance(m, dict):
        causes.append((where, "Invalid value: must be a map"))
        return
    for k, v in m.items():
        if not isinstance(v, str) or parse_quantity(v) is None:
            causes.append(("%s[%s]" % (where, k), "Invalid value: %s: quantities must match the regular expression "
                           "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" % json.dumps(v)))


def validate_object(res, obj):
    kind = RESOURCES[res].kind
    name = obj["metadata"]["name"]
    causes = []
    md = obj["metadata"]
    for f in ("labels", "annotations"):
        if f in md and md[f] is not None:
            if not isinstance(md[f], dict) or not all(isinstance(v, str) for v in md[f].values()):
                causes.append(("metadata." + f, "Invalid value: must be a map of strings"))
    if res == "pods":
        spec = obj.get("spec") or {}
        cs = spec.get("containers")
        if not isinstance(cs, list) or not cs:
            causes.append(("spec.containers", "Required value"))
        else:
            seen = set()
            for i, c in enumerate(cs):
                if not isinstance(c, dict) or not c.get("name"):
                    causes.append(("spec.containers[%d].name" % i, "Required value"))
                    continue
                if c["name"] in seen:
                    causes.append(("spec.containers[%d].name" % i, 'Duplicate value: "%s"' % c["name"]))
                seen.add(c["name"])
                if not c.get("image"):
                    causes.append(("spec.containers[%d].image" % i, "Required value"))
                r = c.get("resources") or {}
                _check_quantities(kind, name, "spec.containers[%d].resources.requests" % i, r.get("requests"), causes)
                _check_quantities(kind, name, "spec.containers[%d].resources.limits" % i, r.get("limits"), causes)
        if "nodeName" in spec and spec["nodeName"] is not None and not isinstance(spec["nodeName"], str):
            causes.append(("spec.nodeName", "Invalid value: must be a string"))
    elif res == "nodes":
        st = obj.get("status") or {}
        _check_quantities(kind, name, "status.capacity", st.get("capacity"), causes)
        _check_quantities(kind, name, "status.allocatable", st.get("allocatable"), causes)
    elif res == "poddisruptionbudgets":
        _check_pdb_spec(obj.get("spec"), causes)
    elif res in WORKLOAD_RESOURCES:
        _check_workload_spec(res, obj.get("spec"), causes)
    if causes:
        raise invalid(kind, name, causes)


# ---------------------------------------------------------------- workloads (no controllers run)

WORKLOAD_RESOURCES = ("services", "replicationcontrollers", "replicasets", "statefulsets")
# the controllers whose scale the disruption controller reads
PDB_CONTROLLERS = ("replicationcontrollers", "replicasets", "statefulsets")
SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
SERVICE_CIDR = (10 << 24 | 96 << 16, 1 << 20)      # 10.96.0.0/12: (first address, size)


def default_workload(res, obj):
    """The defaults the real server gives a Service, ReplicationController,
    ReplicaSet or StatefulSet (on create and on update), less those of the
    pod template.  A spec that is no object is left for validation."""
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}
    if not isinstance(spec, dict):
        return
    if res == "services":
        if not spec.get("type"):
            spec["type"] = "ClusterIP"
        spec.setdefault("sessionAffinity", "None")
        ports = spec.get("ports")
        for p in ports if isinstance(ports, list) else []:
            if isinstance(p, dict):
                p.setdefault("protocol", "TCP")
                if p.get("targetPort") in (None, 0, "") and "port" in p:
                    p["targetPort"] = p["port"]
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if res == "replicationcontrollers":
        tmd = _get(spec, "template", "metadata")
        tl = tmd.get("labels") if isinstance(tmd, dict) else None
        if isinstance(tl, dict) and tl:
            if not spec.get("selector"):
                spec["selector"] = dict(tl)
            if not obj["metadata"].get("labels"):
                obj["metadata"]["labels"] = dict(tl)
    elif res == "statefulsets":
        spec.setdefault("podManagementPolicy", "OrderedReady")
        if not isinstance(spec.get("updateStrategy"), dict) or not spec["updateStrategy"].get("type"):
            spec["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
        elif spec["updateStrategy"]["type"] == "RollingUpdate":
            ru = spec["updateStrategy"].setdefault("rollingUpdate", {})
            if isinstance(ru, dict):
                ru.setdefault("partition", 0)
        spec.setdefault("revisionHistoryLimit", 10)


def _check_workload_spec(res, spec, causes):
    """Minimal validation: the selector's shape (a map of strings for a
    Service or ReplicationController, a LabelSelector -- required -- for a
    ReplicaSet or StatefulSet), replicas, a Service's type and ports."""
    if not isinstance(spec, dict):
        causes.append(("spec", "Invalid value: %s: must be an object" % json.dumps(spec)))
        return
    sel = spec.get("selector")
    if res in ("replicasets", "statefulsets"):
        if sel is None:
            causes.append(("spec.selector", "Required value"))
        else:
            _check_label_selector("spec.selector", sel, causes)
    elif sel is not None:
        _check_string_map("spec.selector", sel, causes)
    if res != "services":
        r = spec.get("replicas")
        if not isinstance(r, int) or isinstance(r, bool) or r < 0:
            causes.append(("spec.replicas", "Invalid value: %s: must be greater than or equal to 0" % json.dumps(r)))
        return
    if spec.get("type") not in SERVICE_TYPES:
        causes.append(("spec.type", "Unsupported value: %s: supported values: %s" % (
            json.dumps(spec.get("type")), ", ".join('"%s"' % t for t in SERVICE_TYPES))))
    ports = spec.get("ports")
    if ports is not None and not isinstance(ports, list):
        causes.append(("spec.ports", "Invalid value: must be a list"))
        ports = []
    for i, p in enumerate(ports or []):
        port = p.get("port") if isinstance(p, dict) else None
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            causes.append(("spec.ports[%d].port" % i, "Invalid value: %s: must be between 1 and 65535, inclusive"
                           % json.dumps(port)))
    ip = spec.get("clusterIP")
    if ip not in (None, "", "None") and not isinstance(ip, str):
        causes.append(("spec.clusterIP", "Invalid value: %s: must be a valid IP address" % json.dumps(ip)))


def ip_text(n):
    return "%d.%d.%d.%d" % (n >> 24 & 255, n >> 16 & 255, n >> 8 & 255, n & 255)


PERCENT_RE = re.compile(r"^[0-9]+%$")
SELECTOR_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!exists"}


def _check_int_or_percent(where, v, causes):
    """ValidatePositiveIntOrPercent and IsNotMoreThan100Percent."""
    if isinstance(v, int) and not isinstance(v, bool):
        if v < 0:
            causes.append((where, "Invalid value: %d: must be greater than or equal to 0" % v))
    elif isinstance(v, str):
        if not PERCENT_RE.match(v):
            causes.append((where, "Invalid value: %s: a valid percent string must be a numeric string followed by "
                                  "an ending '%%' (e.g. '1%%',  or '93%%', regex used for validation is '[0-9]+%%')"
                           % json.dumps(v)))
        elif int(v[:-1]) > 100:
            causes.append((where, "Invalid value: %s: must not be greater than 100%%" % json.dumps(v)))
    else:
        causes.append((where, "Invalid value: %s: must be an integer or percentage (e.g '5%%')" % json.dumps(v)))


def _check_pdb_spec(spec, causes):
    """ValidatePodDisruptionBudgetSpec, and exactly one of minAvailable and
    maxUnavailable."""
    if not isinstance(spec, dict):
        causes.append(("spec", "Required value"))
        return
    has_min, has_max = spec.get("minAvailable") is not None, spec.get("maxUnavailable") is not None
    if has_min and has_max:
        causes.append(("spec", "Invalid value: %s: minAvailable and maxUnavailable cannot be both set"
                       % json.dumps({"minAvailable": spec["minAvailable"], "maxUnavailable": spec["maxUnavailable"]})))
    elif not has_min and not has_max:
        causes.append(("spec.minAvailable", "Required value: one of spec.minAvailable and spec.maxUnavailable "
                                            "must be set"))
    for f in ("minAvailable", "maxUnavailable"):
        if spec.get(f) is not None:
            _check_int_or_percent("spec." + f, spec[f], causes)
    if spec.get("selector") is not None:
        _check_label_selector("spec.selector", spec["selector"], causes)


def _check_string_map(where, m, causes):
    """A map of strings (labels, a Service's or ReplicationController's
    selector)."""
    if not isinstance(m, dict) or not all(isinstance(v, str) for v in m.values()):
        causes.append((where, "Invalid value: %s: must be a map of strings" % json.dumps(m)))


def _check_label_selector(where, sel, causes):
    """ValidateLabelSelector, the shape and the operators of a metav1.LabelSelector.
    Other keys are refused (the real server would drop them, leaving a
    selector that is empty or matches more than meant)."""
    if not isinstance(sel, dict):
        causes.append((where, "Invalid value: %s: must be a label selector object" % json.dumps(sel)))
        return
    other = sorted(k for k in sel if k not in ("matchLabels", "matchExpressions"))
    if other:
        causes.append((where, "Invalid value: %s: unknown field %s: a label selector has only matchLabels and "
                              "matchExpressions" % (json.dumps(sel), ", ".join(json.dumps(k) for k in other))))
    ml = sel.get("matchLabels")
    if ml is not None:
        _check_string_map(where + ".matchLabels", ml, causes)
    me = sel.get("matchExpressions")
    if me is not None and not isinstance(me, list):
        causes.append((where + ".matchExpressions", "Invalid value: must be a list"))
        me = []
    base = where
    for i, e in enumerate(me or []):
        where = "%s.matchExpressions[%d]" % (base, i)
        if not isinstance(e, dict):
            causes.append((where, "Invalid value: must be an object"))
            continue
        if not isinstance(e.get("key"), str) or not e["key"]:
            causes.append((where + ".key", "Invalid value: \"\": name part must be non-empty"))
        op, vals = e.get("operator"), e.get("values")
        if vals is not None and (not isinstance(vals, list) or not all(isinstance(v, str) for v in vals)):
            causes.append((where + ".values", "Invalid value: must be a list of strings"))
        elif op in ("In", "NotIn"):
            if not vals:
                causes.append((where + ".values", "Required value: must be specified when `operator` is 'In' or "
                                                  "'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if vals:
                causes.append((where + ".values", "Forbidden: may not be specified when `operator` is 'Exists' or "
                                                  "'DoesNotExist'"))
        else:
            causes.append((where + ".operator", "Invalid value: %s: not a valid selector operator" % json.dumps(op)))


# ---------------------------------------------------------------- the disruption controller

PDB_DELETION_TIMEOUT = 120      # seconds an entry of status.disruptedPods holds (DeletionTimeout)


def pdb_selector(spec):
    """label_match requirements of a PDB's spec.selector (a LabelSelector);
    None for no selector, which matches no pod ({} matches every pod)."""
    sel = spec.get("selector") if isinstance(spec, dict) else None
    if not isinstance(sel, dict):
        return None
    reqs = [(k, "=", v) for k, v in (sel.get("matchLabels") or {}).items()]
    for e in sel.get("matchExpressions") or []:
        op = SELECTOR_OPS.get(e.get("operator"))
        if op is None:
            return None
        reqs.append((e.get("key"), op, set(e.get("values") or ()) if op in ("in", "notin") else None))
    return reqs


def _scaled(v, total):
    """GetScaledValueFromIntOrPercent(v, total, roundUp=true)."""
    if isinstance(v, str) and v.endswith("%"):
        return -(-int(v[:-1]) * total // 100)
    return int(v)


def pod_healthy(pod):
    """IsPodReady: a Ready condition "True" (no kubelet runs here: a test
    writes the condition through /status)."""
    st = pod.get("status") or {}
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
               for c in st.get("conditions") or [])


def pdb_pod_counts(pod, reqs):
    """(counted in expectedPods, healthy) of pod (an object, or None) for a
    budget whose selector is reqs (pdb_selector's), as 0/1 each: every pod the
    selector matches is counted (getPodsForPdb: terminal and terminating ones
    too), and healthy when Ready and not being deleted (countHealthyPods)."""
    if pod is None or reqs is None:
        return 0, 0
    md = pod.get("metadata") or {}
    if not label_match(md.get("labels"), reqs):
        return 0, 0
    return 1, 1 if not md.get("deletionTimestamp") and pod_healthy(pod) else 0


def pdb_scaled(spec):
    """A budget whose expectedPods is its pods' controllers' scale, not its
    pods' number: spec.maxUnavailable, or a percent spec.minAvailable."""
    spec = spec if isinstance(spec, dict) else {}
    return spec.get("maxUnavailable") is not None or isinstance(spec.get("minAvailable"), str)


class PdbSyncError(Exception):
    """What makes the disruption controller's sync fail (its failSafe)."""


def pod_controller(pod):
    """metav1.GetControllerOf: the ownerReference with controller true, or None"""
    md = (pod or {}).get("metadata") or {}
    return next((r for r in md.get("ownerReferences") or [] if isinstance(r, dict) and r.get("controller") is True),
                None)


def controller_scale(get, ns, ref):
    """The disruption controller's finders: the spec.replicas of the
    ReplicationController, ReplicaSet or StatefulSet that ref (a pod's
    controllerRef) names, by name and uid; None when there is none (no
    Deployments here: a ReplicaSet counts by its own scale, as the scale
    finder counts one whose Deployment is missing).  get(resource, (ns,
    name)) gives the object or None."""
    group = (ref.get("apiVersion") or "").rpartition("/")[0]
    res = {("ReplicationController", ""): "replicationcontrollers", ("ReplicaSet", "apps"): "replicasets",
           ("ReplicaSet", "extensions"): "replicasets",
           ("StatefulSet", "apps"): "statefulsets"}.get((ref.get("kind"), group))
    obj = get(res, (ns, ref.get("name"))) if res else None
    if obj is None or obj["metadata"].get("uid") != ref.get("uid"):
        return None
    n = (obj.get("spec") or {}).get("replicas")
    return n if isinstance(n, int) else 1


def pdb_expected_scale(pods, scale):
    """getExpectedScale: the sum of spec.replicas of the controllers of pods
    (each counted once; a pod with no controller is left out, as unmanaged).
    scale(namespace, controllerRef) gives a controller's replicas, or None
    when there is no such controller (a sync error)."""
    seen = {}
    for p in pods:
        md = p.get("metadata") or {}
        ref = pod_controller(p)
        if ref is None or ref.get("uid") in seen:
            continue
        n = scale(md.get("namespace"), ref)
        if n is None:
            raise PdbSyncError('found no controllers for pod "%s"' % md.get("name"))
        seen[ref.get("uid")] = n
    return sum(seen.values())


def pdb_status(pdb, pods, now, scale):
    """The status the disruption controller would write for pdb (a stored
    object) given pods (the objects of every pod in its namespace) and
    scale (pdb_expected_scale's)."""
    old = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
    reqs = pdb_selector(pdb.get("spec"))
    mine = [(p, h) for p, (e, h) in ((p, pdb_pod_counts(p, reqs)) for p in pods) if e]
    disrupted = {}
    old_disrupted = old.get("disruptedPods")
    live = {p["metadata"]["name"] for p, _ in mine if not p["metadata"].get("deletionTimestamp")}
    for name, t in (old_disrupted.items() if isinstance(old_disrupted, dict) else ()):
        ts = parse_rfc3339(t)
        if name in live and ts is not None and ts + PDB_DELETION_TIMEOUT > now:
            disrupted[name] = t
    healthy = sum(h for p, h in mine if p["metadata"]["name"] not in disrupted)
    spec = pdb.get("spec") or {}
    try:
        if pdb_scaled(spec):
            expected = pdb_expected_scale([p for p, _ in mine], scale)
            if spec.get("maxUnavailable") is not None:
                desired = max(0, expected - _scaled(spec["maxUnavailable"], expected))
            else:
                desired = _scaled(spec["minAvailable"], expected)
        elif spec.get("minAvailable") is not None:
            expected = len(mine)
            desired = int(spec["minAvailable"])
        else:
            expected = desired = 0  # neither: nothing expected, nothing allowed
    except PdbSyncError as e:
        return pdb_fail_safe(pdb, str(e), now)
    return pdb_status_for(pdb, expected, healthy, desired, disrupted, now)


def _set_condition(conds, cond, now):
    """meta.SetStatusCondition: lastTransitionTime moves only when status does"""
    conds = [copy.deepcopy(c) for c in conds or [] if isinstance(c, dict)]
    cond["lastTransitionTime"] = now_rfc3339(now)
    i = next((i for i, c in enumerate(conds) if c.get("type") == cond["type"]), None)
    if i is None:
        conds.append(cond)
    else:
        if conds[i].get("status") == cond["status"] and conds[i].get("lastTransitionTime"):
            cond["lastTransitionTime"] = conds[i]["lastTransitionTime"]
        conds[i] = cond
    return conds


def pdb_fail_safe(pdb, message, now):
    """failSafe: the old status with disruptionsAllowed 0 and DisruptionAllowed
    "False", reason SyncFailed, the error as message."""
    old = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
    status = copy.deepcopy(old)
    status["disruptionsAllowed"] = 0
    cond = {"type": "DisruptionAllowed", "status": "False"}
    if old.get("observedGeneration"):
        cond["observedGeneration"] = old["observedGeneration"]
    cond.update({"lastTransitionTime": None, "reason": "SyncFailed", "message": message})
    status["conditions"] = _set_condition(old.get("conditions"), cond, now)
    return status


def pdb_status_for(pdb, expected, healthy, desired, disrupted, now):
    """updatePdbStatus: the status from the counts (and the disruptedPods
    kept); no disruption is allowed while expectedPods is 0."""
    old = pdb.get("status") if isinstance(pdb.get("status"), dict) else {}
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    gen = (pdb.get("metadata") or {}).get("generation") or 0
    status = {}
    if gen:
        status["observedGeneration"] = gen
    if disrupted:
        status["disruptedPods"] = disrupted
    status.update({"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
                   "expectedPods": expected})
    cond = {"type": "DisruptionAllowed", "status": "True" if allowed > 0 else "False"}
    if gen:
        cond["observedGeneration"] = gen
    cond["lastTransitionTime"] = None
    cond["reason"] = "SufficientPods" if allowed > 0 else "InsufficientPods"
    cond["message"] = ""
    status["conditions"] = _set_condition(old.get("conditions"), cond, now)
    return status


def pod_spec_mask(spec):
    s = copy.deepcopy(spec or {})
    for g in ("containers", "initContainers"):
        for c in s.get(g) or []:
            if isinstance(c, dict):
                c.pop("image", None)
    for k in ("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "schedulingGates"):
        s.pop(k, None)
    return s


# ---------------------------------------------------------------- volumes (the PV controller, a provisioner)

VOLUME_RESOURCES = ("persistentvolumeclaims", "persistentvolumes", "storageclasses")
STORAGE_BULK_ORDER = ("storageclasses", "csidrivers", "csinodes", "csistoragecapacities", "persistentvolumes",
                      "persistentvolumeclaims", "volumeattachments")
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
ANN_BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
NO_PROVISIONER = "kubernetes.io/no-provisioner"
ZONE_LABEL = "topology.kubernetes.io/zone"
HOSTNAME_LABEL = "kubernetes.io/hostname"


def default_volume_object(res, obj):
    """The API server's defaults for a new PersistentVolume(Claim) or
    StorageClass (status.phase Pending, volumeMode Filesystem, reclaim
    policies, volumeBindingMode Immediate); a status given is kept."""
    spec = obj.get("spec")
    if res in ("persistentvolumeclaims", "persistentvolumes"):
        if isinstance(spec, dict):
            spec.setdefault("volumeMode", "Filesystem")
            if res == "persistentvolumes":
                spec.setdefault("persistentVolumeReclaimPolicy", "Retain")
        st = obj.get("status")
        if not isinstance(st, dict):
            st = obj["status"] = {}
        st.setdefault("phase", "Pending")
    elif res == "storageclasses":
        obj.setdefault("reclaimPolicy", "Delete")
        obj.setdefault("volumeBindingMode", "Immediate")


def claim_class(pvc):
    """GetPersistentVolumeClaimClass: the beta annotation, else
    spec.storageClassName, else ""."""
    ann = _get(pvc, "metadata", "annotations") or {}
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return _get(pvc, "spec", "storageClassName") or ""


def volume_class(pv):
    ann = _get(pv, "metadata", "annotations") or {}
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return _get(pv, "spec", "storageClassName") or ""


def storage_qty(m):
    q = parse_quantity((m or {}).get("storage")) if isinstance(m, dict) else None
    return q if q is not None else decimal.Decimal(0)


def claim_request(pvc):
    return storage_qty(_get(pvc, "spec", "resources", "requests"))


def volume_bound_to_claim(pv, pvc):
    """IsVolumeBoundToClaim: claimRef names the claim (and its uid, if set)."""
    ref = _get(pv, "spec", "claimRef")
    if not isinstance(ref, dict):
        return False
    md = pvc["metadata"]
    return ref.get("name") == md["name"] and (ref.get("namespace") or "") == md.get("namespace", "") and \
        (not ref.get("uid") or ref["uid"] == md["uid"])


def access_modes_fit(pv, pvc):
    have = set(_get(pv, "spec", "accessModes") or [])
    return set(_get(pvc, "spec", "accessModes") or []) <= have


def volume_mode(obj):
    return _get(obj, "spec", "volumeMode") or "Filesystem"


def claim_selector(pvc):
    """label_match requirements of a claim's spec.selector; [] for none."""
    sel = _get(pvc, "spec", "selector")
    if not isinstance(sel, dict):
        return []
    reqs = pdb_selector({"selector": sel})
    return reqs if reqs is not None else [("", "exists", None), ("", "!exists", None)]   # matches nothing


def volume_satisfies_claim(pv, pvc):
    """checkVolumeSatisfyClaim: capacity, class, access modes, volume mode."""
    return storage_qty(_get(pv, "spec", "capacity")) >= claim_request(pvc) and \
        volume_class(pv) == claim_class(pvc) and access_modes_fit(pv, pvc) and volume_mode(pv) == volume_mode(pvc)


def find_volume_for_claim(pvs, pvc, delay_binding):
    """findBestMatchForClaim with no node (the PV controller): a volume
    pre-bound to the claim (claimRef) wins; else, unless binding waits for
    the first consumer, the smallest Available volume of the claim's class
    whose access modes contain the claim's, whose labels its selector
    matches and whose capacity covers the request."""
    want = claim_request(pvc)
    reqs = claim_selector(pvc)
    best, best_qty = None, None
    for pv in pvs:
        if not access_modes_fit(pv, pvc):
            continue
        ref = _get(pv, "spec", "claimRef")
        if ref is not None and not volume_bound_to_claim(pv, pvc):
            continue
        qty = storage_qty(_get(pv, "spec", "capacity"))
        if qty < want or volume_mode(pv) != volume_mode(pvc) or pv["metadata"].get("deletionTimestamp"):
            continue
        if ref is not None:
            return pv
        if delay_binding:
            continue
        if _get(pv, "status", "phase") != "Available" or not label_match(_get(pv, "metadata", "labels"), reqs) \
                or volume_class(pv) != claim_class(pvc):
            continue
        if best is None or qty < best_qty:
            best, best_qty = pv, qty
    return best


def claim_reference(pvc):
    md = pvc["metadata"]
    return {"kind": "PersistentVolumeClaim", "namespace": md.get("namespace", ""), "name": md["name"],
            "uid": md["uid"], "apiVersion": "v1", "resourceVersion": md["resourceVersion"]}


def provisioned_volume(pvc, sc, node, handle):
    """The PersistentVolume an external (CSI) provisioner makes for claim
    pvc of class sc, on node (a Node object, or None for Immediate
    binding): named pvc-<claim uid>, the request as its capacity, the
    claim's access modes and volume mode, a claimRef with the uid, spec.csi
    {driver: the provisioner, volumeHandle}; its nodeAffinity requires the
    node's zone (topology.kubernetes.io/zone, also put in its labels) or,
    when the node has none, its kubernetes.io/hostname (the label, else the
    node's name); with no node, the class's first allowedTopologies term."""
    md = pvc["metadata"]
    spec = pvc.get("spec") or {}
    prov = sc.get("provisioner")
    pv = {"metadata": {"name": "pvc-" + md["uid"], "annotations": {ANN_PROVISIONED_BY: prov}},
          "spec": {"accessModes": list(spec.get("accessModes") or []),
                   "capacity": {"storage": (_get(spec, "resources", "requests") or {})["storage"]},
                   "claimRef": claim_reference(pvc),
                   "csi": {"driver": prov, "volumeHandle": handle, "fsType": "ext4",
                           "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": "standin-" + prov}},
                   "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
                   "storageClassName": sc["metadata"]["name"],
                   "volumeMode": volume_mode(pvc)}}
    if sc.get("mountOptions"):
        pv["spec"]["mountOptions"] = list(sc["mountOptions"])
    terms = None
    if node is not None:
        labels = _get(node, "metadata", "labels") or {}
        if labels.get(ZONE_LABEL):
            pv["metadata"]["labels"] = {ZONE_LABEL: labels[ZONE_LABEL]}
            terms = [{"matchExpressions": [{"key": ZONE_LABEL, "operator": "In", "values": [labels[ZONE_LABEL]]}]}]
        else:
            host = labels.get(HOSTNAME_LABEL) or node["metadata"]["name"]
            terms = [{"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [host]}]}]
    elif sc.get("allowedTopologies"):
        t = sc["allowedTopologies"][0] or {}
        exprs = [{"key": e.get("key"), "operator": "In", "values": list(e.get("values") or [])}
                 for e in t.get("matchLabelExpressions") or []]
        if exprs:
            terms = [{"matchExpressions": exprs}]
    if terms:
        pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    return pv


def claim_ref_key(pv):
    """The key (namespace, name) of the claim volume pv's spec.claimRef
    names, or None (no claimRef object, or a name no claim can have)."""
    ref = _get(pv, "spec", "claimRef")
    if not isinstance(ref, dict):
        return None
    ns, name = ref.get("namespace") or "", ref.get("name") or ""
    if not isinstance(ns, str) or not isinstance(name, str):
        return None
    return ns, name


def _index_edit(index, k, v, add):
    """Add v to (or remove it from) the set index[k]; no empty sets kept."""
    if add:
        index.setdefault(k, set()).add(v)
        return
    s = index.get(k)
    if s is not None:
        s.discard(v)
        if not s:
            del index[k]


class VolumeIndex:
    """What the PV controller (App._sync_volumes) must look at again, and the
    indexes that find it, kept by every write of a claim, volume or class
    (note, from Store.on_commit).  A pass takes, in the same order as a walk
    over every volume then every claim, only those marked: each unmarked
    one's turn would write nothing, so the passes write what full walks would
    -- in the same order, from the same state -- at the cost of what the
    writes can affect instead of every claim times every volume per write.
    A write marks what reads the object written (App._sync_volume,
    App._sync_claim):
      * a volume: itself; the claims its claimRef names, before and after
        (their pre-bound volume); the claims whose spec.volumeName names it;
        the claim whose uid its name pvc-<uid> carries (_provision's "made
        already"); and, when it has no claimRef, the unbound claims of its
        class when that class binds at once or is "" (the smallest
        Available volume);
      * a claim: itself, and the volumes whose claimRef names it (Released
        when it goes);
      * a class: the unbound claims of that class.
    What the provisioner's faults decide marks everything (mark_all).  A
    turn takes its object off before it runs, so that the turn's own writes
    mark it for the next pass, as a full walk would look at it again there;
    what a pass marks after its cursor it takes in this pass.  Marks left
    when the passes stop (App._sync_volumes runs at most 4) stay for the
    next write."""

    def __init__(self):
        self.dirty = {"persistentvolumes": set(), "persistentvolumeclaims": set()}
        self.pvs_by_ref = {}        # claim key -> keys of the volumes whose claimRef names it
        self.free_by_class = {}     # class -> keys of the volumes without a claimRef
        self.pv_seq = {}            # volume key -> its rank in the store's dict (insertion order)
        self.pv_seq_next = 0
        self.claims_by_volume = {}  # spec.volumeName -> keys of the claims naming it
        self.unbound_by_class = {}  # class -> keys of the claims without spec.volumeName
        self.claim_by_uid = {}
        self.phase = None           # [resource, heap of marked keys, cursor] while a pass runs

    def mark(self, res, key):
        d = self.dirty[res]
        if key in d:
            return
        d.add(key)
        if self.phase is not None and self.phase[0] == res and key > self.phase[2]:
            heapq.heappush(self.phase[1], key)

    def mark_all(self, store):
        for res, d in self.dirty.items():
            d.update(store.objs[res])

    def _claim_index(self, key, obj, add):
        if obj is None:
            return
        uid = obj["metadata"].get("uid")
        if add:
            self.claim_by_uid[uid] = key
        elif self.claim_by_uid.get(uid) == key:
            del self.claim_by_uid[uid]
        vname = _get(obj, "spec", "volumeName")
        if vname:
            if isinstance(vname, str):
                _index_edit(self.claims_by_volume, vname, key, add)
            return
        cls = claim_class(obj)
        if isinstance(cls, str):
            _index_edit(self.unbound_by_class, cls, key, add)

    def _volume_index(self, key, obj, add):
        if obj is None:
            return
        rk = claim_ref_key(obj)
        if rk is not None:
            _index_edit(self.pvs_by_ref, rk, key, add)
        elif _get(obj, "spec", "claimRef") is None:
            cls = volume_class(obj)
            if isinstance(cls, str):
                _index_edit(self.free_by_class, cls, key, add)

    @staticmethod
    def _binds_at_once(store, cls):
        """Whether claims of class cls look for an Available volume (their
        class is "", or exists and is not WaitForFirstConsumer)."""
        if cls == "":
            return True
        sc = store.get("storageclasses", ("", cls))
        return sc is not None and sc.obj.get("volumeBindingMode") != "WaitForFirstConsumer"

    def note(self, store, res, etype, rec, prev):
        """Store.on_commit for claims, volumes and classes: the indexes
        updated, and what the write can change marked."""
        old = prev.obj if prev is not None else None
        new = rec.obj if etype != "DELETED" else None
        claims = "persistentvolumeclaims"
        if res == "storageclasses":
            for k in self.unbound_by_class.get(rec.name, ()):
                self.mark(claims, k)
            return
        key = (rec.namespace, rec.name)
        if res == claims:
            self._claim_index(key, old, False)
            self._claim_index(key, new, True)
            self.mark(claims, key)
            for k in self.pvs_by_ref.get(key, ()):
                self.mark("persistentvolumes", k)
            return
        self._volume_index(key, old, False)
        self._volume_index(key, new, True)
        if old is None:
            self.pv_seq[key] = self.pv_seq_next
            self.pv_seq_next += 1
        elif new is None:
            self.pv_seq.pop(key, None)
        self.mark("persistentvolumes", key)
        for o in (old, new):
            if o is None:
                continue
            rk = claim_ref_key(o)
            if rk is not None:
                self.mark(claims, rk)
            if _get(o, "spec", "claimRef") is None:
                cls = volume_class(o)
                if isinstance(cls, str) and self._binds_at_once(store, cls):
                    for k in self.unbound_by_class.get(cls, ()):
                        self.mark(claims, k)
        for k in self.claims_by_volume.get(key[1], ()):
            self.mark(claims, k)
        if key[1].startswith("pvc-") and key[1][4:] in self.claim_by_uid:
            self.mark(claims, self.claim_by_uid[key[1][4:]])

    def candidates(self, store, pvc, delay):
        """The volumes find_volume_for_claim can pick for claim pvc, in the
        store's order: those whose claimRef names it and, unless binding
        waits for the first consumer, those of its class without a
        claimRef; every other volume it skips."""
        md = pvc["metadata"]
        keys = set(self.pvs_by_ref.get((md.get("namespace", ""), md["name"]), ()))
        if not delay:
            keys |= self.free_by_class.get(claim_class(pvc), set())
        pvs = store.objs["persistentvolumes"]
        return [pvs[k].obj for k in sorted(keys, key=self.pv_seq.__getitem__)]

    def run(self, res, sync_one):
        """One pass over the marked objects of res, in key order (those
        marked past the cursor meanwhile included); True when one wrote."""
        d = self.dirty[res]
        heap = sorted(d)
        self.phase = [res, heap, ()]
        changed = False
        try:
            while heap:
                key = heapq.heappop(heap)
                if key not in d:
                    continue
                d.discard(key)
                self.phase[2] = key
                try:
                    if sync_one(key):
                        changed = True
                except Exception:
                    d.add(key)      # as a full walk would, it fails again next time
                    raise
        finally:
            self.phase = None
        return changed


# ---------------------------------------------------------------- events.k8s.io/v1

# The events are stored once, in core/v1 form ("events"); events.k8s.io/v1 is
# a second view of them, converted both ways as pkg/apis/events/v1 does
# (events.k8s.io/v1 field -> core/v1 field; eventTime, series, action,
# related, reportingInstance, reason and type keep their names).
EVENTS_GROUP = "events.k8s.io"
EVENTS_V1 = "events.k8s.io/v1"
EVENT_V1_RENAMES = (("regarding", "involvedObject"), ("note", "message"),
                    ("reportingController", "reportingComponent"), ("deprecatedSource", "source"),
                    ("deprecatedFirstTimestamp", "firstTimestamp"), ("deprecatedLastTimestamp", "lastTimestamp"),
                    ("deprecatedCount", "count"))
# its field selectors (kube's field label conversions for events.k8s.io/v1),
# read from the stored core/v1 object
EVENT_V1_FIELDS = dict(META_FIELDS, **{
    "regarding." + f: _field("involvedObject", f)
    for f in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")})
EVENT_V1_FIELDS.update({"reason": _field("reason"), "type": _field("type"),
                        "reportingController": _field("reportingComponent")})
OBJECT_REFERENCE_FIELDS = (("Kind", "kind"), ("Namespace", "namespace"), ("Name", "name"), ("UID", "uid"),
                           ("APIVersion", "apiVersion"), ("ResourceVersion", "resourceVersion"),
                           ("FieldPath", "fieldPath"))


def event_to_v1(obj):
    """A stored core/v1 event (kind-less) as events.k8s.io/v1 serializes it:
    its fields in the Go type's order, the empty ones left out but for
    eventTime, regarding, deprecatedSource and the deprecated timestamps
    (null or {} when unset, as the real server writes them)."""
    g = obj.get
    out = {"metadata": g("metadata") or {}, "eventTime": g("eventTime")}
    if g("series") is not None:
        out["series"] = g("series")
    for k, ck in (("reportingController", "reportingComponent"), ("reportingInstance", "reportingInstance"),
                  ("action", "action"), ("reason", "reason")):
        if g(ck):
            out[k] = g(ck)
    out["regarding"] = g("involvedObject") or {}
    if g("related") is not None:
        out["related"] = g("related")
    if g("message"):
        out["note"] = g("message")
    if g("type"):
        out["type"] = g("type")
    out["deprecatedSource"] = g("source") or {}
    out["deprecatedFirstTimestamp"] = g("firstTimestamp")
    out["deprecatedLastTimestamp"] = g("lastTimestamp")
    if g("count"):
        out["deprecatedCount"] = g("count")
    return out


def event_from_v1(ev):
    """An events.k8s.io/v1 event (decoded: see decode_event_v1) in core/v1
    form, as the real server's core/v1 view serializes it (source {},
    unset timestamps null, reportingComponent and reportingInstance always)."""
    g = ev.get
    out = {"metadata": g("metadata") or {}, "involvedObject": g("regarding") or {}}
    if g("reason"):
        out["reason"] = g("reason")
    if g("note"):
        out["message"] = g("note")
    out["source"] = g("deprecatedSource") or {}
    out["firstTimestamp"] = g("deprecatedFirstTimestamp")
    out["lastTimestamp"] = g("deprecatedLastTimestamp")
    if g("deprecatedCount"):
        out["count"] = g("deprecatedCount")
    if g("type"):
        out["type"] = g("type")
    out["eventTime"] = g("eventTime")
    for k in ("series", "action", "related"):
        if g(k) is not None and g(k) != "":
            out[k] = g(k)
    out["reportingComponent"] = g("reportingController") or ""
    out["reportingInstance"] = g("reportingInstance") or ""
    return out


class EventsV1View:
    """The events.k8s.io/v1 view of the "events" store for the handler's
    GET, list, watch and Table output."""
    res = "events"
    api_version = EVENTS_V1
    kind = "Event"
    list_kind = "EventList"
    fields = EVENT_V1_FIELDS

    @staticmethod
    def item(obj):
        return event_to_v1(obj)

    @staticmethod
    def full(obj):
        d = {"kind": "Event", "apiVersion": EVENTS_V1}
        d.update(event_to_v1(obj))
        return d


EVENTS_V1_VIEW = EventsV1View()

RFC3339_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
                        r"(Z|[+-][0-9]{2}:[0-9]{2})$")
LAYOUT_TIME = "2006-01-02T15:04:05Z07:00"
LAYOUT_MICRO = "2006-01-02T15:04:05.000000Z07:00"
ZERO_TIME = datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)


def parse_kube_time(s, micro):
    """A metav1.Time (micro False: RFC 3339, any fraction) or MicroTime
    (micro True: exactly 6 digits of fraction, as Go's time.Parse with
    RFC3339Micro wants) as a UTC datetime (microseconds kept), None for
    null; ValueError with Go's wording otherwise."""
    if s is None:
        return None
    layout = LAYOUT_MICRO if micro else LAYOUT_TIME
    if not isinstance(s, str):
        raise ValueError("json: cannot unmarshal %s into Go value of type string" % _json_type(s))
    m = RFC3339_RE.match(s)
    if m and micro and (m.group(7) is None or len(m.group(7)) != 7):
        rest = s[m.end(6):]
        raise ValueError('parsing time %s as "%s": cannot parse %s as ".000000"' % (
            json.dumps(s), layout, json.dumps(rest)))
    if not m:
        raise ValueError('parsing time %s as "%s": cannot parse %s as "2006"' % (json.dumps(s), layout, json.dumps(s)))
    try:
        frac = m.group(7) or ""
        us = int((frac[1:] + "000000")[:6]) if frac else 0
        tz = m.group(8)
        off = datetime.timedelta(0) if tz == "Z" else \
            (1 if tz[0] == "+" else -1) * datetime.timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6]))
        dt = datetime.datetime(*[int(m.group(i)) for i in range(1, 7)], us, tzinfo=datetime.timezone(off))
        return dt.astimezone(datetime.timezone.utc)
    except (ValueError, OverflowError) as e:
        raise ValueError('parsing time %s: %s' % (json.dumps(s), e)) from None


def kube_time_text(dt, micro):
    """A parsed time as the real server writes it back (UTC; MicroTime with
    6 digits, Time to the second); None (null) for the zero time."""
    if dt is None or dt == ZERO_TIME:
        return None
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second)
    return text + (".%06dZ" % dt.microsecond if micro else "Z")


def _time_of(v):
    """A stored timestamp (already normalized, or as a core/v1 write left
    it) as a datetime, None when unset, zero or unreadable."""
    try:
        dt = parse_kube_time(v, False) if isinstance(v, str) else None
    except ValueError:
        return None
    return None if dt is None or dt == ZERO_TIME else dt


def _json_type(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


# events.k8s.io/v1 Event fields: (JSON name, Go type name) for the type checks of decoding
EVENT_V1_STRINGS = ("reportingController", "reportingInstance", "action", "reason", "note", "type")
EVENT_V1_OBJECTS = (("metadata", "v1.ObjectMeta"), ("series", "v1.EventSeries"), ("regarding", "v1.ObjectReference"),
                    ("related", "v1.ObjectReference"), ("deprecatedSource", "v1.EventSource"))


def decode_event_v1(obj):
    """An events.k8s.io/v1 Event as the real server decodes it: kind and
    apiVersion checked and dropped, each field of its JSON type (400
    otherwise, as a decoding error), timestamps normalized (eventTime and
    series.lastObservedTime MicroTime, exactly 6 digits of fraction; the
    deprecated timestamps Time).  Returns a fresh dict."""
    def fail(msg):
        return bad_request('Event in version "v1" cannot be handled as a Event: ' + msg)
    if not isinstance(obj, dict):
        raise bad_request("the body of the request was in an unknown format - expected a JSON object")
    if obj.get("kind") and obj["kind"] != "Event":
        raise bad_request("the kind in the data (%s) does not match the expected kind (Event)" % obj["kind"])
    if obj.get("apiVersion") and obj["apiVersion"] != EVENTS_V1:
        raise bad_request("the API version in the data (%s) does not match the expected API version (%s)"
                          % (obj["apiVersion"], EVENTS_V1))
    ev = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("kind", "apiVersion")}

    def wrong(path, v, gotype):
        return fail("json: cannot unmarshal %s into Go struct field %s of type %s" % (_json_type(v), path, gotype))
    for k in EVENT_V1_STRINGS:
        if ev.get(k) is not None and not isinstance(ev[k], str):
            raise wrong("Event." + k, ev[k], "string")
    for k, gotype in EVENT_V1_OBJECTS:
        if ev.get(k) is not None and not isinstance(ev[k], dict):
            raise wrong("Event." + k, ev[k], gotype)
    for k in ("regarding", "related"):
        for _, f in OBJECT_REFERENCE_FIELDS:
            v = _get(ev, k, f)
            if v is not None and not isinstance(v, str):
                raise wrong("Event.%s.%s" % (k, f), v, "string")
    for f in ("component", "host"):
        v = _get(ev, "deprecatedSource", f)
        if v is not None and not isinstance(v, str):
            raise wrong("Event.deprecatedSource." + f, v, "string")
    for path, v in (("Event.deprecatedCount", ev.get("deprecatedCount")),
                    ("Event.series.count", _get(ev, "series", "count"))):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not -2 ** 31 <= v < 2 ** 31):
            raise wrong(path, v, "int32")
    if ev.get("metadata") is None:
        ev["metadata"] = {}
    try:
        for k, micro in (("eventTime", True), ("deprecatedFirstTimestamp", False),
                         ("deprecatedLastTimestamp", False)):
            if k in ev:
                ev[k] = kube_time_text(parse_kube_time(ev[k], micro), micro)
        if isinstance(ev.get("series"), dict) and "lastObservedTime" in ev["series"]:
            ev["series"]["lastObservedTime"] = kube_time_text(parse_kube_time(ev["series"]["lastObservedTime"],
                                                                              True), True)
    except ValueError as e:
        raise fail(str(e)) from None
    return ev


# ---- kube's ValidateEventCreate / ValidateEventUpdate (pkg/apis/core/validation/events.go), on the core form

QUALIFIED_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                         "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
                         "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def is_dns1123_subdomain(v):
    """apimachinery's IsDNS1123Subdomain: its messages."""
    errs = []
    if len(v) > 253:
        errs.append("must be no more than 253 characters")
    if not DNS1123_SUBDOMAIN.match(v):
        errs.append(DNS1123_SUBDOMAIN_MSG)
    return errs


def is_qualified_name(v):
    """apimachinery's IsQualifiedName ([prefix/]name): its messages."""
    errs = []
    parts = v.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ["a qualified name " + QUALIFIED_NAME_MSG +
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if not QUALIFIED_NAME_RE.match(name):
        errs.append("name part " + QUALIFIED_NAME_MSG)
    return errs


def _go_quote(v):
    return json.dumps(v if isinstance(v, str) else _s(v), ensure_ascii=False)


def _go_time_text(dt):
    """Go's time.Time String() in UTC ("2006-01-02 15:04:05.999999999 -0700 MST")."""
    dt = dt or ZERO_TIME
    frac = (".%06d" % dt.microsecond).rstrip("0") if dt.microsecond else ""
    return "%04d-%02d-%02d %02d:%02d:%02d%s +0000 UTC" % (dt.year, dt.month, dt.day, dt.hour, dt.minute,
                                                         dt.second, frac)


def _object_reference_value(ref):
    """A core.ObjectReference as the field errors print it (Go's %#v), or
    None for none."""
    if not isinstance(ref, dict):
        return None
    return "core.ObjectReference{%s}" % ", ".join('%s:%s' % (gn, _go_quote(ref.get(jn) or ""))
                                                   for gn, jn in OBJECT_REFERENCE_FIELDS)


def _bytes_len(v):
    return len(v.encode("utf-8")) if isinstance(v, str) else 0


def event_legacy_causes(ev, ns):
    """kube's legacyValidateEvent, for an events.k8s.io/v1 request (its
    field names are the core type's but for reportingController)."""
    causes = []
    io = ev.get("involvedObject") if isinstance(ev.get("involvedObject"), dict) else {}
    ions = io.get("namespace") or ""
    mismatch = ("involvedObject.namespace", "Invalid value: %s: does not match event.namespace" % _go_quote(ions))
    if _time_of(ev.get("eventTime")) is None:
        if not ions:
            if ns not in ("", "default"):
                causes.append(mismatch)
        elif ns != ions:
            causes.append(mismatch)
    else:
        if not ions and ns not in ("default", "kube-system"):
            causes.append(mismatch)
        rc = ev.get("reportingComponent") or ""
        if not rc:
            causes.append(("reportingController", "Required value"))
        for msg in is_qualified_name(rc):
            causes.append(("reportingController", "Invalid value: %s: %s" % (_go_quote(rc), msg)))
        for f, limit, required in (("reportingInstance", 128, True), ("action", 128, True), ("reason", 128, True),
                                   ("message", 1024, False)):
            n = _bytes_len(ev.get(f))
            if required and n == 0:
                causes.append((f, "Required value"))
            if n > limit:
                causes.append((f, 'Invalid value: "": can have at most %d characters' % limit))
    for msg in is_dns1123_subdomain(ns):
        causes.append(("namespace", "Invalid value: %s: %s" % (_go_quote(ns), msg)))
    return causes


def _series_causes(ev):
    s = ev.get("series")
    if s is None:
        return []
    causes = []
    if not isinstance(s.get("count"), int) or s["count"] < 2:
        causes.append(("series.count", 'Invalid value: "": should be at least 2'))
    if _time_of(s.get("lastObservedTime")) is None:
        causes.append(("series.lastObservedTime", "Required value"))
    return causes


def event_create_causes(ev, ns):
    """kube's ValidateEventCreate for events.k8s.io/v1 (strict): the
    legacy rules, metadata, series, eventTime, type and the deprecated
    fields unset."""
    causes = event_legacy_causes(ev, ns)
    md = ev.get("metadata") or {}
    name = md.get("name") or ""
    gen = md.get("generateName") or ""
    if gen:
        # NameIsDNSSubdomain(prefix=true): a trailing dash masked
        for msg in is_dns1123_subdomain(gen[:-2] + "a" if len(gen) > 1 and gen.endswith("-") else gen):
            causes.append(("metadata.generateName", "Invalid value: %s: %s" % (_go_quote(md["generateName"]), msg)))
    if not name:
        if not md.get("generateName"):
            causes.append(("metadata.name", "Required value: name or generateName is required"))
    else:
        for msg in is_dns1123_subdomain(name):
            causes.append(("metadata.name", "Invalid value: %s: %s" % (_go_quote(name), msg)))
    causes.extend(_series_causes(ev))
    if _time_of(ev.get("eventTime")) is None:
        causes.append(("eventTime", "Required value"))
    if ev.get("type") not in ("Normal", "Warning"):
        causes.append(("type", 'Invalid value: "": has invalid value: %s' % _s(ev.get("type"))))
    unset = 'Invalid value: "": needs to be unset'
    if _time_of(ev.get("firstTimestamp")) is not None:
        causes.append(("firstTimestamp", unset))
    if _time_of(ev.get("lastTimestamp")) is not None:
        causes.append(("lastTimestamp", unset))
    if ev.get("count"):
        causes.append(("count", unset))
    src = ev.get("source") if isinstance(ev.get("source"), dict) else {}
    if src.get("component") or src.get("host"):
        causes.append(("source", unset))
    return causes


def _event_semantic(ev):
    """The fields ValidateEventUpdate compares, each as (value for equality,
    the value as its field error prints it)."""
    def ref(v):
        if not isinstance(v, dict):
            return None, '"null"'
        return tuple(v.get(jn) or "" for _, jn in OBJECT_REFERENCE_FIELDS), _object_reference_value(v)

    def text(k):
        v = ev.get(k) or ""
        return v, _go_quote(v)

    def tm(k):
        dt = _time_of(ev.get(k))
        return dt, _go_time_text(dt)
    src = ev.get("source") if isinstance(ev.get("source"), dict) else {}
    comp, host = src.get("component") or "", src.get("host") or ""
    count = ev.get("count") or 0
    et = _time_of(ev.get("eventTime"))
    return {
        "involvedObject": ref(ev.get("involvedObject") if isinstance(ev.get("involvedObject"), dict) else {}),
        "reason": text("reason"), "message": text("message"),
        "source": ((comp, host), "core.EventSource{Component:%s, Host:%s}" % (_go_quote(comp), _go_quote(host))),
        "firstTimestamp": tm("firstTimestamp"), "lastTimestamp": tm("lastTimestamp"),
        "count": (count, _s(count)), "type": text("type"),
        "eventTime": (et, _go_time_text(et)),
        "action": text("action"), "related": ref(ev.get("related")),
        "reportingController": text("reportingComponent"), "reportingInstance": text("reportingInstance"),
    }


def _series_key(ev):
    s = ev.get("series")
    if not isinstance(s, dict):
        return None
    return s.get("count"), _time_of(s.get("lastObservedTime"))


def event_update_causes(new, old, ns):
    """kube's ValidateEventUpdate for events.k8s.io/v1: the legacy rules,
    the series (when changed) as on create, and the immutable fields (named
    as in the core type, reason twice, as kube checks it twice)."""
    causes = event_legacy_causes(new, ns)
    if _series_key(new) != _series_key(old):
        causes.extend(_series_causes(new))
    a, b = _event_semantic(new), _event_semantic(old)
    for f in ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "reason",
              "type", "eventTime", "action", "related", "reportingController", "reportingInstance"):
        if a[f][0] != b[f][0]:
            causes.append((f, "Invalid value: %s: field is immutable" % a[f][1]))
    return causes


def events_v1_error(e):
    """An error of the "events" store as the events.k8s.io/v1 path says it:
    the resource qualified (events.events.k8s.io), the group in the details."""
    d = e.details
    if not isinstance(d, dict) or d.get("group") or d.get("kind") not in ("events", "Event"):
        return e
    if d["kind"] == "events":
        e.message = e.message.replace('events "', 'events.events.k8s.io "', 1)
    else:
        e.message = e.message.replace('Event "', 'Event.events.k8s.io "', 1)
    nd = {"name": d.get("name"), "group": EVENTS_GROUP}
    nd.update((k, v) for k, v in d.items() if k not in ("name", "group"))
    e.details = nd
    return e


# ---------------------------------------------------------------- tables

def _col(name, typ="string", desc="", priority=0, fmt=""):
    return {"name": name, "type": typ, "format": fmt, "description": desc or name, "priority": priority}


AGE_DESC = "CreationTimestamp is a timestamp representing the server time when this object was created."
TABLE_COLUMNS = {
    "pods": [_col("Name", fmt="name", desc="Name must be unique within a namespace."),
             _col("Ready", desc="The aggregate readiness state of this pod for accepting traffic."),
             _col("Status", desc="The aggregate status of the containers in this pod."),
             _col("Restarts", "integer", desc="The number of times the containers in this pod have been restarted."),
             _col("Age", desc=AGE_DESC),
             _col("IP", priority=1, desc="IP address allocated to the pod."),
             _col("Node", priority=1, desc="Name of the Node this pod is bound to."),
             _col("Nominated Node", priority=1, desc="Name of the node this pod is nominated to."),
             _col("Readiness Gates", priority=1, desc="Pod readiness gates.")],
    "nodes": [_col("Name", fmt="name", desc="Name must be unique within a namespace."),
              _col("Status", desc="The status of the node"),
              _col("Roles", desc="The roles of the node"),
              _col("Age", desc=AGE_DESC),
              _col("Version", desc="Kubelet Version reported by the node."),
              _col("Internal-IP", priority=1), _col("External-IP", priority=1), _col("OS-Image", priority=1),
              _col("Kernel-Version", priority=1), _col("Container-Runtime", priority=1)],
    "events": [_col("Last Seen", desc="The time at which the most recent occurrence of this event was recorded."),
               _col("Type", desc="Type of this event (Normal, Warning), new types could be added in the future"),
               _col("Reason", desc="This should be a short, machine understandable string that gives the reason "
                                   "for the transition into the object's current status."),
               _col("Object", desc="The object that this event is about."),
               _col("Subobject", priority=1, desc="If referring to a piece of an object instead of an entire "
                                                  "object, this string should contain a valid JSON/Go field access "
                                                  "statement, such as desiredState.manifest.containers[2]."),
               _col("Source", priority=1, desc="The component reporting this event. Should be a short machine "
                                               "understandable string."),
               _col("Message", desc="A human-readable description of the status of this operation."),
               _col("First Seen", priority=1, desc="The time at which the event was first recorded. (Time of "
                                                   "server receipt is in TypeMeta.)"),
               _col("Count", priority=1, desc="The number of times this event has occurred."),
               _col("Name", fmt="name", priority=1, desc="Name must be unique within a namespace.")],
    "namespaces": [_col("Name", fmt="name"), _col("Status"), _col("Age")],
    "poddisruptionbudgets": [
        _col("Name", fmt="name", desc="Name must be unique within a namespace."),
        _col("Min Available", desc="The minimum number of pods that must be available."),
        _col("Max Unavailable", desc="The maximum number of pods that may be unavailable."),
        _col("Allowed Disruptions", "integer", desc="Calculated number of pods that may be disrupted at this time."),
        _col("Age", desc=AGE_DESC)],
    "services": [
        _col("Name", fmt="name", desc="Name must be unique within a namespace."),
        _col("Type", desc="type determines how the Service is exposed."),
        _col("Cluster-IP", desc="clusterIP is the IP address of the service."),
        _col("External-IP", desc="externalIPs is a list of IP addresses for which nodes in the cluster will also "
                                 "accept traffic for this service."),
        _col("Port(s)", desc="The list of ports that are exposed by this service."),
        _col("Age", desc=AGE_DESC),
        _col("Selector", priority=1, desc="Route service traffic to pods with label keys and values matching this "
                                          "selector.")],
    "statefulsets": [
        _col("Name", fmt="name", desc="Name must be unique within a namespace."),
        _col("Ready", desc="Number of the pod with ready state"),
        _col("Age", desc=AGE_DESC),
        _col("Containers", priority=1, desc="Names of each container in the template."),
        _col("Images", priority=1, desc="Images referenced by each container in the template.")],
}
TABLE_COLUMNS["replicationcontrollers"] = TABLE_COLUMNS["replicasets"] = [
    _col("Name", fmt="name", desc="Name must be unique within a namespace."),
    _col("Desired", "integer", desc="Replicas is the number of desired replicas."),
    _col("Current", "integer", desc="Replicas is the most recently oberved number of replicas."),
    _col("Ready", "integer", desc="The number of ready replicas for this replica set."),
    _col("Age", desc=AGE_DESC),
    _col("Containers", priority=1, desc="Names of each container in the template."),
    _col("Images", priority=1, desc="Images referenced by each container in the template."),
    _col("Selector", priority=1, desc="Selector is a label query over pods that should match the replica count.")]
TABLE_COLUMNS["persistentvolumeclaims"] = [
    _col("Name", fmt="name", desc="Name must be unique within a namespace."),
    _col("Status", desc="Phase represents the current phase of PersistentVolumeClaim."),
    _col("Volume", desc="VolumeName is the binding reference to the PersistentVolume backing this claim."),
    _col("Capacity", desc="Represents the actual resources of the underlying volume."),
    _col("Access Modes", desc="AccessModes contains the desired access modes the volume should have."),
    _col("StorageClass", desc="Name of the StorageClass required by the claim."),
    _col("Age", desc=AGE_DESC),
    _col("VolumeMode", priority=1, desc="volumeMode defines what type of volume is required by the claim.")]
TABLE_COLUMNS["persistentvolumes"] = [
    _col("Name", fmt="name", desc="Name must be unique within a namespace."),
    _col("Capacity", desc="A description of the persistent volume's resources and capacity."),
    _col("Access Modes", desc="AccessModes contains all ways the volume can be mounted."),
    _col("Reclaim Policy", desc="What happens to a persistent volume when released from its claim."),
    _col("Status", desc="Phase indicates if a volume is available, bound to a claim, or released by a claim."),
    _col("Claim", desc="ClaimRef is part of a bi-directional binding between PersistentVolume and "
                       "PersistentVolumeClaim."),
    _col("StorageClass", desc="Name of StorageClass to which this persistent volume belongs."),
    _col("Reason", desc="Reason is a brief CamelCase string that describes any failure."),
    _col("Age", desc=AGE_DESC),
    _col("VolumeMode", priority=1, desc="volumeMode defines if a volume is intended to be used with a formatted "
                                        "filesystem or to remain in raw block state.")]
TABLE_COLUMNS["storageclasses"] = [
    _col("Name", fmt="name", desc="Name must be unique within a namespace."),
    _col("Provisioner", desc="Provisioner indicates the type of the provisioner."),
    _col("ReclaimPolicy", desc="Dynamically provisioned PersistentVolumes of this storage class are created "
                               "with this reclaimPolicy."),
    _col("VolumeBindingMode", desc="VolumeBindingMode indicates how PersistentVolumeClaims should be "
                                   "provisioned and bound."),
    _col("AllowVolumeExpansion", desc="AllowVolumeExpansion shows whether the storage class allow volume expand."),
    _col("Age", desc=AGE_DESC)]
for _r in ("csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"):
    TABLE_COLUMNS[_r] = [_col("Name", fmt="name", desc="Name must be unique within a namespace."),
                         _col("Age", desc=AGE_DESC)]
ACCESS_MODE_SHORT = {"ReadWriteOnce": "RWO", "ReadOnlyMany": "ROX", "ReadWriteMany": "RWX",
                     "ReadWriteOncePod": "RWOP"}


def _access_modes_text(modes):
    return ",".join(ACCESS_MODE_SHORT.get(m, _s(m)) for m in modes or [])


def _template_cells(spec):
    cs = [c for c in _get(spec, "template", "spec", "containers") or [] if isinstance(c, dict)]
    return ",".join(_s(c.get("name")) for c in cs), ",".join(_s(c.get("image")) for c in cs)


def _selector_text(sel, label_selector):
    """A selector as kubectl prints it ("<none>" when empty)."""
    if not isinstance(sel, dict):
        return "<none>"
    if not label_selector:
        return ",".join("%s=%s" % (k, _s(v)) for k, v in sorted(sel.items())) or "<none>"
    parts = ["%s=%s" % (k, _s(v)) for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for e in sel.get("matchExpressions") or []:
        if not isinstance(e, dict):
            continue
        key, op = _s(e.get("key")), e.get("operator")
        vals = ",".join(sorted(_s(v) for v in e.get("values") or []))
        if op == "In":
            parts.append("%s in (%s)" % (key, vals))
        elif op == "NotIn":
            parts.append("%s notin (%s)" % (key, vals))
        elif op == "Exists":
            parts.append(key)
        elif op == "DoesNotExist":
            parts.append("!" + key)
    return ",".join(parts) or "<none>"


def _service_cells(spec, st):
    typ = spec.get("type") or "ClusterIP"
    ext = ",".join(_s(x) for x in spec.get("externalIPs") or [])
    if typ == "LoadBalancer":
        ing = [_s(i.get("ip") or i.get("hostname")) for i in _get(st, "loadBalancer", "ingress") or []
               if isinstance(i, dict)]
        ext = ",".join(ing + ([ext] if ext else [])) or "<pending>"
    elif typ == "ExternalName":
        ext = _s(spec.get("externalName"))
    ports = []
    for p in spec.get("ports") or []:
        if isinstance(p, dict):
            np = ":%s" % p["nodePort"] if p.get("nodePort") else ""
            ports.append("%s%s/%s" % (_s(p.get("port")), np, _s(p.get("protocol") or "TCP")))
    return [typ, _s(spec.get("clusterIP")) or "<none>", ext or "<none>", ",".join(ports) or "<none>"]


def event_cells(obj, md, now):
    """kube's printEvent (wide: the server always prints every column)."""
    def since(v):
        dt = _time_of(v)
        return "<unknown>" if dt is None else human_duration(now - dt.timestamp())
    io = obj.get("involvedObject") if isinstance(obj.get("involvedObject"), dict) else {}
    first = since(obj.get("firstTimestamp")) if _time_of(obj.get("firstTimestamp")) else since(obj.get("eventTime"))
    last = since(obj.get("lastTimestamp")) if _time_of(obj.get("lastTimestamp")) else first
    count = obj.get("count") if isinstance(obj.get("count"), int) else 0
    series = obj.get("series")
    if series is not None:
        last = since(_get(series, "lastObservedTime"))
        count = _get(series, "count") if isinstance(_get(series, "count"), int) else 0
    elif count == 0:
        count = 1   # singleton events have no count in the new API
    kind = _s(io.get("kind")).lower()
    target = "%s/%s" % (kind, io["name"]) if io.get("name") else kind
    src = obj.get("source") if isinstance(obj.get("source"), dict) else {}
    component = _s(src.get("component")) or _s(obj.get("reportingComponent"))
    instance = _s(src.get("host")) or _s(obj.get("reportingInstance"))
    source = component + ", " + instance if instance else component
    return [last, _s(obj.get("type")), _s(obj.get("reason")), target, _s(io.get("fieldPath")), source,
            _s(obj.get("message")).strip(), first, count, md.get("name")]


def table_cells(res, obj, now):
    md = obj.get("metadata") or {}
    age = human_duration(now - (parse_rfc3339(md.get("creationTimestamp")) or now))
    spec = obj.get("spec") or {}
    st = obj.get("status") or {}
    if res == "pods":
        cs = st.get("containerStatuses") or []
        total = len(spec.get("containers") or [])
        ready = sum(1 for c in cs if isinstance(c, dict) and c.get("ready"))
        restarts = sum(int(c.get("restartCount") or 0) for c in cs if isinstance(c, dict))
        status = st.get("reason") or st.get("phase") or "Unknown"
        if md.get("deletionTimestamp"):
            status = "Terminating"
        return [md.get("name"), "%d/%d" % (ready, total), status, restarts, age, st.get("podIP") or "<none>",
                spec.get("nodeName") or "<none>", st.get("nominatedNodeName") or "<none>", "<none>"]
    if res == "nodes":
        cond = {c.get("type"): c.get("status") for c in st.get("conditions") or [] if isinstance(c, dict)}
        status = {"True": "Ready", "False": "NotReady"}.get(cond.get("Ready"), "Unknown")
        if spec.get("unschedulable"):
            status += ",SchedulingDisabled"
        roles = sorted(k.split("/", 1)[1] for k in (md.get("labels") or {})
                       if k.startswith("node-role.kubernetes.io/") and "/" in k)
        addrs = {a.get("type"): a.get("address") for a in st.get("addresses") or [] if isinstance(a, dict)}
        info = st.get("nodeInfo") or {}
        return [md.get("name"), status, ",".join(roles) or "<none>", age, info.get("kubeletVersion") or "",
                addrs.get("InternalIP") or "<none>", addrs.get("ExternalIP") or "<none>",
                info.get("osImage") or "<unknown>", info.get("kernelVersion") or "<unknown>",
                info.get("containerRuntimeVersion") or "<unknown>"]
    if res == "events":
        return event_cells(obj, md, now)
    if res == "poddisruptionbudgets":
        return [md.get("name"), "N/A" if spec.get("minAvailable") is None else _s(spec["minAvailable"]),
                "N/A" if spec.get("maxUnavailable") is None else _s(spec["maxUnavailable"]),
                int(st.get("disruptionsAllowed") or 0), age]
    if res == "services":
        return [md.get("name")] + _service_cells(spec, st) + [age, _selector_text(spec.get("selector"), False)]
    if res in ("replicationcontrollers", "replicasets"):
        return [md.get("name"), int(spec.get("replicas") or 0), int(st.get("replicas") or 0),
                int(st.get("readyReplicas") or 0), age] + list(_template_cells(spec)) + [
                    _selector_text(spec.get("selector"), res == "replicasets")]
    if res == "statefulsets":
        return [md.get("name"), "%d/%d" % (int(st.get("readyReplicas") or 0), int(spec.get("replicas") or 0)),
                age] + list(_template_cells(spec))
    if res == "persistentvolumeclaims":
        return [md.get("name"), st.get("phase") or "", spec.get("volumeName") or "",
                _s((st.get("capacity") or {}).get("storage")), _access_modes_text(st.get("accessModes")),
                claim_class(obj), age, spec.get("volumeMode") or "<unset>"]
    if res == "persistentvolumes":
        ref = spec.get("claimRef") if isinstance(spec.get("claimRef"), dict) else None
        return [md.get("name"), _s((spec.get("capacity") or {}).get("storage")),
                _access_modes_text(spec.get("accessModes")), _s(spec.get("persistentVolumeReclaimPolicy")),
                st.get("phase") or "", "%s/%s" % (_s(ref.get("namespace")), _s(ref.get("name"))) if ref else "",
                volume_class(obj), st.get("reason") or "", age, spec.get("volumeMode") or "<unset>"]
    if res == "storageclasses":
        name = md.get("name")
        if (md.get("annotations") or {}).get(ANN_DEFAULT_CLASS) == "true":
            name += " (default)"
        return [name, _s(obj.get("provisioner")), _s(obj.get("reclaimPolicy")), _s(obj.get("volumeBindingMode")),
                _s(bool(obj.get("allowVolumeExpansion"))), age]
    if res in ("csinodes", "csidrivers", "csistoragecapacities", "volumeattachments"):
        return [md.get("name"), age]
    return [md.get("name"), st.get("phase") or "Active", age]


def table_row(res, obj, kind, include, now, view=None):
    row = {"cells": table_cells(res, obj, now)}
    if include == "Object" and view is not None:
        row["object"] = view.full(obj)
    elif include == "Object":
        d = {"kind": kind, "apiVersion": KIND_API_VERSION[kind]}
        d.update(obj)
        row["object"] = d
    elif include != "None":
        row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                         "metadata": obj.get("metadata") or {}}
    return row


# ---------------------------------------------------------------- store

class Wakeup:
    """Store.cond: wakes the watches of the resources committed to since the
    last notify_all (each resource's watches wait on a condition of its own,
    so a commit of a pod does not wake the watches of nodes, claims or
    events to scan an event none of them sends)."""

    def __init__(self, store):
        self.store = store
        self.conds = {r: threading.Condition(store.lock) for r in RESOURCES}
        self.changed = set()       # resources committed to, their watches not yet woken

    def notify_all(self):
        for r in self.changed:
            self.conds[r].notify_all()
        self.changed.clear()

    def notify_every_watch(self):
        self.changed.clear()
        for c in self.conds.values():
            c.notify_all()

    def wait(self, res, timeout):
        self.conds[res].wait(timeout)


class Store:
    def __init__(self, history_max):
        self.lock = threading.RLock()
        self.cond = Wakeup(self)
        self.rv = 0
        self.res_rv = {r: 0 for r in RESOURCES}  # the newest event of each resource
        self.pods_bound = 0        # pods with spec.nodeName (/debug/state counts them)
        self.objs = {r: {} for r in RESOURCES}
        self._sorted = {r: None for r in RESOURCES}
        self.history = []          # Event, one per resourceVersion, rv = compacted_rv + 1 + index
        self.compacted_rv = 0      # every event with rv > compacted_rv is in history
        self.history_max = history_max
        self.watch_generation = 0
        self.on_commit = None      # f(res, etype, rec, prev), called after each commit (lock held)

    # callers hold the lock
    def get(self, res, key):
        return self.objs[res].get(key)

    def commit(self, res, etype, obj, prev):
        """Store obj (a fresh dict, or None to delete prev) as a new version."""
        self.rv += 1
        rv = self.rv
        if etype == "DELETED":
            dobj = obj if obj is not None else prev.clone()
            dobj["metadata"]["resourceVersion"] = str(rv)
            rec = Rec(dobj, prev.kind)
            key = (prev.namespace, prev.name)
            del self.objs[res][key]
            self._sorted[res] = None
        else:
            obj["metadata"]["resourceVersion"] = str(rv)
            rec = Rec(order_object(obj), RESOURCES[res].kind)
            key = (rec.namespace, rec.name)
            if key not in self.objs[res]:
                self._sorted[res] = None
            self.objs[res][key] = rec
        self.history.append(Event(rv, res, etype, key, rec, prev))
        self.res_rv[res] = rv
        if res == "pods":
            self.pods_bound += (etype != "DELETED" and pod_bound(rec.obj)) - (prev is not None and pod_bound(prev.obj))
        self.cond.changed.add(res)
        if len(self.history) > self.history_max + max(self.history_max // 10, 1):
            drop = len(self.history) - self.history_max
            self.compacted_rv = self.history[drop - 1].rv
            del self.history[:drop]
        if self.on_commit is not None:
            self.on_commit(res, etype, rec, prev)
        return rec

    def compact(self):
        self.compacted_rv = self.rv
        self.history = []

    def events_after(self, rv):
        """Events with resourceVersion > rv (caller checked rv >= compacted_rv)."""
        return self.history[rv - self.compacted_rv:]

    def sorted_keys(self, res):
        if self._sorted[res] is None:
            self._sorted[res] = sorted(self.objs[res])
        return self._sorted[res]

    def state_at(self, res, rv):
        """(map, sorted keys) of resource res as it was at resourceVersion rv."""
        cur = self.objs[res]
        if rv >= self.rv:
            return cur, self.sorted_keys(res)
        if rv < self.compacted_rv:
            raise expired("too old resource version: %d (%d)" % (rv, self.compacted_rv + 1))
        changed = {}
        for ev in self.events_after(rv):
            if ev.res == res and ev.key not in changed:
                changed[ev.key] = ev.prev
        if not changed:
            return cur, self.sorted_keys(res)
        st = dict(cur)
        for k, p in changed.items():
            if p is None:
                st.pop(k, None)
            else:
                st[k] = p
        return st, sorted(st)


# ---------------------------------------------------------------- faults

def fuzz_line(rng, kind, stopper=False):
    """One bad watch line: not JSON, or JSON that is no applicable event.  It
    never holds a valid object (nothing it says may reach the tables) nor a
    resourceVersion (a client would resume from it)."""
    name = "fuzz-%d" % rng.randrange(10 ** 6)
    bad_obj = {"kind": kind, "metadata": {"name": name, "namespace": "default"}}
    # lines a client must skip (JSON objects that are no applicable event)
    skippable = [
        lambda: b"{}", lambda: b'{"type":"ADDED"}', lambda: b'{"type":"ADDED","object":[]}',
        lambda: b'{"type":"ADDED","object":{"kind":"%s"}}' % kind.encode(),
        lambda: b'{"type":"MODIFIED","object":{"metadata":{"name":"%s"}}}' % name.encode(),
        lambda: b'{"type":"WHATEVER","object":%s}' % json.dumps(bad_obj).encode(),
        lambda: b'{"type":"ADDED","object":{"kind":"%s","metadata":{"name":"%s"},"spec":{"containers":'
                b'[{"name":"c","resources":{"requests":{"cpu":"%s"}}}]},"status":{"allocatable":{"cpu":"%s"}}}}'
                % (kind.encode(), name.encode(), rng.choice([b"bogus", b"12Q", b"--1", b"\\u00e9"]),
                   rng.choice([b"bogus", b"1..2", b""])),
        lambda: b'{"type":"ADDED","object":{"kind":"%s","metadata":{"name":%s}}}'
                % (kind.encode(), rng.choice([b"1", b"null", b"[]", b'{"a":1}'])),
        lambda: b'{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"%s","namespace":"default"},'
                b'"spec":{"containers":[{"name":"c"}],"tolerations":[{"effect":"Sometimes"}]}}}' % name.encode(),
        lambda: b'{"type":"ADDED","object":{"kind":"%s","metadata":{"name":"%s"},"spec":%s}}'
                % (kind.encode(), name.encode(), b"[" * 300 + b"]" * 300),
    ]
    # lines after which a client cannot trust the stream (not JSON, not an
    # object, or an ERROR event): it must reopen or relist.  (Two are JSON
    # that PostgreSQL's text cannot hold as such: a lone surrogate, and a
    # \u0000, which a client may keep as U+FFFD -- so that object is
    # invalid otherwise, and never a valid object either way.)
    stoppers = [
        lambda: bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b" "),
        lambda: b'{"type":"ADDED","object":{"kind":"%s","metadata":{"name":"%s"' % (kind.encode(), name.encode()),
        lambda: b"[" * rng.randrange(1, 5000),
        lambda: rng.choice([b"[]", b"1", b'"x"', b"null", b"\r"]),
        lambda: b'{"type":"ADDED","object":{"kind":"%s","metadata":{"name":%s}}}'
                % (kind.encode(), rng.choice([b'"\\ud800"', b'"a\\u0000b","labels":{"x":1}'])),
        lambda: b'{"type":"ERROR","object":{"kind":"Status","code":%d,"message":"fuzz"}}' % rng.choice([500, 0]),
        lambda: ("\u00e9\u4e2d" * rng.randrange(1, 50)).encode()[:rng.randrange(1, 100)],
    ]
    return rng.choice(stoppers if stopper else skippable)()


class Faults:
    KEYS = {"clear", "http_500_next", "http_429_next", "match", "method", "drop_watch_after_events",
            "expire_watch_after_events", "malformed_line_next_watch", "stall_watch_seconds", "compact",
            "close_watches", "latency_ms", "bookmark_interval_seconds", "graceful_delete_seconds",
            "fuzz_watches", "fuzz_lines", "seed", "deep_500_next", "provision_fail", "provision_fail_next",
            "provision_hold", "retry_after"}

    def __init__(self, bookmark_interval):
        self.lock = threading.Lock()
        self.default_bookmark_interval = bookmark_interval
        self.ids = itertools.count(1)
        self.reset()

    def reset(self):
        self.http_errors = []       # [code, remaining, match, method, retry_after]
        self.watch_faults = []      # dicts: id, action (drop|expire), after, match
        self.malformed = []         # match strings
        self.fuzz = []              # dicts: match, lines, rng (one per watch to fuzz)
        self.stall_until = 0.0
        self.latency = 0.0
        self.latency_match = ("", "")  # (match, method) the latency is narrowed to
        self.bookmark_interval = self.default_bookmark_interval
        self.graceful_delete_seconds = 0.0
        self.provision_fail = None  # None, or the match string of the provision_fail fault
        self.provision_fail_next = []   # [remaining, match]
        self.provision_hold = None  # None, or the match string of the provision_hold fault

    def apply(self, body, app):
        """Keys (any combination; "match"/"method" narrow this call's http and
        watch faults to request paths containing match / to one method):
          clear: true                      remove every fault and setting first
          http_500_next: N                 next N matching non-debug requests get 500
          http_429_next: N                 ... 429 TooManyRequests, as API Priority
            [retry_after: S (1)]           and Fairness rejects: Retry-After: S
          deep_500_next: N                 ... 500 with a body that is JSON nested
                                           100000 deep (what a broken proxy
                                           might send; no jsonb holds it)
          drop_watch_after_events: N       a watch that has sent N events since now
                                           sends half of its next line (the next
                                           event, or a BOOKMARK line if none comes
                                           within 0.2 s) and aborts the
                                           connection without ending it (once)
          expire_watch_after_events: N     ... sends an ERROR 410 Expired event
                                           after its Nth event and ends (once)
          malformed_line_next_watch: true  the next watch sends one line that is
                                           not JSON first
          fuzz_watches: K                  the next K watches each send N random
            [fuzz_lines: N (20), seed: S]  lines first that are JSON but no
                                           applicable event (a client skips
                                           them), then, 3 times in 10, one that
                                           is not JSON or an ERROR event (a
                                           client reopens the watch); never a
                                           valid object nor a resourceVersion
                                           (see fuzz_line).  Every line goes in
                                           random pieces, each an HTTP chunk
          stall_watch_seconds: S           every watch sends nothing for S seconds
          compact: true                    drop the event history: older resource
                                           versions get 410 Expired
          close_watches: true              end every open watch cleanly now
          latency_ms: N                    delay every non-debug response (with
                                           match/method: only those, as API
                                           Priority and Fairness queues one
                                           flow's requests)
          bookmark_interval_seconds: S     how often watches send BOOKMARKs
          graceful_delete_seconds: S       deleting a bound pod sets
                                           deletionTimestamp and removes it S
                                           seconds later (0: at once)
          provision_fail: true|false       the external provisioner refuses (or
                                           no longer) every claim whose path
                                           (/api/v1/namespaces/NS/
                                           persistentvolumeclaims/NAME)
                                           contains match: a claim annotated
                                           volume.kubernetes.io/selected-node
                                           loses the annotation (and gets a
                                           ProvisioningFailed event), no
                                           volume is made; an Immediate
                                           claim waits.  See App._provision
          provision_fail_next: N           ... the next N selected-node claims
                                           (matching) only
          provision_hold: true|false       the external provisioner has not
                                           got to (or gets to now) the
                                           claims whose path contains match:
                                           they wait, annotated and unbound
                                           (a slow provisioner)"""
        if not isinstance(body, dict):
            raise bad_request("faults: expected a JSON object")
        unknown = set(body) - self.KEYS
        if unknown:
            raise bad_request("faults: unknown keys %s; known: %s" % (sorted(unknown), sorted(self.KEYS)))
        match = body.get("match") or ""
        method = (body.get("method") or "").upper()
        with self.lock:
            if body.get("clear"):
                self.reset()
            if body.get("http_500_next"):
                self.http_errors.append([500, int(body["http_500_next"]), match, method, None])
            if body.get("http_429_next"):
                self.http_errors.append([429, int(body["http_429_next"]), match, method,
                                         int(body.get("retry_after") or 1)])
            if body.get("deep_500_next"):
                self.http_errors.append(["deep", int(body["deep_500_next"]), match, method, None])
            for key, action in (("drop_watch_after_events", "drop"), ("expire_watch_after_events", "expire")):
                if body.get(key) is not None and body.get(key) is not False:
                    self.watch_faults.append({"id": next(self.ids), "action": action, "after": int(body[key]),
                                              "match": match})
            if body.get("malformed_line_next_watch"):
                self.malformed.append(match)
            if body.get("fuzz_watches"):
                rng = random.Random(body.get("seed"))
                for _ in range(int(body["fuzz_watches"])):
                    self.fuzz.append({"match": match, "lines": int(body.get("fuzz_lines") or 20),
                                      "rng": random.Random(rng.random())})
            if body.get("stall_watch_seconds"):
                self.stall_until = time.time() + float(body["stall_watch_seconds"])
            if "latency_ms" in body:
                self.latency = float(body["latency_ms"] or 0) / 1000.0
                self.latency_match = (match, method)
            if "bookmark_interval_seconds" in body:
                self.bookmark_interval = max(0.05, float(body["bookmark_interval_seconds"]))
            if "graceful_delete_seconds" in body:
                self.graceful_delete_seconds = float(body["graceful_delete_seconds"] or 0)
            if "provision_fail" in body:
                self.provision_fail = match if body["provision_fail"] else None
            if body.get("provision_fail_next"):
                self.provision_fail_next.append([int(body["provision_fail_next"]), match])
            if "provision_hold" in body:
                self.provision_hold = match if body["provision_hold"] else None
        if body.get("clear") or "provision_fail" in body or "provision_hold" in body:
            # the provisioner retries what it left waiting
            with app.store.lock:
                app.volumes.mark_all(app.store)
                app._sync_volumes()
        if body.get("compact") or body.get("close_watches"):
            with app.store.lock:
                if body.get("compact"):
                    app.store.compact()
                if body.get("close_watches"):
                    app.store.watch_generation += 1
                app.store.cond.notify_every_watch()
        return self.describe()

    def describe(self):
        with self.lock:
            return {"http_errors": [{"code": c, "remaining": n, "match": m, "method": me, "retry_after": ra}
                                    for c, n, m, me, ra in self.http_errors],
                    "watch_faults": [dict(f) for f in self.watch_faults],
                    "malformed_line_next_watch": list(self.malformed),
                    "fuzz_watches": [{"match": f["match"], "lines": f["lines"]} for f in self.fuzz],
                    "stall_remaining_seconds": max(0.0, round(self.stall_until - time.time(), 3)),
                    "latency_ms": self.latency * 1000,
                    "bookmark_interval_seconds": self.bookmark_interval,
                    "graceful_delete_seconds": self.graceful_delete_seconds,
                    "provision_fail": self.provision_fail is not None,
                    "provision_fail_match": self.provision_fail or "",
                    "provision_fail_next": [{"remaining": n, "match": m} for n, m in self.provision_fail_next],
                    "provision_hold": self.provision_hold is not None,
                    "provision_hold_match": self.provision_hold or ""}

    def provision_held(self, path):
        """Whether the provision_hold fault keeps the provisioner from the
        claim at path for now."""
        with self.lock:
            return self.provision_hold is not None and self.provision_hold in path

    def provision_refused(self, path, consume):
        """Whether the provisioner refuses the claim at path: provision_fail
        covers it, or (consume: a selected-node claim) provision_fail_next
        does -- one of its N used up."""
        with self.lock:
            if self.provision_fail is not None and self.provision_fail in path:
                return True
            if consume:
                for e in self.provision_fail_next:
                    if e[0] > 0 and e[1] in path:
                        e[0] -= 1
                        if e[0] <= 0:
                            self.provision_fail_next.remove(e)
                        return True
        return False

    def http_error(self, method, target):
        with self.lock:
            for e in self.http_errors:
                code, n, match, meth, retry_after = e
                if n > 0 and match in target and (not meth or meth == method):
                    e[1] -= 1
                    if e[1] <= 0:
                        self.http_errors.remove(e)
                    return code, retry_after
        return None, None

    def take_fuzz(self, target):
        with self.lock:
            for f in self.fuzz:
                if f["match"] in target:
                    self.fuzz.remove(f)
                    return f
        return None

    def take_malformed(self, target):
        with self.lock:
            for m in self.malformed:
                if m in target:
                    self.malformed.remove(m)
                    return True
        return False

    def watch_check(self, w, sent):
        """Called when a watch starts (sent=False) and after each event it
        sent (sent=True).  Returns "drop" (the watch must cut its next line in
        half and abort), "expire" (send ERROR 410 now and end) or None; the
        fault is used up."""
        with self.lock:
            if not self.watch_faults:
                return None
            for f in list(self.watch_faults):
                if f["match"] not in w.target:
                    continue
                fid = f["id"]
                if sent:
                    w.fault_counts[fid] = w.fault_counts.get(fid, 0) + 1
                if w.fault_counts.get(fid, 0) >= f["after"]:
                    self.watch_faults.remove(f)
                    return f["action"]
        return None


# ---------------------------------------------------------------- the application

class WatchInfo:
    def __init__(self, wid, target, res, ns):
        self.id = wid
        self.target = target
        self.res = res
        self.ns = ns
        self.started = time.time()
        self.sent = 0
        self.fault_counts = {}


class App:
    def __init__(self, token, history_max, bookmark_interval, max_body, verbose):
        self.token = token
        self.store = Store(history_max)
        self.faults = Faults(bookmark_interval)
        self.max_body = max_body
        self.verbose = verbose
        self.bindings = []
        self.bindings_succeeded = 0   # of self.bindings, those answered 201 (/debug/state)
        self.bindings_lock = threading.Lock()
        self.audit_log = None         # --audit-log-path, opened
        self.requests = collections.deque(maxlen=20000)
        self.request_count = 0
        self.watches = {}
        self.watch_ids = itertools.count(1)
        self.connections = 0
        self.conn_lock = threading.Lock()
        self.started = time.time()
        self.url = ""
        self._pdb_syncing = False
        self._vol_syncing = False   # the PV controller is writing (its commits do not run it again)
        self._vol_deferred = False  # a bulk load or reset: it runs once at the end (or not at all)
        self.volumes = VolumeIndex()  # what it must look at again (every write of its kinds noted)
        self._svc_ips = set()      # the Services' spec.clusterIP in use
        self._svc_ip_next = 1      # where the next allocation looks first (an offset in SERVICE_CIDR)
        self.store.on_commit = self._after_commit
        with self.store.lock:
            for ns in INITIAL_NAMESPACES:
                self.create("namespaces", None, {"metadata": {"name": ns}})

    # --- helpers
    def _parse(self, body):
        if body is None or body == b"":
            raise bad_request("the request body is empty")
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            raise bad_request("the object provided is unrecognized (not valid JSON: %s)" % e) from None

    def _check_kind(self, res, obj, allowed_kinds=None):
        if not isinstance(obj, dict):
            raise bad_request("the body of the request was in an unknown format - expected a JSON object")
        kind = obj.get("kind")
        expect = allowed_kinds or (RESOURCES[res].kind,)
        if kind and kind not in expect:
            raise bad_request("the kind in the data (%s) does not match the expected kind (%s)" % (kind, expect[0]))
        av = obj.get("apiVersion")
        want = RESOURCES[res].api_version
        if av and av != want:
            raise bad_request('the API version in the data (%s) does not match the expected API version (%s)'
                              % (av, want))
        obj.pop("kind", None)
        obj.pop("apiVersion", None)
        md = obj.get("metadata")
        if md is None:
            md = obj["metadata"] = {}
        if not isinstance(md, dict):
            raise bad_request("metadata must be an object")
        return md

    def _require_namespace(self, ns):
        if ("", ns) not in self.store.objs["namespaces"]:
            raise not_found("namespaces", ns)

    # --- create
    def create(self, res, ns, obj, bulk=False):
        R = RESOURCES[res]
        md = self._check_kind(res, obj)
        st = self.store
        if R.namespaced:
            if md.get("namespace") and md["namespace"] != ns:
                raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                                  "request")
            md["namespace"] = ns
        else:
            md.pop("namespace", None)
        with st.lock:
            if not md.get("name"):
                gen = md.get("generateName")
                if not gen:
                    raise invalid(R.kind, "", [("metadata.name", "Required value: name or generateName is required")])
                for _ in range(100):
                    md["name"] = gen + "".join(random.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
                    if (md.get("namespace", ""), md["name"]) not in st.objs[res]:
                        break
            name = md["name"]
            validate_name(res, name, R.kind)
            if R.namespaced:
                if bulk and ("", ns) not in st.objs["namespaces"]:
                    self.create("namespaces", None, {"metadata": {"name": ns}})
                self._require_namespace(ns)
            key = (md.get("namespace", ""), name)
            if key in st.objs[res]:
                raise already_exists(res, name)
            for k in ("resourceVersion", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds",
                      "managedFields"):
                md.pop(k, None)
            md["uid"] = str(uuid.uuid4())
            md["creationTimestamp"] = now_rfc3339()
            if res == "pods":
                default_pod(obj)
                if not bulk or not isinstance(obj.get("status"), dict):
                    obj["status"] = {"phase": "Pending"}
                obj["status"].setdefault("phase", "Pending")
                obj["status"]["qosClass"] = pod_qos(obj["spec"])
            elif res == "nodes":
                obj.setdefault("spec", {})
                s = obj.get("status")
                if isinstance(s, dict) and s.get("capacity") and not s.get("allocatable"):
                    s["allocatable"] = dict(s["capacity"])
                obj.setdefault("status", {})
            elif res == "namespaces":
                obj.setdefault("spec", {"finalizers": ["kubernetes"]})
                obj["status"] = {"phase": "Active"}
                default_namespace(obj)
            elif res == "poddisruptionbudgets":
                obj["status"] = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                 "expectedPods": 0}
            elif res in VOLUME_RESOURCES:
                default_volume_object(res, obj)
                if res == "persistentvolumeclaims":
                    self._default_claim_class(obj)
            elif res in WORKLOAD_RESOURCES:
                default_workload(res, obj)
                if res == "services":
                    self._assign_cluster_ip(obj, None)
                if not bulk or not isinstance(obj.get("status"), dict):
                    obj["status"] = {"loadBalancer": {}} if res == "services" else {"replicas": 0}
            if res in GENERATION_RESOURCES:
                md["generation"] = 1
            validate_object(res, obj)
            rec = st.commit(res, "ADDED", obj, None)
            if not bulk:
                st.cond.notify_all()
            return rec

    def _assign_cluster_ip(self, obj, old):
        """A Service's spec.clusterIP (and clusterIPs, ipFamilies): kept from
        the stored object old on update (a change is 422, as the field is
        immutable), else allocated from SERVICE_CIDR; none for ExternalName."""
        spec = obj.get("spec")
        if not isinstance(spec, dict) or spec.get("type") == "ExternalName":
            return
        ospec = old.get("spec") if old is not None and isinstance(old.get("spec"), dict) else {}
        oip = ospec.get("clusterIP") if ospec.get("type") != "ExternalName" else None
        if oip:
            if not spec.get("clusterIP"):
                spec["clusterIP"] = oip
                if ospec.get("clusterIPs"):
                    spec.setdefault("clusterIPs", copy.deepcopy(ospec["clusterIPs"]))
            elif spec["clusterIP"] != oip:
                raise invalid("Service", obj["metadata"]["name"], [
                    ("spec.clusterIP", "Invalid value: %s: field is immutable" % json.dumps(spec["clusterIP"]))])
        elif isinstance(spec.get("clusterIP"), str) and spec["clusterIP"] in self._svc_ips:
            raise invalid("Service", obj["metadata"]["name"], [
                ("spec.clusterIP", "Invalid value: %s: provided IP is already allocated"
                 % json.dumps(spec["clusterIP"]))])
        if not spec.get("clusterIP"):
            spec["clusterIP"] = self._alloc_cluster_ip()
        if not spec.get("clusterIPs") and isinstance(spec["clusterIP"], str):
            spec["clusterIPs"] = [spec["clusterIP"]]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")

    def _alloc_cluster_ip(self):
        base, size = SERVICE_CIDR
        for _ in range(size - 2):
            n = self._svc_ip_next
            self._svc_ip_next = n % (size - 2) + 1
            ip = ip_text(base + n)
            if ip not in self._svc_ips:
                return ip
        raise ApiError(500, "InternalError", "Internal error occurred: failed to allocate a serviceIP: range is full")

    def _track_cluster_ip(self, etype, rec, prev):
        for r, add in ((prev, False), (rec if etype != "DELETED" else None, True)):
            ip = _get(r.obj, "spec", "clusterIP") if r is not None else None
            if isinstance(ip, str) and ip and ip != "None":
                if add:
                    self._svc_ips.add(ip)
                else:
                    self._svc_ips.discard(ip)

    # --- update / patch
    def _finish_update(self, res, old, new, sub):
        """old: Rec; new: candidate dict (no kind).  Returns the stored Rec."""
        R = RESOURCES[res]
        st = self.store
        md = new.get("metadata")
        if not isinstance(md, dict):
            md = new["metadata"] = {}
        if sub == "status":
            cand = old.clone()
            cand["status"] = new.get("status") if isinstance(new.get("status"), dict) else {}
            new = cand
        else:
            omd = old.obj["metadata"]
            if md.get("name") not in (None, omd["name"]):
                raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                                  % (md.get("name"), omd["name"]))
            if md.get("uid") and md["uid"] != omd["uid"]:
                raise invalid(R.kind, omd["name"], [("metadata.uid", "Invalid value: %s: field is immutable"
                                                     % json.dumps(md["uid"]))])
            for k in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                      "deletionGracePeriodSeconds"):
                if k in omd:
                    md[k] = omd[k]
                else:
                    md.pop(k, None)
            md.pop("selfLink", None)
            if res in WORKLOAD_RESOURCES:
                default_workload(res, new)
                if res == "services":
                    self._assign_cluster_ip(new, old.obj)
            if res in GENERATION_RESOURCES:
                md["generation"] = int(omd.get("generation") or 0)
                if new.get("spec") != old.obj.get("spec"):
                    md["generation"] += 1
            if "status" in R.subresources:
                if "status" in old.obj:
                    new["status"] = copy.deepcopy(old.obj["status"])
                else:
                    new.pop("status", None)
            if res == "namespaces":
                default_namespace(new)
            if res == "pods":
                default_pod(new)
                if pod_spec_mask(new.get("spec")) != pod_spec_mask(old.obj.get("spec")):
                    raise invalid("Pod", omd["name"], [(
                        "spec", "Forbidden: pod updates may not change fields other than `spec.containers[*].image`, "
                        "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only "
                        "additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be "
                        "set to 1 if it was previously negative)")])
        new["metadata"]["resourceVersion"] = old.obj["metadata"]["resourceVersion"]
        validate_object(res, new)
        if new == old.obj:
            return old
        nmd = new["metadata"]
        if nmd.get("deletionTimestamp") and not nmd.get("finalizers"):
            rec = st.commit(res, "DELETED", new, old)
        else:
            rec = st.commit(res, "MODIFIED", new, old)
        st.cond.notify_all()
        return rec

    def update(self, res, ns, name, body, sub=None):
        obj = self._parse(body)
        md = self._check_kind(res, obj)
        if md.get("name") and md["name"] != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                              % (md["name"], name))
        if RESOURCES[res].namespaced and md.get("namespace") and md["namespace"] != ns:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        st = self.store
        with st.lock:
            old = st.get(res, (ns or "", name))
            if old is None:
                raise not_found(res, name)
            rv = md.get("resourceVersion")
            if rv and rv != old.obj["metadata"]["resourceVersion"]:
                raise conflict(res, name, "the object has been modified; please apply your changes to the latest "
                                          "version and try again")
            return self._finish_update(res, old, obj, sub)

    def patch(self, res, ns, name, body, ctype, sub=None):
        patch = self._parse(body)
        st = self.store
        with st.lock:
            old = st.get(res, (ns or "", name))
            if old is None:
                raise not_found(res, name)
            doc = apply_patch(old.clone(), patch, ctype, res)
            doc.pop("kind", None)
            doc.pop("apiVersion", None)
            md = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            omd = old.obj["metadata"]
            if md.get("uid") and md["uid"] != omd["uid"]:
                raise conflict(res, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                               % (md["uid"], omd["uid"]))
            if md.get("resourceVersion") and md["resourceVersion"] != omd["resourceVersion"]:
                raise conflict(res, name, "the object has been modified; please apply your changes to the latest "
                                          "version and try again")
            return self._finish_update(res, old, doc, sub)

    # --- events.k8s.io/v1: the "events" store seen as that group version
    def event_v1_create(self, ns, obj):
        """POST /apis/events.k8s.io/v1/namespaces/{ns}/events: decoded,
        converted to the core form, validated as kube's ValidateEventCreate
        does for events.k8s.io/v1 (422), then created as a core event is
        (404 for a namespace that is not there, 409 for a name taken)."""
        ev = decode_event_v1(obj)
        md = ev["metadata"]
        if md.get("namespace") and md["namespace"] != ns:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        md["namespace"] = ns
        core = event_from_v1(ev)
        st = self.store
        with st.lock:
            if not md.get("name") and isinstance(md.get("generateName"), str) and md["generateName"]:
                for _ in range(100):
                    md["name"] = md["generateName"] + "".join(random.choice("bcdfghjklmnpqrstvwxz2456789")
                                                              for _ in range(5))
                    if (ns, md["name"]) not in st.objs["events"]:
                        break
            causes = event_create_causes(core, ns)
            if causes:
                raise invalid("Event", _s(md.get("name")), causes, EVENTS_GROUP)
            return self.create("events", ns, core)

    def event_v1_update(self, ns, name, body):
        """PUT: (Rec, created).  A name not there is created (events allow
        create on update), else kube's ValidateEventUpdate."""
        obj = self._parse(body)
        ev = decode_event_v1(obj)
        md = ev["metadata"]
        if md.get("name") and md["name"] != name:
            raise bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                              % (md["name"], name))
        if md.get("namespace") and md["namespace"] != ns:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        st = self.store
        with st.lock:
            old = st.get("events", (ns, name))
            if old is None:
                obj = dict(obj, metadata=dict(md, name=name))
                return self.event_v1_create(ns, obj), True
            rv = md.get("resourceVersion")
            if rv and rv != old.obj["metadata"]["resourceVersion"]:
                raise conflict("events", name, "the object has been modified; please apply your changes to the "
                                               "latest version and try again")
            return self._event_v1_replace(ns, old, ev), False

    def event_v1_patch(self, ns, name, body, ctype):
        """PATCH: applied to the events.k8s.io/v1 form of the stored event
        (with its kind and apiVersion, as the real server does), decoded back
        and validated as an update; 404 when the event is not there."""
        patch = self._parse(body)
        st = self.store
        with st.lock:
            old = st.get("events", (ns, name))
            if old is None:
                raise not_found("events", name)
            doc = apply_patch(EVENTS_V1_VIEW.full(old.clone()), patch, ctype, "events")
            ev = decode_event_v1(doc)
            md = ev["metadata"] if isinstance(ev.get("metadata"), dict) else {}
            omd = old.obj["metadata"]
            if md.get("uid") and md["uid"] != omd["uid"]:
                raise conflict("events", name, "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                               % (md["uid"], omd["uid"]))
            if md.get("resourceVersion") and md["resourceVersion"] != omd["resourceVersion"]:
                raise conflict("events", name, "the object has been modified; please apply your changes to the "
                                               "latest version and try again")
            return self._event_v1_replace(ns, old, ev)

    def _event_v1_replace(self, ns, old, ev):
        new = event_from_v1(ev)
        new["metadata"]["namespace"] = ns
        causes = event_update_causes(new, old.obj, ns)
        if causes:
            raise invalid("Event", old.name, causes, EVENTS_GROUP)
        return self._finish_update("events", old, new, None)

    # --- delete
    def _delete_now(self, res, old):
        st = self.store
        if res == "namespaces":
            ns = old.name
            # the budgets first: no status updates for pods about to go
            for r, R in sorted(RESOURCES.items(), key=lambda i: i[0] != "poddisruptionbudgets"):
                if R.namespaced:
                    for k in [k for k in st.objs[r] if k[0] == ns]:
                        st.commit(r, "DELETED", None, st.objs[r][k])
        rec = st.commit(res, "DELETED", None, old)
        st.cond.notify_all()
        return rec

    def delete(self, res, ns, name, body, params):
        opts = {}
        if body:
            opts = self._parse(body)
            if not isinstance(opts, dict):
                raise bad_request("DeleteOptions must be an object")
        grace = params.get("gracePeriodSeconds", opts.get("gracePeriodSeconds"))
        if grace is not None:
            try:
                grace = int(grace)
            except (TypeError, ValueError):
                raise bad_request("gracePeriodSeconds: invalid value %r" % grace) from None
        pre = opts.get("preconditions") or {}
        st = self.store
        with st.lock:
            old = st.get(res, (ns or "", name))
            if old is None:
                raise not_found(res, name)
            omd = old.obj["metadata"]
            if pre.get("uid") and pre["uid"] != omd["uid"]:
                raise conflict(res, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                               % (pre["uid"], omd["uid"]))
            if pre.get("resourceVersion") and pre["resourceVersion"] != omd["resourceVersion"]:
                raise conflict(res, name, "Precondition failed: ResourceVersion in precondition: %s, "
                                          "ResourceVersion in object meta: %s"
                               % (pre["resourceVersion"], omd["resourceVersion"]))
            if omd.get("deletionTimestamp"):
                if grace is not None and int(grace) == 0 and not omd.get("finalizers"):
                    return self._delete_now(res, old)
                return old
            if omd.get("finalizers"):
                new = old.clone()
                new["metadata"]["deletionTimestamp"] = now_rfc3339()
                new["metadata"]["deletionGracePeriodSeconds"] = 0
                rec = st.commit(res, "MODIFIED", new, old)
                st.cond.notify_all()
                return rec
            delay = self.faults.graceful_delete_seconds
            if res == "pods" and delay > 0 and (old.obj.get("spec") or {}).get("nodeName") and \
                    (grace is None or int(grace) > 0):
                secs = int(grace) if grace is not None else int((old.obj.get("spec") or {}).get(
                    "terminationGracePeriodSeconds") or 30)
                new = old.clone()
                new["metadata"]["deletionTimestamp"] = now_rfc3339(time.time() + secs)
                new["metadata"]["deletionGracePeriodSeconds"] = secs
                rec = st.commit(res, "MODIFIED", new, old)
                st.cond.notify_all()
                uid = omd["uid"]
                t = threading.Timer(delay, self._finish_graceful, (res, (ns or "", name), uid))
                t.daemon = True
                t.start()
                return rec
            return self._delete_now(res, old)

    def _finish_graceful(self, res, key, uid):
        st = self.store
        with st.lock:
            cur = st.get(res, key)
            if cur is not None and cur.obj["metadata"]["uid"] == uid and not cur.obj["metadata"].get("finalizers"):
                self._delete_now(res, cur)

    def delete_collection(self, res, ns, params, view=None):
        sel = Selector(res, params, view.fields if view else None)
        st = self.store
        out = []
        with st.lock:
            for key in list(st.sorted_keys(res)):
                if ns is not None and key[0] != ns:
                    continue
                rec = st.objs[res][key]
                if sel.match(rec.obj):
                    out.append(self.delete(res, key[0] or None, key[1], b"", params))
        return out

    # --- the disruption controller
    def _after_commit(self, res, etype, rec, prev):
        """Store.on_commit.  A budget changed: recount its pods.  A pod
        changed: the budgets of its namespace whose counts it changes (it
        joined, left, or became healthy or not) get them updated by the
        difference -- a budget's stored status always holds the counts, as
        every write of a budget recounts -- or recounted when the budget has
        disruptedPods.  A Service changed: its clusterIP is taken, or free.
        A claim, volume or class changed: _sync_volumes."""
        if res in VOLUME_RESOURCES:
            self.volumes.note(self.store, res, etype, rec, prev)
            if not self._vol_deferred:
                self._sync_volumes()
            return
        if res == "services":
            self._track_cluster_ip(etype, rec, prev)
            return
        if self._pdb_syncing or res not in ("pods", "poddisruptionbudgets") + PDB_CONTROLLERS:
            return
        st = self.store
        ns = rec.namespace
        if res == "poddisruptionbudgets":
            if etype != "DELETED":
                self._sync_pdbs(ns, [rec])
            return
        if res in PDB_CONTROLLERS:
            # a controller's scale is the expectedPods of the budgets that count by it
            self._sync_pdbs(ns, [pdb for key, pdb in st.objs["poddisruptionbudgets"].items()
                                 if key[0] == ns and pdb_scaled(pdb.obj.get("spec"))])
            return
        now = time.time()
        old_pod = prev.obj if prev is not None else None
        new_pod = rec.obj if etype != "DELETED" else None
        recount = []
        for key, pdb in list(st.objs["poddisruptionbudgets"].items()):
            if key[0] != ns:
                continue
            reqs = pdb_selector(pdb.obj.get("spec"))
            a, b = pdb_pod_counts(old_pod, reqs), pdb_pod_counts(new_pod, reqs)
            scaled = pdb_scaled(pdb.obj.get("spec"))
            status = pdb.obj.get("status") or {}
            name = (rec.obj.get("metadata") or {}).get("name")
            if a == b and not (a[0] and ((scaled and pod_controller(old_pod) != pod_controller(new_pod)) or
                                         name in (status.get("disruptedPods") or {}))):
                continue
            cond = next((c for c in status.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), {})
            if status.get("disruptedPods") or scaled or cond.get("reason") == "SyncFailed":
                recount.append(pdb)
                continue
            self._write_pdb_status(pdb, pdb_status_for(
                pdb.obj, int(status.get("expectedPods") or 0) + b[0] - a[0],
                int(status.get("currentHealthy") or 0) + b[1] - a[1],
                int((pdb.obj.get("spec") or {}).get("minAvailable") or 0), {}, now))
        if recount:
            self._sync_pdbs(ns, recount)

    def _controller_scale(self, ns, ref):
        return controller_scale(lambda res, key: (lambda r: r and r.obj)(self.store.get(res, key)), ns, ref)

    def _sync_pdbs(self, ns, pdbs):
        """Recount the pods of budgets pdbs (Recs of namespace ns) and write
        their status where it changes (caller holds the lock)."""
        st = self.store
        pods = [r.obj for k, r in st.objs["pods"].items() if k[0] == ns]
        now = time.time()
        for pdb in pdbs:
            cur = st.get("poddisruptionbudgets", (ns, pdb.name))
            if cur is not None and cur.obj["metadata"]["uid"] == pdb.obj["metadata"]["uid"]:
                self._write_pdb_status(cur, pdb_status(cur.obj, pods, now, self._controller_scale))

    def _write_pdb_status(self, cur, status):
        """Store status as budget cur's (the current Rec) if it differs."""
        if status == cur.obj.get("status"):
            return
        new = cur.clone()
        new["status"] = status
        self._pdb_syncing = True
        try:
            self.store.commit("poddisruptionbudgets", "MODIFIED", new, cur)
        finally:
            self._pdb_syncing = False

    # --- the PV controller and an external provisioner
    def _default_claim_class(self, obj):
        """The DefaultStorageClass admission plugin: a new claim with no
        spec.storageClassName (absent or null, not "") and no beta class
        annotation gets the default StorageClass's name (the newest, when
        several are marked default)."""
        spec = obj.get("spec")
        ann = _get(obj, "metadata", "annotations") or {}
        if not isinstance(spec, dict) or spec.get("storageClassName") is not None or ANN_BETA_STORAGE_CLASS in ann:
            return
        defaults = []
        for rec in self.store.objs["storageclasses"].values():
            a = rec.obj["metadata"].get("annotations") or {}
            if a.get(ANN_DEFAULT_CLASS) == "true" or a.get(ANN_BETA_DEFAULT_CLASS) == "true":
                defaults.append((rec.obj["metadata"].get("creationTimestamp") or "", rec.name))
        if defaults:
            spec["storageClassName"] = max(defaults)[1]

    def _sync_volumes(self):
        """What kube-controller-manager's PV controller and an external (CSI)
        provisioner would do next, run inside the write that changed a
        claim, a volume or a class (caller holds the lock); their writes
        are ordinary commits (new resourceVersions, MODIFIED/ADDED events),
        after the request's own.  See _sync_volumes_once."""
        if self._vol_syncing:
            return
        self._vol_syncing = True
        changed = False
        try:
            for _ in range(4):
                if not self._sync_volumes_once():
                    break
                changed = True
        finally:
            self._vol_syncing = False
        if changed:
            self.store.cond.notify_all()

    def _sync_volumes_once(self):
        """One pass over the volumes, then the claims (sorted), each taking
        only those marked (VolumeIndex: the others' turns would write
        nothing); True when it wrote something.  See _sync_volume and
        _sync_claim."""
        changed = self.volumes.run("persistentvolumes", self._sync_volume)
        if self.volumes.run("persistentvolumeclaims", self._sync_claim):
            changed = True
        return changed

    def _sync_volume(self, key):
        """The volume at key, if it is not being deleted; True when it wrote:
          * in phase Pending (as created) and bound to no claim (no
            claimRef, or one without a uid): it becomes Available;
          * Bound, its claim gone (or of another uid): it becomes Released
            -- or is deleted, when it was provisioned
            (pv.kubernetes.io/provisioned-by) and its reclaim policy is
            Delete.  Released volumes stay so (no recycler)."""
        st = self.store
        cur = st.get("persistentvolumes", key)
        o = cur.obj if cur is not None else None
        if o is None or o["metadata"].get("deletionTimestamp"):
            return False
        ref = _get(o, "spec", "claimRef")
        phase = (o.get("status") or {}).get("phase")
        if phase == "Bound" and isinstance(ref, dict) and ref.get("uid"):
            claim = st.get("persistentvolumeclaims", (ref.get("namespace") or "", ref.get("name") or ""))
            if claim is None or claim.obj["metadata"]["uid"] != ref["uid"]:
                # its claim is gone: Released; a provisioned volume whose
                # policy is Delete is deleted (by its provisioner)
                if o["spec"].get("persistentVolumeReclaimPolicy") == "Delete" and \
                        ANN_PROVISIONED_BY in (o["metadata"].get("annotations") or {}):
                    st.commit("persistentvolumes", "DELETED", None, cur)
                else:
                    new = cur.clone()
                    new["status"]["phase"] = "Released"
                    st.commit("persistentvolumes", "MODIFIED", new, cur)
                return True
            return False
        if phase not in (None, "", "Pending"):
            return False
        if not isinstance(ref, dict) or not ref.get("uid"):
            new = cur.clone()
            new.setdefault("status", {})["phase"] = "Available"
            st.commit("persistentvolumes", "MODIFIED", new, cur)
            return True
        return False

    def _sync_claim(self, key):
        """The claim at key, if it is not being deleted; True when it wrote:
          * with spec.volumeName and pv.kubernetes.io/bind-completed it is
            bound: left alone (its volume gone: no Lost phase);
          * with spec.volumeName but not bind-completed (pre-bound by its
            author) it is bound to that volume when the volume exists, is
            bound to no other claim and satisfies it;
          * unbound, it is bound to the volume find_volume_for_claim picks:
            one whose claimRef names it (as the scheduler's static binding
            writes), else -- unless its class binds WaitForFirstConsumer --
            the smallest fitting Available one.  A claim naming a class that
            does not exist waits;
          * else, when its class has a provisioner other than
            kubernetes.io/no-provisioner and binding is Immediate or the
            claim has volume.kubernetes.io/selected-node, _provision."""
        st = self.store
        cur = st.get("persistentvolumeclaims", key)
        if cur is None or cur.obj["metadata"].get("deletionTimestamp"):
            return False
        pvc = cur.obj
        ann = pvc["metadata"].get("annotations") or {}
        vname = _get(pvc, "spec", "volumeName")
        if vname:
            if ANN_BIND_COMPLETED in ann:
                return False
            pv = st.get("persistentvolumes", ("", vname))
            if pv is not None and not pv.obj["metadata"].get("deletionTimestamp") and \
                    (_get(pv.obj, "spec", "claimRef") is None or volume_bound_to_claim(pv.obj, pvc)) and \
                    volume_satisfies_claim(pv.obj, pvc):
                self._bind_volume(pv, cur)
                return True
            return False
        cls = claim_class(pvc)
        sc = st.get("storageclasses", ("", cls)) if cls else None
        if cls and sc is None:
            return False
        sc = sc.obj if sc is not None else None
        delay = sc is not None and sc.get("volumeBindingMode") == "WaitForFirstConsumer"
        pv = find_volume_for_claim(self.volumes.candidates(st, pvc, delay), pvc, delay)
        if pv is not None:
            self._bind_volume(st.get("persistentvolumes", ("", pv["metadata"]["name"])), cur)
            return True
        if sc is None or not sc.get("provisioner") or sc["provisioner"] == NO_PROVISIONER:
            return False
        if delay and not ann.get(ANN_SELECTED_NODE):
            return False
        return self._provision(cur, sc)

    def _bind_volume(self, pv, pvc):
        """The PV controller's bind(): the volume's claimRef (the claim's
        full reference, with its uid; bound-by-controller when the
        controller chose the volume) and status.phase Bound, then the
        claim's spec.volumeName, annotations bind-completed and (when the
        controller set volumeName) bound-by-controller, status.phase Bound
        with the volume's access modes and capacity.  Two writes (the volume
        first), each only if it changes something."""
        st = self.store
        claim = pvc.obj
        new = pv.clone()
        spec = new.setdefault("spec", {})
        ref = spec.get("claimRef")
        if not volume_bound_to_claim(pv.obj, claim):
            new["metadata"].setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
        if not isinstance(ref, dict) or ref.get("uid") != claim["metadata"]["uid"] or \
                ref.get("name") != claim["metadata"]["name"] or \
                (ref.get("namespace") or "") != claim["metadata"].get("namespace", ""):
            spec["claimRef"] = claim_reference(claim)
        new.setdefault("status", {})["phase"] = "Bound"
        if new != pv.obj:
            pv = st.commit("persistentvolumes", "MODIFIED", new, pv)
        new = pvc.clone()
        ann = new["metadata"].setdefault("annotations", {})
        cspec = new.setdefault("spec", {})
        if cspec.get("volumeName") != pv.name:
            cspec["volumeName"] = pv.name
            ann.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
        ann.setdefault(ANN_BIND_COMPLETED, "yes")
        status = new.setdefault("status", {})
        status["phase"] = "Bound"
        if _get(pv.obj, "spec", "accessModes") is not None:
            status["accessModes"] = copy.deepcopy(pv.obj["spec"]["accessModes"])
        if _get(pv.obj, "spec", "capacity") is not None:
            status["capacity"] = copy.deepcopy(pv.obj["spec"]["capacity"])
        if new != pvc.obj:
            st.commit("persistentvolumeclaims", "MODIFIED", new, pvc)

    def _provision(self, pvc, sc):
        """Claim pvc (a Rec) of class sc (an object) needs a volume.  The PV
        controller hands it to the provisioner (annotations
        volume.kubernetes.io/storage-provisioner and its beta twin, when
        missing: one write).  The provisioner then, for a claim with
        volume.kubernetes.io/selected-node, refuses when the
        provision_fail(_next) fault covers the claim's path or the node does
        not exist: as external-provisioner on a final failure with
        rescheduling, it removes the selected-node annotation (one write)
        and records a ProvisioningFailed Warning event, and makes no volume.
        Else it creates the volume (provisioned_volume; ADDED) and the PV
        controller binds the two (_bind_volume).  Immediate claims (no
        selected node) are provisioned likewise, with no node; under the
        provision_fail fault they wait (no write).  True when it wrote."""
        st = self.store
        claim = pvc.obj
        md = claim["metadata"]
        ns = md.get("namespace", "")
        prov = sc["provisioner"]
        node_name = (md.get("annotations") or {}).get(ANN_SELECTED_NODE)
        request = _get(claim, "spec", "resources", "requests", "storage")
        if not isinstance(request, str) or parse_quantity(request) is None:
            return False
        pvname = "pvc-" + md["uid"]
        if st.get("persistentvolumes", ("", pvname)) is not None:
            return False        # made already, and not (or no longer) for this claim
        path = "/api/v1/namespaces/%s/persistentvolumeclaims/%s" % (ns, md["name"])
        if node_name is None and self.faults.provision_refused(path, consume=False):
            return False
        if self.faults.provision_held(path):
            return False
        ann = md.get("annotations") or {}
        if ann.get(ANN_STORAGE_PROVISIONER) != prov or ann.get(ANN_BETA_STORAGE_PROVISIONER) != prov:
            new = pvc.clone()
            a = new["metadata"].setdefault("annotations", {})
            a[ANN_BETA_STORAGE_PROVISIONER] = prov
            a[ANN_STORAGE_PROVISIONER] = prov
            pvc = st.commit("persistentvolumeclaims", "MODIFIED", new, pvc)
            claim = pvc.obj
        node = None
        if node_name is not None:
            node_rec = st.get("nodes", ("", node_name))
            why = None
            if self.faults.provision_refused(path, consume=True):
                why = "rpc error: code = ResourceExhausted desc = the stand-in's provision_fail fault"
            elif node_rec is None:
                why = 'failed to get target node: node "%s" not found' % node_name
            if why is not None:
                new = pvc.clone()
                new["metadata"]["annotations"].pop(ANN_SELECTED_NODE, None)
                pvc = st.commit("persistentvolumeclaims", "MODIFIED", new, pvc)
                self._claim_event(pvc, prov, "Warning", "ProvisioningFailed",
                                  'failed to provision volume with StorageClass "%s": %s'
                                  % (sc["metadata"]["name"], why))
                return True
            node = node_rec.obj
        obj = provisioned_volume(claim, sc, node, "standin-" + str(uuid.uuid4()))
        pv = self.create("persistentvolumes", None, obj)
        self._bind_volume(pv, pvc)
        return True

    def _claim_event(self, pvc, component, etype, reason, message):
        """A core/v1 Event about claim pvc (a Rec), as a controller's
        recorder writes it."""
        md = pvc.obj["metadata"]
        now = now_rfc3339()
        self.create("events", md["namespace"], {
            "metadata": {"name": "%s.%x" % (md["name"], time.time_ns())},
            "involvedObject": {"kind": "PersistentVolumeClaim", "namespace": md["namespace"], "name": md["name"],
                               "uid": md["uid"], "apiVersion": "v1", "resourceVersion": md["resourceVersion"]},
            "reason": reason, "message": message, "source": {"component": component},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": etype, "eventTime": None,
            "reportingComponent": "", "reportingInstance": ""})

    # --- bindings
    def bind(self, ns, url_name, body):
        b = self._parse(body)
        if not isinstance(b, dict):
            raise bad_request("Binding must be an object")
        if b.get("kind") not in (None, "", "Binding"):
            raise bad_request("the kind in the data (%s) does not match the expected kind (Binding)" % b.get("kind"))
        md = b.get("metadata") or {}
        name = md.get("name") or url_name
        if url_name is not None and name != url_name:
            raise bad_request("name in URL does not match name in Binding object")
        if md.get("namespace") and md["namespace"] != ns:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        if not name:
            raise invalid("Binding", "", [("metadata.name", "Required value: name or generateName is required")])
        target = b.get("target") or {}
        node = target.get("name")
        causes = []
        if target.get("kind") not in (None, "", "Node"):
            causes.append(("target.kind", 'Invalid value: %s: must be empty or \'Node\'' % json.dumps(target["kind"])))
        if not node:
            causes.append(("target.name", "Required value"))
        if causes:
            raise invalid("Binding", name, causes)
        st = self.store
        with st.lock:
            self._require_namespace(ns)
            pod = st.get("pods", (ns, name))
            if pod is None:
                raise not_found("pods", name)
            pmd = pod.obj["metadata"]
            if md.get("uid") and md["uid"] != pmd["uid"]:
                raise conflict("pods/binding", name, "Precondition failed: UID in precondition: %s, UID in object "
                                                     "meta: %s" % (md["uid"], pmd["uid"]))
            if pmd.get("deletionTimestamp"):
                raise conflict("pods/binding", name, "pod %s is being deleted, cannot be assigned to a host" % name)
            cur = (pod.obj.get("spec") or {}).get("nodeName")
            if cur:
                raise conflict("pods/binding", name, 'pod %s is already assigned to node "%s"' % (name, cur))
            new = pod.clone()
            new["spec"]["nodeName"] = node
            if md.get("annotations"):
                new["metadata"].setdefault("annotations", {}).update(md["annotations"])
            status = new.setdefault("status", {})
            conds = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
            old_c = next((c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
            cond = {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                    "lastTransitionTime": now_rfc3339()}
            if old_c and old_c.get("status") == "True":
                cond = old_c
            idx = next((i for i, c in enumerate(status.get("conditions") or []) if c.get("type") == "PodScheduled"),
                       len(conds))
            conds.insert(idx, cond)
            status["conditions"] = conds
            rec = st.commit("pods", "MODIFIED", new, pod)
            st.cond.notify_all()
            return rec

    def record_binding(self, ns, url_name, body, code, message, rec=None):
        try:
            b = json.loads(body) if body else {}
            if not isinstance(b, dict):
                b = {}
        except (ValueError, UnicodeDecodeError):
            b = {}
        md = b.get("metadata") if isinstance(b.get("metadata"), dict) else {}
        target = b.get("target") if isinstance(b.get("target"), dict) else {}
        entry = {"time": now_rfc3339(), "timestamp": round(time.time(), 6), "namespace": ns,
                 "pod": url_name or md.get("name"), "uid": md.get("uid"), "node": target.get("name"),
                 "code": code, "result": "Bound" if code == 201 else message[0], "message": message[1]}
        if rec is not None:
            entry["podUID"] = rec.obj["metadata"]["uid"]
            entry["resourceVersion"] = rec.obj["metadata"]["resourceVersion"]
        with self.bindings_lock:
            entry["seq"] = len(self.bindings) + 1
            self.bindings.append(entry)
            self.bindings_succeeded += code == 201
            if self.audit_log is not None:
                self.audit_log.write(json.dumps(audit_event(ns, url_name, b, code)) + "\n")
                self.audit_log.flush()

    # --- bulk
    def bulk(self, body):
        """Body: a list of objects with kind (Node, Pod, Namespace, Event,
        PodDisruptionBudget, Service, ReplicationController, ReplicaSet,
        StatefulSet, the storage kinds), or
        {"namespaces": [...], "nodes": [...], "pods": [...], "events": [...],
         "poddisruptionbudgets": [...], "services": [...],
         "replicationcontrollers": [...], "replicasets": [...],
         "statefulsets": [...], "storageclasses": [...], "csidrivers": [...],
         "csinodes": [...], "csistoragecapacities": [...],
         "persistentvolumes": [...], "persistentvolumeclaims": [...],
         "volumeattachments": [...], "items": [...],
         "generate": {"nodes": {...}, "pods": {...}}}.
        generate.nodes: count, prefix ("node-"), start (0), cpu ("4"),
          memory ("16Gi"), pods ("110"), labels {}, taints [], ready (true)
        generate.pods: count, prefix ("pod-"), start (0), namespace
          ("default"), cpu ("100m"), memory ("128Mi"), schedulerName, labels {},
          priority, nodeName (pre-bound when set), image ("registry.k8s.io/pause:3.9")
        The status of pods and workloads is kept as given (when given);
        missing namespaces are made."""
        if isinstance(body, list):
            body = {"items": body}
        if not isinstance(body, dict):
            raise bad_request("bulk: expected a JSON list or object")
        todo = []
        for res in ("namespaces", "nodes", "pods", "events", "poddisruptionbudgets") + WORKLOAD_RESOURCES + \
                STORAGE_BULK_ORDER:
            for o in body.get(res) or []:
                todo.append((res, o))
        for o in body.get("items") or []:
            res = KIND_TO_RESOURCE.get(o.get("kind") if isinstance(o, dict) else None)
            if res is None:
                raise bad_request("bulk: item without a known kind: %r" % (o.get("kind") if isinstance(o, dict)
                                                                           else o))
            todo.append((res, o))
        gen = body.get("generate") or {}
        gn = gen.get("nodes")
        if gn:
            for i in range(int(gn.get("start", 0)), int(gn.get("start", 0)) + int(gn.get("count", 0))):
                todo.append(("nodes", make_node("%s%d" % (gn.get("prefix", "node-"), i), gn)))
        gp = gen.get("pods")
        if gp:
            for i in range(int(gp.get("start", 0)), int(gp.get("start", 0)) + int(gp.get("count", 0))):
                todo.append(("pods", make_pod("%s%d" % (gp.get("prefix", "pod-"), i), gp)))
        created, errors = 0, []
        st = self.store
        with st.lock:
            self._vol_deferred = True
            try:
                self._bulk_create(todo, errors)
                created = len(todo) - len(errors)
            finally:
                self._vol_deferred = False
            self._sync_volumes()
            st.cond.notify_all()
            rv = st.rv
        return {"created": created, "errorCount": len(errors), "errors": errors[:100], "resourceVersion": str(rv)}

    def _bulk_create(self, todo, errors):
        for res, o in todo:
            try:
                if not isinstance(o, dict):
                    raise bad_request("not an object")
                o = dict(o)
                ns = None
                if RESOURCES[res].namespaced:
                    ns = (o.get("metadata") or {}).get("namespace") or "default"
                self.create(res, ns, o, bulk=True)
            except ApiError as e:
                errors.append({"resource": res, "name": (o.get("metadata") or {}).get("name")
                               if isinstance(o, dict) else None, "code": e.code, "message": e.message})

    def reset(self):
        st = self.store
        with st.lock:
            # the budgets first (no status updates for pods about to go); the
            # PV controller does not run on the way
            self._vol_deferred = True
            try:
                for res in ("poddisruptionbudgets",) + WORKLOAD_RESOURCES + ("events", "pods", "nodes") + \
                        tuple(r for r in RESOURCES if RESOURCES[r].group == "storage.k8s.io" or r in VOLUME_RESOURCES):
                    for key in list(st.sorted_keys(res)):
                        st.commit(res, "DELETED", None, st.objs[res][key])
            finally:
                self._vol_deferred = False
            for key in list(st.sorted_keys("namespaces")):
                if key[1] not in INITIAL_NAMESPACES:
                    st.commit("namespaces", "DELETED", None, st.objs["namespaces"][key])
            st.cond.notify_all()
            rv = st.rv
        with self.bindings_lock:
            self.bindings = []
            self.bindings_succeeded = 0
        self.requests.clear()
        self.faults.reset()
        return {"resourceVersion": str(rv)}

    def state(self):
        st = self.store
        with st.lock:
            counts = {r: len(st.objs[r]) for r in RESOURCES}
            bound = st.pods_bound
            out = {"resourceVersion": str(st.rv), "compactedResourceVersion": str(st.compacted_rv),
                   "historySize": len(st.history), "historyMax": st.history_max, "counts": counts,
                   "pods": {"bound": bound, "unbound": counts["pods"] - bound}}
        with self.bindings_lock:
            b = self.bindings
            out["bindings"] = {"total": len(b), "succeeded": self.bindings_succeeded,
                               "failed": len(b) - self.bindings_succeeded}
        with self.conn_lock:
            out["activeWatches"] = len(self.watches)
            out["watches"] = [{"id": w.id, "target": w.target, "eventsSent": w.sent,
                               "ageSeconds": round(time.time() - w.started, 3)} for w in self.watches.values()]
            out["connections"] = self.connections
        out["threads"] = threading.active_count()
        out["requests"] = self.request_count
        out["uptimeSeconds"] = round(time.time() - self.started, 3)
        out["faults"] = self.faults.describe()
        return out

    def bindings_view(self, params):
        with self.bindings_lock:
            items = list(self.bindings)
        return bindings_view(items, params)


def bindings_view(items, params):
    """/debug/bindings of a record of binding requests (entries with
    namespace, pod, code, node, podUID): ?pod=ns/name filters, ?summary=1
    per pod"""
    pod = params.get("pod")
    if pod:
        ns, _, name = pod.rpartition("/")
        items = [e for e in items if e["pod"] == name and (not ns or e["namespace"] == ns)]
    if params.get("summary") in TRUE_STRINGS:
        summ = {}
        for e in items:
            k = "%s/%s" % (e["namespace"], e["pod"])
            s = summ.setdefault(k, {"attempts": 0, "succeeded": 0, "nodes": [], "podUIDs": []})
            s["attempts"] += 1
            if e["code"] == 201:
                s["succeeded"] += 1
                s["nodes"].append(e["node"])
                s["podUIDs"].append(e.get("podUID"))
        return summ
    return items


def audit_event(ns, url_name, binding, code):
    """kube-apiserver's audit event (audit.k8s.io/v1, level Request, stage
    ResponseComplete) of one binding request, as --audit-log-path writes it"""
    name = url_name or ((binding.get("metadata") or {}).get("name") if isinstance(binding, dict) else None)
    ref = {"resource": "pods", "namespace": ns, "name": name, "apiVersion": "v1", "subresource": "binding"}
    uri = "/api/v1/namespaces/%s/pods/%s/binding" % (ns, name)
    if url_name is None:
        ref = {"resource": "bindings", "namespace": ns, "name": name, "apiVersion": "v1"}
        uri = "/api/v1/namespaces/%s/bindings" % ns
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Request", "auditID": str(uuid.uuid4()),
            "stage": "ResponseComplete", "requestURI": uri, "verb": "create",
            "user": {"username": "scheduler-test", "groups": ["system:masters", "system:authenticated"]},
            "objectRef": ref, "responseStatus": {"metadata": {}, "code": code}, "requestObject": binding,
            "requestReceivedTimestamp": now, "stageTimestamp": now}


def make_node(name, g):
    cap = {"cpu": str(g.get("cpu", "4")), "memory": str(g.get("memory", "16Gi")), "pods": str(g.get("pods", "110")),
           "ephemeral-storage": str(g.get("ephemeral_storage", "100Gi"))}
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
    labels.update(g.get("labels") or {})
    ready = g.get("ready", True)
    now = now_rfc3339()
    return {"metadata": {"name": name, "labels": labels},
            "spec": {"taints": copy.deepcopy(g["taints"])} if g.get("taints") else {},
            "status": {"capacity": cap, "allocatable": dict(cap),
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                       "reason": "KubeletReady" if ready else "KubeletNotReady",
                                       "message": "kubelet is posting ready status" if ready else "not ready",
                                       "lastHeartbeatTime": now, "lastTransitionTime": now}],
                       "addresses": [{"type": "Hostname", "address": name}],
                       "nodeInfo": {"kubeletVersion": "v1.20.2", "osImage": "Debian GNU/Linux 12 (bookworm)",
                                    "kernelVersion": "6.1.0", "containerRuntimeVersion": "containerd://1.6.20",
                                    "operatingSystem": "linux", "architecture": "amd64"}}}


def make_pod(name, g):
    req = {}
    if g.get("cpu", "100m"):
        req["cpu"] = str(g.get("cpu", "100m"))
    if g.get("memory", "128Mi"):
        req["memory"] = str(g.get("memory", "128Mi"))
    pod = {"metadata": {"name": name, "namespace": g.get("namespace", "default"),
                        "labels": dict(g.get("labels") or {"app": "bulk"})},
           "spec": {"containers": [{"name": "c", "image": g.get("image", "registry.k8s.io/pause:3.9"),
                                    "resources": {"requests": req}}]}}
    if g.get("schedulerName"):
        pod["spec"]["schedulerName"] = g["schedulerName"]
    if g.get("priority") is not None:
        pod["spec"]["priority"] = int(g["priority"])
    if g.get("nodeName"):
        pod["spec"]["nodeName"] = g["nodeName"]
    return pod


# ---------------------------------------------------------------- HTTP

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512
    block_on_close = False

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = host
        self.server_port = port

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ssl.SSLError, EOFError)):
            if self.app.verbose:
                sys.stderr.write("connection %s: %s\n" % (client_address, exc))
            return
        super().handle_error(request, client_address)


BINDING_PATH = re.compile(r"^/api/v1/namespaces/([^/]+)/(?:pods/([^/]+)/binding|bindings)/?$")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "kube-apiserver-stub/1.20"
    sys_version = ""
    timeout = 300
    disable_nagle_algorithm = True

    # --- connection lifecycle
    def setup(self):
        app = self.server.app
        with app.conn_lock:
            app.connections += 1
        self._counted = True
        ctx = self.server.ssl_ctx
        if ctx is not None:
            self.request.settimeout(10)
            try:
                self.request = ctx.wrap_socket(self.request, server_side=True)
            except BaseException:
                self._uncount()
                raise
        super().setup()

    def _uncount(self):
        if getattr(self, "_counted", False):
            self._counted = False
            with self.server.app.conn_lock:
                self.server.app.connections -= 1

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        finally:
            try:
                if isinstance(self.connection, ssl.SSLSocket):
                    self.connection.close()
            except OSError:
                pass
            self._uncount()

    def handle(self):
        try:
            super().handle()
        except (OSError, ssl.SSLError, EOFError):
            self.close_connection = True

    def log_message(self, fmt, *args):
        if self.server.app.verbose:
            sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

    def do_GET(self):
        self.dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_GET

    # --- responses
    def send_bytes(self, code, data, ctype="application/json", headers=None):
        reason = self.responses.get(code, ("",))[0]
        lines = ["HTTP/1.1 %d %s" % (code, reason), "Content-Type: " + ctype, "Content-Length: %d" % len(data),
                 "Date: " + self.date_time_string(), "Cache-Control: no-cache, private"]
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        if self.close_connection:
            lines.append("Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        self.wfile.write(head if self.command == "HEAD" else head + data)
        self._code = code

    def linger(self):
        """After answering a request whose body is left unread, read and drop
        what the client still sends (for up to 2 s, until it stops) before the
        connection closes: closing with unread data resets the connection, and
        the client may then lose the response while it is still sending (Go's
        net/http lingers likewise)."""
        deadline = time.time() + 2
        try:
            self.wfile.flush()
            self.connection.settimeout(0.5)
            while time.time() < deadline:
                if not self.rfile.read1(65536):
                    break
        except (OSError, ValueError, ssl.SSLError):
            pass

    def send_obj(self, code, obj, headers=None):
        # the real server's JSON encoder ends every body with a newline
        self.send_bytes(code, dumps(obj) + b"\n", headers=headers)

    def send_error_status(self, err):
        self.send_obj(err.code, err.status(), err.headers)

    def read_body(self):
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        limit = self.server.app.max_body
        unlimited = self.path.startswith("/debug/")
        if "chunked" in te:
            parts, total = [], 0
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise EOFError("eof in chunked body")
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline(65537)
                total += size
                if total > limit and not unlimited:
                    self.close_connection = True
                    self._linger = True
                    raise ApiError(413, "RequestEntityTooLarge", "the request body is too large")
            return b"".join(parts)
        n = int(self.headers.get("Content-Length") or 0)
        if n > limit and not unlimited:
            self.close_connection = True
            self._linger = True
            raise ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is %d" % limit)
        data = self.rfile.read(n) if n > 0 else b""
        if len(data) < n:
            raise EOFError("short body")
        return data

    def accept_format(self):
        acc = self.headers.get("Accept") or ""
        if "as=Table" in acc:
            return "table"
        if "as=PartialObjectMetadata" in acc:
            return "meta"
        if acc:
            types = [a.split(";")[0].strip() for a in acc.split(",")]
            if not any(t in ("application/json", "*/*", "application/*", "") or t.endswith("+json") or
                       t == "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" for t in types):
                raise ApiError(406, "NotAcceptable", "only the following media types are accepted: "
                               "application/json (this stand-in speaks no protobuf or YAML)")
        return "json"

    # --- dispatch
    def dispatch(self):
        app = self.server.app
        self._code = 0
        self._linger = False
        t0 = time.time()
        self._auth = None
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        params = {k: v[-1] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        method = self.command
        body = b""
        bind_m = BINDING_PATH.match(path) if method == "POST" else None
        try:
            try:
                body = self.read_body()
            except (ValueError, EOFError):
                self.close_connection = True
                raise bad_request("malformed request body")
            if path in ("/healthz", "/livez", "/readyz"):
                self.send_bytes(200, b"ok", "text/plain; charset=utf-8")
                return
            self.check_auth()
            if path.startswith("/debug/"):
                self.handle_debug(method, path, params, body)
                return
            code, retry_after = app.faults.http_error(method, self.path)
            if code == "deep":
                self.send_bytes(500, b'{"kind": "Status", "code": 500, "details": ' + b"[" * 100000 + b"]" * 100000 + b"}",
                                "application/json")
                return
            if code:
                if code == 429:
                    raise ApiError(429, "TooManyRequests", "Too many requests, please try again later.",
                                   {"causes": [{"message": "injected fault"}], "retryAfterSeconds": retry_after},
                                   {"Retry-After": str(retry_after)})
                raise ApiError(500, "InternalError", "Internal error occurred: injected fault",
                               {"causes": [{"message": "injected fault"}]})
            if app.faults.latency and app.faults.latency_match[0] in self.path and \
                    app.faults.latency_match[1] in ("", method):
                time.sleep(app.faults.latency)
            self.route(method, path, params, body)
        except ApiError as e:
            if bind_m:
                app.record_binding(bind_m.group(1), bind_m.group(2), body, e.code, (e.reason, e.message))
            self.send_error_status(e)
            if self._linger:
                self.linger()
        except (OSError, ssl.SSLError, EOFError):
            self.close_connection = True
        except Exception:
            traceback.print_exc()
            self.close_connection = True
            try:
                self.send_error_status(ApiError(500, "InternalError", "Internal error occurred: %s"
                                                % traceback.format_exc(limit=1).strip().splitlines()[-1]))
            except OSError:
                pass
        finally:
            app.request_count += 1
            app.requests.append({"time": round(t0, 6), "method": method, "path": self.path, "code": self._code,
                                 "ms": round((time.time() - t0) * 1000, 3),
                                 "userAgent": self.headers.get("User-Agent", ""),
                                 "auth": getattr(self, "_auth", None)})

    def check_auth(self):
        auth = self.headers.get("Authorization") or ""
        if not auth and self.server.ssl_ctx is not None and self.request.getpeercert():
            # a client certificate the CA signed (verified in the handshake):
            # kube-apiserver's x509 authenticator
            self._auth = "certificate"
            return
        if not auth and self.server.ssl_ctx is None:
            # --plain-http is the old insecure port: client-go and kubectl never send
            # credentials over plain HTTP, so a request without any is let in there.
            return
        parts = auth.split(None, 1)
        ok = len(parts) == 2 and parts[0].lower() == "bearer" and \
            secrets.compare_digest(parts[1].strip().encode(), self.server.app.token.encode())
        if not ok:
            raise ApiError(401, "Unauthorized", "Unauthorized")
        self._auth = "token"

    def handle_debug(self, method, path, params, body):
        app = self.server.app
        p = path.rstrip("/")
        if p == "/debug/state" and method == "GET":
            return self.send_obj(200, app.state())
        if p == "/debug/bindings":
            if method == "GET":
                return self.send_obj(200, app.bindings_view(params))
            if method == "DELETE":
                with app.bindings_lock:
                    app.bindings = []
                    app.bindings_succeeded = 0
                return self.send_obj(200, [])
        if p == "/debug/requests" and method == "GET":
            items = list(app.requests)
            lim = int(params.get("limit") or 0)
            return self.send_obj(200, items[-lim:] if lim else items)
        if p == "/debug/faults":
            if method == "GET":
                return self.send_obj(200, app.faults.describe())
            if method == "POST":
                return self.send_obj(200, app.faults.apply(app._parse(body), app))
        if p == "/debug/bulk" and method == "POST":
            return self.send_obj(200, app.bulk(app._parse(body)))
        if p == "/debug/reset" and method == "POST":
            return self.send_obj(200, app.reset())
        raise ApiError(404, "NotFound", "the server could not find the requested resource")

    # --- routing
    def route(self, method, path, params, body):
        app = self.server.app
        if method in ("GET", "HEAD"):
            disc = self.discovery(path)
            if disc is not None:
                return
        parts = [urllib.parse.unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        if len(parts) >= 3 and parts[0] == "api" and parts[1] == "v1":
            gv, parts = "v1", parts[2:]
        elif len(parts) >= 4 and parts[0] == "apis" and API_GROUPS.get(parts[1]) == parts[1] + "/" + parts[2]:
            gv, parts = API_GROUPS[parts[1]], parts[3:]
            if gv == EVENTS_V1:
                try:
                    return self.route_events_v1(method, parts, params, body)
                except ApiError as e:
                    raise events_v1_error(e) from None
        else:
            raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        known = {r for r, R in RESOURCES.items() if R.api_version == gv}
        if gv == "v1":
            known.add("bindings")
        if parts[0] == "watch":
            parts = parts[1:]
            params["watch"] = "true"
            if not parts:
                raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        ns = name = sub = None
        if parts[0] == "namespaces" and len(parts) >= 3 and parts[2] in known \
                and RESOURCES.get(parts[2], RESOURCES["pods"]).namespaced:
            ns, res = parts[1], parts[2]
            name = parts[3] if len(parts) > 3 else None
            sub = parts[4] if len(parts) > 4 else None
            if len(parts) > 5:
                raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        else:
            res = parts[0]
            name = parts[1] if len(parts) > 1 else None
            sub = parts[2] if len(parts) > 2 else None
            if len(parts) > 3 or res not in known or res == "bindings" or \
                    (RESOURCES[res].namespaced and name is not None):
                raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        if res == "bindings":
            if name is not None:
                raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
            if method != "POST":
                raise method_not_allowed()
            return self.do_bind(ns, None, body)
        R = RESOURCES[res]
        fmt = self.accept_format()
        if name is None:
            if method in ("GET", "HEAD"):
                if params.get("watch") in TRUE_STRINGS:
                    return self.serve_watch(res, ns, params, fmt)
                return self.serve_list(res, ns, params, fmt)
            if method == "POST":
                if R.namespaced and ns is None:
                    raise method_not_allowed()
                self.require_json_body()
                rec = app.create(res, ns, app._parse(body))
                return self.send_bytes(201, rec.full_json())
            if method == "DELETE":
                recs = app.delete_collection(res, ns, params)
                return self.send_list(res, recs, str(app.store.rv), {}, "json")
            raise method_not_allowed()
        if sub is not None:
            if sub == "binding" and res == "pods":
                if method != "POST":
                    raise method_not_allowed()
                return self.do_bind(ns, name, body)
            if sub not in R.subresources or sub != "status":
                raise ApiError(404, "NotFound", "the server could not find the requested resource", {})
        if method in ("GET", "HEAD"):
            with app.store.lock:
                rec = app.store.get(res, (ns or "", name))
            if rec is None:
                raise not_found(res, name)
            return self.send_one(res, rec, fmt, params)
        if method == "PUT":
            self.require_json_body()
            rec = app.update(res, ns, name, body, sub)
            return self.send_bytes(200, rec.full_json())
        if method == "PATCH":
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            rec = app.patch(res, ns, name, body, ctype, sub)
            return self.send_bytes(200, rec.full_json())
        if method == "DELETE" and sub is None:
            rec = app.delete(res, ns, name, body, params)
            return self.send_bytes(200, rec.full_json())
        raise method_not_allowed()

    def route_events_v1(self, method, parts, params, body):
        """/apis/events.k8s.io/v1/...: the events, seen as events.k8s.io/v1
        (GET, list, watch, POST, PUT, PATCH, DELETE, DELETE-collection)."""
        app = self.server.app
        view = EVENTS_V1_VIEW
        if parts[0] == "watch":
            parts = parts[1:]
            params["watch"] = "true"
        notfound = ApiError(404, "NotFound", "the server could not find the requested resource", {})
        if parts == ["events"]:
            ns, name = None, None
        elif len(parts) in (3, 4) and parts[0] == "namespaces" and parts[2] == "events":
            ns, name = parts[1], parts[3] if len(parts) == 4 else None
        else:
            raise notfound
        fmt = self.accept_format()
        if name is None:
            if method in ("GET", "HEAD"):
                if params.get("watch") in TRUE_STRINGS:
                    return self.serve_watch("events", ns, params, fmt, view)
                return self.serve_list("events", ns, params, fmt, view)
            if method == "POST" and ns is not None:
                self.require_json_body()
                rec = app.event_v1_create(ns, app._parse(body))
                return self.send_obj(201, view.full(rec.obj))
            if method == "DELETE":
                recs = app.delete_collection("events", ns, params, view)
                return self.send_list("events", recs, str(app.store.rv), {}, "json", view=view)
            raise method_not_allowed()
        if method in ("GET", "HEAD"):
            with app.store.lock:
                rec = app.store.get("events", (ns, name))
            if rec is None:
                raise not_found("events", name)
            return self.send_one("events", rec, fmt, params, view)
        if method == "PUT":
            self.require_json_body()
            rec, created = app.event_v1_update(ns, name, body)
            return self.send_obj(201 if created else 200, view.full(rec.obj))
        if method == "PATCH":
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            rec = app.event_v1_patch(ns, name, body, ctype)
            return self.send_obj(200, view.full(rec.obj))
        if method == "DELETE":
            rec = app.delete("events", ns, name, body, params)
            # events are not returned on delete: a Status, as the real server's
            return self.send_obj(200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                                       "details": {"name": name, "group": EVENTS_GROUP, "kind": "events",
                                                   "uid": rec.obj["metadata"]["uid"]}})
        raise method_not_allowed()

    def require_json_body(self):
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in ("", "application/json", "*/*"):
            raise ApiError(415, "UnsupportedMediaType", 'the body of the request was in an unknown format - '
                           'accepted media types include: application/json')

    def do_bind(self, ns, name, body):
        app = self.server.app
        self.require_json_body()
        rec = app.bind(ns, name, body)
        app.record_binding(ns, name, body, 201, ("Bound", ""), rec)
        self.send_obj(201, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})

    def discovery(self, path):
        p = path.rstrip("/") or "/"
        if p == "/version":
            self.send_obj(200, SERVER_VERSION)
        elif p == "/api":
            self.send_obj(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:%d" % self.server.server_port}]})
        elif p == "/apis":
            self.send_obj(200, {"kind": "APIGroupList", "apiVersion": "v1",
                                "groups": [api_group(g) for g in sorted(API_GROUPS)]})
        elif p.startswith("/apis/") and p[6:] in API_GROUPS:
            d = {"kind": "APIGroup", "apiVersion": "v1"}
            d.update(api_group(p[6:]))
            self.send_obj(200, d)
        elif p.startswith("/apis/") and p[6:] in API_GROUPS.values():
            self.send_obj(200, api_resource_list(p[6:]))
        elif p == "/api/v1":
            self.send_obj(200, api_resource_list())
        elif p == "/openapi/v2":
            acc = self.headers.get("Accept") or ""
            if "protobuf" in acc:
                # gnostic openapi_v2.Document{swagger: "2.0", info: {title, version}}, no definitions:
                # kubectl then skips client-side validation of every kind.
                info = b"\x0a\x0aKubernetes" + b"\x12\x07v1.20.2"
                doc = b"\x0a\x032.0" + b"\x12" + bytes([len(info)]) + info
                self.send_bytes(200, doc, "application/octet-stream")
            else:
                self.send_obj(200, {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.20.2"},
                                    "paths": {}, "definitions": {}})
        elif p == "/":
            self.send_obj(200, {"paths": sorted(["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v2",
                                                 "/readyz", "/version"] + ["/apis/" + g for g in API_GROUPS] +
                                                ["/apis/" + gv for gv in API_GROUPS.values()])})
        else:
            return None
        return True

    # --- list / get output
    def send_one(self, res, rec, fmt, params, view=None):
        if fmt == "table":
            tbl = {"kind": "Table", "apiVersion": "meta.k8s.io/v1",
                   "metadata": {"resourceVersion": str(rec.rv)}, "columnDefinitions": TABLE_COLUMNS[res],
                   "rows": [table_row(res, rec.obj, rec.kind, params.get("includeObject", "Metadata"), time.time(),
                                      view)]}
            return self.send_bytes(200, dumps(tbl), "application/json;as=Table;v=v1;g=meta.k8s.io")
        if fmt == "meta":
            return self.send_bytes(200, dumps({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                               "metadata": rec.obj["metadata"]}),
                                   "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io")
        if view is not None:
            return self.send_obj(200, view.full(rec.obj))
        return self.send_bytes(200, rec.full_json())

    def send_list(self, res, recs, rv, extra_meta, fmt, include="Metadata", view=None):
        R = view or RESOURCES[res]
        meta = {"resourceVersion": rv}
        meta.update(extra_meta)
        if fmt == "table":
            now = time.time()
            tbl = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
                   "columnDefinitions": TABLE_COLUMNS[res],
                   "rows": [table_row(res, r.obj, r.kind, include, now, view) for r in recs]}
            return self.send_bytes(200, dumps(tbl), "application/json;as=Table;v=v1;g=meta.k8s.io")
        if fmt == "meta":
            out = {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
                   "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                              "metadata": r.obj["metadata"]} for r in recs]}
            return self.send_bytes(200, dumps(out),
                                   "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io")
        data = b"".join([b'{"kind":"%s","apiVersion":"%s","metadata":%s,"items":[' % (
                             R.list_kind.encode(), R.api_version.encode(), dumps(meta)),
                         b",".join(r.item_json() if view is None else dumps(view.item(r.obj)) for r in recs),
                         b"]}"])
        return self.send_bytes(200, data)

    def serve_list(self, res, ns, params, fmt, view=None):
        st = self.server.app.store
        sel = Selector(res, params, view.fields if view else None)
        try:
            limit = int(params.get("limit") or 0)
        except ValueError:
            raise bad_request("limit: invalid value") from None
        rvp = params.get("resourceVersion", "")
        match = params.get("resourceVersionMatch", "")
        cont = params.get("continue", "")
        start = None
        with st.lock:
            if cont:
                try:
                    tok = json.loads(base64.urlsafe_b64decode(cont + "=" * (-len(cont) % 4)))
                    list_rv = int(tok["rv"])
                    start = tok["start"]
                except (ValueError, KeyError, TypeError):
                    raise bad_request("continue key is not valid: incorrect encoded start resourceVersion "
                                      "(version meta.k8s.io/v1)") from None
                if list_rv < st.compacted_rv:
                    raise expired("The provided continue parameter is too old to display a consistent list "
                                  "result. You can start a new list without the continue parameter, or use the "
                                  "continue token in this response to retrieve the remainder of the results. "
                                  "Continuing with the provided token results in an inconsistent list - objects "
                                  "that were created, modified, or deleted between the time the first chunk was "
                                  "returned and now may show up in the list.")
            elif match == "Exact":
                try:
                    list_rv = int(rvp)
                except ValueError:
                    raise bad_request("resourceVersionMatch=Exact requires a resourceVersion") from None
                if list_rv > st.rv:
                    raise ApiError(504, "Timeout", "Too large resource version: %d, current: %d"
                                   % (list_rv, st.rv), {"causes": [{"reason": "ResourceVersionTooLarge",
                                                                    "message": "Too large resource version"}],
                                                        "retryAfterSeconds": 1})
            else:
                list_rv = st.rv
                if rvp == "0" and match != "Exact":
                    limit = 0  # served from the watch cache: no paging, as the real server
            objs, keys = st.state_at(res, list_rv)
            i = 0
            if ns is not None:
                i = bisect.bisect_left(keys, (ns, ""))
            if start is not None:
                skey = tuple(start.split("/", 1)) if RESOURCES[res].namespaced else ("", start)
                i = max(i, bisect.bisect_right(keys, skey))
            out = []
            more = False
            last = None
            n = len(keys)
            while i < n:
                k = keys[i]
                i += 1
                if ns is not None and k[0] != ns:
                    break
                rec = objs[k]
                if not sel.match(rec.obj):
                    continue
                if limit and len(out) >= limit:
                    more = True
                    break
                out.append(rec)
                last = k
            extra = {}
            if more:
                tok = {"v": "meta.k8s.io/v1", "rv": list_rv,
                       "start": ("%s/%s" % last) if RESOURCES[res].namespaced else last[1]}
                extra["continue"] = base64.urlsafe_b64encode(dumps(tok)).decode().rstrip("=")
                if sel.empty:
                    i -= 1
                    if ns is None:
                        extra["remainingItemCount"] = n - i
                    else:
                        extra["remainingItemCount"] = sum(1 for k in keys[i:] if k[0] == ns)
        return self.send_list(res, out, str(list_rv), extra, fmt, params.get("includeObject", "Metadata"), view)

    # --- watch
    def _chunk(self, data):
        rng = getattr(self, "_fuzz_rng", None)
        if rng is None or len(data) < 2:
            buf = getattr(self, "_wbuf", None)
            if buf is None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                return
            # a run of watch events goes out in few writes, as a real API
            # server's buffered stream does (one TLS record per event made
            # the stand-in, not the client, the bottleneck of the bench)
            buf.append(b"%x\r\n%s\r\n" % (len(data), data))
            self._wbuf_len += len(buf[-1])
            if self._wbuf_len >= 256 * 1024:
                self._flush_chunks()
            return
        self._flush_chunks()
        i = 0
        while i < len(data):
            n = rng.choice([1, 2, 3, 7, 64, 1000, len(data)])
            piece = data[i:i + n]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            i += n

    def _flush_chunks(self):
        buf = getattr(self, "_wbuf", None)
        if buf:
            self.wfile.write(b"".join(buf))
            del buf[:]
        self._wbuf_len = 0

    def _event_bytes(self, etype, res, rec, fmt, w, obj=None, view=None):
        """One watch line for a Rec (or a raw dict obj, kind-less)."""
        if fmt == "json" and obj is None and view is None:
            if etype == "ADDED" or etype == "MODIFIED" or etype == "DELETED":
                return b'{"type":"%s","object":%s}\n' % (etype.encode(), rec.full_json())
        o = obj if obj is not None else rec.obj
        kind = RESOURCES[res].kind
        if fmt == "table":
            tbl = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {
                "resourceVersion": o["metadata"]["resourceVersion"]}, "rows": [
                table_row(res, o, kind, w.include, time.time(), view)]}
            if not w.columns_sent:
                tbl["columnDefinitions"] = TABLE_COLUMNS[res]
                w.columns_sent = True
            return dumps({"type": etype, "object": tbl}) + b"\n"
        if fmt == "meta":
            return dumps({"type": etype, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                                    "metadata": o["metadata"]}}) + b"\n"
        if view is not None:
            return dumps({"type": etype, "object": view.full(o)}) + b"\n"
        d = {"kind": kind, "apiVersion": RESOURCES[res].api_version}
        d.update(o)
        return dumps({"type": etype, "object": d}) + b"\n"

    def _bookmark_bytes(self, res, rv, fmt, initial_end=False, view=None):
        md = {"resourceVersion": str(rv), "creationTimestamp": None}
        if initial_end:
            md["annotations"] = {"k8s.io/initial-events-end": "true"}
        if fmt == "table":
            obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": str(rv)},
                   "rows": []}
        elif fmt == "meta":
            obj = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": md}
        elif view is not None:
            body = {"metadata": md}
            body.update(copy.deepcopy(BOOKMARK_BODY[res]))
            obj = view.full(body)
        else:
            obj = {"kind": RESOURCES[res].kind, "apiVersion": RESOURCES[res].api_version, "metadata": md}
            obj.update(copy.deepcopy(BOOKMARK_BODY.get(res, {"spec": {}, "status": {}})))
        return dumps({"type": "BOOKMARK", "object": obj}) + b"\n"

    def _client_gone(self):
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
        except (ValueError, OSError):
            return True
        return bool(r)

    def serve_watch(self, res, ns, params, fmt, view=None):
        app = self.server.app
        st = app.store
        faults = app.faults
        sel = Selector(res, params, view.fields if view else None)
        bookmarks = params.get("allowWatchBookmarks") in TRUE_STRINGS
        rvp = params.get("resourceVersion", "")
        send_initial = params.get("sendInitialEvents")
        send_initial = (rvp in ("", "0")) if send_initial is None else (send_initial in TRUE_STRINGS)
        timeout = None
        if params.get("timeoutSeconds"):
            try:
                timeout = float(params["timeoutSeconds"])
            except ValueError:
                raise bad_request("timeoutSeconds: invalid value") from None
        d = parse_go_duration(params.get("timeout", ""))
        if d:
            timeout = d if timeout is None else min(timeout, d)
        if timeout is None:
            timeout = 1800 * (1 + random.random())
        if rvp not in ("", "0"):
            try:
                int(rvp)
            except ValueError:
                raise bad_request('resourceVersion: Invalid value: "%s": must be an integer' % rvp) from None
        initial = []
        too_old = None
        with st.lock:
            if rvp in ("", "0"):
                pos = st.rv
            else:
                pos = int(rvp)
                if pos < st.compacted_rv:
                    too_old = "too old resource version: %d (%d)" % (pos, st.compacted_rv + 1)
            if too_old is None and send_initial:
                objs, keys = st.state_at(res, pos)
                for k in keys:
                    if ns is not None and k[0] != ns:
                        continue
                    rec = objs[k]
                    if sel.match(rec.obj):
                        initial.append(rec)
            generation = st.watch_generation
        head = ["HTTP/1.1 200 OK",
                "Content-Type: " + {"table": "application/json;as=Table;v=v1;g=meta.k8s.io",
                                    "meta": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"}.get(
                                        fmt, "application/json"),
                "Cache-Control: no-cache, private", "Date: " + self.date_time_string(),
                "Transfer-Encoding: chunked"]
        self._code = 200
        self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        if too_old is not None:
            self._chunk(dumps({"type": "ERROR", "object": status_obj(410, "Expired", too_old)}) + b"\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        w = WatchInfo(next(app.watch_ids), self.path, res, ns)
        w.include = params.get("includeObject", "Metadata")
        w.columns_sent = False
        with app.conn_lock:
            app.watches[w.id] = w
        deadline = time.time() + timeout
        state = {"abort": False, "drop": False}

        def stall():
            if time.time() < faults.stall_until:
                self._flush_chunks()
            while time.time() < faults.stall_until:
                if self._client_gone():
                    raise ConnectionAbortedError("client gone")
                time.sleep(min(0.2, max(0.0, faults.stall_until - time.time())))

        def cut(line):
            # announce the whole line as a chunk, send only half of it, then abort
            self._flush_chunks()
            self.wfile.write(b"%x\r\n%s" % (len(line), line[:max(1, len(line) // 2)]))
            state["abort"] = True
            return False

        def expire(rv):
            msg = "too old resource version: %s (%d)" % (rv, st.rv + 1)
            self._chunk(dumps({"type": "ERROR", "object": status_obj(410, "Expired", msg)}) + b"\n")
            return False

        def send_event(etype, rec, obj=None):
            stall()
            line = self._event_bytes(etype, res, rec, fmt, w, obj, view)
            if state["drop"]:
                return cut(line)
            self._chunk(line)
            w.sent += 1
            action = faults.watch_check(w, True)
            if action == "expire":
                return expire((obj or rec.obj)["metadata"]["resourceVersion"])
            if action == "drop":
                state["drop"] = True
            return True

        try:
            self._fuzz_rng = None
            fz = faults.take_fuzz(self.path)
            if fz:
                self._fuzz_rng = fz["rng"]
                for _ in range(fz["lines"]):
                    self._chunk(fuzz_line(fz["rng"], RESOURCES[res].kind) + b"\n")
                if fz["rng"].random() < 0.3:
                    self._chunk(fuzz_line(fz["rng"], RESOURCES[res].kind, stopper=True) + b"\n")
            if faults.take_malformed(self.path):
                self._chunk(b'{"type":"ADDED","object":{"kind":"' + RESOURCES[res].kind.encode() +
                            b'","metadata":{"name": this is not JSON\n')
            ok = True
            action = faults.watch_check(w, False)
            if action == "expire":
                ok = expire(pos)
            elif action == "drop":
                state["drop"] = True
            for rec in initial if ok else ():
                if not send_event("ADDED", rec):
                    ok = False
                    break
            if ok and send_initial and bookmarks and params.get("sendInitialEvents") in TRUE_STRINGS:
                self._chunk(self._bookmark_bytes(res, pos, fmt, initial_end=True, view=view))
            next_bookmark = time.time() + faults.bookmark_interval
            while ok:
                idle_until = time.time() + 0.2 if state["drop"] else None
                with st.lock:
                    while st.res_rv[res] <= pos and st.watch_generation == generation:
                        now = time.time()
                        wait = min(deadline, next_bookmark if bookmarks else deadline, now + 1.0,
                                   idle_until or deadline) - now
                        if wait <= 0:
                            break
                        st.cond.wait(res, wait)
                        if self._client_gone():
                            raise ConnectionAbortedError("client gone")
                    if st.res_rv[res] <= pos:
                        # nothing of res since pos: where a scan of the
                        # events after it would have brought pos
                        pos = max(pos, st.rv)
                    if st.watch_generation != generation:
                        break
                    if pos < st.compacted_rv:
                        msg = "too old resource version: %d (%d)" % (pos, st.compacted_rv + 1)
                        self._chunk(dumps({"type": "ERROR", "object": status_obj(410, "Expired", msg)}) + b"\n")
                        break
                    events = st.events_after(pos) if st.rv > pos else []
                    newpos = max(pos, st.rv)
                if self._client_gone():
                    raise ConnectionAbortedError("client gone")
                if state["drop"] and not events:
                    stall()
                    cut(self._bookmark_bytes(res, pos, fmt, view=view))
                    break
                self._wbuf, self._wbuf_len = [], 0
                for ev in events:
                    if ev.res != res or (ns is not None and ev.key[0] != ns):
                        continue
                    if sel.empty:
                        ok = send_event(ev.type, ev.rec)
                    else:
                        cur_ok = ev.type != "DELETED" and sel.match_rec(ev.rec)
                        old_ok = ev.prev is not None and sel.match_rec(ev.prev)
                        if ev.type == "DELETED":
                            ok = send_event("DELETED", ev.rec) if old_ok else True
                        elif cur_ok and old_ok:
                            ok = send_event("MODIFIED", ev.rec)
                        elif cur_ok:
                            ok = send_event("ADDED", ev.rec)
                        elif old_ok:
                            o = ev.prev.clone()
                            o["metadata"]["resourceVersion"] = str(ev.rv)
                            ok = send_event("DELETED", None, o)
                    if not ok:
                        break
                    pos = ev.rv
                self._flush_chunks()
                self._wbuf = None
                if not ok:
                    break
                pos = newpos
                now = time.time()
                if now >= deadline:
                    if bookmarks:
                        stall()
                        self._chunk(self._bookmark_bytes(res, pos, fmt, view=view))
                    break
                if bookmarks and now >= next_bookmark:
                    stall()
                    self._chunk(self._bookmark_bytes(res, pos, fmt, view=view))
                    next_bookmark = now + faults.bookmark_interval
            if state["abort"]:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            else:
                self.wfile.write(b"0\r\n\r\n")
        except (OSError, ssl.SSLError, ConnectionAbortedError):
            self.close_connection = True
        finally:
            self._fuzz_rng = None
            self._wbuf = None
            with app.conn_lock:
                app.watches.pop(w.id, None)


# what the rest of a BOOKMARK's object is (a zero value of its type, as the
# real server serializes it)
_EMPTY_TEMPLATE = {"metadata": {"creationTimestamp": None}, "spec": {"containers": None}}
BOOKMARK_BODY = {
    "pods": {"spec": {"containers": None}, "status": {}},
    "events": {"involvedObject": {}, "source": {}, "firstTimestamp": None, "lastTimestamp": None, "eventTime": None,
               "reportingComponent": "", "reportingInstance": ""},
    "services": {"spec": {}, "status": {"loadBalancer": {}}},
    "replicationcontrollers": {"spec": {}, "status": {"replicas": 0}},
    "replicasets": {"spec": {"selector": None, "template": _EMPTY_TEMPLATE}, "status": {"replicas": 0}},
    "statefulsets": {"spec": {"selector": None, "template": _EMPTY_TEMPLATE, "serviceName": "",
                              "updateStrategy": {}}, "status": {"replicas": 0}},
}


def method_not_allowed():
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})


def api_group(group):
    gv = {"groupVersion": API_GROUPS[group], "version": API_GROUPS[group].split("/", 1)[1]}
    return {"name": group, "versions": [gv], "preferredVersion": dict(gv)}


def api_resource_list(group_version="v1"):
    if group_version == EVENTS_V1:
        # the second view of the core events (see EventsV1View)
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": EVENTS_V1, "resources": [
            {"name": "events", "singularName": "event", "namespaced": True, "kind": "Event", "verbs": VERBS_ALL,
             "shortNames": ["ev"]}]}
    res = []
    for R in RESOURCES.values():
        if R.api_version != group_version:
            continue
        e = {"name": R.name, "singularName": "", "namespaced": R.namespaced, "kind": R.kind, "verbs": VERBS_ALL}
        if R.short:
            e["shortNames"] = R.short
        if R.categories:
            e["categories"] = R.categories
        res.append(e)
        if "status" in R.subresources:
            res.append({"name": R.name + "/status", "singularName": "", "namespaced": R.namespaced,
                        "kind": R.kind, "verbs": ["get", "patch", "update"]})
        if "binding" in R.subresources:
            res.append({"name": R.name + "/binding", "singularName": "", "namespaced": R.namespaced,
                        "kind": "Binding", "verbs": ["create"]})
    if group_version != "v1":
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": res}
    res.insert(0, {"name": "bindings", "singularName": "", "namespaced": True, "kind": "Binding",
                   "verbs": ["create"]})
    return {"kind": "APIResourceList", "groupVersion": "v1", "resources": res}


# ---------------------------------------------------------------- certificates and kubeconfig

OPENSSL_CNF = """\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = scheduler-test
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[v3_srv]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost,IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[v3_client]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""


def _run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise SystemExit("command failed: %s\n%s" % (" ".join(cmd), r.stderr.decode(errors="replace")))


def _write(path, data, mode=0o644):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def ensure_certs(d, regen=False):
    ca_key, ca_crt = os.path.join(d, "ca.key"), os.path.join(d, "ca.crt")
    key, crt = os.path.join(d, "server.key"), os.path.join(d, "server.crt")
    ckey, ccrt = os.path.join(d, "client.key"), os.path.join(d, "client.crt")
    if not regen and all(os.path.exists(p) for p in (ca_key, ca_crt, key, crt, ckey, ccrt)):
        return ca_crt, crt, key
    cnf = os.path.join(d, "openssl.cnf")
    csr = os.path.join(d, "server.csr")
    _write(cnf, OPENSSL_CNF)
    old = os.umask(0o077)
    try:
        _run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ca_key])
        _run(["openssl", "req", "-x509", "-new", "-key", ca_key, "-sha256", "-days", "3650", "-config", cnf,
              "-extensions", "v3_ca", "-subj", "/CN=scheduler-test-ca", "-out", ca_crt])
        _run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        _run(["openssl", "req", "-new", "-key", key, "-config", cnf, "-subj", "/CN=kube-apiserver", "-out", csr])
        _run(["openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-set_serial",
              "0x" + secrets.token_hex(8), "-days", "825", "-sha256", "-extfile", cnf, "-extensions", "v3_srv",
              "-out", crt])
        # a client certificate the CA signs: kube-apiserver's --client-ca-file
        # authenticates it as its CommonName
        _run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", ckey])
        _run(["openssl", "req", "-new", "-key", ckey, "-config", cnf, "-subj", "/CN=scheduler", "-out", csr])
        _run(["openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-set_serial",
              "0x" + secrets.token_hex(8), "-days", "825", "-sha256", "-extfile", cnf, "-extensions", "v3_client",
              "-out", ccrt])
    finally:
        os.umask(old)
    os.chmod(ca_crt, 0o644)
    os.chmod(crt, 0o644)
    os.chmod(ccrt, 0o644)
    for p in (csr,):
        try:
            os.unlink(p)
        except OSError:
            pass
    return ca_crt, crt, key


def write_kubeconfig(d, url, token, ca_crt):
    lines = ["apiVersion: v1", "kind: Config", "clusters:", "- name: scheduler-test", "  cluster:",
             "    server: %s" % url]
    if ca_crt:
        lines.append("    certificate-authority: %s" % json.dumps(os.path.abspath(ca_crt)))
    lines += ["users:", "- name: scheduler-test", "  user:", "    token: %s" % json.dumps(token),
              "contexts:", "- name: scheduler-test", "  context:", "    cluster: scheduler-test",
              "    user: scheduler-test", "    namespace: default", "current-context: scheduler-test", ""]
    path = os.path.join(d, "kubeconfig")
    _write(path, "\n".join(lines), 0o600)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    ap.add_argument("--cert-dir", required=True, help="where the CA, certificate, token and kubeconfig go")
    ap.add_argument("--token", help="bearer token (default: the one in CERT_DIR/token, or a new random one)")
    ap.add_argument("--plain-http", action="store_true", help="serve plain HTTP instead of HTTPS")
    ap.add_argument("--regen-certs", action="store_true", help="make a new CA and certificate even if present")
    ap.add_argument("--history-size", type=int, default=100000, help="watch events kept (default 100000)")
    ap.add_argument("--bookmark-interval", type=float, default=10.0, help="seconds between BOOKMARKs")
    ap.add_argument("--max-body-bytes", type=int, default=3 * 1024 * 1024, help="request body limit (3 MiB)")
    ap.add_argument("--verbose", "-v", action="store_true", help="log requests to stderr")
    ap.add_argument("--audit-log-path", help="append kube-apiserver's audit event of each binding request here")
    ap.add_argument("--graceful-delete-seconds", type=float, default=0.0,
                    help="the graceful_delete_seconds fault from the start (see Faults)")
    a = ap.parse_args(argv)

    d = os.path.abspath(a.cert_dir)
    os.makedirs(d, exist_ok=True)
    token_path = os.path.join(d, "token")
    token = a.token
    if not token and os.path.exists(token_path):
        with open(token_path) as f:
            token = f.read().strip()
    if not token:
        token = secrets.token_hex(24)
    _write(token_path, token + "\n", 0o600)

    # The store holds millions of objects (a bulk load of 20000 pods makes
    # 600,000), none of them in a reference cycle: the collector's default
    # pace (the youngest generation collected every 700 new objects, the
    # next every 10th time, the oldest then when it grew by a quarter)
    # walked them for up to 40% of the time a bulk load or a binding took.
    gc.set_threshold(100000, 50, 1000)
    app = App(token, a.history_size, a.bookmark_interval, a.max_body_bytes, a.verbose)
    if a.audit_log_path:
        app.audit_log = open(a.audit_log_path, "a")
    app.faults.graceful_delete_seconds = a.graceful_delete_seconds
    server = Server(("127.0.0.1", a.port), Handler)
    server.app = app
    server.ssl_ctx = None
    ca_crt = None
    scheme = "http"
    if not a.plain_http:
        ca_crt, crt, key = ensure_certs(d, a.regen_certs)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(crt, key)
        ctx.load_verify_locations(ca_crt)
        ctx.verify_mode = ssl.CERT_OPTIONAL  # a client certificate, or a token
        ctx.set_alpn_protocols(["http/1.1"])
        server.ssl_ctx = ctx
        scheme = "https"
    port = server.server_address[1]
    url = "%s://127.0.0.1:%d" % (scheme, port)
    app.url = url
    kc = write_kubeconfig(d, url, token, ca_crt)
    _write(os.path.join(d, "server.json"), json.dumps({
        "url": url, "port": port, "token": token, "ca": ca_crt, "kubeconfig": kc, "pid": os.getpid()}, indent=1))

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print("READY %s" % url, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
