#!/usr/bin/env python3
"""sqlfuzz: an SQL-level mutation fuzzer for the scheduler extension.

It starts a throwaway PostgreSQL 15 cluster (initdb in a temporary folder,
unix socket only, shared_preload_libraries = 'scheduler', so the background
scheduling worker runs too), creates the extension, loads a realistic base
cluster (nodes, pods, namespaces, PodDisruptionBudgets, Services,
ReplicationControllers, ReplicaSets, StatefulSets, the storage kinds and pods
with volumes naming them), and then drives mutants
through the extension:

  * seeds: realistic objects of every kind apply() takes (written below, and
    test/fixtures/kubectl-get-*.json), watch events, Lists for relist(),
    apply_events() batches, and scheduler.profile_plugins rows;
  * mutations at every JSON path (nested in arrays too): wrong JSON types,
    null, "", huge strings (to ~300 KB), odd strings, extreme numbers,
    odd quantities, deleted keys, unknown keys, an element duplicated up to
    thousands of times, emptied arrays, deep nesting, and structural pod,
    node and storage mutations (huge requests and overhead, broken
    ownerReferences, topology spread constraints, affinity weights, odd
    tolerations, volumes with two sources or odd claims, odd storage
    quantities, claimRefs, topologies and CSI limits, ...);
  * some mutants are planted past apply()'s validation, by writing the mirror
    tables (scheduler.pods, nodes, ...) directly, or profile rows past the
    args check;
  * each mutant is applied (apply / a watch event / apply_events / relist),
    QueueingHints are set off (a node relabelled, tainted, resized, a
    storage object changed, a bound pod deleted, a placement confirmed), then schedule_pending() runs, and
    filter(), score(), score(.., false) and why() explain the mutant's pod;
    about half of the transactions commit, the rest roll back.

One helper plpgsql function (fuzz.drive) does a whole mutant in one round
trip, each step inside its own BEGIN ... EXCEPTION block, and reports the
steps that failed with their SQLSTATE.  Expected outcomes:

  apply      ok, SQLSTATE class 22, or 54001 (deep nesting); 38000 for a
             watch ERROR event
  schedule   schedule_pending() never fails (class 22 only when a profile
             was planted past its args validation)
  filter, score, score_all, why, snapshot, views
             ok, class 22, 42704 (no such pod) or 38000

Anything else is a finding, as is a server process ended by a signal (the
mutant is written to crash-<k>.json in the work folder), a mutant with no
answer in 120 s (hang-<k>.json; a backend that ignores pg_terminate_backend()
gets the server restarted), an expected error whose message is unclear (a
"(null)" printed, over 2000 characters, a raw control character, or an
apply() error that does not begin with its object), and, at the end,
any line of the server log with "terminated by signal", "PANIC", "TRAP:",
"AddressSanitizer" or "runtime error:", and any ERROR of the scheduling
background worker.

Usage:
  test/fuzz/sqlfuzz.py [--mutants N] [--seed S] [--workdir DIR] [--keep]
                       [--workers W] [--only K[,K...]]

The seed is printed at the start; mutant k is generated from (seed, k)
alone, so `--seed S` replays a run (with the same --mutants and --workers,
the same mutants go through the same connections in the same order) and
`--seed S --only K` runs mutant K alone on a fresh base cluster and prints it.
`--only` also takes a list (K, A-B, A-B/STEP, comma-separated), run in that
order through one connection, as one worker of a full run would: a finding
that needs earlier mutants' state replays with the mutants since that
worker's last reload (with 2 workers, worker w runs k = w, w+2, ..., and
reloads the base cluster every 100 of its mutants), and a bisection of that
list finds which of them it needs.
The last line is "sqlfuzz: N mutants, M findings" (M distinct findings);
the exit status is non-zero when M > 0.  The cluster is stopped and its
folder removed unless --keep (with findings, the crash files and the
server log are kept).
"""
import argparse
import json
import os
import random
import re
import select
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import threading
import time
import traceback

PGBIN = os.path.dirname(os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config"))
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
FIXTURES = os.path.join(REPO, 'test', 'fixtures')

RESET_EVERY = 100          # mutants per connection between resets of the tables
READ_TIMEOUT = 120         # seconds without an answer: a hang
STATEMENT_TIMEOUT = '60s'
MAX_DOC = 3_500_000        # bytes: cap for duplicated arrays

VERBOSE = bool(os.environ.get('SQLFUZZ_VERBOSE'))
CRASH_RE = re.compile(r'terminated by signal|PANIC|TRAP:|AddressSanitizer|runtime error:')

###############################################################################
# Seed objects
###############################################################################

T0 = '2024-06-14T12:00:00Z'


def meta(name, ns=None, uid=None, labels=None, **kw):
    m = {'name': name, 'uid': uid or ('uid-' + (ns + '-' if ns else '') + name),
         'resourceVersion': '1000', 'creationTimestamp': T0}
    if ns is not None:
        m['namespace'] = ns
    if labels is not None:
        m['labels'] = labels
    m.update(kw)
    return m


def mk_node(name, zone, cpu='4', mem='16Gi', pods='110', taints=None, unschedulable=False,
            extra=None, labels=None, images=None):
    alloc = {'cpu': cpu, 'memory': mem, 'pods': pods, 'ephemeral-storage': '95Gi',
             'hugepages-1Gi': '0', 'hugepages-2Mi': '0'}
    alloc.update(extra or {})
    cap = dict(alloc)
    cap['ephemeral-storage'] = '100Gi'
    lab = {'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
           'topology.kubernetes.io/zone': zone, 'topology.kubernetes.io/region': 'region-1',
           'node.kubernetes.io/instance-type': 'm5.xlarge', 'beta.kubernetes.io/os': 'linux'}
    lab.update(labels or {})
    spec = {'podCIDR': '10.244.7.0/24', 'podCIDRs': ['10.244.7.0/24'], 'providerID': 'aws:///%s/%s' % (zone, name)}
    if taints:
        spec['taints'] = taints
    if unschedulable:
        spec['unschedulable'] = True
    return {
        'apiVersion': 'v1', 'kind': 'Node',
        'metadata': meta(name, labels=lab, annotations={'node.alpha.kubernetes.io/ttl': '0'}),
        'spec': spec,
        'status': {
            'capacity': cap, 'allocatable': alloc,
            'conditions': [{'type': 'Ready', 'status': 'True', 'reason': 'KubeletReady',
                            'lastHeartbeatTime': T0, 'lastTransitionTime': T0}],
            'addresses': [{'type': 'InternalIP', 'address': '10.0.1.%d' % (len(name) * 7 % 250)},
                          {'type': 'Hostname', 'address': name}],
            'images': images if images is not None else [
                {'names': ['registry.example.com/web@sha256:' + 'a' * 64, 'registry.example.com/web:1.25'],
                 'sizeBytes': 187654321},
                {'names': ['docker.io/library/busybox:1.36'], 'sizeBytes': 4261574},
                {'names': ['fluent/fluent-bit:3.0'], 'sizeBytes': 31200000},
            ],
            'nodeInfo': {'kubeletVersion': 'v1.30.2', 'containerRuntimeVersion': 'containerd://1.7.13',
                         'osImage': 'Debian GNU/Linux 12 (bookworm)', 'architecture': 'amd64'},
        },
    }


def container(name, image, req=None, lim=None, ports=None, **kw):
    c = {'name': name, 'image': image, 'imagePullPolicy': 'IfNotPresent', 'resources': {}}
    if req is not None:
        c['resources']['requests'] = req
    if lim is not None:
        c['resources']['limits'] = lim
    if ports is not None:
        c['ports'] = ports
    c.update(kw)
    return c


def mk_pod(name, ns='default', labels=None, containers=None, node=None, priority=0, phase=None,
           owner=None, **spec):
    s = {'schedulerName': 'default-scheduler', 'priority': priority, 'restartPolicy': 'Always',
         'preemptionPolicy': 'PreemptLowerPriority', 'terminationGracePeriodSeconds': 30,
         'dnsPolicy': 'ClusterFirst', 'serviceAccountName': 'default',
         'containers': containers or [container('main', 'docker.io/library/busybox:1.36',
                                                {'cpu': '100m', 'memory': '64Mi'})],
         'tolerations': [{'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists', 'effect': 'NoExecute',
                          'tolerationSeconds': 300}]}
    s.update(spec)
    if node:
        s['nodeName'] = node
    m = meta(name, ns, labels=labels or {'app': name})
    if owner:
        m['ownerReferences'] = [owner]
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': m, 'spec': s,
            'status': {'phase': phase or ('Running' if node else 'Pending'), 'qosClass': 'Burstable'}}


def resizing_pod():
    """A running pod resized in place: its status' allocated and actuated requests, the resize infeasible."""
    p = mk_pod('resizing-0', 'default', labels={'app': 'resize'}, node='zone-a-1',
               containers=[container('main', 'docker.io/library/busybox:1.36', {'cpu': '2', 'memory': '1Gi'})])
    p['status']['conditions'] = [{'type': 'PodResizePending', 'status': 'True', 'reason': 'Infeasible',
                                  'message': 'Node did not have enough capacity'}]
    p['status']['containerStatuses'] = [{'name': 'main', 'ready': True, 'restartCount': 0,
                                         'image': 'docker.io/library/busybox:1.36', 'imageID': '',
                                         'allocatedResources': {'cpu': '500m', 'memory': '512Mi'},
                                         'resources': {'requests': {'cpu': '500m', 'memory': '512Mi'},
                                                       'limits': {'cpu': '1', 'memory': '1Gi'}}}]
    return p


def pod_level_pod():
    """A pending pod with pod-level resources (PodLevelResources) over a container that requests none."""
    return mk_pod('pod-level-0', 'default', labels={'app': 'pod-level'},
                  containers=[{'name': 'main', 'image': 'docker.io/library/busybox:1.36'}],
                  resources={'requests': {'cpu': '750m', 'memory': '256Mi', 'hugepages-2Mi': '4Mi'},
                             'limits': {'cpu': '1', 'memory': '512Mi', 'hugepages-2Mi': '4Mi'}})


def rich_pod(name='rich-0', ns='prod', gated=False):
    """A pod that uses nearly every field the scheduler reads."""
    p = mk_pod(
        name, ns,
        labels={'app': 'web', 'tier': 'frontend', 'pod-template-hash': '6d4cf56db6', 'version': 'v2'},
        priority=1000, priorityClassName='high',
        owner={'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'web-6d4cf56db6',
               'uid': 'uid-prod-web-6d4cf56db6', 'controller': True, 'blockOwnerDeletion': True},
        initContainers=[
            container('init-db', 'docker.io/library/busybox:1.36', {'cpu': '200m', 'memory': '64Mi'},
                      command=['sh', '-c', 'until nc -z db 5432; do sleep 1; done']),
            container('log-sidecar', 'fluent/fluent-bit:3.0', {'cpu': '50m', 'memory': '32Mi'},
                      {'memory': '64Mi'}, restartPolicy='Always'),
        ],
        containers=[
            container('web', 'registry.example.com/web:1.25',
                      {'cpu': '250m', 'memory': '256Mi', 'ephemeral-storage': '1Gi'},
                      {'cpu': '1', 'memory': '512Mi'},
                      ports=[{'name': 'http', 'containerPort': 8080, 'hostPort': 8080, 'protocol': 'TCP'},
                             {'name': 'stats', 'containerPort': 9125, 'hostPort': 9125, 'hostIP': '10.0.1.7',
                              'protocol': 'UDP'}]),
            container('metrics', 'prom/statsd-exporter:v0.26.0', None, {'cpu': '100m', 'memory': '64Mi'}),
        ],
        nodeSelector={'kubernetes.io/os': 'linux'},
        tolerations=[
            {'key': 'dedicated', 'operator': 'Equal', 'value': 'web', 'effect': 'NoSchedule'},
            {'key': 'node.kubernetes.io/not-ready', 'operator': 'Exists', 'effect': 'NoExecute',
             'tolerationSeconds': 300},
            {'operator': 'Exists', 'effect': 'PreferNoSchedule'},
        ],
        affinity={
            'nodeAffinity': {
                'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [
                    {'matchExpressions': [
                        {'key': 'topology.kubernetes.io/zone', 'operator': 'In',
                         'values': ['zone-a', 'zone-b', 'zone-c', 'us-central1-b', 'us-central1-c']},
                        {'key': 'node-role.kubernetes.io/control-plane', 'operator': 'DoesNotExist'}]},
                    {'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['worker-a']}]},
                ]},
                'preferredDuringSchedulingIgnoredDuringExecution': [
                    {'weight': 80, 'preference': {'matchExpressions': [
                        {'key': 'node.kubernetes.io/instance-type', 'operator': 'In', 'values': ['m5.xlarge']}]}},
                    {'weight': 20, 'preference': {'matchExpressions': [
                        {'key': 'example.com/cores', 'operator': 'Gt', 'values': ['2']}]}},
                ],
            },
            'podAffinity': {
                'requiredDuringSchedulingIgnoredDuringExecution': [
                    {'labelSelector': {'matchLabels': {'app': 'cache'}},
                     'topologyKey': 'topology.kubernetes.io/zone', 'namespaces': ['prod', 'default']}],
                'preferredDuringSchedulingIgnoredDuringExecution': [
                    {'weight': 50, 'podAffinityTerm': {
                        'labelSelector': {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': ['db']}]},
                        'topologyKey': 'kubernetes.io/hostname',
                        'namespaceSelector': {'matchLabels': {'env': 'prod'}}}}],
            },
            'podAntiAffinity': {
                'requiredDuringSchedulingIgnoredDuringExecution': [
                    {'labelSelector': {'matchLabels': {'app': 'web'}}, 'topologyKey': 'kubernetes.io/hostname',
                     'matchLabelKeys': ['pod-template-hash']}],
                'preferredDuringSchedulingIgnoredDuringExecution': [
                    {'weight': 100, 'podAffinityTerm': {
                        'labelSelector': {'matchExpressions': [{'key': 'tier', 'operator': 'Exists'}]},
                        'topologyKey': 'topology.kubernetes.io/zone', 'namespaceSelector': {},
                        'mismatchLabelKeys': ['version']}}],
            },
        },
        topologySpreadConstraints=[
            {'maxSkew': 1, 'topologyKey': 'topology.kubernetes.io/zone', 'whenUnsatisfiable': 'DoNotSchedule',
             'labelSelector': {'matchLabels': {'app': 'web'}}, 'matchLabelKeys': ['pod-template-hash'],
             'minDomains': 2, 'nodeAffinityPolicy': 'Honor', 'nodeTaintsPolicy': 'Ignore'},
            {'maxSkew': 2, 'topologyKey': 'kubernetes.io/hostname', 'whenUnsatisfiable': 'ScheduleAnyway',
             'labelSelector': {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': ['web']}]}},
        ],
        overhead={'cpu': '100m', 'memory': '32Mi'},
        runtimeClassName='kata',
    )
    if gated:
        p['spec']['schedulingGates'] = [{'name': 'example.com/quota'}, {'name': 'example.com/approval'}]
    return p


def namespace(name, labels):
    lab = {'kubernetes.io/metadata.name': name}
    lab.update(labels)
    return {'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': meta(name, labels=lab),
            'spec': {'finalizers': ['kubernetes']}, 'status': {'phase': 'Active'}}


def pdb(name, ns, selector, allowed, **spec):
    s = {'selector': selector}
    s.update(spec)
    return {'apiVersion': 'policy/v1', 'kind': 'PodDisruptionBudget', 'metadata': meta(name, ns),
            'spec': s,
            'status': {'currentHealthy': 3, 'desiredHealthy': 2, 'disruptionsAllowed': allowed, 'expectedPods': 3,
                       'observedGeneration': 1, 'disruptedPods': {'web-old-1': T0}}}


def template(labels):
    return {'metadata': {'labels': labels},
            'spec': {'containers': [container('main', 'registry.example.com/web:1.25', {'cpu': '100m'})]}}


def workloads():
    return [
        {'apiVersion': 'v1', 'kind': 'Service', 'metadata': meta('web', 'prod'),
         'spec': {'selector': {'app': 'web'}, 'type': 'ClusterIP', 'clusterIP': '10.96.12.7',
                  'ports': [{'name': 'http', 'port': 80, 'targetPort': 8080, 'protocol': 'TCP'}]}},
        {'apiVersion': 'v1', 'kind': 'ReplicationController', 'metadata': meta('legacy', 'default'),
         'spec': {'replicas': 2, 'selector': {'app': 'legacy'}, 'template': template({'app': 'legacy'})},
         'status': {'replicas': 2}},
        {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
         'metadata': meta('web-6d4cf56db6', 'prod', labels={'app': 'web'}),
         'spec': {'replicas': 3,
                  'selector': {'matchLabels': {'app': 'web', 'pod-template-hash': '6d4cf56db6'},
                               'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['frontend']}]},
                  'template': template({'app': 'web', 'pod-template-hash': '6d4cf56db6', 'tier': 'frontend'})},
         'status': {'replicas': 3, 'readyReplicas': 2}},
        {'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'metadata': meta('db', 'prod'),
         'spec': {'serviceName': 'db', 'replicas': 3, 'selector': {'matchLabels': {'app': 'db'}},
                  'template': template({'app': 'db'}),
                  'volumeClaimTemplates': [{'metadata': {'name': 'data'},
                                            'spec': {'accessModes': ['ReadWriteOnce'],
                                                     'resources': {'requests': {'storage': '10Gi'}}}}]},
         'status': {'replicas': 1}},
    ]


ZONE = 'topology.kubernetes.io/zone'
HOSTNAME = 'kubernetes.io/hostname'
PD_CSI = 'pd.csi.storage.gke.io'
EBS_CSI = 'ebs.csi.aws.com'


def storage_class(name, provisioner, mode=None, zones=None, **kw):
    sc = {'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
          'metadata': meta(name, annotations={'storageclass.kubernetes.io/is-default-class': 'false'}),
          'provisioner': provisioner, 'reclaimPolicy': 'Delete', 'allowVolumeExpansion': True}
    if mode is not None:
        sc['volumeBindingMode'] = mode
    if zones:
        sc['allowedTopologies'] = [{'matchLabelExpressions': [{'key': ZONE, 'values': zones}]}]
    sc.update(kw)
    return sc


def pvc(name, ns, cls, size, modes=('ReadWriteOnce',), volume=None, annotations=None, **spec):
    ann = dict(annotations or {})
    if volume:
        ann.setdefault('pv.kubernetes.io/bind-completed', 'yes')
        ann.setdefault('pv.kubernetes.io/bound-by-controller', 'yes')
    s = {'accessModes': list(modes), 'resources': {'requests': {'storage': size}}, 'volumeMode': 'Filesystem'}
    if cls is not None:
        s['storageClassName'] = cls
    if volume:
        s['volumeName'] = volume
    s.update(spec)
    o = {'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim',
         'metadata': meta(name, ns, annotations=ann, finalizers=['kubernetes.io/pvc-protection']),
         'spec': s, 'status': {'phase': 'Bound' if volume else 'Pending'}}
    if volume:
        o['status'].update({'accessModes': list(modes), 'capacity': {'storage': size}})
    return o


def pv(name, cls, size, source, modes=('ReadWriteOnce',), claim=None, zone=None, affinity=None, labels=None,
       phase=None):
    lab = dict(labels or {})
    if zone:
        lab[ZONE] = zone
        lab['topology.kubernetes.io/region'] = 'region-1'
    s = {'capacity': {'storage': size}, 'accessModes': list(modes), 'persistentVolumeReclaimPolicy': 'Delete',
         'volumeMode': 'Filesystem'}
    if cls is not None:
        s['storageClassName'] = cls
    s.update(source)
    if claim:
        ref = {'kind': 'PersistentVolumeClaim', 'apiVersion': 'v1', 'namespace': claim[0], 'name': claim[1]}
        if len(claim) > 2:
            ref['uid'] = claim[2]
            ref['resourceVersion'] = '1000'
        s['claimRef'] = ref
    if affinity:
        s['nodeAffinity'] = {'required': {'nodeSelectorTerms': affinity}}
    return {'apiVersion': 'v1', 'kind': 'PersistentVolume',
            'metadata': meta(name, labels=lab, annotations={'pv.kubernetes.io/provisioned-by': 'fuzz'},
                             finalizers=['kubernetes.io/pv-protection']),
            'spec': s, 'status': {'phase': phase or ('Bound' if claim and len(claim) > 2 else 'Available')}}


def in_expr(key, values, op='In'):
    return [{'matchExpressions': [{'key': key, 'operator': op, 'values': values}]}]


def csi_node(node, drivers, migrated=None):
    ann = {'storage.alpha.kubernetes.io/migrated-plugins': migrated} if migrated else {}
    return {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSINode',
            'metadata': meta(node, annotations=ann,
                             ownerReferences=[{'apiVersion': 'v1', 'kind': 'Node', 'name': node,
                                               'uid': 'uid-' + node}]),
            'spec': {'drivers': [{'name': d, 'nodeID': node + '-' + d.split('.')[0], 'allocatable': {'count': c},
                                  'topologyKeys': [ZONE]} if c is not None else
                                 {'name': d, 'nodeID': node, 'topologyKeys': [ZONE, HOSTNAME]}
                                 for d, c in drivers]}}


def storage():
    """The storage objects the volume plugins read: classes of both binding
    modes, bound and unbound claims, local, CSI and in-tree volumes, the CSI
    nodes' limits, a driver with storage capacity, capacities, attachments."""
    return [
        storage_class('standard-wffc', PD_CSI, 'WaitForFirstConsumer', ['zone-a', 'zone-b'],
                      parameters={'type': 'pd-balanced'}),
        storage_class('fast-immediate', EBS_CSI, 'Immediate', ['zone-a'], parameters={'type': 'gp3'}),
        storage_class('local-storage', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer'),
        storage_class('legacy-gce', 'kubernetes.io/gce-pd'),
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSIDriver', 'metadata': meta(PD_CSI),
         'spec': {'attachRequired': True, 'storageCapacity': True, 'podInfoOnMount': False,
                  'volumeLifecycleModes': ['Persistent'], 'fsGroupPolicy': 'ReadWriteOnceWithFSType'}},
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSIDriver', 'metadata': meta(EBS_CSI),
         'spec': {'attachRequired': True, 'storageCapacity': False, 'volumeLifecycleModes': ['Persistent', 'Ephemeral']}},
        csi_node('zone-a-1', [(PD_CSI, 16), (EBS_CSI, 25)], 'kubernetes.io/gce-pd,kubernetes.io/aws-ebs'),
        csi_node('zone-b-1', [(PD_CSI, 16), (EBS_CSI, None)], 'kubernetes.io/gce-pd'),
        csi_node('small-1', [(PD_CSI, 2)]),
        csi_node('gpu-1', [(EBS_CSI, 0)], 'kubernetes.io/aws-ebs'),
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSIStorageCapacity', 'metadata': meta('cap-zone-a', 'kube-system'),
         'storageClassName': 'standard-wffc', 'capacity': '100Gi', 'maximumVolumeSize': '50Gi',
         'nodeTopology': {'matchLabels': {ZONE: 'zone-a'}}},
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSIStorageCapacity', 'metadata': meta('cap-zone-b', 'kube-system'),
         'storageClassName': 'standard-wffc', 'capacity': '5Gi',
         'nodeTopology': {'matchExpressions': [{'key': ZONE, 'operator': 'In', 'values': ['zone-b']}]}},
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'CSIStorageCapacity', 'metadata': meta('cap-any', 'prod'),
         'storageClassName': 'standard-wffc', 'maximumVolumeSize': '1Ti', 'nodeTopology': {}},
        # PersistentVolumes: bound (csi, in-tree), local, pre-bound, unbound with labels
        pv('pv-db-0', 'standard-wffc', '10Gi', {'csi': {'driver': PD_CSI, 'volumeHandle': 'projects/p/disks/db-0',
                                                        'fsType': 'ext4'}},
           claim=('prod', 'data-db-0', 'uid-prod-data-db-0'), zone='zone-b', affinity=in_expr(ZONE, ['zone-b'])),
        pv('pv-gce', 'legacy-gce', '20Gi', {'gcePersistentDisk': {'pdName': 'disk-1', 'fsType': 'ext4'}},
           claim=('default', 'legacy-claim', 'uid-default-legacy-claim'), zone='zone-a',
           labels={'failure-domain.beta.kubernetes.io/zone': 'zone-a'}),
        pv('pv-aws', '', '50Gi', {'awsElasticBlockStore': {'volumeID': 'vol-0123', 'partition': 1}},
           claim=('ml', 'train-data', 'uid-ml-train-data'), zone='zone-c',
           labels={'failure-domain.beta.kubernetes.io/region': 'region-1'}),
        pv('pv-rwop', 'standard-wffc', '1Gi', {'csi': {'driver': PD_CSI, 'volumeHandle': 'rwop-1'}},
           modes=('ReadWriteOncePod',), claim=('default', 'single-writer', 'uid-default-single-writer')),
        pv('pv-local-a', 'local-storage', '20Gi', {'local': {'path': '/mnt/disks/ssd1'}},
           affinity=in_expr(HOSTNAME, ['zone-a-1'])),
        pv('pv-local-b', 'local-storage', '5Gi', {'local': {'path': '/mnt/disks/ssd1'}},
           affinity=in_expr(HOSTNAME, ['small-1'])),
        pv('pv-gold', '', '2Gi', {'csi': {'driver': EBS_CSI, 'volumeHandle': 'vol-gold'}}, labels={'tier': 'gold'},
           zone='zone-b', affinity=[{'matchExpressions': [{'key': ZONE, 'operator': 'In', 'values': ['zone-b']},
                                                           {'key': 'example.com/cores', 'operator': 'Gt',
                                                            'values': ['2']}]}]),
        pv('pv-prebound', 'fast-immediate', '8Gi', {'csi': {'driver': EBS_CSI, 'volumeHandle': 'vol-pre'}},
           claim=('default', 'fast-claim')),
        pv('pv-other-ns', 'local-storage', '30Gi', {'local': {'path': '/mnt/disks/ssd2'}}, claim=('other', 'x'),
           affinity=in_expr(HOSTNAME, ['zone-a-1', 'zone-b-1'])),
        # PersistentVolumeClaims: bound, unbound of each mode, RWOP, ephemeral, deleting
        pvc('data-db-0', 'prod', 'standard-wffc', '10Gi', volume='pv-db-0'),
        pvc('legacy-claim', 'default', 'legacy-gce', '20Gi', volume='pv-gce'),
        pvc('train-data', 'ml', '', '50Gi', modes=('ReadWriteOnce', 'ReadOnlyMany'), volume='pv-aws'),
        pvc('single-writer', 'default', 'standard-wffc', '1Gi', modes=('ReadWriteOncePod',), volume='pv-rwop'),
        pvc('local-claim', 'default', 'local-storage', '10Gi'),
        pvc('dyn-claim', 'default', 'standard-wffc', '20Gi'),
        pvc('big-claim', 'default', 'standard-wffc', '2Ti'),
        pvc('fast-claim', 'default', 'fast-immediate', '8Gi'),
        pvc('selected', 'default', 'standard-wffc', '1Gi',
            annotations={'volume.kubernetes.io/selected-node': 'zone-a-1',
                         'volume.kubernetes.io/storage-provisioner': PD_CSI}),
        pvc('gold-claim', 'default', '', '1Gi', selector={
            'matchLabels': {'tier': 'gold'},
            'matchExpressions': [{'key': ZONE, 'operator': 'NotIn', 'values': ['zone-c']}]}),
        pvc('beta-claim', 'default', None, '1Gi',
            annotations={'volume.beta.kubernetes.io/storage-class': 'local-storage'}),
        pvc('half-bound', 'default', 'standard-wffc', '1Gi', volumeName='pv-local-a'),
        pvc('deleting-claim', 'default', 'standard-wffc', '1Gi'),
        dict(pvc('eph-web-scratch', 'default', 'standard-wffc', '1Gi'),
             metadata=meta('eph-web-scratch', 'default', ownerReferences=[
                 {'apiVersion': 'v1', 'kind': 'Pod', 'name': 'eph-web', 'uid': 'uid-default-eph-web',
                  'controller': True, 'blockOwnerDeletion': True}])),
        dict(pvc('eph-stolen-scratch', 'default', 'standard-wffc', '1Gi'),
             metadata=meta('eph-stolen-scratch', 'default', ownerReferences=[
                 {'apiVersion': 'v1', 'kind': 'Pod', 'name': 'someone-else', 'uid': 'uid-other', 'controller': True}])),
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'VolumeAttachment', 'metadata': meta('csi-va-db-0'),
         'spec': {'attacher': PD_CSI, 'nodeName': 'small-1', 'source': {'persistentVolumeName': 'pv-db-0'}},
         'status': {'attached': True}},
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'VolumeAttachment', 'metadata': meta('csi-va-other'),
         'spec': {'attacher': PD_CSI, 'nodeName': 'small-1', 'source': {'persistentVolumeName': 'pv-unknown'}},
         'status': {'attached': True}},
        {'apiVersion': 'storage.k8s.io/v1', 'kind': 'VolumeAttachment', 'metadata': meta('csi-va-inline'),
         'spec': {'attacher': EBS_CSI, 'nodeName': 'zone-a-1', 'source': {'inlineVolumeSpec': {
             'csi': {'driver': EBS_CSI, 'volumeHandle': 'vol-inline'}, 'accessModes': ['ReadWriteOnce']}}}},
    ]


def claim_vol(name, claim, read_only=False):
    v = {'name': name, 'persistentVolumeClaim': {'claimName': claim}}
    if read_only:
        v['persistentVolumeClaim']['readOnly'] = True
    return v


def volume_pods():
    """Pods with each volume source the plugins read, naming the storage above:
    pending ones for VolumeBinding, VolumeZone, VolumeRestrictions and
    NodeVolumeLimits, and bound ones they conflict with or count."""
    cfg = {'name': 'config', 'configMap': {'name': 'app-config'}}
    small = [container('main', 'docker.io/library/busybox:1.36', {'cpu': '50m', 'memory': '32Mi'})]
    eph = {'name': 'scratch', 'ephemeral': {'volumeClaimTemplate': {
        'metadata': {'labels': {'type': 'scratch'}},
        'spec': {'accessModes': ['ReadWriteOnce'], 'storageClassName': 'standard-wffc',
                 'resources': {'requests': {'storage': '1Gi'}}}}}}
    gce = {'name': 'disk', 'gcePersistentDisk': {'pdName': 'disk-1', 'fsType': 'ext4'}}
    aws = {'name': 'ebs', 'awsElasticBlockStore': {'volumeID': 'vol-0456', 'fsType': 'ext4', 'partition': 0}}
    rbd = {'name': 'ceph', 'rbd': {'monitors': ['10.0.0.1:6789', '10.0.0.2:6789'], 'image': 'img-1',
                                   'pool': 'kube', 'user': 'admin', 'fsType': 'ext4'}}
    iscsi = {'name': 'lun', 'iscsi': {'targetPortal': '10.0.0.9:3260', 'iqn': 'iqn.2024-06.com.example:t1',
                                      'lun': 0, 'fsType': 'ext4'}}
    inline = {'name': 'inline', 'csi': {'driver': EBS_CSI, 'volumeAttributes': {'size': '1Gi'}}}

    def vp(name, vols, ns='default', node=None, **kw):
        return mk_pod(name, ns, labels={'app': 'storage', 'storage': name}, node=node, containers=small,
                      volumes=vols + [cfg], **kw)
    return [
        vp('db-vol-0', [claim_vol('data', 'data-db-0')], ns='prod'),
        vp('local-user', [claim_vol('data', 'local-claim')]),
        vp('dyn-user', [claim_vol('data', 'dyn-claim')]),
        vp('gold-user', [claim_vol('data', 'gold-claim')]),
        vp('big-user', [claim_vol('data', 'big-claim')]),
        vp('fast-user', [claim_vol('data', 'fast-claim')]),
        vp('selected-user', [claim_vol('data', 'selected'), claim_vol('beta', 'beta-claim')]),
        vp('half-user', [claim_vol('data', 'half-bound'), claim_vol('gone', 'deleting-claim')]),
        vp('missing-user', [claim_vol('data', 'no-such-claim')]),
        vp('eph-web', [eph]),
        vp('eph-stolen', [eph]),
        vp('eph-missing', [dict(eph, name='other')]),
        vp('rwop-holder', [claim_vol('data', 'single-writer')], node='zone-a-1', priority=-100),
        vp('rwop-wanter', [claim_vol('data', 'single-writer')], priority=1000),
        vp('legacy-user', [claim_vol('data', 'legacy-claim', read_only=True)]),
        vp('train-user', [claim_vol('data', 'train-data')], ns='ml'),
        vp('gce-holder', [gce], node='zone-a-1'),
        vp('gce-wanter', [gce, aws]),
        vp('rbd-holder', [rbd], node='zone-b-1'),
        vp('rbd-wanter', [dict(rbd, rbd=dict(rbd['rbd'], monitors=['10.0.0.2:6789']))]),
        vp('iscsi-holder', [iscsi], node='small-1'),
        vp('iscsi-wanter', [dict(iscsi, iscsi=dict(iscsi['iscsi'], readOnly=True))]),
        vp('inline-csi', [inline, claim_vol('data', 'dyn-claim')]),
        vp('db-vol-holder', [claim_vol('data', 'data-db-0')], ns='prod', node='small-1'),
    ]


def load_fixture(name):
    try:
        with open(os.path.join(FIXTURES, name)) as f:
            return json.load(f)['items']
    except (OSError, ValueError, KeyError):
        return []


def build_base():
    """The base cluster every connection starts from (and returns to)."""
    nodes = load_fixture('kubectl-get-nodes.json') + [
        mk_node('zone-a-1', 'zone-a'),
        mk_node('zone-b-1', 'zone-b', cpu='8', mem='32Gi', labels={'example.com/cores': '8'}),
        mk_node('gpu-1', 'zone-c', cpu='16', mem='64Gi', extra={'nvidia.com/gpu': '4'},
                taints=[{'key': 'nvidia.com/gpu', 'value': 'present', 'effect': 'NoSchedule'}],
                labels={'nvidia.com/gpu.product': 'A100'}),
        mk_node('cordoned-1', 'zone-a', unschedulable=True,
                taints=[{'key': 'node.kubernetes.io/unschedulable', 'effect': 'NoSchedule', 'timeAdded': T0}]),
        mk_node('small-1', 'zone-b', cpu='1', mem='2Gi', pods='5', images=[]),
    ]
    low = {'cpu': '1500m', 'memory': '6Gi'}
    pods = load_fixture('kubectl-get-pods.json') + [
        rich_pod(),
        rich_pod('rich-gated', gated=True),
        mk_pod('cache-0', 'prod', labels={'app': 'cache'}, node='zone-a-1',
               containers=[container('redis', 'docker.io/library/redis:7', {'cpu': '200m', 'memory': '1Gi'})]),
        mk_pod('cache-1', 'prod', labels={'app': 'cache'}, node='zone-b-1',
               containers=[container('redis', 'docker.io/library/redis:7', {'cpu': '200m', 'memory': '1Gi'})]),
        mk_pod('db-0', 'prod', labels={'app': 'db'}, node='zone-b-1',
               owner={'apiVersion': 'apps/v1', 'kind': 'StatefulSet', 'name': 'db', 'uid': 'uid-prod-db',
                      'controller': True},
               containers=[container('pg', 'docker.io/library/postgres:16', {'cpu': '500m', 'memory': '2Gi'},
                                     ports=[{'containerPort': 5432, 'hostPort': 5432}])]),
        mk_pod('web-a', 'prod', labels={'app': 'web', 'tier': 'frontend', 'pod-template-hash': '6d4cf56db6'},
               node='zone-a-1', containers=[container('web', 'registry.example.com/web:1.25',
                                                      {'cpu': '250m', 'memory': '256Mi'})]),
    ] + [
        mk_pod('batch-low-%d' % i, 'default', labels={'app': 'batch', 'team': 'etl'}, priority=-100,
               node=['zone-a-1', 'zone-b-1', 'zone-b-1', 'worker-a'][i],
               containers=[container('job', 'docker.io/library/python:3.12-slim', low)])
        for i in range(4)
    ] + [
        mk_pod('preemptor', 'default', labels={'app': 'critical'}, priority=1000000,
               containers=[container('main', 'registry.example.com/web:1.25', {'cpu': '3500m', 'memory': '12Gi'})]),
        mk_pod('never-preempt', 'default', labels={'app': 'critical'}, priority=1000000,
               preemptionPolicy='Never',
               containers=[container('main', 'registry.example.com/web:1.25', {'cpu': '6', 'memory': '1Gi'})]),
        mk_pod('gpu-job', 'ml', labels={'app': 'train'},
               containers=[container('train', 'nvcr.io/nvidia/pytorch:24.05-py3',
                                     {'cpu': '2', 'memory': '8Gi', 'nvidia.com/gpu': '1'}, {'nvidia.com/gpu': '1'})],
               tolerations=[{'key': 'nvidia.com/gpu', 'operator': 'Exists', 'effect': 'NoSchedule'}],
               nodeSelector={'topology.kubernetes.io/zone': 'zone-c'}),
        mk_pod('prof-0', 'default', labels={'app': 'web'}, schedulerName='fuzz-prof'),
        mk_pod('legacy-x', 'default', labels={'app': 'legacy'},
               owner={'apiVersion': 'v1', 'kind': 'ReplicationController', 'name': 'legacy',
                      'uid': 'uid-default-legacy', 'controller': True}),
    ] + [mk_pod('small-%d' % i, 'default', labels={'app': 'web-small'}) for i in range(4)] + volume_pods() + [
        resizing_pod(), pod_level_pod()]
    nss = [namespace('default', {}), namespace('kube-system', {}), namespace('prod', {'env': 'prod', 'team': 'a'}),
           namespace('ml', {'env': 'ml', 'team': 'ds'})]
    pdbs = [pdb('web-pdb', 'prod', {'matchLabels': {'app': 'web'}}, 1, minAvailable=2),
            pdb('batch-pdb', 'default', {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': ['batch']}]},
                0, maxUnavailable=1)]
    return {'Node': nodes, 'Pod': pods, 'Namespace': nss, 'PodDisruptionBudget': pdbs,
            'Workload': workloads(), 'Storage': storage()}


PROFILE_ARGS = {
    'NodeResourcesFit': [
        {'scoringStrategy': {'type': 'LeastAllocated',
                             'resources': [{'name': 'cpu', 'weight': 1}, {'name': 'memory', 'weight': 1}]},
         'ignoredResources': ['example.com/foo'], 'ignoredResourceGroups': ['example.org']},
        {'scoringStrategy': {'type': 'MostAllocated',
                             'resources': [{'name': 'cpu', 'weight': 2}, {'name': 'nvidia.com/gpu', 'weight': 5}]}},
        {'scoringStrategy': {'type': 'RequestedToCapacityRatio',
                             'resources': [{'name': 'cpu', 'weight': 1}, {'name': 'memory', 'weight': 1}],
                             'requestedToCapacityRatio': {'shape': [{'utilization': 0, 'score': 0},
                                                                    {'utilization': 100, 'score': 10}]}}},
    ],
    'NodeResourcesBalancedAllocation': [
        {'resources': [{'name': 'cpu', 'weight': 1}, {'name': 'memory', 'weight': 1}]}],
    'NodeAffinity': [
        {'addedAffinity': {
            'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [
                {'matchExpressions': [{'key': 'kubernetes.io/os', 'operator': 'In', 'values': ['linux']}]}]},
            'preferredDuringSchedulingIgnoredDuringExecution': [
                {'weight': 10, 'preference': {'matchExpressions': [
                    {'key': 'topology.kubernetes.io/zone', 'operator': 'NotIn', 'values': ['zone-c']}]}}]}}],
    'InterPodAffinity': [{'hardPodAffinityWeight': 1, 'ignorePreferredTermsOfExistingPods': False},
                         {'hardPodAffinityWeight': 100}],
    'PodTopologySpread': [
        {'defaultingType': 'List', 'defaultConstraints': [
            {'maxSkew': 1, 'topologyKey': 'topology.kubernetes.io/zone', 'whenUnsatisfiable': 'ScheduleAnyway'},
            {'maxSkew': 3, 'topologyKey': 'kubernetes.io/hostname', 'whenUnsatisfiable': 'ScheduleAnyway'}]},
        {'defaultingType': 'System'}],
    'VolumeBinding': [{'bindTimeoutSeconds': 300}, {'bindTimeoutSeconds': 0}],
}


def read_plugins_def():
    """src/plugins/plugins.def's lines, in its order: (name, weight, position)."""
    path = os.path.join(HERE, '..', '..', 'src', 'plugins', 'plugins.def')
    with open(path) as f:
        return [(m.group(1), int(m.group(2)), int(m.group(3)))
                for m in re.finditer(r'^PLUGIN\((\w+), *(\d+), *(\d+)\)', f.read(), re.M)]


# the default profile's rows, in position order: (plugin, weight or None)
DEFAULT_PLUGINS = [(name, weight or None)
                   for name, weight, position in sorted(read_plugins_def(), key=lambda p: p[2]) if position]

###############################################################################
# Mutation values
###############################################################################


class Raw:
    """A JSON token written as is (numbers Python cannot hold, deep nesting)."""
    __slots__ = ('text',)

    def __init__(self, text):
        self.text = text


_HUGE = None


def huge_strings():
    global _HUGE
    if _HUGE is None:
        g = random.Random(7)
        alnum = string.ascii_letters + string.digits
        _HUGE = [
            'a' * 300000,
            ''.join(g.choices(alnum, k=300000)),
            ''.join(g.choices(alnum, k=2700)),
            ''.join(g.choices(alnum, k=3000)),
            ''.join(g.choices(alnum, k=8200)),
            ''.join(g.choices(alnum + '/', k=65536)),
            'a/' * 40000,
            'é日' * 50000,
            '9' * 100000,
            '1' + '0' * 5000 + 'Ei',
            'example.com/' + ''.join(g.choices(alnum, k=3000)),
            ''.join(g.choices(alnum, k=253)) + '/' + ''.join(g.choices(alnum, k=63)),
        ]
    return _HUGE


ODD_STRINGS = [
    'é', '日本語', '\u202etxet', '😀', '\U0001F600' * 10, '\u0001', '\u001f', '\u007f', '\u0008', '\t', '\n', '\r\n',
    '"', "'", "''", '\\', '\\"', '../', '../../etc/passwd', '%2F', 'a%2Fb', '?a=b#', '#frag', 'a b', ' ', '  lead',
    'trail ', 'a/b/c/d/e/f', '/', '//', 'a/', '/a', 'x/' * 100, '-', '.', '..', 'a' * 63, 'a' * 64, 'a' * 253,
    'a' * 254, 'k' * 63 + '/' + 'v' * 63, 'example.com/' + 'k' * 300, '{}', '[]', 'null', 'true', '0', '-1',
    'NaN', 'Infinity', '%s%n%x', '$1', "'; DROP TABLE scheduler.pods; --", '\u00a0', '\ufeff', '\u2028', 'ǅ',
    'kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'metadata.name', 'In', 'NotIn', 'Exists',
    'DoesNotExist', 'Gt', 'Lt', 'Equal', 'NoSchedule', 'NoExecute', 'PreferNoSchedule', 'Always', 'Never',
    'DoNotSchedule', 'ScheduleAnyway', 'Honor', 'Ignore', 'ADDED', 'DELETED', 'Pod', 'Node', 'List', 'PodList',
    'default-scheduler', 'fuzz-prof', 'infinity', '-infinity', 'epoch', 'now', 'today', 'allballs',
    '2024-13-45T99:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2024-06-14T12:00:00.123456789+05:30',
    '2024-06-14', '1718366400', 'zone-a', 'worker-a', 'gpu-1', 'cp-1', 'nonexistent-node', 'default', 'prod',
    'TCP', 'UDP', 'SCTP', 'tcp', '0.0.0.0', '::', '::1', '256.1.1.1', 'Succeeded', 'Failed', 'Running',
    'x' * 1000, '\u0000',
]

EXTREME_NUMBERS = [
    0, -1, 1, 2147483647, 2147483648, -2147483648, -2147483649, 4294967296, 9223372036854775807,
    9223372036854775808, -9223372036854775808, -9223372036854775809, 18446744073709551616, 1e19, 1e308,
    -1e308, 1.5, 0.5, -0.0, 1e-30, 101, 100, 65535, 65536, 1000000000, Raw('1e400'), Raw('-1e400'),
    Raw('1E-400'), Raw('123456789012345678901234567890123456789'), Raw('0.000000000000000000000000001'),
    Raw('1.0'), Raw('1e2'), Raw('-0'),
]

QUANTITIES = [
    '5Ei', '9223372036854775808', '9223372036854775807', '8Ei', '0.5', '1e3', '-1', '1.2.3', '', '100m', '1n', '0',
    '1Ki', '1.5Gi', '999999999999999999999Ei', '1e-9', '+5', '- 1', '1 Gi', '1gi', '0x10', '1E', '5e18', '9.3e18',
    '1e19', '9223372036854775807m', '9223372036854775808m', '9223372036854776k', '0.000000001', '1e308', '1e-308',
    '.5', '5.', 'Ei', 'm', '1m1', '1.5m', '-5Ei', '7Ei', '8E', '16Ei', '1PiB', '1e+3', '1e', '1e99999999999',
    '123456789012345678901234567890', '3.40282347e+38', '00000000000000000000000000000001', '1u', '1k',
    '1024Mi', 9223372036854775807, 9223372036854775808, 1e19, -1, 0.5, 2.5,
]

WRONG_TYPES = ['x', 0, 1, True, False, None, {}, [], {'a': 1}, [1, 'a'], [None], ['x'], [{}], {'': None},
               {'cpu': '1'}, [{'key': 1}], '12x', '1.5Gi']

UNKNOWN_KEYS = ['x-unknown', 'fuzz', '', ' ', 'spec', 'kind', 'metadata', 'a' * 300, 'é', '\u0001', '$ref',
                '__proto__', 'nodeName', 'uid', 'requests', 'limits', 'items', 'type', 'object', 'x' * 70000]

QTY_PARENTS = {'requests', 'limits', 'allocatable', 'capacity', 'overhead'}
QTY_KEYS = {'capacity', 'maximumVolumeSize', 'storage', 'count'}


def deep_raw(rng):
    d = rng.choice([200, 200, 200, 400, 1000, 5000])
    if rng.random() < 0.5:
        return Raw('{"a":' * d + '1' + '}' * d)
    if rng.random() < 0.5:
        return Raw('[' * d + ']' * d)
    return Raw('[{"a":' * (d // 2) + 'null' + '}]' * (d // 2))


def fresh(v):
    """A copy of v: a value from the tables above must never be mutated in place."""
    if isinstance(v, dict):
        return {k: fresh(x) for k, x in v.items()}
    if isinstance(v, list):
        return [fresh(x) for x in v]
    return v


def copies(x, n):
    """n separate copies of x (shared ones would all change with a later mutation)."""
    return [fresh(x) for _ in range(n)]


def gen_value(rng, quantity=False):
    return fresh(_gen_value(rng, quantity))


def _gen_value(rng, quantity):
    r = rng.random()
    if quantity and r < 0.45:
        return rng.choice(QUANTITIES)
    r = rng.random()
    if r < 0.20:
        return rng.choice(WRONG_TYPES)
    if r < 0.25:
        return None
    if r < 0.30:
        return ''
    if r < 0.35:
        return rng.choice(huge_strings())
    if r < 0.55:
        return rng.choice(ODD_STRINGS)
    if r < 0.72:
        return rng.choice(EXTREME_NUMBERS)
    if r < 0.87:
        return rng.choice(QUANTITIES)
    if r < 0.90:
        return deep_raw(rng)
    if r < 0.95:
        return {rng.choice(ODD_STRINGS): rng.choice(ODD_STRINGS + EXTREME_NUMBERS)}
    return [rng.choice(ODD_STRINGS + EXTREME_NUMBERS) for _ in range(rng.randint(0, 5))]


def short(v, n=60):
    try:
        s = v.text if isinstance(v, Raw) else dump(v)
    except (TypeError, ValueError, RecursionError):
        s = repr(v)
    if len(s) > n:
        s = s[:n] + '...(%d chars)' % len(s)
    return s


###############################################################################
# Paths and mutations
###############################################################################

def all_paths(o, prefix=()):
    out = []
    stack = [(o, prefix)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, dict):
            for k, c in v.items():
                out.append(p + (k,))
                stack.append((c, p + (k,)))
        elif isinstance(v, list):
            for i, c in enumerate(v):
                out.append(p + (i,))
                stack.append((c, p + (i,)))
    out.sort(key=lambda x: tuple(str(e) for e in x))
    return out


def path_str(p):
    s = ''
    for e in p:
        if isinstance(e, int):
            s += '[%d]' % e
        else:
            s += ('.' if s else '') + str(e)[:40]
    return s or '<root>'


def resolve(obj, path):
    """(container, key) for the deepest existing prefix of path, or None."""
    cur = obj
    for i, e in enumerate(path):
        last = i == len(path) - 1
        if isinstance(cur, dict) and not isinstance(e, int) and e in cur:
            if last:
                return cur, e
            cur = cur[e]
        elif isinstance(cur, list) and isinstance(e, int) and e < len(cur):
            if last:
                return cur, e
            cur = cur[e]
        else:
            return None
    return None


def get_at(obj, path):
    cur = obj
    for e in path:
        cur = cur[e]
    return cur


class Mutator:
    def __init__(self, rng, desc):
        self.rng = rng
        self.desc = desc

    def pick_path(self, obj, paths, want=None):
        rng = self.rng
        for _ in range(12):
            if not paths:
                return None
            p = rng.choice(paths)
            slot = resolve(obj, p)
            if slot is None:
                continue
            if want is not None and not isinstance(slot[0][slot[1]], want):
                continue
            return p
        return None

    def mutate(self, obj, paths, kind):
        """Apply one mutation to obj (in place; returns the possibly new root)."""
        rng = self.rng
        r = rng.random()
        if r < 0.15 and kind in STRUCTURAL:
            return STRUCTURAL[kind](self, obj)
        if r < 0.62:
            p = self.pick_path(obj, paths)
            if p is None:
                return obj
            c, k = resolve(obj, p)
            parent_key = p[-2] if len(p) >= 2 else None
            v = gen_value(rng, quantity=parent_key in QTY_PARENTS or p[-1] in QTY_KEYS)
            c[k] = v
            self.desc.append('%s = %s' % (path_str(p), short(v)))
        elif r < 0.72:
            p = self.pick_path(obj, paths)
            if p is None:
                return obj
            c, k = resolve(obj, p)
            if isinstance(c, dict):
                del c[k]
            else:
                c.pop(k)
            self.desc.append('delete %s' % path_str(p))
        elif r < 0.79:
            p = self.pick_path(obj, paths, dict)
            target = obj if p is None or rng.random() < 0.2 else get_at(obj, p)
            if not isinstance(target, dict):
                return obj
            key = rng.choice(UNKNOWN_KEYS)
            v = gen_value(rng)
            target[key] = v
            self.desc.append('add %s.%s = %s' % (path_str(p or ()), short(key, 20), short(v)))
        elif r < 0.86:
            p = self.pick_path(obj, paths, list)
            if p is None:
                return obj
            arr = get_at(obj, p)
            elem = rng.choice(arr) if arr else gen_value(rng)
            n = rng.choice([2, 10, 100, 1000, 1000, 3000])
            size = len(dump(elem)) + 1
            room = MAX_DOC - len(dump(obj))
            n = min(n, room // size)
            if n < 1:
                return obj
            arr.extend(copies(elem, n))
            self.desc.append('%s: element x%d' % (path_str(p), n))
        elif r < 0.92:
            p = self.pick_path(obj, paths, (list, dict))
            if p is None:
                return obj
            c, k = resolve(obj, p)
            c[k] = [] if isinstance(c[k], list) else {}
            self.desc.append('empty %s' % path_str(p))
        else:
            p = self.pick_path(obj, paths)
            if p is None:
                return obj
            c, k = resolve(obj, p)
            v = deep_raw(rng)
            c[k] = v
            self.desc.append('%s = deep %s' % (path_str(p), short(v, 30)))
        return obj


def _spec(obj):
    s = obj.get('spec') if isinstance(obj, dict) else None
    if not isinstance(s, dict):
        s = {}
        if isinstance(obj, dict):
            obj['spec'] = s
    return s


def pod_structural(m, pod):
    rng = m.rng
    spec = _spec(pod)
    op = rng.randrange(18)
    if op >= 16:
        return volume_structural(m, pod, spec)
    if op == 0:
        n = rng.choice([3, 3, 10, 200])
        q = rng.choice(['5Ei', '8Ei', '4Ei', '9223372036854775807', '3e18'])
        res = rng.choice(['memory', 'cpu', 'ephemeral-storage', 'nvidia.com/gpu', 'hugepages-2Mi', 'pods'])
        spec['containers'] = [container('c%d' % i, 'busybox', {res: q}) for i in range(n)]
        m.desc.append('spec.containers = %d x %s %s' % (n, res, q))
    elif op == 1:
        res = rng.choice(['memory', 'cpu'])
        spec['overhead'] = {res: rng.choice(['7Ei', '8Ei', '9223372036854775807'])}
        if not isinstance(spec.get('containers'), list):
            spec['containers'] = []
        spec['containers'].append(container('big', 'busybox', {res: '5Ei'}))
        m.desc.append('spec.overhead %s 7Ei-ish + a 5Ei container' % res)
    elif op == 2:
        spec['initContainers'] = [container('s%d' % i, 'busybox', {'memory': '4Ei', 'cpu': '4Ei'},
                                            restartPolicy=rng.choice(['Always', 'Always', 'OnFailure', '', None]))
                                  for i in range(rng.choice([2, 3, 50]))]
        m.desc.append('spec.initContainers = many 4Ei sidecars')
    elif op == 3:
        ref = rng.choice([{'controller': True}, {'controller': True, 'kind': 'ReplicaSet'},
                          {'controller': True, 'name': 'web-6d4cf56db6'},
                          {'controller': 'yes', 'kind': 'ReplicaSet', 'name': 'x', 'uid': 'y'},
                          {'controller': True, 'kind': 5, 'name': None, 'apiVersion': 'apps/v1'},
                          {'controller': True, 'kind': 'StatefulSet', 'name': 'db', 'apiVersion': 7},
                          {'controller': True, 'kind': 'ReplicationController', 'name': ''},
                          None, 'owner', {}])
        meta_ = pod.setdefault('metadata', {}) if isinstance(pod.get('metadata'), dict) else {}
        refs = copies(ref, rng.choice([1, 2, 100]))
        meta_['ownerReferences'] = refs
        m.desc.append('metadata.ownerReferences = %d x %s' % (len(refs), short(ref)))
    elif op == 4:
        v = rng.choice(['x', '', 0, -1, 2147483648, 1e19, None, 1.5, '1'])
        key = rng.choice(['maxSkew', 'maxSkew', 'minDomains', 'topologyKey', 'whenUnsatisfiable',
                          'nodeAffinityPolicy', 'nodeTaintsPolicy', 'matchLabelKeys', 'labelSelector'])
        c = {'maxSkew': 1, 'topologyKey': 'topology.kubernetes.io/zone', 'whenUnsatisfiable': 'DoNotSchedule',
             'labelSelector': {'matchLabels': {'app': 'web'}}}
        c[key] = v
        spec['topologySpreadConstraints'] = copies(c, rng.choice([1, 2, 50]))
        m.desc.append('spec.topologySpreadConstraints[*].%s = %s' % (key, short(v)))
    elif op == 5:
        w = rng.choice([1e19, -1, 0, 101, '50', 1.5, None, 2147483648, 100])
        which = rng.randrange(3)
        aff = spec.setdefault('affinity', {}) if isinstance(spec.get('affinity'), dict) else {}
        spec['affinity'] = aff
        if which == 0:
            aff['nodeAffinity'] = {'preferredDuringSchedulingIgnoredDuringExecution': [
                {'weight': w, 'preference': {'matchExpressions': [
                    {'key': 'topology.kubernetes.io/zone', 'operator': 'In', 'values': ['zone-a']}]}}]}
        else:
            aff['podAffinity' if which == 1 else 'podAntiAffinity'] = {
                'preferredDuringSchedulingIgnoredDuringExecution': [
                    {'weight': w, 'podAffinityTerm': {'labelSelector': {'matchLabels': {'app': 'web'}},
                                                      'topologyKey': 'kubernetes.io/hostname'}}]}
        m.desc.append('affinity weight (%d) = %s' % (which, short(w)))
    elif op == 6:
        t = {'key': rng.choice(['dedicated', '', None, 'nvidia.com/gpu', 'a' * 300]),
             'operator': rng.choice(['Gt', 'Lt', 'Exists', 'Equal', 'equal', '', None, 'In', 'Gte', 5]),
             'value': rng.choice(['abc', '5', '', None, '-1', '99999999999999999999', 1, 'web']),
             'effect': rng.choice(['NoSchedule', 'NoExecute', 'PreferNoSchedule', '', 'Bogus', None]),
             'tolerationSeconds': rng.choice([300, -1, 9223372036854775808, 'x', None, 1e19])}
        spec['tolerations'] = copies(t, rng.choice([1, 3, 500]))
        m.desc.append('spec.tolerations = %s' % short(t, 120))
    elif op == 7:
        pod['spec'] = rng.choice([None, 'spec', [], 0, {}])
        m.desc.append('spec = %s' % short(pod['spec']))
    elif op == 8:
        ports = [{'containerPort': rng.choice([80, 0, -1, 65536, 'http']),
                  'hostPort': rng.choice([8080, 0, -1, 65535, 65536, 70000, '8080', None, 2147483648]),
                  'protocol': rng.choice(['TCP', 'UDP', 'SCTP', 'tcp', '', None, 'ICMP']),
                  'hostIP': rng.choice(['0.0.0.0', '::', '10.0.1.7', '', 'garbage', None, 7])}
                 for _ in range(rng.choice([1, 2, 1000]))]
        if not isinstance(spec.get('containers'), list) or not spec['containers']:
            spec['containers'] = [container('p', 'busybox')]
        if isinstance(spec['containers'][0], dict):
            spec['containers'][0]['ports'] = ports
        m.desc.append('spec.containers[0].ports = %d x %s' % (len(ports), short(ports[0])))
    elif op == 9:
        spec['nodeName'] = rng.choice(['nonexistent-node', 'zone-a-1', 'gpu-1', 'small-1', '', 'a' * 300,
                                       huge_strings()[2], '../x', 'zone-a-1 '])
        m.desc.append('spec.nodeName = %s' % short(spec['nodeName']))
    elif op == 10:
        spec['priority'] = rng.choice([2147483647, -2147483648, 2147483648, 1e19, 2000000000, '1000', None])
        spec['preemptionPolicy'] = rng.choice(['PreemptLowerPriority', 'Never', '', 'Sometimes', None])
        spec['containers'] = [container('big', 'busybox', {'cpu': rng.choice(['15', '3500m', '100']),
                                                           'memory': rng.choice(['12Gi', '60Gi', '1Ti'])})]
        m.desc.append('high priority %s / %s, big requests' % (short(spec['priority']), short(spec['preemptionPolicy'])))
    elif op == 11:
        spec['schedulingGates'] = rng.choice([copies({'name': 'g'}, 100), [{}], [{'name': None}], ['g'], [None],
                                              [{'name': ''}], 'gates', [{'name': 'a' * 300000}]])
        m.desc.append('spec.schedulingGates = %s' % short(spec['schedulingGates']))
    elif op == 12:
        labs = {}
        for _ in range(rng.choice([1, 5, 2000])):
            labs[rng.choice(ODD_STRINGS) + str(rng.randrange(100000))] = rng.choice(ODD_STRINGS)
        md = pod.get('metadata')
        if isinstance(md, dict):
            md['labels'] = labs
        m.desc.append('metadata.labels = %d odd labels' % len(labs))
    elif op == 13:
        term = {'labelSelector': rng.choice([{'matchLabels': {'app': 'web'}}, None, {}, 'x',
                                             {'matchExpressions': [{'key': 'app', 'operator': 'Bogus',
                                                                    'values': ['a']}]},
                                             {'matchExpressions': [{'key': 'app', 'operator': 'In', 'values': []}]},
                                             {'matchExpressions': [{'key': 'app', 'operator': 'Exists',
                                                                    'values': ['x']}]}]),
                'topologyKey': rng.choice(['', None, 'kubernetes.io/hostname', 'a' * 300, 'no-such-key']),
                'namespaces': rng.choice([None, [], ['prod'], [''], [None], 'prod']),
                'namespaceSelector': rng.choice([None, {}, {'matchLabels': {'env': 'prod'}}, 'x',
                                                 {'matchExpressions': [{'key': 'env', 'operator': 'NotIn'}]}]),
                'matchLabelKeys': rng.choice([None, ['app'], ['pod-template-hash'], [''], [5], 'app']),
                'mismatchLabelKeys': rng.choice([None, ['app'], ['version'], [None]])}
        term = {k: v for k, v in term.items() if v is not None or rng.random() < 0.3}
        kind = rng.choice(['podAffinity', 'podAntiAffinity'])
        req = rng.random() < 0.5
        spec['affinity'] = {kind: {
            'requiredDuringSchedulingIgnoredDuringExecution': copies(term, rng.choice([1, 2, 200]))} if req else {
            'preferredDuringSchedulingIgnoredDuringExecution': [{'weight': 10, 'podAffinityTerm': term}]}}
        m.desc.append('affinity.%s %s term = %s' % (kind, 'required' if req else 'preferred', short(term, 150)))
    elif op == 14:
        expr = {'key': rng.choice(['kubernetes.io/hostname', '', None, 'example.com/cores', 'metadata.name']),
                'operator': rng.choice(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Bogus', '', None]),
                'values': rng.choice([['zone-a'], [], None, ['1', '2'], ['x'], [9223372036854775808],
                                      ['99999999999999999999'], 'v'])}
        fld = rng.choice(['matchExpressions', 'matchFields'])
        spec['affinity'] = {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': rng.choice([
            {'nodeSelectorTerms': [{fld: [expr]}]}, {'nodeSelectorTerms': []}, {'nodeSelectorTerms': [{}]},
            {'nodeSelectorTerms': None}, {}])}}
        m.desc.append('nodeAffinity required %s = %s' % (fld, short(expr, 150)))
    else:
        md = pod.get('metadata')
        if isinstance(md, dict):
            k = rng.choice(['creationTimestamp', 'deletionTimestamp'])
            md[k] = rng.choice(['2024-13-45T99:00:00Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '',
                                'now', 'infinity', '-infinity', 'epoch', '2024-06-14T12:00:00.123456789+05:30',
                                '294277-01-01T00:00:00Z', '-4713-11-24T00:00:00Z', 1718366400, None])
            m.desc.append('metadata.%s = %s' % (k, short(md[k])))
    return pod


def node_structural(m, node):
    rng = m.rng
    st = node.get('status') if isinstance(node.get('status'), dict) else None
    if st is None:
        st = node['status'] = {}
    spec = _spec(node)
    op = rng.randrange(7)
    if op == 0:
        res = rng.choice(['cpu', 'memory', 'pods', 'ephemeral-storage', 'nvidia.com/gpu', 'hugepages-1Gi',
                          'example.com/' + 'r' * 60, 'a/b/c', ''])
        v = rng.choice(QUANTITIES)
        key = rng.choice(['allocatable', 'capacity'])
        if not isinstance(st.get(key), dict):
            st[key] = {}
        st[key][res] = v
        if key == 'capacity' and rng.random() < 0.5:
            st.pop('allocatable', None)
        m.desc.append('status.%s.%s = %s' % (key, res, short(v)))
    elif op == 1:
        t = {'key': rng.choice(['dedicated', '', None, 'a' * 300, 'node.kubernetes.io/unschedulable']),
             'value': rng.choice(['web', '', None, 5, 'x' * 1000]),
             'effect': rng.choice(['NoSchedule', 'NoExecute', 'PreferNoSchedule', '', 'Bogus', None, 1]),
             'timeAdded': rng.choice([T0, '', 'x', None, 5])}
        spec['taints'] = copies(t, rng.choice([1, 2, 1000]))
        m.desc.append('spec.taints = %d x %s' % (len(spec['taints']), short(t, 120)))
    elif op == 2:
        img = {'names': rng.choice([['registry.example.com/web:1.25'], [], None, [''], [None], 'web', [5],
                                    ['x' * 5000], ['registry.example.com/web:1.25'] * 50]),
               'sizeBytes': rng.choice([9223372036854775807, -1, 0, 1e19, 9223372036854775808, 'big', None,
                                        1000000000000])}
        st['images'] = copies(img, rng.choice([1, 2, 100, 3000]))
        m.desc.append('status.images = %d x %s' % (len(st['images']), short(img, 120)))
    elif op == 3:
        md = node.get('metadata')
        if isinstance(md, dict):
            labs = md.get('labels') if isinstance(md.get('labels'), dict) else {}
            k = rng.choice(['topology.kubernetes.io/zone', 'kubernetes.io/hostname', 'example.com/cores',
                            'a' * 300, rng.choice(huge_strings()), '', '/'])
            labs[k] = rng.choice(['zone-a', '', 'x' * 64, None, 5, '9223372036854775808', 'a/b',
                                  rng.choice(huge_strings())])
            md['labels'] = labs
            m.desc.append('metadata.labels[%s] = %s' % (short(k, 30), short(labs[k])))
    elif op == 4:
        spec['unschedulable'] = rng.choice(['true', 1, None, 'yes', [], True])
        m.desc.append('spec.unschedulable = %s' % short(spec['unschedulable']))
    elif op == 5:
        st['allocatable'] = {r: rng.choice(QUANTITIES) for r in ('cpu', 'memory', 'pods', 'ephemeral-storage')}
        m.desc.append('status.allocatable = %s' % short(st['allocatable'], 150))
    else:
        node['status'] = rng.choice([None, 'x', [], {}])
        m.desc.append('status = %s' % short(node['status']))
    return node


def selector_structural(m, obj):
    rng = m.rng
    spec = _spec(obj)
    sel = rng.choice([
        {'matchLabels': {'app': rng.choice(ODD_STRINGS)}},
        {'matchLabels': {rng.choice(ODD_STRINGS): 'web'}},
        {'matchExpressions': copies({'key': 'app', 'operator': rng.choice(['In', 'Bogus', '', None, 'Exists']),
                                     'values': rng.choice([['web'], [], None, 'web', [5]])}, rng.choice([1, 500]))},
        {'app': 'web'}, {}, None, 'app=web', [], {'matchLabels': None}, {'matchLabels': {'app': None}},
        {'matchLabels': {'k%d' % i: 'v' for i in range(3000)}},
    ])
    spec['selector'] = sel
    m.desc.append('spec.selector = %s' % short(sel, 150))
    if obj.get('kind') == 'PodDisruptionBudget' and rng.random() < 0.5:
        st = obj.get('status') if isinstance(obj.get('status'), dict) else {}
        obj['status'] = st
        st['disruptionsAllowed'] = rng.choice([-1, 2147483648, 1e19, '1', None, 0, 1000000])
        st['disruptedPods'] = rng.choice([{'web-a': 'x'}, {'web-a': None}, [], 'x', {'': T0},
                                          {'p%d' % i: T0 for i in range(2000)}])
        m.desc.append('status.disruptionsAllowed = %s, disruptedPods = %s'
                      % (short(st['disruptionsAllowed']), short(st['disruptedPods'])))
    return obj


CLAIMS = ['data-db-0', 'legacy-claim', 'single-writer', 'local-claim', 'dyn-claim', 'big-claim', 'fast-claim',
          'selected', 'gold-claim', 'beta-claim', 'half-bound', 'deleting-claim', 'train-data', 'no-such-claim']
ODD_QUANTITIES = ['-1Gi', '-1', '0', '9Ei', '8Ei', '9223372036854775807', '9223372036854775808', '1e400', '1e-30',
                  '1.5.5Gi', '', 'Gi', 5, -5, 1e19, None, '100m', '1n', '999999999999999999999Ki', '0.000001Ki']


def volume_structural(m, pod, spec):
    """A pod's spec.volumes changed: two sources, no claimName, odd disks,
    another namespace's claim, thousands of volumes."""
    rng = m.rng
    op = rng.randrange(10)
    claim = rng.choice(CLAIMS)
    if op == 0:
        srcs = rng.sample(['persistentVolumeClaim', 'ephemeral', 'gcePersistentDisk', 'awsElasticBlockStore',
                           'rbd', 'iscsi', 'csi', 'configMap'], 2)
        full = {'persistentVolumeClaim': {'claimName': claim}, 'ephemeral': {'volumeClaimTemplate': {'spec': {}}},
                'gcePersistentDisk': {'pdName': 'disk-1'}, 'awsElasticBlockStore': {'volumeID': 'vol-0123'},
                'rbd': {'monitors': ['m'], 'image': 'img-1'}, 'iscsi': {'targetPortal': 't', 'iqn': 'q', 'lun': 0},
                'csi': {'driver': EBS_CSI}, 'configMap': {'name': 'c'}}
        vol = {'name': 'two'}
        for k in srcs:
            vol[k] = full[k]
        m.desc.append('spec.volumes += volume with %s and %s' % tuple(srcs))
    elif op == 1:
        pvc_src = rng.choice([{}, {'claimName': ''}, {'claimName': None}, {'claimName': 5},
                              {'claimName': 'a' * 300}, {'claimName': claim, 'readOnly': 'yes'},
                              {'claimName': '../' + claim}, {'claimName': claim.upper()}])
        vol = {'name': rng.choice(['data', '', None, 'x' * 300]), 'persistentVolumeClaim': pvc_src}
        m.desc.append('spec.volumes += persistentVolumeClaim %s' % short(vol, 120))
    elif op == 2:
        # a claim of another namespace (claims resolve in the pod's own)
        vol = claim_vol('data', rng.choice(['data-db-0', 'train-data', 'single-writer', 'eph-web-scratch']))
        md = pod.get('metadata')
        if isinstance(md, dict):
            md['namespace'] = rng.choice(['default', 'prod', 'ml', 'kube-system', 'other'])
        m.desc.append('spec.volumes += claim %s, namespace %s'
                      % (vol['persistentVolumeClaim']['claimName'], short(md.get('namespace') if isinstance(md, dict) else None)))
    elif op == 3:
        vol = {'name': rng.choice(['scratch', 'data', '', 'x' * 200]),
               'ephemeral': rng.choice([{}, {'volumeClaimTemplate': None}, {'volumeClaimTemplate': 'x'},
                                        {'volumeClaimTemplate': {'spec': {'storageClassName': 'nope',
                                                                          'accessModes': ['ReadWriteOncePod']}}},
                                        {'volumeClaimTemplate': {'spec': {'resources': {'requests': {
                                            'storage': rng.choice(ODD_QUANTITIES)}}}}}])}
        m.desc.append('spec.volumes += ephemeral %s' % short(vol, 120))
    elif op == 4:
        which = rng.choice(['gcePersistentDisk', 'awsElasticBlockStore'])
        key = 'pdName' if which == 'gcePersistentDisk' else 'volumeID'
        src = {key: rng.choice(['disk-1', 'vol-0123', '', None, 5, 'a' * 1000]),
               'partition': rng.choice([0, 1, -1, 2147483648, '1', None, 1e19]),
               'readOnly': rng.choice([True, False, 'no', None])}
        vol = {'name': 'disk', which: {k: v for k, v in src.items() if v is not None or rng.random() < 0.3}}
        m.desc.append('spec.volumes += %s %s' % (which, short(src, 120)))
    elif op == 5:
        src = {'monitors': rng.choice([['10.0.0.1:6789'], [], None, [5], ['m'] * 500, 'm', [None]]),
               'image': rng.choice(['img-1', '', None, 7]), 'pool': rng.choice(['kube', '', None, 3, 'rbd'])}
        vol = {'name': 'ceph', 'rbd': src}
        m.desc.append('spec.volumes += rbd %s' % short(src, 120))
    elif op == 6:
        src = {'targetPortal': rng.choice(['10.0.0.9:3260', '', None]),
               'iqn': rng.choice(['iqn.2024-06.com.example:t1', '', None, 5]),
               'lun': rng.choice([0, -1, 2147483648, '0', None, 255, 1.5]),
               'readOnly': rng.choice([True, False, None, 'true'])}
        vol = {'name': 'lun', 'iscsi': src}
        m.desc.append('spec.volumes += iscsi %s' % short(src, 120))
    elif op == 7:
        vol = {'name': 'inline', 'csi': rng.choice([{'driver': EBS_CSI}, {'driver': ''}, {}, {'driver': 5},
                                                    {'driver': PD_CSI, 'volumeHandle': 7}])}
        m.desc.append('spec.volumes += csi %s' % short(vol['csi']))
    elif op == 8:
        spec['volumes'] = rng.choice([None, 'volumes', {}, [None], [5], [[]], [{}], [{'name': 'x'}]])
        m.desc.append('spec.volumes = %s' % short(spec['volumes']))
        return pod
    else:
        n = rng.choice([2, 50, 300, 2000])
        vols = [claim_vol('v%d' % i, rng.choice(CLAIMS)) if rng.random() < 0.7 else
                {'name': 'd%d' % i, 'gcePersistentDisk': {'pdName': 'disk-%d' % (i % 5)}} for i in range(n)]
        spec['volumes'] = vols
        m.desc.append('spec.volumes = %d claims and disks' % n)
        return pod
    if not isinstance(spec.get('volumes'), list):
        spec['volumes'] = []
    spec['volumes'].append(vol)
    if rng.random() < 0.3:
        spec['volumes'] = copies(vol, rng.choice([2, 100]))
        m.desc.append('  x%d' % len(spec['volumes']))
    return pod


def odd_selector(rng):
    return rng.choice([
        {'matchLabels': {'tier': rng.choice(ODD_STRINGS)}},
        {'matchExpressions': [{'key': rng.choice([ZONE, '', None, 'a' * 300]),
                               'operator': rng.choice(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Bogus', '',
                                                       None, 5]),
                               'values': rng.choice([['zone-a'], [], None, 'zone-a', [5], [None]])}]},
        {'matchExpressions': copies({'key': ZONE, 'operator': 'In', 'values': ['zone-a']}, 500)},
        {}, None, 'tier=gold', [], {'matchLabels': None}, {'matchLabels': {'k%d' % i: 'v' for i in range(2000)}},
    ])


def odd_node_terms(rng):
    expr = {'key': rng.choice([ZONE, HOSTNAME, '', None, 'metadata.name', 'example.com/cores']),
            'operator': rng.choice(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Bogus', '', None]),
            'values': rng.choice([['zone-a'], [], None, ['1', '2'], ['x'], ['99999999999999999999'], 'v'])}
    fld = rng.choice(['matchExpressions', 'matchFields'])
    return rng.choice([[{fld: [expr]}], [], [{}], None, 'terms', [{fld: copies(expr, 300)}],
                       copies({fld: [expr]}, 200)])


def _annotations(md):
    if not isinstance(md.get('annotations'), dict):
        md['annotations'] = {}
    return md['annotations']


def storage_structural(m, obj):
    """The storage kinds' own shapes changed: huge or negative quantities,
    claimRefs to other namespaces, bad selectors and topologies, odd limits."""
    rng = m.rng
    kind = obj.get('kind')
    spec = obj.get('spec') if isinstance(obj.get('spec'), dict) else None
    md = obj.get('metadata') if isinstance(obj.get('metadata'), dict) else {}
    if kind == 'PersistentVolumeClaim':
        spec = _spec(obj)
        op = rng.randrange(7)
        if op == 0:
            spec['resources'] = {'requests': {'storage': rng.choice(ODD_QUANTITIES)}}
            m.desc.append('spec.resources.requests.storage = %s' % short(spec['resources']['requests']['storage']))
        elif op == 1:
            spec['accessModes'] = rng.choice([['ReadWriteOncePod'], ['ReadWriteOncePod', 'ReadWriteMany'], [],
                                              None, ['ReadWriteAlways'], [5], 'ReadWriteOnce',
                                              ['ReadOnlyMany'] * 1000])
            m.desc.append('spec.accessModes = %s' % short(spec['accessModes']))
        elif op == 2:
            spec['volumeName'] = rng.choice(['pv-db-0', 'pv-local-a', 'pv-other-ns', 'no-such-pv', '', None,
                                             'a' * 300])
            if rng.random() < 0.5:
                _annotations(md)['pv.kubernetes.io/bind-completed'] = rng.choice(['yes', '', None])
            m.desc.append('spec.volumeName = %s' % short(spec['volumeName']))
        elif op == 3:
            spec['selector'] = odd_selector(rng)
            m.desc.append('spec.selector = %s' % short(spec['selector'], 150))
        elif op == 4:
            spec['storageClassName'] = rng.choice(['standard-wffc', 'fast-immediate', 'local-storage', '', None,
                                                   'no-such-class', 'a' * 300, 5])
            if rng.random() < 0.4:
                _annotations(md)['volume.beta.kubernetes.io/storage-class'] = rng.choice(
                    ['', 'local-storage', 'no-such-class'])
            m.desc.append('spec.storageClassName = %s' % short(spec['storageClassName']))
        elif op == 5:
            _annotations(md)['volume.kubernetes.io/selected-node'] = rng.choice(
                ['zone-a-1', 'no-such-node', '', 'a' * 300, 'small-1'])
            m.desc.append('selected-node = %s' % short(_annotations(md)['volume.kubernetes.io/selected-node']))
        else:
            md['deletionTimestamp'] = rng.choice([T0, '', 'now', None, 5])
            md['ownerReferences'] = rng.choice([None, [], [{'kind': 'Pod', 'name': 'eph-web', 'uid': 'x',
                                                            'controller': True}], [None], 'x'])
            m.desc.append('metadata.deletionTimestamp/ownerReferences changed')
    elif kind == 'PersistentVolume':
        spec = _spec(obj)
        op = rng.randrange(7)
        if op == 0:
            spec['capacity'] = {'storage': rng.choice(ODD_QUANTITIES)}
            m.desc.append('spec.capacity.storage = %s' % short(spec['capacity']['storage']))
        elif op == 1:
            spec['claimRef'] = rng.choice([
                {'namespace': rng.choice(['other', 'prod', 'ml', '', None]), 'name': rng.choice(CLAIMS),
                 'uid': rng.choice(['uid-x', '', None])},
                {'name': 'dyn-claim'}, {'namespace': 'default'}, {}, None, 'claim', [],
                {'namespace': 'default', 'name': 'local-claim', 'uid': 'uid-default-local-claim'}])
            m.desc.append('spec.claimRef = %s' % short(spec['claimRef'], 120))
        elif op == 2:
            spec['nodeAffinity'] = rng.choice([{'required': {'nodeSelectorTerms': odd_node_terms(rng)}},
                                               {'required': None}, {}, None, 'x', {'required': {}}])
            m.desc.append('spec.nodeAffinity = %s' % short(spec['nodeAffinity'], 150))
        elif op == 3:
            labs = md.get('labels') if isinstance(md.get('labels'), dict) else {}
            k = rng.choice([ZONE, 'topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/zone',
                            'failure-domain.beta.kubernetes.io/region', 'topology.k8s.io/zone'])
            labs[k] = rng.choice(['zone-a__zone-b', 'zone-a', '', '__', 'zone-z', 'a' * 63, 'zone-a__' * 50])
            md['labels'] = labs
            m.desc.append('metadata.labels[%s] = %s' % (k, short(labs[k])))
        elif op == 4:
            for k in ('csi', 'gcePersistentDisk', 'awsElasticBlockStore', 'local'):
                spec.pop(k, None)
            src = rng.choice([{'csi': {'driver': rng.choice([PD_CSI, EBS_CSI, '', 'x' * 300]),
                                       'volumeHandle': rng.choice(['h', '', None])}},
                              {'gcePersistentDisk': {'pdName': rng.choice(['disk-1', '', None])}},
                              {'awsElasticBlockStore': {'volumeID': 'vol-0123'}, 'csi': {'driver': EBS_CSI}},
                              {'rbd': {'monitors': ['m'], 'image': 'i'}}, {'hostPath': {'path': '/'}}])
            spec.update(src)
            m.desc.append('spec source = %s' % short(src, 120))
        elif op == 5:
            spec['volumeMode'] = rng.choice(['Block', 'Filesystem', 'Bogus', '', None])
            spec['accessModes'] = rng.choice([['ReadWriteOncePod'], ['ReadWriteMany', 'ReadOnlyMany'], [], None])
            m.desc.append('spec.volumeMode/accessModes = %s/%s' % (short(spec['volumeMode']),
                                                                 short(spec['accessModes'])))
        else:
            st = obj.get('status') if isinstance(obj.get('status'), dict) else {}
            obj['status'] = st
            st['phase'] = rng.choice(['Available', 'Bound', 'Released', 'Failed', 'Pending', '', None, 5])
            md['deletionTimestamp'] = rng.choice([T0, None])
            m.desc.append('status.phase = %s' % short(st['phase']))
    elif kind == 'StorageClass':
        op = rng.randrange(3)
        if op == 0:
            obj['volumeBindingMode'] = rng.choice(['WaitForFirstConsumer', 'Immediate', '', 'Later', None, 5])
            m.desc.append('volumeBindingMode = %s' % short(obj['volumeBindingMode']))
        elif op == 1:
            t = {'matchLabelExpressions': [{'key': rng.choice([ZONE, HOSTNAME, '', None, 'a' * 300]),
                                            'values': rng.choice([['zone-a'], [], None, [5], ['zone-a'] * 1000])}]}
            obj['allowedTopologies'] = rng.choice([[t], copies(t, 300), [], None, 'x', [{}], [None]])
            m.desc.append('allowedTopologies = %s' % short(obj['allowedTopologies'], 150))
        else:
            obj['provisioner'] = rng.choice([PD_CSI, EBS_CSI, 'kubernetes.io/no-provisioner', '', None,
                                             'kubernetes.io/gce-pd', 'a' * 300])
            m.desc.append('provisioner = %s' % short(obj['provisioner']))
    elif kind == 'CSINode':
        spec = _spec(obj)
        d = {'name': rng.choice([PD_CSI, EBS_CSI, '', None, 'x' * 300]),
             'nodeID': rng.choice(['n', '', None]),
             'allocatable': rng.choice([{'count': rng.choice([0, 1, -1, 2147483647, 2147483648, 1e19, '2', None,
                                                              1.5])}, {}, None, 'x']),
             'topologyKeys': rng.choice([[ZONE], [], None, [5], [''], [HOSTNAME] * 100])}
        spec['drivers'] = rng.choice([[d], copies(d, rng.choice([2, 500])), [d, d], None, [], 'x'])
        if rng.random() < 0.3:
            md['name'] = rng.choice(['no-such-node', 'zone-b-1', 'gpu-1', 'cordoned-1'])
        m.desc.append('spec.drivers = %s' % short(spec['drivers'], 150))
    elif kind == 'CSIDriver':
        spec = _spec(obj)
        k = rng.choice(['storageCapacity', 'attachRequired'])
        spec[k] = rng.choice([True, False, None, 'yes', 1])
        m.desc.append('spec.%s = %s' % (k, short(spec[k])))
    elif kind == 'CSIStorageCapacity':
        op = rng.randrange(3)
        if op == 0:
            k = rng.choice(['capacity', 'maximumVolumeSize'])
            obj[k] = rng.choice(ODD_QUANTITIES)
            m.desc.append('%s = %s' % (k, short(obj[k])))
        elif op == 1:
            obj['nodeTopology'] = odd_selector(rng)
            m.desc.append('nodeTopology = %s' % short(obj['nodeTopology'], 150))
        else:
            obj['storageClassName'] = rng.choice(['standard-wffc', 'fast-immediate', '', None, 'no-such-class'])
            m.desc.append('storageClassName = %s' % short(obj['storageClassName']))
    elif kind == 'VolumeAttachment':
        spec = _spec(obj)
        spec['nodeName'] = rng.choice(['small-1', 'zone-a-1', 'no-such-node', '', None, 'a' * 300])
        spec['attacher'] = rng.choice([PD_CSI, EBS_CSI, '', None, 5])
        spec['source'] = rng.choice([{'persistentVolumeName': rng.choice(['pv-db-0', 'pv-gce', '', None])}, {},
                                     None, 'x'])
        m.desc.append('spec = %s' % short(spec, 150))
    return obj


STRUCTURAL = {'Pod': pod_structural, 'Node': node_structural, 'PodDisruptionBudget': selector_structural,
              'Service': selector_structural, 'ReplicationController': selector_structural,
              'ReplicaSet': selector_structural, 'StatefulSet': selector_structural,
              'PersistentVolumeClaim': storage_structural, 'PersistentVolume': storage_structural,
              'StorageClass': storage_structural, 'CSINode': storage_structural, 'CSIDriver': storage_structural,
              'CSIStorageCapacity': storage_structural, 'VolumeAttachment': storage_structural}

###############################################################################
# Mutants
###############################################################################


class Seeds:
    """Seed objects as JSON text (json.loads is a fast deep copy) with their paths."""

    def __init__(self):
        self.base = build_base()
        self.by_kind = {}
        for kind, objs in self.base.items():
            for o in objs:
                k = o['kind']
                self.by_kind.setdefault(k, []).append(json.dumps(o))
        self.paths = {}
        self.base_doc = json.dumps({'apiVersion': 'v1', 'kind': 'List', 'metadata': {'resourceVersion': ''},
                                    'items': [o for objs in self.base.values() for o in objs]})
        self.pending = [(o['metadata']['namespace'], o['metadata']['name']) for o in self.base['Pod']
                        if not o['spec'].get('nodeName')]
        self.nodes = [o for o in self.base['Node']]
        self.profile_args = {k: [json.dumps(a) for a in v] for k, v in PROFILE_ARGS.items()}

    def get(self, kind, idx):
        text = self.by_kind[kind][idx]
        obj = json.loads(text)
        key = (kind, idx)
        if key not in self.paths:
            self.paths[key] = all_paths(obj)
        return obj, self.paths[key]


KIND_WEIGHTS = [('Pod', 46), ('Node', 20), ('Namespace', 5), ('PodDisruptionBudget', 8), ('Service', 5),
                ('ReplicationController', 4), ('ReplicaSet', 6), ('StatefulSet', 6),
                ('PersistentVolumeClaim', 7), ('PersistentVolume', 7), ('StorageClass', 3), ('CSINode', 3),
                ('CSIDriver', 2), ('CSIStorageCapacity', 3), ('VolumeAttachment', 2)]
LIST_OF = {'Pod': 'PodList', 'Node': 'NodeList', 'Namespace': 'NamespaceList',
           'PodDisruptionBudget': 'PodDisruptionBudgetList', 'Service': 'ServiceList',
           'ReplicationController': 'ReplicationControllerList', 'ReplicaSet': 'ReplicaSetList',
           'StatefulSet': 'StatefulSetList', 'PersistentVolumeClaim': 'PersistentVolumeClaimList',
           'PersistentVolume': 'PersistentVolumeList', 'StorageClass': 'StorageClassList', 'CSINode': 'CSINodeList',
           'CSIDriver': 'CSIDriverList', 'CSIStorageCapacity': 'CSIStorageCapacityList',
           'VolumeAttachment': 'VolumeAttachmentList'}
# the mirror table of each kind
TABLE_OF = {'Pod': 'pods', 'Node': 'nodes', 'Namespace': 'namespaces', 'PodDisruptionBudget': 'pdbs',
            'PersistentVolumeClaim': 'persistent_volume_claims', 'PersistentVolume': 'persistent_volumes',
            'StorageClass': 'storage_classes', 'CSINode': 'csi_nodes', 'CSIDriver': 'csi_drivers',
            'CSIStorageCapacity': 'csi_storage_capacities', 'VolumeAttachment': 'volume_attachments'}
STORAGE_TABLES = ['persistent_volume_claims', 'persistent_volumes', 'storage_classes', 'csi_nodes', 'csi_drivers',
                  'csi_storage_capacities', 'volume_attachments']
PLANT_COLUMNS = {
    'pods': ['object', 'affinity', 'tolerations', 'requests', 'labels', 'node_selector', 'host_ports', 'images',
             'nonzero_cpu', 'nonzero_memory', 'priority', 'scheduling_gates', 'node_name', 'assumed_node', 'phase',
             'has_sidecar', 'scheduler_name', 'pending_nonzero_cpu', 'pending_nonzero_memory'],
    'nodes': ['allocatable', 'taints', 'images', 'labels', 'unschedulable', 'object', 'name'],
    'namespaces': ['labels', 'object'],
    'pdbs': ['selector', 'disruptions_allowed', 'disrupted_pods', 'object'],
    'workloads': ['selector', 'object'],
}
# the storage tables: the object as the volume catalog reads it (volumes.c),
# and the pods' volumes column as the cycle decodes it
PLANT_COLUMNS['pods'].append('volumes')
for _t in STORAGE_TABLES:
    PLANT_COLUMNS[_t] = ['object']


def weighted(rng, pairs):
    tot = sum(w for _, w in pairs)
    x = rng.random() * tot
    for v, w in pairs:
        x -= w
        if x < 0:
            return v
    return pairs[-1][0]


def dump(o):
    """JSON text of o, with Raw tokens written as is."""
    raws = []

    def default(x):
        if isinstance(x, Raw):
            raws.append(x.text)
            return '\ue000%d\ue001' % (len(raws) - 1)
        raise TypeError(type(x))

    s = json.dumps(o, ensure_ascii=True, default=default, separators=(',', ':'))
    if raws:
        s = re.sub(r'"\\ue000(\d+)\\ue001"', lambda mm: raws[int(mm.group(1))], s)
    return s


def plant_value(rng, desc, table, col, seed_obj):
    """A wrong-shaped value for a mirror column, mutated from a realistic one."""
    spec = seed_obj.get('spec') or {}
    md = seed_obj.get('metadata') or {}
    realistic = {
        'object': seed_obj,
        'affinity': rich_pod()['spec']['affinity'],
        'tolerations': rich_pod()['spec']['tolerations'],
        'requests': {'cpu': 450, 'memory': 335544320, 'ephemeral-storage': 1073741824, 'nvidia.com/gpu': 1},
        'labels': md.get('labels') or {'app': 'web'},
        'node_selector': {'kubernetes.io/os': 'linux'},
        'host_ports': [{'hostIP': '0.0.0.0', 'protocol': 'TCP', 'hostPort': 8080}],
        'images': (['registry.example.com/web:1.25', 'busybox'] if table == 'pods' else
                   [{'names': ['registry.example.com/web:1.25'], 'sizeBytes': 187654321}]),
        'allocatable': {'cpu': 4000, 'memory': 17179869184, 'pods': 110, 'ephemeral-storage': 102005473280,
                        'nvidia.com/gpu': 4},
        'taints': [{'key': 'dedicated', 'value': 'web', 'effect': 'NoSchedule'}],
        'selector': {'matchLabels': {'app': 'web'}},
        'disrupted_pods': {'web-a': T0},
        'volumes': (spec.get('volumes') if isinstance(spec.get('volumes'), list) and spec.get('volumes') else
                    [claim_vol('data', 'dyn-claim'), {'name': 'disk', 'gcePersistentDisk': {'pdName': 'disk-1'}}]),
    }
    scalars = {
        'nonzero_cpu': [9223372036854775807, -9223372036854775808, -5, 0, 1],
        'nonzero_memory': [9223372036854775807, -9223372036854775808, -5, 0],
        'pending_nonzero_cpu': [9223372036854775807, -9223372036854775808, -5, 0, None],
        'pending_nonzero_memory': [9223372036854775807, -9223372036854775808, -1, None],
        'priority': [2147483647, -2147483648, 0, 1000000],
        'disruptions_allowed': [2147483647, -2147483648, -1, 0],
        'node_name': ['zone-a-1', 'gpu-1', 'nonexistent-node', '', None, 'small-1'],
        'assumed_node': ['zone-a-1', 'small-1', 'nonexistent-node', '', None],
        'phase': ['Running', 'Succeeded', 'Failed', '', None, 'x'],
        'has_sidecar': [True, False],
        'scheduler_name': ['default-scheduler', 'fuzz-prof', '', 'other'],
        'unschedulable': [True, False],
        'name': ['zone-a-1-x', '', 'gpu-1-renamed'],
        'scheduling_gates': [['g'], [], [''], ['a' * 1000]],
    }
    if col in scalars:
        v = rng.choice(scalars[col])
        if rng.random() < 0.25:
            v = gen_value(rng)
        desc.append('plant %s.%s = %s' % (table, col, short(v)))
        return v
    v = json.loads(json.dumps(realistic.get(col, {})))
    if col == 'requests' and rng.random() < 0.5:
        v = {rng.choice(['cpu', 'memory', 'pods', 'nvidia.com/gpu', 'x', '']):
             rng.choice(EXTREME_NUMBERS + ['1', 'x', None, [], {}]) for _ in range(rng.randint(1, 4))}
        desc.append('plant %s.requests = %s' % (table, short(v, 120)))
        return v
    if col == 'allocatable' and rng.random() < 0.5:
        v = {rng.choice(['cpu', 'memory', 'pods', 'ephemeral-storage', 'nvidia.com/gpu', 'x']):
             rng.choice(EXTREME_NUMBERS + ['4', 'x', None, [], {}]) for _ in range(rng.randint(1, 5))}
        desc.append('plant %s.allocatable = %s' % (table, short(v, 120)))
        return v
    if rng.random() < 0.15:
        v = gen_value(rng)
        desc.append('plant %s.%s = %s' % (table, col, short(v)))
        return v
    if isinstance(v, (dict, list)) and v:
        sub = []
        mm = Mutator(rng, sub)
        paths = all_paths(v)
        for _ in range(rng.randint(1, 3)):
            v = mm.mutate(v, paths, seed_obj.get('kind') if col == 'object' else None)
        desc.append('plant %s.%s: %s' % (table, col, '; '.join(sub)))
    return v


def storage_hint(rng, seeds):
    """A valid change of a storage object, as the API server would send it."""
    def seed(kind, name):
        for t in seeds.by_kind[kind]:
            o = json.loads(t)
            if o['metadata']['name'] == name:
                return o
        raise KeyError(name)
    op = rng.randrange(7)
    if op == 0:   # a claim bound by the PV controller
        c = seed('PersistentVolumeClaim', rng.choice(['dyn-claim', 'local-claim', 'selected', 'gold-claim']))
        c['spec']['volumeName'] = rng.choice(['pv-local-a', 'pv-gold', 'pv-new'])
        c['metadata']['annotations']['pv.kubernetes.io/bind-completed'] = 'yes'
        c['status']['phase'] = 'Bound'
        return c
    if op == 1:   # a new volume some claim fits
        return pv('pv-new', rng.choice(['local-storage', 'standard-wffc', '']), rng.choice(['1Gi', '10Gi', '1Ti']),
                  {'local': {'path': '/mnt/new'}}, affinity=in_expr(HOSTNAME, [rng.choice(['zone-b-1', 'small-1',
                                                                                           'zone-a-1'])]),
                  labels={'tier': 'gold'})
    if op == 2:   # a CSI node's limit changed
        return csi_node(rng.choice(['small-1', 'zone-a-1', 'gpu-1', 'cordoned-1']),
                        [(PD_CSI, rng.choice([0, 1, 2, 64])), (EBS_CSI, rng.choice([None, 3]))])
    if op == 3:   # capacity reported
        c = seed('CSIStorageCapacity', rng.choice(['cap-zone-a', 'cap-zone-b']))
        c['capacity'] = rng.choice(['0', '1Gi', '3Ti'])
        return c
    if op == 4:   # a class changes its mode
        c = seed('StorageClass', rng.choice(['standard-wffc', 'fast-immediate']))
        c['volumeBindingMode'] = rng.choice(['Immediate', 'WaitForFirstConsumer'])
        return c
    if op == 5:   # an attachment goes
        return {'type': 'DELETED', 'object': seed('VolumeAttachment', 'csi-va-db-0')}
    kind = rng.choice(['PersistentVolumeClaim', 'PersistentVolume', 'CSINode', 'CSIDriver', 'StorageClass'])
    return {'type': 'DELETED', 'object': json.loads(rng.choice(seeds.by_kind[kind]))}


class Mutant:
    __slots__ = ('k', 'mode', 'doc', 'ctl', 'commit', 'desc', 'kind', 'target')


def make_mutant(seeds, S, k):
    rng = random.Random('%s:%d' % (S, k))
    mt = Mutant()
    mt.k = k
    mt.desc = []
    ctl = {}
    mode = weighted(rng, [('apply', 50), ('event', 10), ('events', 8), ('relist', 7), ('plant', 15),
                          ('profile', 7), ('hints', 3)])
    kind = weighted(rng, KIND_WEIGHTS)
    if mode == 'profile':
        kind = 'Pod'
    idx = rng.randrange(len(seeds.by_kind[kind]))
    obj, paths = seeds.get(kind, idx)
    mt.kind = kind
    orig_md = obj.get('metadata', {})
    renamed = rng.random() < 0.3
    if renamed:
        obj['metadata']['name'] = '%s-f%d' % (orig_md['name'], k)
        obj['metadata']['uid'] = 'fuzz-%d' % k
    target = None
    if kind == 'Pod':
        target = [orig_md.get('namespace', 'default'), obj['metadata']['name']]

    def mutate_obj(o, n=None):
        m = Mutator(rng, mt.desc)
        n = n or weighted(rng, [(1, 60), (2, 25), (3, 8), (4, 4), (6, 3)])
        for _ in range(n):
            o = m.mutate(o, paths, kind)
        return o

    if mode == 'apply':
        obj = mutate_obj(obj)
        mt.doc = dump(obj)
    elif mode == 'event':
        typ = weighted(rng, [('ADDED', 35), ('MODIFIED', 40), ('DELETED', 17), ('BOOKMARK', 4), ('ERROR', 4)])
        if typ == 'ERROR':
            obj = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {}, 'status': 'Failure',
                   'message': 'too old resource version: 1000 (2000)', 'reason': 'Expired', 'code': 410}
            paths = all_paths(obj)
            kind = 'Status'
        obj = mutate_obj(obj)
        ev = {'type': typ, 'object': obj}
        if rng.random() < 0.2:
            m = Mutator(rng, mt.desc)
            ev = m.mutate(ev, [('type',), ('object',)], None)
        mt.desc.insert(0, 'event %s' % typ)
        mt.doc = dump(ev)
    elif mode == 'events':
        evs = []
        for _ in range(rng.randint(1, 5)):
            kk = weighted(rng, KIND_WEIGHTS)
            o = json.loads(rng.choice(seeds.by_kind[kk]))
            t = rng.choice(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED', None])
            evs.append(o if t is None else {'type': t, 'object': o})
        obj = mutate_obj(obj)
        evs.insert(rng.randrange(len(evs) + 1), {'type': rng.choice(['ADDED', 'MODIFIED']), 'object': obj})
        mt.desc.insert(0, 'apply_events batch of %d' % len(evs))
        mt.doc = dump(evs)
    elif mode == 'relist':
        items = [json.loads(t) for t in seeds.by_kind[kind]]
        api = rng.random() < 0.5    # items without their kind, as the API server lists them
        obj = mutate_obj(obj)
        if renamed:
            items.append(obj)
        else:
            items[idx] = obj    # one item per uid, as the API server lists
        if api:
            for it in items:
                if isinstance(it, dict) and rng.random() < 0.9:
                    it.pop('kind', None)
        lst = {'apiVersion': 'v1', 'kind': LIST_OF[kind],
               'metadata': {'resourceVersion': str(5000 + k)}, 'items': items}
        if rng.random() < 0.15:
            m = Mutator(rng, mt.desc)
            lst = m.mutate(lst, [('kind',), ('metadata',), ('metadata', 'resourceVersion'), ('items',),
                                 ('apiVersion',)], None)
        if rng.random() < 0.2:
            ctl['keep'] = [rng.choice(['uid-prod-rich-0', 'fuzz-%d' % k, '', 'x' * 300])]
        mt.desc.insert(0, 'relist %s of %d' % (lst.get('kind') if isinstance(lst, dict) else '?', len(items)))
        mt.doc = dump(lst)
    elif mode == 'plant':
        table = TABLE_OF.get(kind, 'workloads')
        cols = rng.sample(PLANT_COLUMNS[table], rng.randint(1, min(3, len(PLANT_COLUMNS[table]))))
        if table == 'pods' and rng.random() < 0.3 and 'node_name' not in cols:
            cols.append('node_name')
        mt.doc = dump(obj)
        ctl['plant'] = {'table': table, 'key': obj['metadata']['uid'],
                        'set': {c: plant_value(rng, mt.desc, table, c, obj) for c in cols}}
        mt.desc.insert(0, 'plant %s' % obj['metadata']['name'])
    elif mode == 'profile':
        plugins = list(DEFAULT_PLUGINS)
        if rng.random() < 0.4:
            plugins = rng.sample(plugins, rng.randint(1, len(plugins)))
        rows = []
        for pos, (pl, w) in enumerate(plugins):
            row = {'plugin': pl, 'position': pos + 1, 'weight': w}
            if pl in seeds.profile_args and rng.random() < 0.8:
                row['args'] = json.loads(rng.choice(seeds.profile_args[pl]))
            rows.append(row)
        sub = []
        m = Mutator(rng, sub)
        for _ in range(weighted(rng, [(1, 60), (2, 25), (4, 15)])):
            row = rng.choice(rows)
            if 'args' in row and rng.random() < 0.75:
                row['args'] = m.mutate(row['args'], all_paths(row['args']), None)
            else:
                row = m.mutate(row, all_paths(row), None)
            if sub:
                sub[-1] = '%s: %s' % (short(row.get('plugin'), 40) if isinstance(row, dict) else '?', sub[-1])
        if rng.random() < 0.1:
            rows.append(dict(rows[0]))
            sub.append('duplicate plugin row')
        planted = rng.random() < 0.15
        ctl['profile'] = {'name': 'fuzz-prof', 'rows': rows, 'planted': planted,
                          'pct': rng.choice([None, None, 0, 50, 100, 101, -1])}
        ctl['sched'] = 'fuzz-prof'
        mt.desc.append('profile%s: %s' % (' (planted)' if planted else '', '; '.join(sub)))
        obj['spec']['schedulerName'] = 'fuzz-prof'
        if rng.random() < 0.3:
            obj = mutate_obj(obj, 1)
        mt.doc = dump(obj)
    else:  # hints only
        mt.doc = 'null'
        mt.desc.append('hints only')
    mt.mode = 'none' if mode == 'hints' else ('apply' if mode in ('event', 'plant', 'profile') else mode)

    if kind == 'Pod' and isinstance(obj, dict):
        md = obj.get('metadata')
        if isinstance(md, dict):
            ns, nm = md.get('namespace', 'default'), md.get('name')
            if isinstance(ns, str) and isinstance(nm, str) and len(ns) < 300 and len(nm) < 300:
                target = [ns, nm]
    if target is None:
        target = list(rng.choice(seeds.pending))
    ctl['ns'], ctl['name'] = target
    mt.target = target

    # QueueingHints: a node relabelled, tainted, resized or cordoned; a bound
    # pod deleted; a placement confirmed by the "API server"
    hints = []
    if mode == 'hints' or rng.random() < 0.3:
        for _ in range(rng.randint(1, 2)):
            node = json.loads(json.dumps(rng.choice(seeds.nodes)))
            op = rng.randrange(5)
            labels = node['metadata']['labels']
            if op == 0:
                labels['topology.kubernetes.io/zone'] = rng.choice(['zone-a', 'zone-b', 'zone-c', 'zone-d'])
                labels['example.com/cores'] = str(rng.choice([1, 4, 16]))
            elif op == 1:
                node['spec']['taints'] = rng.choice([[], [{'key': 'dedicated', 'value': 'web', 'effect': 'NoSchedule'}],
                                                     [{'key': 'nvidia.com/gpu', 'value': 'present',
                                                       'effect': 'NoSchedule'}]])
            elif op == 2:
                node['status']['allocatable']['cpu'] = rng.choice(['500m', '8', '64'])
                node['status']['allocatable']['memory'] = rng.choice(['1Gi', '64Gi', '512Gi'])
            elif op == 3:
                node['spec']['unschedulable'] = not node['spec'].get('unschedulable', False)
            else:
                labels.pop('kubernetes.io/hostname', None)
            hints.append(node)
        mt.desc.append('hints: %d node change(s)' % len(hints))
    # ... and a storage object added, changed or deleted (the volume plugins' events)
    if mode == 'hints' or rng.random() < 0.15:
        hints.append(storage_hint(rng, seeds))
        mt.desc.append('hints: storage %s' % short(hints[-1].get('kind') or hints[-1].get('type')))
    if hints:
        ctl['hints'] = hints
    if mode == 'hints' or rng.random() < 0.2:
        ctl['del'] = rng.randrange(60)
    if rng.random() < 0.15:
        ctl['bind'] = rng.randrange(60)
    if rng.random() < 0.1:
        ctl['views'] = True
    mt.ctl = dump(ctl)
    mt.commit = rng.random() < 0.5
    return mt


###############################################################################
# The helper function: one mutant per call
###############################################################################

DRIVE_SQL = r"""
CREATE SCHEMA IF NOT EXISTS fuzz;
CREATE OR REPLACE FUNCTION fuzz.err(res jsonb, step text, state text, msg text) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT res || jsonb_build_array(jsonb_build_array(step, state, left(msg, 400), length(msg))) $$;

CREATE OR REPLACE FUNCTION fuzz.drive(mode text, doc text, ctl_text text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
    d jsonb;
    ctl jsonb;
    res jsonb := '[]';
    o jsonb;
    r record;
    sets text;
    n bigint;
    cnt bigint;
    ns text;
    nm text;
BEGIN
    BEGIN
        ctl := ctl_text::jsonb;
        d := doc::jsonb;
    EXCEPTION WHEN OTHERS THEN
        RETURN fuzz.err(res, 'cast', SQLSTATE, SQLERRM)::text;
    END;
    ns := ctl->>'ns';
    nm := ctl->>'name';
    IF ctl ? 'sched' THEN
        PERFORM set_config('scheduler.scheduler_name', ctl->>'sched', true);
    END IF;

    -- profile rows: through the args check, or planted past it
    IF ctl ? 'profile' THEN
        BEGIN
            INSERT INTO scheduler.profiles VALUES (ctl->'profile'->>'name', NULL) ON CONFLICT DO NOTHING;
            DELETE FROM scheduler.profile_plugins WHERE scheduler_name = ctl->'profile'->>'name';
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'profile', SQLSTATE, SQLERRM);
        END;
        BEGIN
            UPDATE scheduler.profiles SET percentage_of_nodes_to_score = (ctl->'profile'->>'pct')::int
            WHERE scheduler_name = ctl->'profile'->>'name';
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'profile', SQLSTATE, SQLERRM);
        END;
        IF (ctl->'profile'->>'planted')::boolean THEN
            PERFORM set_config('session_replication_role', 'replica', true);
        END IF;
        FOR o IN SELECT value FROM jsonb_array_elements(ctl->'profile'->'rows') LOOP
            BEGIN
                INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, enabled, weight, args)
                VALUES (ctl->'profile'->>'name', o->>'plugin', (o->>'position')::int,
                        coalesce((o->>'enabled')::boolean, true), (o->>'weight')::int,
                        coalesce(o->'args', '{}'));
            EXCEPTION WHEN OTHERS THEN
                res := fuzz.err(res, 'profile', SQLSTATE, SQLERRM);
            END;
        END LOOP;
        PERFORM set_config('session_replication_role', 'origin', true);
    END IF;

    -- the mutant
    BEGIN
        IF mode = 'apply' THEN
            n := scheduler.apply(d);
        ELSIF mode = 'events' THEN
            n := scheduler.apply_events(ARRAY(SELECT jsonb_array_elements(d)));
        ELSIF mode = 'relist' THEN
            IF ctl ? 'keep' THEN
                n := scheduler.relist(d, ARRAY(SELECT jsonb_array_elements_text(ctl->'keep')));
            ELSE
                n := scheduler.relist(d);
            END IF;
        END IF;
    EXCEPTION WHEN OTHERS THEN
        res := fuzz.err(res, 'apply', SQLSTATE, SQLERRM);
    END;

    -- planted past apply()'s validation
    IF ctl ? 'plant' THEN
        BEGIN
            sets := NULL;
            FOR r IN SELECT p.key, p.value, format_type(a.atttypid, a.atttypmod) AS typ
                     FROM jsonb_each(ctl->'plant'->'set') p
                     JOIN pg_attribute a ON a.attrelid = ('scheduler.' || (ctl->'plant'->>'table'))::regclass
                                        AND a.attname = p.key
            LOOP
                sets := concat_ws(', ', sets, format('%I = %s', r.key,
                    CASE r.typ WHEN 'jsonb' THEN format('%L::jsonb', r.value)
                               WHEN 'text[]' THEN format('ARRAY(SELECT jsonb_array_elements_text(%L::jsonb))', r.value)
                               ELSE format('(%L::jsonb #>> ''{}'')::%s', r.value, r.typ) END));
            END LOOP;
            EXECUTE format('UPDATE scheduler.%I SET %s WHERE uid = $1', ctl->'plant'->>'table', sets)
                USING ctl->'plant'->>'key';
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'plant', SQLSTATE, SQLERRM);
        END;
    END IF;

    -- QueueingHints
    FOR o IN SELECT value FROM jsonb_array_elements(coalesce(ctl->'hints', '[]')) LOOP
        BEGIN
            PERFORM scheduler.apply(o);
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'hint', SQLSTATE, SQLERRM);
        END;
    END LOOP;
    IF ctl ? 'del' THEN
        BEGIN
            SELECT count(*) INTO cnt FROM scheduler.pods p WHERE coalesce(p.node_name, p.assumed_node) IS NOT NULL;
            SELECT p.object INTO o FROM scheduler.pods p WHERE coalesce(p.node_name, p.assumed_node) IS NOT NULL
            ORDER BY p.uid OFFSET (ctl->>'del')::int % greatest(cnt, 1) LIMIT 1;
            IF FOUND THEN
                IF jsonb_typeof(o) = 'object' AND NOT o ? 'kind' THEN
                    o := o || '{"kind": "Pod", "apiVersion": "v1"}';   -- stored from an API list
                END IF;
                PERFORM scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', o));
            END IF;
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'delete', SQLSTATE, SQLERRM);
        END;
    END IF;
    IF ctl ? 'bind' THEN
        BEGIN
            SELECT count(*) INTO cnt FROM scheduler.pods p WHERE p.assumed_node IS NOT NULL AND p.node_name IS NULL;
            SELECT jsonb_set(p.object, '{spec,nodeName}', to_jsonb(p.assumed_node)) INTO o
            FROM scheduler.pods p WHERE p.assumed_node IS NOT NULL AND p.node_name IS NULL
            ORDER BY p.uid OFFSET (ctl->>'bind')::int % greatest(cnt, 1) LIMIT 1;
            IF FOUND THEN
                IF jsonb_typeof(o) = 'object' AND NOT o ? 'kind' THEN
                    o := o || '{"kind": "Pod", "apiVersion": "v1"}';
                END IF;
                PERFORM scheduler.apply(jsonb_build_object('type', 'MODIFIED', 'object', o));
            END IF;
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'bind', SQLSTATE, SQLERRM);
        END;
    END IF;

    -- schedule, and explain the mutant's pod
    BEGIN
        SELECT count(*) INTO n FROM public.schedule_pending();
    EXCEPTION WHEN OTHERS THEN
        res := fuzz.err(res, 'schedule', SQLSTATE, SQLERRM);
    END;
    IF ns IS NOT NULL AND nm IS NOT NULL THEN
        BEGIN
            PERFORM count(*) FROM scheduler.filter(ns, nm);
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'filter', SQLSTATE, SQLERRM);
        END;
        BEGIN
            PERFORM count(*) FROM scheduler.score(ns, nm);
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'score', SQLSTATE, SQLERRM);
        END;
        BEGIN
            PERFORM count(*) FROM scheduler.score(ns, nm, false);
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'score_all', SQLSTATE, SQLERRM);
        END;
        BEGIN
            PERFORM count(*) FROM scheduler.why(ns, nm);
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'why', SQLSTATE, SQLERRM);
        END;
    END IF;
    IF ctl ? 'views' THEN
        BEGIN
            PERFORM sum(length(s::text)) FROM scheduler.snapshot() s;
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'snapshot', SQLSTATE, SQLERRM);
        END;
        BEGIN
            PERFORM sum(length(v::text)) FROM scheduler.pending_pods v;
            PERFORM sum(length(v::text)) FROM scheduler.node_usage v;
        EXCEPTION WHEN OTHERS THEN
            res := fuzz.err(res, 'views', SQLSTATE, SQLERRM);
        END;
    END IF;
    RETURN res::text;
END $f$;

CREATE OR REPLACE FUNCTION fuzz.reset(base text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    -- the scheduler's lock first, as every writer takes it: TRUNCATE locks its
    -- tables before its triggers take this one, which would deadlock with a
    -- schedule_pending() of the background worker
    LOCK TABLE scheduler.cycle_lock IN SHARE MODE;
    TRUNCATE scheduler.pods, scheduler.nodes, scheduler.namespaces, scheduler.pdbs, scheduler.workloads,
             scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
             scheduler.csi_nodes, scheduler.csi_drivers, scheduler.csi_storage_capacities,
             scheduler.volume_attachments,
             scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox, scheduler.watch_state;
    DELETE FROM scheduler.profiles WHERE scheduler_name <> 'default-scheduler';
    PERFORM scheduler.apply(base::jsonb);
    RETURN '[]';
EXCEPTION WHEN OTHERS THEN
    RETURN fuzz.err('[]', 'reset', SQLSTATE, SQLERRM)::text;
END $f$;
"""

###############################################################################
# The cluster and the connections
###############################################################################


def as_pg(cmd):
    if os.geteuid() == 0:
        return ['runuser', '-u', 'postgres', '--'] + cmd
    return cmd


class Cluster:
    def __init__(self, workdir, keep, lib=None):
        self.lib = lib
        self.own_dir = workdir is None
        self.dir = workdir or tempfile.mkdtemp(prefix='sqlfuzz.', dir='/tmp')
        os.makedirs(self.dir, exist_ok=True)
        self.keep = keep
        self.data = os.path.join(self.dir, 'data')
        self.sock = os.path.join(self.dir, 'sock')
        self.log = os.path.join(self.dir, 'server.log')
        self.started = False

    def run(self, cmd, **kw):
        return subprocess.run(as_pg(cmd), check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=self.dir, **kw)

    def start(self):
        if os.path.exists(self.data):
            shutil.rmtree(self.data)
        os.makedirs(self.sock, exist_ok=True)
        if os.geteuid() == 0:
            subprocess.run(['chown', '-R', 'postgres', self.dir], check=True)
        self.run([PGBIN + '/initdb', '-D', self.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8',
                  '--locale=C', '--no-sync'])
        with open(os.path.join(self.data, 'postgresql.conf'), 'a') as f:
            f.write("""
listen_addresses = ''
unix_socket_directories = '%s'
port = 5432
max_connections = 30
shared_preload_libraries = 'scheduler'
scheduler.database = 'postgres'
fsync = off
synchronous_commit = off
full_page_writes = off
restart_after_crash = on
log_line_prefix = '%%m [%%p] %%b: '
log_min_messages = warning
log_min_error_statement = panic
""" % self.sock)
            if self.lib:
                # a build of the library to load instead of the installed one
                # (test/lib.sh build_sanitized)
                f.write("dynamic_library_path = '%s:$libdir'\n" % os.path.abspath(self.lib))
        self.run([PGBIN + '/pg_ctl', '-D', self.data, '-l', self.log, '-w', '-t', '120', 'start'])
        self.started = True

    def psql(self, db, sql, timeout=None):
        return subprocess.run(as_pg([PGBIN + '/psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
                                     '-h', self.sock, '-U', 'postgres', '-d', db]),
                              input=sql.encode(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=self.dir, check=True, timeout=timeout).stdout.decode()

    def wait_ready(self, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            r = subprocess.run(as_pg([PGBIN + '/pg_isready', '-h', self.sock, '-U', 'postgres', '-d', 'postgres']),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                try:
                    self.psql('postgres', 'SELECT 1;')
                    return True
                except subprocess.CalledProcessError:
                    pass
            time.sleep(0.3)
        return False

    def stop(self):
        if self.started:
            r = subprocess.run(as_pg([PGBIN + '/pg_ctl', '-D', self.data, '-m', 'fast', '-w', '-t', '60', 'stop']),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.dir)
            if r.returncode != 0:
                subprocess.run(as_pg([PGBIN + '/pg_ctl', '-D', self.data, '-m', 'immediate', 'stop']),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.dir)
            self.started = False

    def cleanup(self, keep_evidence):
        self.stop()
        if self.keep:
            return
        if keep_evidence:
            shutil.rmtree(self.data, ignore_errors=True)
            shutil.rmtree(self.sock, ignore_errors=True)
        elif self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            for name in ('data', 'sock', 'server.log'):
                p = os.path.join(self.dir, name)
                if os.path.isdir(p):
                    shutil.rmtree(p, ignore_errors=True)
                elif os.path.exists(p):
                    os.unlink(p)


class Lost(Exception):
    pass


class Conn:
    """One psql reading SQL from stdin; one answer per mutant."""

    def __init__(self, cluster, db):
        self.cluster = cluster
        self.db = db
        self.proc = None
        self.buf = b''
        self.pid = None
        self.seq = 0

    def open(self):
        self.proc = subprocess.Popen(
            as_pg([PGBIN + '/psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=0',
                   '-h', self.cluster.sock, '-U', 'postgres', '-d', self.db]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=self.cluster.dir)
        self.buf = b''
        out = self.call("\\set VERBOSITY verbose\nSET client_min_messages = error;\n"
                        "SET statement_timeout = '%s';\nSELECT 'pid=' || pg_backend_pid();\n" % STATEMENT_TIMEOUT)
        for line in out:
            if line.startswith('pid='):
                self.pid = int(line[4:])
        if self.pid is None:
            raise Lost('no backend pid: %r' % out)

    def close(self):
        if self.proc:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def call(self, sql, timeout=READ_TIMEOUT):
        """Send sql, return the output lines up to its end marker."""
        self.seq += 1
        marker = '@@END %d' % self.seq
        data = (sql + '\n\\echo ' + marker + '\n').encode()
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise Lost('psql gone (write)')
        lines = []
        fd = self.proc.stdout.fileno()
        deadline = time.time() + timeout
        while True:
            while b'\n' in self.buf:
                line, self.buf = self.buf.split(b'\n', 1)
                text = line.decode('utf-8', 'replace')
                if text == marker:
                    return lines
                lines.append(text)
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError('no answer in %ds' % timeout)
            rd, _, _ = select.select([fd], [], [], min(left, 5))
            if rd:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise Lost('psql gone: ' + ' | '.join(lines[-5:]))
                self.buf += chunk


def lit(s):
    return "'" + s.replace("'", "''") + "'"


OBJ_PREFIX = re.compile(r'^(pod|node|namespace|poddisruptionbudget|service|replicationcontroller|replicaset|'
                        r'statefulset|persistentvolumeclaim|persistentvolume|storageclass|csinode|csidriver|'
                        r'csistoragecapacity|volumeattachment) [^:]*: ')


REASONS = re.compile(r'^(a NULL printed|message of \d+ characters|raw control character|names no object): ')


def norm_msg(msg):
    """The message with what varies from mutant to mutant taken out, for de-duplication:
    the object's name, quoted values, numbers, the field a NULL was printed for."""
    m = REASONS.sub('', msg)
    m = OBJ_PREFIX.sub('…: ', m)
    m = m.split('"', 1)[0]
    m = re.sub(r'\(null\)\.\S+', '(null).…', m)
    m = re.sub(r'\d+', 'N', m)
    m = re.sub(r', got an? \w+$', '', m)
    return m[:90]


EXPECTED = {
    'cast': lambda c: c.startswith('22') or c == '54001',
    'apply': lambda c: c.startswith('22') or c == '54001' or c == '38000',
    'plant': lambda c: c[:2] in ('22', '23', '54'),   # our own UPDATE: casts, constraints, index size
    'profile': lambda c: c[:2] in ('22', '23', '54'),
    'hint': lambda c: False,
    'delete': lambda c: c.startswith('22') or c == '54001',
    'bind': lambda c: c.startswith('22') or c == '54001',
    'schedule': lambda c: False,
    'filter': lambda c: c.startswith('22') or c in ('42704', '38000', '54001'),
    'score': lambda c: c.startswith('22') or c in ('42704', '38000', '54001'),
    'score_all': lambda c: c.startswith('22') or c in ('42704', '38000', '54001'),
    'why': lambda c: c.startswith('22') or c in ('42704', '38000', '54001'),
    'snapshot': lambda c: c.startswith('22'),
    'views': lambda c: c.startswith('22'),
    'reset': lambda c: False,
}


# What an apply() error begins with: the object (kind namespace/name), the
# list or the event it came in, so that it names the object and the field
APPLY_PREFIX = re.compile(r'(pod|node|namespace|poddisruptionbudget|service|replicationcontroller|replicaset|'
                          r'statefulset|persistentvolumeclaim|persistentvolume|storageclass|csinode|csidriver|'
                          r'csistoragecapacity|volumeattachment|list|[A-Za-z]*List|watch event|watch ERROR event|document)\b|'
                          r'unsupported kind|scheduler\.relist ')
CONTROL = re.compile(r'[\x00-\x08\x0b-\x1f\x7f]')


HARNESS_MSG = re.compile(r'invalid input syntax for type|new row for relation|duplicate key value|'
                         r'null value in column|insert or update on table|value "|'
                         r'index row (size|requires)|cannot extract elements|malformed array literal')


def printable(text):
    """text with control characters escaped, for the terminal."""
    return CONTROL.sub(lambda m: '\\x%02x' % ord(m.group()), text.replace('\r', '\\r').replace('\n', '\\n'))


def unclear(step, msg, length, code):
    """Why an expected error's message is unclear, or None."""
    if step in ('plant', 'profile', 'cast') and HARNESS_MSG.match(msg):
        return None    # the harness's own casts and constraints, not the extension's message
    if '(null)' in msg:
        return 'a NULL printed'
    if length > 2000:
        return 'message of %d characters' % length
    if CONTROL.search(msg) and code != '42704':    # not found: the caller's own name echoed
        return 'raw control character'
    if step == 'apply' and code != '54001' and not APPLY_PREFIX.match(msg):
        return 'names no object'
    return None


class Fuzz:
    def __init__(self, args):
        self.args = args
        self.seeds = Seeds()
        self.lock = threading.Lock()
        self.findings = {}      # key -> [count, example]
        self.stats = {}
        self.done = 0
        self.crashes = 0
        self.stop = False
        self.slow = []          # the slowest mutants: (seconds, k, mode, SQL size, mutation)

    def finding(self, step, code, msg, mt, extra=''):
        reason = REASONS.match(msg) if step.startswith('unclear') else None
        key = (step, code, (re.sub(r'\d+', 'N', reason.group(1)) + ': ' if reason else '') + norm_msg(msg))
        with self.lock:
            f = self.findings.get(key)
            if f is None:
                ex = {'step': step, 'sqlstate': code, 'message': msg[:400], 'k': mt.k if mt else None,
                      'mode': mt.mode if mt else None, 'kind': mt.kind if mt else None,
                      'mutation': '; '.join(mt.desc)[:600] if mt else extra, 'commit': mt.commit if mt else None}
                self.findings[key] = [1, ex]
                print(printable('FINDING %s %s %s (mutant %s: %s)' % (step, code, msg[:200], ex['k'],
                                                                     ex['mutation'][:300])), flush=True)
            else:
                f[0] += 1

    def timed(self, secs, mt, size):
        with self.lock:
            self.slow.append((secs, mt.k, mt.mode, size, '; '.join(mt.desc)[:200]))
            if len(self.slow) > 50:
                self.slow.sort(reverse=True)
                del self.slow[5:]

    def count(self, key):
        with self.lock:
            self.stats[key] = self.stats.get(key, 0) + 1

    def save(self, name, mt, note):
        path = os.path.join(self.cluster.dir, name)
        with open(path, 'w') as f:
            json.dump({'seed': self.args.seed, 'k': mt.k, 'mode': mt.mode, 'commit': mt.commit, 'note': note,
                       'mutation': mt.desc, 'ctl': mt.ctl[:2_000_000], 'doc': mt.doc[:5_000_000]}, f)
        return path

    def classify(self, mt, lines, planted_profile):
        target = mt.target
        for line in lines:
            if line.startswith('['):
                try:
                    res = json.loads(line)
                except ValueError:
                    self.finding('parse', '?', line[:200], mt)
                    continue
                steps = {r[0] for r in res}
                self.count(('apply', 'ok' if 'apply' not in steps and 'cast' not in steps else 'error'))
                for step, code, msg, length in res:
                    self.count((step, code))
                    if VERBOSE:
                        print('  mutant %d %s %s %s' % (mt.k, step, code, msg[:300]), flush=True)
                    ok = EXPECTED.get(step, lambda c: False)(code)
                    if step == 'schedule' and planted_profile and code.startswith('22'):
                        ok = True
                    # a row planted past validation may be refused as corrupt
                    # (XX001), by the calls about that very pod only
                    if (step in ('filter', 'score', 'score_all', 'why') and code == 'XX001'
                            and msg.startswith('pod %s/%s: ' % (target[0], target[1]))):
                        ok = True
                    if not ok:
                        self.finding(step, code, msg, mt)
                    else:
                        why = unclear(step, msg, length, code)
                        if why:
                            self.finding('unclear ' + step, code, '%s: %s' % (why, msg), mt)
            elif line.startswith('ERROR:'):
                m = re.match(r'ERROR:\s+([0-9A-Z]{5}): (.*)', line)
                code, msg = (m.group(1), m.group(2)) if m else ('?', line)
                self.finding('tx', code, msg, mt)
            elif line.startswith(('FATAL:', 'PANIC:', 'server closed', 'connection to server')):
                self.finding('tx', 'conn', line, mt)

    def worker(self, wid, db, ks):
        conn = Conn(self.cluster, db)
        try:
            conn.open()
            self.reset(conn, None)
            for i, k in enumerate(ks):
                if self.stop:
                    break
                if i and i % RESET_EVERY == 0:
                    self.reset(conn, None)
                try:
                    mt = make_mutant(self.seeds, self.args.seed, k)
                except Exception as e:  # noqa: BLE001 -- the fuzzer's own bug: report, go on
                    self.finding('fuzzer', type(e).__name__, '%s (mutant %d: %s)'
                                 % (e, k, traceback.format_exc().strip().splitlines()[-3].strip()), None, 'generator')
                    continue
                if self.args.only is not None:
                    print('mutant %d: mode %s, %s, %s\n  %s\n  doc: %s\n  ctl: %s\n  whole mutant: %s'
                          % (k, mt.mode, mt.kind, 'commit' if mt.commit else 'rollback',
                             '\n  '.join(mt.desc), mt.doc[:3000], mt.ctl[:3000],
                             self.save('mutant-%d.json' % k, mt, 'replay')), flush=True)
                sql = 'BEGIN;\nSELECT fuzz.drive(%s, %s, %s);\n%s;' % (
                    lit(mt.mode), lit(mt.doc), lit(mt.ctl), 'COMMIT' if mt.commit else 'ROLLBACK')
                try:
                    t = time.time()
                    lines = conn.call(sql)
                    self.timed(time.time() - t, mt, len(sql))
                    if self.args.only is not None:
                        print('  result: %s' % '\n  '.join(lines), flush=True)
                    self.classify(mt, lines, '"planted":true' in mt.ctl)
                except Lost as e:
                    self.lost(conn, mt, str(e))
                    conn = Conn(self.cluster, db)
                    conn.open()
                except TimeoutError as e:
                    self.save('hang-%d.json' % mt.k, mt, str(e))
                    if self.terminate(conn):
                        self.finding('hang', 'timeout', '%s; the backend ended on pg_terminate_backend()' % e, mt)
                    else:
                        self.finding('hang', 'unkillable', '%s, past statement_timeout; the backend ignores '
                                     'pg_terminate_backend() (a loop that never checks for interrupts, '
                                     'or a fault handler that keeps returning): server restarted' % e, mt)
                        self.restart()
                    conn = Conn(self.cluster, db)
                    conn.open()
                with self.lock:
                    self.done += 1
        except Exception as e:  # noqa: BLE001 -- a broken connection must not hang the run
            self.finding('fuzzer', type(e).__name__, str(e)[:300], None, 'worker %d' % wid)
        finally:
            conn.close()

    def reset(self, conn, mt):
        lines = conn.call('SELECT fuzz.reset(%s);' % lit(self.seeds.base_doc))
        for line in lines:
            if line != '[]':
                self.finding('reset', '?', line[:300], mt, 'reset')

    def terminate(self, conn):
        """End a hung backend; False when it is still there 10 s later."""
        gone = False
        try:
            self.cluster.psql('postgres', 'SELECT pg_terminate_backend(%d);' % conn.pid, timeout=30)
            for _ in range(20):
                time.sleep(0.5)
                out = self.cluster.psql('postgres', 'SELECT count(*) FROM pg_stat_activity WHERE pid = %d;'
                                        % conn.pid, timeout=30)
                if out.strip() == '0':
                    gone = True
                    break
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
            pass
        if conn.proc:
            conn.proc.kill()
            conn.proc.wait()
            conn.proc = None
        return gone

    def restart(self):
        """Stop the server at once (its hung backend with it) and start it again."""
        with self.lock:
            subprocess.run(as_pg([PGBIN + '/pg_ctl', '-D', self.cluster.data, '-m', 'immediate', '-w', 'stop']),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.cluster.dir)
            self.cluster.run([PGBIN + '/pg_ctl', '-D', self.cluster.data, '-l', self.cluster.log, '-w', '-t', '120',
                              'start'])

    def lost(self, conn, mt, why):
        """The connection died: a crash (ours, or another process's)."""
        conn.close()
        time.sleep(0.5)
        ok = self.cluster.wait_ready()
        sig = None
        try:
            with open(self.cluster.log, errors='replace') as f:
                for line in f:
                    if '(PID %d)' % conn.pid in line and 'terminated by signal' in line:
                        sig = line.strip()
        except OSError:
            pass
        with self.lock:
            self.crashes += 1
            n = self.crashes
        if sig:
            path = self.save('crash-%d.json' % mt.k, mt, sig)
            self.finding('crash', 'signal', re.sub(r'.*?(terminated by signal)', r'server process \1', sig), mt)
            print('  crash mutant saved to %s' % path, flush=True)
        else:
            self.save('lost-%d.json' % mt.k, mt, why)
        if not ok:
            self.stop = True
            self.finding('server', 'down', 'server did not come back after a lost connection', mt)

    def scan_log(self):
        bad = 0
        try:
            with open(self.cluster.log, errors='replace') as f:
                lines = f.readlines()
        except OSError:
            return 0
        for line in lines:
            if CRASH_RE.search(line):
                bad += 1
                msg = re.sub(r'^\S+ \S+ \S+ \[\d+\] ', '', line.strip())
                msg = re.sub(r'PID \d+', 'PID N', msg)
                self.finding('log', 'crash-sign', msg, None, 'server log')
            elif 'scheduler worker:' in line and 'ERROR:' in line:
                msg = re.sub(r'^\S+ \S+ \S+ \[\d+\] ', '', line.strip())
                self.finding('bgworker', 'ERROR', msg, None, 'server log')
        return bad

    def run(self):
        a = self.args
        self.cluster = Cluster(a.workdir, a.keep, a.lib)
        if a.only is not None:
            print('sqlfuzz: seed %s, mutant(s) %s alone, work dir %s' % (a.seed, a.only_text, self.cluster.dir),
                  flush=True)
        else:
            print('sqlfuzz: seed %s, %d mutants, %d workers, work dir %s' % (a.seed, a.mutants, a.workers,
                                                                            self.cluster.dir), flush=True)
            print('sqlfuzz: replay with: %s --seed %s --mutants %d --workers %d'
                  % (sys.argv[0], a.seed, a.mutants, a.workers), flush=True)
        huge_strings()
        t_setup = time.time()
        try:
            self.cluster.start()
            dbs = ['postgres'] + ['fuzz%d' % i for i in range(1, a.workers)]
            for db in dbs[1:]:
                self.cluster.psql('postgres', 'CREATE DATABASE %s;' % db)
            for db in dbs:
                self.cluster.psql(db, 'CREATE EXTENSION scheduler;\n' + DRIVE_SQL)
            if a.only is not None:
                ks = [a.only]
                dbs = dbs[:1]
            else:
                ks = [list(range(w, a.mutants, a.workers)) for w in range(a.workers)]
            t0 = time.time()
            print('sqlfuzz: cluster ready in %.1fs' % (t0 - t_setup), flush=True)
            threads = [threading.Thread(target=self.worker, args=(w, dbs[w], ks[w]), daemon=True)
                       for w in range(len(dbs))]
            for t in threads:
                t.start()
            last = t0
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(timeout=1)
                if time.time() - last >= 15:
                    last = time.time()
                    print('  ... %d mutants, %.0f/s, %d findings' % (self.done, self.done / (last - t0),
                                                                    len(self.findings)), flush=True)
            elapsed = time.time() - t0
            time.sleep(1.5)   # let the worker finish what the last commits woke it for
            self.cluster.stop()
            self.scan_log()
        except KeyboardInterrupt:
            self.stop = True
            elapsed = time.time() - t_setup
            print('interrupted', flush=True)
        except subprocess.CalledProcessError as e:
            elapsed = time.time() - t_setup
            self.finding('setup', str(e.returncode), (e.stdout or b'').decode(errors='replace')[-500:], None,
                         'setup')
        finally:
            self.report(elapsed if 'elapsed' in locals() else 0.0)
            self.cluster.cleanup(keep_evidence=bool(self.findings))
        return 1 if self.findings else 0

    def report(self, elapsed):
        st = self.stats
        applied_ok = st.get(('apply', 'ok'), 0)
        applied_err = st.get(('apply', 'error'), 0)
        print('sqlfuzz: %d mutants in %.1fs (%.0f/s); accepted %d, refused %d, lost connections %d'
              % (self.done, elapsed, self.done / elapsed if elapsed else 0, applied_ok, applied_err, self.crashes))
        codes = sorted((k, v) for k, v in st.items() if k[0] != 'apply' or k[1] not in ('ok', 'error'))
        if codes:
            print('  outcomes by step: ' + ', '.join('%s %s: %d' % (k[0], k[1], v) for k, v in codes))
        self.slow.sort(reverse=True)
        for secs, k, mode, size, desc in self.slow[:3]:
            print(printable('  slowest: mutant %d, %.2fs (%s, %d bytes): %s' % (k, secs, mode, size, desc)))
        if self.findings:
            print('FINDINGS (step, SQLSTATE, count, message; example mutant):')
            for (step, code, _), (cnt, ex) in sorted(self.findings.items(), key=lambda kv: -kv[1][0]):
                print(printable('  [%s] %s x%d: %s' % (step, code, cnt, ex['message'][:300])))
                if ex['k'] is not None:
                    print(printable('      mutant %s (%s %s, %s): %s' % (ex['k'], ex['mode'], ex['kind'],
                                                                        'commit' if ex['commit'] else 'rollback',
                                                                        ex['mutation'][:400])))
            try:
                with open(os.path.join(self.cluster.dir, 'findings.json'), 'w') as f:
                    json.dump([dict(ex, count=cnt) for cnt, ex in self.findings.values()], f, indent=1)
                print('  details in %s (kept)' % self.cluster.dir)
            except OSError:
                pass
        print('sqlfuzz: %d mutants, %d findings' % (self.done, len(self.findings)), flush=True)


def parse_only(ap, text):
    """--only's list: K, A-B (every mutant from A to B) or A-B/STEP, comma-separated"""
    ks = []
    for item in text.split(','):
        m = re.fullmatch(r'\s*(\d+)(?:-(\d+)(?:/(\d+))?)?\s*', item)
        if m is None or (m.group(3) is not None and int(m.group(3)) == 0):
            ap.error('--only: %r is not K, A-B or A-B/STEP' % item)
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        ks.extend(range(a, b + 1, int(m.group(3) or 1)))
    return ks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--mutants', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--workdir', default=None)
    ap.add_argument('--keep', action='store_true', help='leave the cluster folder (server stopped)')
    ap.add_argument('--workers', type=int, default=2, help='connections, each in its own database')
    ap.add_argument('--only', default=None, metavar='K[,K...]',
                    help='run mutant K alone and print it; several (K, A-B, A-B/STEP), in that order, '
                    'run in one connection, as a worker of the full run would (to find which earlier mutants '
                    'a finding needs)')
    ap.add_argument('--lib', default=None,
                    help='a folder with a scheduler.so to load instead of the installed one (the sanitized build)')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), 'big')
    args.workers = max(1, args.workers)
    args.only_text = args.only
    if args.only is not None:
        args.only = parse_only(ap, args.only)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    sys.exit(Fuzz(args).run())


if __name__ == '__main__':
    main()
