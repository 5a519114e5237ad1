-- A pod's effective request (scheduler.pods.requests) and its non-zero cpu and
-- memory for scoring (nonzero_cpu, nonzero_memory), checked against cases
-- ported from Kubernetes' own tests of this arithmetic.  Sources (kubernetes/kubernetes,
-- at the commits the index had stored; not necessarily the newest):
--
--   [ch]  staging/src/k8s.io/component-helpers/resource/helpers_test.go
--         @ 0085214e563468088672cf8c50849884198a18cc
--         (TestPodRequestsAndLimits, TestPodRequestsAndLimitsWithoutOverhead,
--          TestPodResourceRequests, TestPodLevelResourceRequests,
--          TestAggregateContainerRequestsAndLimits)
--   [old] pkg/api/v1/resource/helpers_test.go
--         @ 07a94070e51e7e71c4539f987a4b671f9dd6ae07
--         (the older home of the same tests: its TestPodResourceRequests has the
--          restartable-init cases as "sidecar (enabled)", "multiple sidecars",
--          "multiple sidecars and non-sidecars", "sidecar, init and regular",
--          with the same numbers; they are not repeated here)
--   [ni]  pkg/scheduler/framework/types_test.go
--         @ 00fdf757a8e89fb0c7ccad10419ef33a1fa1b1ab
--         (TestPodInfoCalculateResources; TestNodeInfoAddPod, whose expected
--          NodeInfo pins each pod's cachedResource: Resource and Non0CPU/Non0Mem)
--   [ra]  pkg/scheduler/framework/plugins/noderesources/resource_allocation_test.go
--         @ 0132f9167943dc1362a3f7aeb4bfb6beba5bd329
--         (TestResourceAllocationScorerCalculateRequests: non-zero cpu/memory only)
--   [nz]  pkg/scheduler/util/pod_resources_test.go
--         @ a0d8ee7954d1fed4d0c70f18356e588e3147f4d6
--         (TestGetNonZeroRequest on one container's requests)
--   [fit] pkg/scheduler/framework/plugins/noderesources/fit_test.go
--         @ 24fbb13eafec665e6f4b64961930774babd8b6d1
--         (TestEnoughRequests: InsufficientResource.Requested pins the pod's
--          request for the insufficient resources only)
--   [def] pkg/apis/core/v1/defaults_test.go
--         @ b0d609f08083d7a8aa3426540d6d5f9090944906
--         (TestSetDefaultRequestsPod: a limit without a request becomes the request)
--
-- Units: cpu in millicores ("1" -> 1000, "100m" -> 100, MilliCPU: 3 -> 3),
-- memory, hugepages-* and ephemeral-storage in bytes ("1Gi" -> 1073741824,
-- "5" -> 5), other resources as counts.  The non-zero defaults are 100 (100m)
-- and 209715200 (200Mi).
--
-- In the final query, compare says how requests is checked:
--   '='   the Go test pins the whole request (every resource the pod names);
--   '@>'  the Go test pins only some resources (fit_test's Requested values),
--         so the expected map must be contained in the computed one;
--   NULL  the Go test asserts no plain request (the scorer and util tests
--         assert only the non-zero cpu/memory).
-- expected_nonzero_* are NULL where the Go test asserts no non-zero value.
--
-- The in-place resize cases (status resources, allocatedResources, the
-- PodResizePending condition) are read as the scheduler reads them
-- (UseStatusResources: InPlacePodVerticalScaling is on by default since
-- 1.33), from container statuses: pod-level status resources
-- (InPlacePodLevelResourcesVerticalScaling, alpha) are not.
--
-- Left out: DRA node-allocatable claims, limits, ExcludeOverhead (this extension always adds spec.overhead),
-- SkipPodLevelResources/NonMissingContainerRequests options with values other
-- than the scheduler's, the SidecarContainers-disabled cases, and the
-- limits-only cases of TestPodRequestsAndLimits ("just-limit-no-overhead") and
-- TestAggregateContainerRequestsAndLimits ("one container with limits"): those
-- call PodRequests on a pod the API server never defaulted and expect {},
-- whereas this extension reads pods as stored, with requests defaulted from
-- limits (covered by TestSetDefaultRequestsPod below).
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;

---------------------------------------------------------------------------
-- [ch] component-helpers resource.PodRequests
---------------------------------------------------------------------------

-- TestPodRequestsAndLimits: "just-overhead"
-- (getPod puts the same resources on container "foo" and init container "init-foo")
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-just-overhead","namespace":"rq"},"spec":{"containers":[{"name":"foo","resources":{"requests":{},"limits":{}}}],"initContainers":[{"name":"init-foo","resources":{"requests":{},"limits":{}}}],"overhead":{"cpu":"5","memory":"5"}}}');

-- TestPodRequestsAndLimits: "req-and-overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-req-and-overhead","namespace":"rq"},"spec":{"containers":[{"name":"foo","resources":{"requests":{"cpu":"1","memory":"10"}}}],"initContainers":[{"name":"init-foo","resources":{"requests":{"cpu":"1","memory":"10"}}}],"overhead":{"cpu":"5","memory":"5"}}}');

-- TestPodRequestsAndLimits: "all-req-lim-and-overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-all-req-lim-and-overhead","namespace":"rq"},"spec":{"containers":[{"name":"foo","resources":{"requests":{"cpu":"1","memory":"10"},"limits":{"cpu":"2","memory":"12"}}}],"initContainers":[{"name":"init-foo","resources":{"requests":{"cpu":"1","memory":"10"},"limits":{"cpu":"2","memory":"12"}}}],"overhead":{"cpu":"5","memory":"5"}}}');

-- TestPodRequestsAndLimits: "req-some-lim-and-overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-req-some-lim-and-overhead","namespace":"rq"},"spec":{"containers":[{"name":"foo","resources":{"requests":{"cpu":"1","memory":"10"},"limits":{"cpu":"2"}}}],"initContainers":[{"name":"init-foo","resources":{"requests":{"cpu":"1","memory":"10"},"limits":{"cpu":"2"}}}],"overhead":{"cpu":"5","memory":"5"}}}');

-- TestPodRequestsAndLimitsWithoutOverhead: "two container no overhead - should just be sum of containers"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-two-containers-no-overhead","namespace":"rq"},"spec":{"containers":[{"name":"foobar","resources":{"requests":{"cpu":"1","memory":"5"},"limits":{"cpu":"2","memory":"10"}}},{"name":"foobar2","resources":{"requests":{"cpu":"4","memory":"12"},"limits":{"cpu":"8","memory":"24"}}}]}}');

-- TestPodResourceRequests: "nil options, larger init container"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-larger-init-container","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"4"}}}]}}');

-- TestPodResourceRequests: "nil options, larger containers"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-larger-containers","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"2"}}},{"name":"c2","resources":{"requests":{"cpu":"3"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "pod overhead included"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-pod-overhead-included","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"2"}}},{"name":"c2","resources":{"requests":{"cpu":"3"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}],"overhead":{"cpu":"1","memory":"1Gi"}}}');

-- TestPodResourceRequests: "restartable init container"
-- ([old] "sidecar (enabled)")
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-restartable-init","namespace":"rq"},"spec":{"containers":[{"name":"container-1","resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"1"}}}]}}');

-- TestPodResourceRequests: "multiple restartable init containers"
-- ([old] "multiple sidecars"; max(5, restartable init containers(3+2+1) + regular(1)) = 7)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-multiple-restartable-init","namespace":"rq"},"spec":{"containers":[{"name":"container-1","resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"name":"init-1","resources":{"requests":{"cpu":"5"}}},{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"1"}}},{"name":"restartable-init-2","restartPolicy":"Always","resources":{"requests":{"cpu":"2"}}},{"name":"restartable-init-3","restartPolicy":"Always","resources":{"requests":{"cpu":"3"}}}]}}');

-- TestPodResourceRequests: "multiple restartable and regular init containers"
-- ([old] "multiple sidecars and non-sidecars"; init-2 needs 5 + the restartable
-- init containers started before it (1+2) = 8; the one after it does not count)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-restartable-and-regular-init","namespace":"rq"},"spec":{"containers":[{"name":"container-1","resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"name":"init-1","resources":{"requests":{"cpu":"5"}}},{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"1"}}},{"name":"restartable-init-2","restartPolicy":"Always","resources":{"requests":{"cpu":"2"}}},{"name":"init-2","resources":{"requests":{"cpu":"5"}}},{"name":"restartable-init-3","restartPolicy":"Always","resources":{"requests":{"cpu":"3"}}}]}}');

-- TestPodResourceRequests: "restartable-init, init and regular"
-- ([old] "sidecar, init and regular")
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-restartable-init-init-regular","namespace":"rq"},"spec":{"containers":[{"name":"container-1","resources":{"requests":{"cpu":"100"}}}],"initContainers":[{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"10"}}},{"name":"init-1","resources":{"requests":{"cpu":"200"}}}]}}');

-- TestPodLevelResourceRequests: "container-level resources and init container set with SkipPodLevelResources false"
-- (the Go pod has an empty, non-nil spec.resources; no pod-level values are set)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-init-container","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"memory":"5Mi","cpu":"4m"}}}]}}');

-- TestPodLevelResourceRequests: "container-level resources and sidecar container set with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-sidecar","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}],"initContainers":[{"name":"i1","restartPolicy":"Always","resources":{"requests":{"memory":"5Mi","cpu":"4m"}}}]}}');

-- TestPodLevelResourceRequests: "container-level resources, init and sidecar container set with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-init-and-sidecar","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}],"initContainers":[{"name":"i1","restartPolicy":"Always","resources":{"requests":{"memory":"5Mi","cpu":"4m"}}},{"name":"i2","resources":{"requests":{"memory":"6Mi","cpu":"8m"}}}]}}');

-- TestPodResourceRequests (UseStatusResources, as the scheduler reads a pod
-- on a node: in-place resize; so these pods are on n-rq): "resized, infeasible"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-infeasible","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"container-1","resources":{"requests":{"cpu":"4"}}}]},"status":{"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}],"containerStatuses":[{"name":"container-1","resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "resized, infeasible & in-progress"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-infeasible-in-progress","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"container-1","resources":{"requests":{"cpu":"6"}}}]},"status":{"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}],"containerStatuses":[{"name":"container-1","allocatedResources":{"cpu":"4"},"resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "resized, no resize status"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-no-resize-status","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"container-1","resources":{"requests":{"cpu":"4"}}}]},"status":{"containerStatuses":[{"name":"container-1","resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "resized: per-resource 3-way maximum"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-3-way-max","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"container-1","resources":{"requests":{"cpu":"30m","memory":"20M","ephemeral-storage":"10G"}}}]},"status":{"containerStatuses":[{"name":"container-1","allocatedResources":{"cpu":"20m","memory":"10M","ephemeral-storage":"30G"},"resources":{"requests":{"cpu":"10m","memory":"30M","ephemeral-storage":"20G"}}}]}}');

-- TestPodResourceRequests: "resized, restartable init container, infeasible"
-- (the Go pod has no regular container; one without requests is added, as
-- the API server requires one: it adds nothing to the request)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-sidecar-infeasible","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"c"}],"initContainers":[{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"4"}}}]},"status":{"conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}],"initContainerStatuses":[{"name":"restartable-init-1","resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "resized, restartable init container, no resize status"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-sidecar-no-resize-status","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"c"}],"initContainers":[{"name":"restartable-init-1","restartPolicy":"Always","resources":{"requests":{"cpu":"4"}}}]},"status":{"initContainerStatuses":[{"name":"restartable-init-1","resources":{"requests":{"cpu":"2"}}}]}}');

-- TestPodResourceRequests: "aggregate request resolves max of sums instead of sum of maxes"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-rs-max-of-sums","namespace":"rq"},"spec":{"nodeName":"n-rq","containers":[{"name":"c1","resources":{"requests":{"cpu":"1"}}},{"name":"c2","resources":{"requests":{"cpu":"2"}}}]},"status":{"containerStatuses":[{"name":"c1","allocatedResources":{"cpu":"2"}},{"name":"c2","allocatedResources":{"cpu":"1"}}]}}');

-- Pod-level resources (spec.resources): TestPodLevelResourceRequests @
-- 0085214e; types_test.go @ 00fdf757 (TestPodInfoCalculateResources,
-- TestCalculatePodResourcesWithResize: NodeInfo's values, so those pods
-- are on a node, n-rq); fit_test.go's pod-level TestEnoughRequests cases
-- from a later version than the header's (the index did not give its
-- commit).  Left out: "storage" at pod level (the API server refuses it),
-- a pod-level hugepages request without a limit, and the SkipPodLevelResources
-- and DRA cases.
---------------------------------------------------------------------------
-- [ch] TestPodLevelResourceRequests (SkipPodLevelResources false)
---------------------------------------------------------------------------

-- TestPodLevelResourceRequests: "nil"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-nil","namespace":"rq"},"spec":{"resources":{},"containers":[{"name":"c"}]}}');

-- TestPodLevelResourceRequests: "pod level memory resource with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-pod-memory","namespace":"rq"},"spec":{"resources":{"requests":{"memory":"2Mi"}},"containers":[{"name":"c"}]}}');

-- TestPodLevelResourceRequests: "pod level memory and container level cpu resources with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-pod-mem-ctr-cpu","namespace":"rq"},"spec":{"resources":{"requests":{"memory":"2Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"2m"}}}]}}');

-- TestPodLevelResourceRequests: "only container level resources set with SkipPodLevelResources false"
-- (the Go pod has an empty, non-nil spec.resources)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-container-only","namespace":"rq"},"spec":{"resources":{},"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}]}}');

-- TestPodLevelResourceRequests: "both container-level and pod-level resources set with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-both","namespace":"rq"},"spec":{"resources":{"requests":{"memory":"6Mi","cpu":"8m"}},"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, container-level resources, init and sidecar container set with SkipPodLevelResources false"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-pod-init-sidecar","namespace":"rq"},"spec":{"resources":{"requests":{"memory":"15Mi","cpu":"18m"}},"containers":[{"name":"c1","resources":{"requests":{"memory":"3Mi","cpu":"2m"}}}],"initContainers":[{"name":"i1","restartPolicy":"Always","resources":{"requests":{"memory":"5Mi","cpu":"4m"}}},{"name":"i2","resources":{"requests":{"memory":"6Mi","cpu":"8m"}}}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, hugepage request/limit single page size"
-- (defaulting: pod-level limits are set, but no container requests cpu or
-- memory and no cpu/memory limit is set, so the stored requests are as given)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-hp-single","namespace":"rq"},"spec":{"resources":{"limits":{"hugepages-2Mi":"2Mi"},"requests":{"memory":"10Mi","hugepages-2Mi":"2Mi"}},"containers":[{"name":"c"}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, hugepage request/limit multiple page sizes"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-hp-multi","namespace":"rq"},"spec":{"resources":{"limits":{"hugepages-2Mi":"2Mi","hugepages-1Gi":"1Gi"},"requests":{"cpu":"1","hugepages-2Mi":"2Mi","hugepages-1Gi":"1Gi"}},"containers":[{"name":"c"}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, container-level resources, hugepage request/limit single page size"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-ctr-hp-single","namespace":"rq"},"spec":{"resources":{"limits":{"hugepages-2Mi":"10Mi"},"requests":{"cpu":"1","hugepages-2Mi":"10Mi"}},"containers":[{"name":"c1","resources":{"limits":{"hugepages-2Mi":"6Mi"},"requests":{"hugepages-2Mi":"6Mi"}}}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, container-level resources, hugepage request/limit multiple page sizes"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-ctr-hp-multi","namespace":"rq"},"spec":{"resources":{"limits":{"hugepages-2Mi":"10Mi","hugepages-1Gi":"2Gi"},"requests":{"cpu":"1","hugepages-2Mi":"10Mi","hugepages-1Gi":"2Gi"}},"containers":[{"name":"c1","resources":{"limits":{"hugepages-1Gi":"2Gi"},"requests":{"cpu":"1","hugepages-1Gi":"2Gi"}}}]}}');

-- TestPodLevelResourceRequests: "pod-level resources, container-level resources, hugepage request/limit multiple page sizes between pod-level and container-level"
-- (as stored: defaultHugePagePodLimits adds pod limit hugepages-1Gi 1Gi, and
-- defaultPodRequests then pod requests memory 4Mi (the containers') and
-- hugepages-1Gi 1Gi (that limit): the same values the Go test expects from
-- the containers)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-ctr-hp-split","namespace":"rq"},"spec":{"resources":{"limits":{"hugepages-2Mi":"10Mi"},"requests":{"cpu":"1","hugepages-2Mi":"10Mi"}},"containers":[{"name":"c1","resources":{"limits":{"hugepages-1Gi":"1Gi"},"requests":{"memory":"4Mi","hugepages-1Gi":"1Gi"}}}]}}');

-- The next five run with UseStatusResources and
-- InPlacePodLevelResourcesVerticalScalingEnabled (an alpha gate, off by
-- default, so not the scheduler's default options).  With the gate off,
-- PodRequests ignores status.resources/status.allocatedResources and gives
-- spec.resources.requests + overhead = 1100m / 110Mi, which is what each
-- case expects, so the numbers hold under either reading.

-- TestPodLevelResourceRequests: "status resources include overhead for all pod-level resources"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-st-all","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"containers":[{"name":"c"}],"overhead":{"cpu":"100m","memory":"10Mi"}},"status":{"resources":{"requests":{"cpu":"1100m","memory":"110Mi"}},"allocatedResources":{"cpu":"1100m","memory":"110Mi"}}}');

-- TestPodLevelResourceRequests: "status resources include overhead for only one pod-level resource"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-st-one","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"containers":[{"name":"c"}],"overhead":{"cpu":"100m","memory":"10Mi"}},"status":{"resources":{"requests":{"cpu":"1100m"}},"allocatedResources":{"cpu":"1100m"}}}');

-- TestPodLevelResourceRequests: "status resources without overhead still receive overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-st-no-overhead","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"containers":[{"name":"c"}],"overhead":{"cpu":"100m","memory":"10Mi"}},"status":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"allocatedResources":{"cpu":"1","memory":"100Mi"}}}');

-- TestPodLevelResourceRequests: "allocated resources include overhead when status requests do not"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-alloc-overhead","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"containers":[{"name":"c"}],"overhead":{"cpu":"100m","memory":"10Mi"}},"status":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"allocatedResources":{"cpu":"1100m","memory":"110Mi"}}}');

-- TestPodLevelResourceRequests: "allocated resources include stale overhead during resize"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-plr-alloc-stale","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"containers":[{"name":"c"}],"overhead":{"cpu":"100m","memory":"10Mi"}},"status":{"resources":{"requests":{"cpu":"1","memory":"100Mi"}},"allocatedResources":{"cpu":"1050m","memory":"105Mi"}}}');

---------------------------------------------------------------------------
-- [ni] PodInfo.CalculateResource with pod-level requests (Resource, Non0CPU, Non0Mem)
---------------------------------------------------------------------------

-- TestPodInfoCalculateResources: "1X container and 1X init container with pod-level requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-init","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"1200m","memory":"1200Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]}}');

-- TestPodInfoCalculateResources: "1X container and 1X sidecar container with pod-level requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-sidecar","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"1200m","memory":"1200Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}],"initContainers":[{"name":"i1","restartPolicy":"Always","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]}}');

-- TestPodInfoCalculateResources: "1X container with pod-level memory requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-pod-memory","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"memory":"1200Mi"}},"containers":[{"name":"c1"}],"initContainers":[{"name":"i1"}]}}');

-- TestPodInfoCalculateResources: "1X container with pod-level cpu requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-pod-cpu","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"500m"}},"containers":[{"name":"c1"}],"initContainers":[{"name":"i1"}]}}');

-- TestPodInfoCalculateResources: "1X container unsupported resources and pod-level supported resources"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-unsupported","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"500m"}},"containers":[{"name":"c1","resources":{"requests":{"ephemeral-storage":"800Mi"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"ephemeral-storage":"500Mi"}}}]}}');

-- TestCalculatePodResourcesWithResize (InPlacePodVerticalScaling and
-- InPlacePodLevelResourcesVerticalScaling on): with the pod-level gate off
-- (the scheduler's default) the result is the same: the container's
-- max(spec, status) is replaced by the pod-level request.

-- TestCalculatePodResourcesWithResize: "Pod with pod-level resources no pending resize"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-rs-no-pending","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"700m","memory":"500Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]},"status":{"phase":"Running","resources":{"requests":{"cpu":"500m","memory":"500Mi"}},"containerStatuses":[{"name":"c1","resources":{"requests":{"cpu":"700m","memory":"500Mi"}}}]}}');

-- TestCalculatePodResourcesWithResize: "Pod with pod-level resources and resize in progress"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-rs-in-progress","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"700m","memory":"500Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]},"status":{"phase":"Running","conditions":[{"type":"PodResizeInProgress","status":"True"}],"resources":{"requests":{"cpu":"500m","memory":"500Mi"}},"containerStatuses":[{"name":"c1","resources":{"requests":{"cpu":"700m","memory":"500Mi"}}}]}}');

-- TestCalculatePodResourcesWithResize: "Pod with pod-level resources and with deferred resize"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-plr-rs-deferred","namespace":"rq"},"spec":{"nodeName":"n-rq","resources":{"requests":{"cpu":"700m","memory":"800Mi"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]},"status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred"}],"resources":{"requests":{"cpu":"500m","memory":"500Mi"}},"containerStatuses":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]}}');

---------------------------------------------------------------------------
-- [fit] TestEnoughRequests, pod-level cases (Requested of each insufficient resource)
-- newPodLevelResourcesPod(pod, rr) sets spec.resources = rr; the
-- containers are newResourcePod's (pods and ephemeral-storage "0" left out,
-- as in requests_table.sql).
---------------------------------------------------------------------------

-- TestEnoughRequests: "pod-level cpu resource not fit"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-plr-cpu-not-fit","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"7m","memory":"2"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}]}}');

-- TestEnoughRequests: "pod-level memory resource not fit"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-plr-memory-not-fit","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"3m","memory":"2"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}]}}');

-- TestEnoughRequests: "one pod-level cpu resource fits and all init and non-init containers resources fit"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-plr-init-memory-not-fit","namespace":"rq"},"spec":{"resources":{"requests":{"cpu":"3m","memory":"2"}},"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"1m","memory":"1"}}}]}}');

-- TestAggregateContainerRequestsAndLimits: "regular and init containers with requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-agg-regular-and-init","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"9"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"9"}}}]}}');

-- TestAggregateContainerRequestsAndLimits: "regular, init and sidecar containers with requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ch-agg-regular-init-sidecar","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"9"}}}],"initContainers":[{"name":"i1","restartPolicy":"Always","resources":{"requests":{"cpu":"8"}}},{"name":"i2","resources":{"requests":{"cpu":"6"}}}]}}');

---------------------------------------------------------------------------
-- [ni] scheduler PodInfo.CalculateResource (Resource, Non0CPU, Non0Mem)
---------------------------------------------------------------------------

-- TestPodInfoCalculateResources: "requestless container"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-requestless-container","namespace":"rq"},"spec":{"containers":[{"name":"c1"}]}}');

-- TestPodInfoCalculateResources: "1X container with requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-1x-container","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}}]}}');

-- TestPodInfoCalculateResources: "2X container with requests"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-2x-container","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"500m","memory":"500Mi"}}},{"name":"c2","resources":{"requests":{"cpu":"700m","memory":"800Mi"}}}]}}');

-- TestNodeInfoAddPod: "test-1" (the pod's expected cachedResource)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-addpod-test-1","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"100m","memory":"500"}}}],"overhead":{"cpu":"500m"}}}');

-- TestNodeInfoAddPod: "test-2" (the pod's expected cachedResource)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-addpod-test-2","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m"}}}],"overhead":{"cpu":"500m","memory":"500"}}}');

-- TestNodeInfoAddPod: "test-3" (the pod's expected cachedResource)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ni-addpod-test-3","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"500m","memory":"200Mi"}}}],"overhead":{"cpu":"500m","memory":"500"}}}');

---------------------------------------------------------------------------
-- [ra] NodeResources scorer calculatePodResourceRequest (non-zero only)
---------------------------------------------------------------------------

-- TestResourceAllocationScorerCalculateRequests: "overhead only"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-overhead-only","namespace":"rq"},"spec":{"containers":[],"overhead":{"cpu":"1","memory":"1Mi"}}}');

-- TestResourceAllocationScorerCalculateRequests: "2x requestless container"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-2x-requestless","namespace":"rq"},"spec":{"containers":[{"name":"c1"},{"name":"c2"}]}}');

-- TestResourceAllocationScorerCalculateRequests: "request container + requestless container"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-request-plus-requestless","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1","memory":"1Mi"}}},{"name":"c2"}]}}');

-- TestResourceAllocationScorerCalculateRequests: "container + requestless container + overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-requestless-plus-overhead","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1","memory":"1Mi"}}},{"name":"c2"}],"overhead":{"cpu":"1","memory":"1Mi"}}}');

-- TestResourceAllocationScorerCalculateRequests: "init container + container + requestless container + overhead"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-init-plus-overhead","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1","memory":"1Mi"}}},{"name":"c2"}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"3"}}}],"overhead":{"cpu":"1","memory":"1Mi"}}}');

-- TestResourceAllocationScorerCalculateRequests: "requestless init container + small init container + small container "
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-requestless-init-small","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"3m","memory":"3"}}}],"initContainers":[{"name":"i1"},{"name":"i2","resources":{"requests":{"cpu":"1m","memory":"1"}}}]}}');

-- TestResourceAllocationScorerCalculateRequests: "requestless init container + small init container + small container + requestless container "
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"ra-requestless-init-small-requestless","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"3m","memory":"3"}}},{"name":"c2"}],"initContainers":[{"name":"i1"},{"name":"i2","resources":{"requests":{"cpu":"1m","memory":"1"}}}]}}');

---------------------------------------------------------------------------
-- [nz] scheduler util GetNonzeroRequests (one container's requests)
---------------------------------------------------------------------------

-- TestGetNonZeroRequest: "only_cpu_exist"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"nz-only-cpu","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m"}}}]}}');

-- TestGetNonZeroRequest: "only_memory_exist"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"nz-only-memory","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"400Mi"}}}]}}');

-- TestGetNonZeroRequest: "cpu_memory_exist"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"nz-cpu-memory","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m","memory":"400Mi"}}}]}}');

---------------------------------------------------------------------------
-- [fit] NodeResourcesFit TestEnoughRequests (Requested of each insufficient resource)
-- newResourcePod(framework.Resource{MilliCPU: m, Memory: b, ...}) makes one
-- container per Resource requesting cpu "<m>m", memory "<b>" and its scalar
-- resources; it also sets pods and ephemeral-storage to "0", left out here
-- ("pods" is not a container resource) as no case below asserts them.
---------------------------------------------------------------------------

-- TestEnoughRequests: "too many resources fails due to init container cpu"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-init-cpu","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"3m","memory":"1"}}}]}}');

-- TestEnoughRequests: "too many resources fails due to highest init container cpu"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-highest-init-cpu","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"3m","memory":"1"}}},{"name":"i2","resources":{"requests":{"cpu":"2m","memory":"1"}}}]}}');

-- TestEnoughRequests: "too many resources fails due to init container memory"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-init-memory","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"1m","memory":"3"}}}]}}');

-- TestEnoughRequests: "too many resources fails due to highest init container memory"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-highest-init-memory","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"1m","memory":"3"}}},{"name":"i2","resources":{"requests":{"cpu":"1m","memory":"2"}}}]}}');

-- TestEnoughRequests: "extended resource allocatable enforced for multiple containers"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-ext-multi-containers","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1","example.com/aaa":"3"}}},{"name":"c2","resources":{"requests":{"cpu":"1m","memory":"1","example.com/aaa":"3"}}}]}}');

-- TestEnoughRequests: "extended resource allocatable enforced for multiple init containers"
-- (newResourcePod(framework.Resource{}) is one container with explicit zero requests)
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-ext-multi-init","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"0","memory":"0"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"1m","memory":"1","example.com/aaa":"6"}}},{"name":"i2","resources":{"requests":{"cpu":"1m","memory":"1","example.com/aaa":"3"}}}]}}');

-- TestEnoughRequests: "kubernetes.io resource capacity enforced for init container"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-kubeio-init","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"0","memory":"0"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"cpu":"1m","memory":"1","subdomain.kubernetes.io/something":"10"}}}]}}');

-- TestEnoughRequests: "hugepages resource allocatable enforced for multiple containers"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-hugepages-multi","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1","hugepages-2Mi":"3"}}},{"name":"c2","resources":{"requests":{"cpu":"1m","memory":"1","hugepages-2Mi":"3"}}}]}}');

-- TestEnoughRequests: "requests + overhead does not fit for memory"
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"fit-overhead-memory","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"1m","memory":"1"}}}],"overhead":{"cpu":"1m","memory":"15"}}}');

---------------------------------------------------------------------------
-- [def] API server defaulting of requests from limits
---------------------------------------------------------------------------

-- TestSetDefaultRequestsPod: "verify we default if limits are specified (and that request=0 is preserved)"
-- The Go test pins each container's defaulted requests (cpu "100m" from the
-- limit, memory "0" kept); the pod has one container and one identical init
-- container, so its request is that same list.
SELECT scheduler.apply('{"kind":"Pod","apiVersion":"v1","metadata":{"name":"def-limits-only","namespace":"rq"},"spec":{"containers":[{"name":"c1","resources":{"requests":{"memory":"0"},"limits":{"cpu":"100m","memory":"1Gi"}}}],"initContainers":[{"name":"i1","resources":{"requests":{"memory":"0"},"limits":{"cpu":"100m","memory":"1Gi"}}}]}}');

---------------------------------------------------------------------------
-- Results next to the Go tests' expectations.
---------------------------------------------------------------------------
SELECT e.name,
       p.name IS NOT NULL AS found,
       e.compare,
       p.requests,
       e.requests AS expected_requests,
       CASE e.compare
            WHEN '=' THEN p.requests = e.requests
            WHEN '@>' THEN p.requests @> e.requests
       END AS requests_ok,
       p.nonzero_cpu,
       e.nonzero_cpu AS expected_nonzero_cpu,
       p.nonzero_memory,
       e.nonzero_memory AS expected_nonzero_memory,
       (e.nonzero_cpu IS NULL OR p.nonzero_cpu = e.nonzero_cpu)
         AND (e.nonzero_memory IS NULL OR p.nonzero_memory = e.nonzero_memory) AS nonzero_ok
FROM (VALUES
    -- [ch] TestPodRequestsAndLimits
    ('ch-just-overhead'::text,              '='::text, '{"cpu": 5000, "memory": 5}'::jsonb,          NULL::bigint, NULL::bigint),
    ('ch-req-and-overhead',                 '=',  '{"cpu": 6000, "memory": 15}',                     NULL, NULL),
    ('ch-all-req-lim-and-overhead',         '=',  '{"cpu": 6000, "memory": 15}',                     NULL, NULL),
    ('ch-req-some-lim-and-overhead',        '=',  '{"cpu": 6000, "memory": 15}',                     NULL, NULL),
    -- [ch] TestPodRequestsAndLimitsWithoutOverhead
    ('ch-two-containers-no-overhead',       '=',  '{"cpu": 5000, "memory": 17}',                     NULL, NULL),
    -- [ch] TestPodResourceRequests
    ('ch-larger-init-container',            '=',  '{"cpu": 4000}',                                   NULL, NULL),
    ('ch-larger-containers',                '=',  '{"cpu": 5000}',                                   NULL, NULL),
    ('ch-pod-overhead-included',            '=',  '{"cpu": 6000, "memory": 1073741824}',             NULL, NULL),
    ('ch-restartable-init',                 '=',  '{"cpu": 2000}',                                   NULL, NULL),
    ('ch-multiple-restartable-init',        '=',  '{"cpu": 7000}',                                   NULL, NULL),
    ('ch-restartable-and-regular-init',     '=',  '{"cpu": 8000}',                                   NULL, NULL),
    ('ch-restartable-init-init-regular',    '=',  '{"cpu": 210000}',                                 NULL, NULL),
    -- [ch] TestPodLevelResourceRequests (5Mi, 8Mi, 11Mi)
    ('ch-plr-init-container',               '=',  '{"cpu": 4, "memory": 5242880}',                   NULL, NULL),
    ('ch-plr-sidecar',                      '=',  '{"cpu": 6, "memory": 8388608}',                   NULL, NULL),
    ('ch-plr-init-and-sidecar',             '=',  '{"cpu": 12, "memory": 11534336}',                 NULL, NULL),
    -- [ch] TestPodResourceRequests, in-place resize (UseStatusResources)
    ('ch-rs-infeasible',                    '=',  '{"cpu": 2000}',                                   NULL, NULL),
    ('ch-rs-infeasible-in-progress',        '=',  '{"cpu": 4000}',                                   NULL, NULL),
    ('ch-rs-no-resize-status',              '=',  '{"cpu": 4000}',                                   NULL, NULL),
    ('ch-rs-3-way-max',                     '=',  '{"cpu": 30, "memory": 30000000, "ephemeral-storage": 30000000000}', NULL, NULL),
    ('ch-rs-sidecar-infeasible',            '=',  '{"cpu": 2000}',                                   NULL, NULL),
    ('ch-rs-sidecar-no-resize-status',      '=',  '{"cpu": 4000}',                                   NULL, NULL),
    ('ch-rs-max-of-sums',                   '=',  '{"cpu": 3000}',                                   NULL, NULL),
    -- [ch] TestPodLevelResourceRequests (2Mi = 2097152, 3Mi = 3145728, 4Mi = 4194304,
    -- 6Mi = 6291456, 10Mi = 10485760, 15Mi = 15728640, 1Gi = 1073741824, 2Gi = 2147483648)
    ('ch-plr-nil',                          '=',  '{}',                                              NULL, NULL),
    ('ch-plr-pod-memory',                   '=',  '{"memory": 2097152}',                             NULL, NULL),
    ('ch-plr-pod-mem-ctr-cpu',              '=',  '{"cpu": 2, "memory": 2097152}',                   NULL, NULL),
    ('ch-plr-container-only',               '=',  '{"cpu": 2, "memory": 3145728}',                   NULL, NULL),
    ('ch-plr-both',                         '=',  '{"cpu": 8, "memory": 6291456}',                   NULL, NULL),
    ('ch-plr-pod-init-sidecar',             '=',  '{"cpu": 18, "memory": 15728640}',                 NULL, NULL),
    ('ch-plr-hp-single',                    '=',  '{"memory": 10485760, "hugepages-2Mi": 2097152}',  NULL, NULL),
    ('ch-plr-hp-multi',                     '=',  '{"cpu": 1000, "hugepages-2Mi": 2097152, "hugepages-1Gi": 1073741824}', NULL, NULL),
    ('ch-plr-ctr-hp-single',                '=',  '{"cpu": 1000, "hugepages-2Mi": 10485760}',        NULL, NULL),
    ('ch-plr-ctr-hp-multi',                 '=',  '{"cpu": 1000, "hugepages-2Mi": 10485760, "hugepages-1Gi": 2147483648}', NULL, NULL),
    ('ch-plr-ctr-hp-split',                 '=',  '{"cpu": 1000, "memory": 4194304, "hugepages-2Mi": 10485760, "hugepages-1Gi": 1073741824}', NULL, NULL),
    -- [ch] pod-level status cases (110Mi = 115343360)
    ('ch-plr-st-all',                       '=',  '{"cpu": 1100, "memory": 115343360}',              NULL, NULL),
    ('ch-plr-st-one',                       '=',  '{"cpu": 1100, "memory": 115343360}',              NULL, NULL),
    ('ch-plr-st-no-overhead',               '=',  '{"cpu": 1100, "memory": 115343360}',              NULL, NULL),
    ('ch-plr-alloc-overhead',               '=',  '{"cpu": 1100, "memory": 115343360}',              NULL, NULL),
    ('ch-plr-alloc-stale',                  '=',  '{"cpu": 1100, "memory": 115343360}',              NULL, NULL),
    -- [ni] TestPodInfoCalculateResources (1200Mi = 1258291200, 800Mi = 838860800)
    ('ni-plr-init',                         '=',  '{"cpu": 1200, "memory": 1258291200}',             1200, 1258291200),
    ('ni-plr-sidecar',                      '=',  '{"cpu": 1200, "memory": 1258291200}',             1200, 1258291200),
    ('ni-plr-pod-memory',                   '=',  '{"memory": 1258291200}',                          100,  1258291200),
    ('ni-plr-pod-cpu',                      '=',  '{"cpu": 500}',                                    500,  209715200),
    ('ni-plr-unsupported',                  '=',  '{"cpu": 500, "ephemeral-storage": 838860800}',    500,  209715200),
    -- [ni] TestCalculatePodResourcesWithResize (500Mi = 524288000)
    ('ni-plr-rs-no-pending',                '=',  '{"cpu": 700, "memory": 524288000}',               700,  524288000),
    ('ni-plr-rs-in-progress',               '=',  '{"cpu": 700, "memory": 524288000}',               700,  524288000),
    ('ni-plr-rs-deferred',                  '=',  '{"cpu": 700, "memory": 838860800}',               700,  838860800),
    -- [fit] TestEnoughRequests, pod-level: only the insufficient resources are pinned
    ('fit-plr-cpu-not-fit',                 '@>', '{"cpu": 7}',                                      NULL, NULL),
    ('fit-plr-memory-not-fit',              '@>', '{"memory": 2}',                                   NULL, NULL),
    ('fit-plr-init-memory-not-fit',         '@>', '{"memory": 2}',                                   NULL, NULL),
    -- [ch] TestAggregateContainerRequestsAndLimits
    ('ch-agg-regular-and-init',             '=',  '{"cpu": 9000}',                                   NULL, NULL),
    ('ch-agg-regular-init-sidecar',         '=',  '{"cpu": 17000}',                                  NULL, NULL),
    -- [ni] TestPodInfoCalculateResources (500Mi = 524288000, 500Mi + 800Mi = 1363148800)
    ('ni-requestless-container',            '=',  '{}',                                              100,  209715200),
    ('ni-1x-container',                     '=',  '{"cpu": 500, "memory": 524288000}',               500,  524288000),
    ('ni-2x-container',                     '=',  '{"cpu": 1200, "memory": 1363148800}',             1200, 1363148800),
    -- [ni] TestNodeInfoAddPod cachedResource (DefaultMemoryRequest + 500 = 209715700)
    ('ni-addpod-test-1',                    '=',  '{"cpu": 600, "memory": 500}',                     600,  500),
    ('ni-addpod-test-2',                    '=',  '{"cpu": 700, "memory": 500}',                     700,  209715700),
    ('ni-addpod-test-3',                    '=',  '{"cpu": 1000, "memory": 209715700}',              1000, 209715700),
    -- [ra] TestResourceAllocationScorerCalculateRequests (oneMi = 1048576)
    ('ra-overhead-only',                    NULL, NULL,                                              1000, 1048576),
    ('ra-2x-requestless',                   NULL, NULL,                                              200,  419430400),
    ('ra-request-plus-requestless',         NULL, NULL,                                              1100, 210763776),
    ('ra-requestless-plus-overhead',        NULL, NULL,                                              2100, 211812352),
    ('ra-init-plus-overhead',               NULL, NULL,                                              4000, 211812352),
    ('ra-requestless-init-small',           NULL, NULL,                                              100,  209715200),
    ('ra-requestless-init-small-requestless', NULL, NULL,                                            103,  209715203),
    -- [nz] TestGetNonZeroRequest (400Mi = 419430400)
    ('nz-only-cpu',                         NULL, NULL,                                              200,  209715200),
    ('nz-only-memory',                      NULL, NULL,                                              100,  419430400),
    ('nz-cpu-memory',                       NULL, NULL,                                              200,  419430400),
    -- [fit] TestEnoughRequests: only the insufficient resources are pinned
    ('fit-init-cpu',                        '@>', '{"cpu": 3}',                                      NULL, NULL),
    ('fit-highest-init-cpu',                '@>', '{"cpu": 3}',                                      NULL, NULL),
    ('fit-init-memory',                     '@>', '{"memory": 3}',                                   NULL, NULL),
    ('fit-highest-init-memory',             '@>', '{"memory": 3}',                                   NULL, NULL),
    ('fit-ext-multi-containers',            '@>', '{"example.com/aaa": 6}',                          NULL, NULL),
    ('fit-ext-multi-init',                  '@>', '{"example.com/aaa": 6}',                          NULL, NULL),
    ('fit-kubeio-init',                     '@>', '{"subdomain.kubernetes.io/something": 10}',       NULL, NULL),
    ('fit-hugepages-multi',                 '@>', '{"hugepages-2Mi": 6}',                            NULL, NULL),
    ('fit-overhead-memory',                 '@>', '{"memory": 16}',                                  NULL, NULL),
    -- [def] TestSetDefaultRequestsPod
    ('def-limits-only',                     '=',  '{"cpu": 100, "memory": 0}',                       NULL, NULL)
  ) AS e(name, compare, requests, nonzero_cpu, nonzero_memory)
  LEFT JOIN scheduler.pods p ON p.namespace = 'rq' AND p.name = e.name
ORDER BY e.name;

---------------------------------------------------------------------------
-- What NodeResourcesFit makes of them (the same arithmetic, through the
-- snapshot): a node of 2 cpu.  A pod-level request of 3 cpu over
-- containers that request none is Insufficient cpu, and so is one over a
-- container requesting 1, which alone would fit (the pod-level request
-- stands for the containers'); one of 2 cpu fits.  A running pod whose resize to 2 cpu is infeasible, still
-- allocated 1, holds 1: a pod of 1 cpu fits beside it (its spec's 2 would
-- leave no room).
---------------------------------------------------------------------------
SELECT scheduler.apply('{"kind":"Node","metadata":{"name":"fit-node"},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"}}}');
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"plr-big","namespace":"fit","uid":"plr-big"},"spec":{"resources":{"requests":{"cpu":"3"}},"containers":[{"name":"c"}]}}');
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"plr-over","namespace":"fit","uid":"plr-over"},"spec":{"resources":{"requests":{"cpu":"3"}},"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}');
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"plr-fits","namespace":"fit","uid":"plr-fits"},"spec":{"resources":{"requests":{"cpu":"2"}},"containers":[{"name":"c"}]}}');
SELECT p.name, f.code, f.reason FROM unnest(ARRAY['plr-big', 'plr-over', 'plr-fits']) AS p(name),
     LATERAL scheduler.filter('fit', p.name) f WHERE f.plugin = 'NodeResourcesFit' AND f.node IS NOT NULL ORDER BY p.name;
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"resizing","namespace":"fit","uid":"resizing"},"spec":{"nodeName":"fit-node","containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]},"status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True","reason":"Infeasible"}],"containerStatuses":[{"name":"c","allocatedResources":{"cpu":"1"},"resources":{"requests":{"cpu":"1"}}}]}}');
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"beside","namespace":"fit","uid":"beside"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}');
SELECT f.code, f.reason FROM scheduler.filter('fit', 'beside') f WHERE f.plugin = 'NodeResourcesFit' AND f.node IS NOT NULL;

---------------------------------------------------------------------------
-- The two non-zero variants (kube-scheduler's code; no Go test pins the
-- scorer's for a pod with pod-level requests).  A node counts a pod with
-- its pod-level values, and the defaults only where its whole request
-- lacks cpu or memory (types.go, CalculateResource:
-- getNonMissingContainerRequests), pending or not: AssumePod and the
-- nominated pods' AddPodInfo read it so.  NodeResourcesFit's scorer reads
-- the pod it schedules from its containers alone, a default for each that
-- lacks cpu or memory, plus the overhead (resource_allocation.go,
-- calculatePodResourceRequest, with NonMissingContainerRequests and
-- SkipPodLevelResources: the scorer NodeResourcesFit embeds never gets its
-- enablePodLevelResources, which Fit's own field shadows; kubernetes PR
-- 141387, open).  scheduler.pod_requests() computes what apply() stores;
-- pending_nonzero_* is set only where the two differ, for a pending pod.
--
-- mixed: pod-level memory 1Gi, one container of 200m cpu and one of none:
-- a node counts 200m (the request has cpu) and 1Gi; the scorer reads 300m
-- (200m and the 100m default) and 400Mi (the 200Mi default twice).
---------------------------------------------------------------------------
SELECT r.* FROM (VALUES
    ('mixed pending', '{"kind":"Pod","metadata":{"name":"m","namespace":"nz"},"spec":{"resources":{"requests":{"memory":"1Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"200m"}}},{"name":"b"}]}}'::jsonb),
    ('mixed bound', '{"kind":"Pod","metadata":{"name":"m","namespace":"nz"},"spec":{"nodeName":"n1","resources":{"requests":{"memory":"1Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"200m"}}},{"name":"b"}]}}'),
    -- TestPodInfoCalculateResources' "pod-level memory resource only" pod, pending:
    -- a node counts the 100m default (no cpu anywhere) and 1200Mi; the scorer
    -- 100m and 200Mi (one container, one init container, neither with memory)
    ('ni-plr-pod-memory pending', '{"kind":"Pod","metadata":{"name":"p","namespace":"nz"},"spec":{"resources":{"requests":{"memory":"1200Mi"}},"containers":[{"name":"c1"}],"initContainers":[{"name":"i1"}]}}'),
    -- no pod-level requests: one variant
    ('requestless pending', '{"kind":"Pod","metadata":{"name":"q","namespace":"nz"},"spec":{"containers":[{"name":"c1"},{"name":"c2"}]}}'),
    -- pod-level cpu over two containers, one with 100Mi of memory: a node
    -- counts 1 cpu and 100Mi (the request has memory); the scorer 200m (the
    -- default twice) and 300Mi (100Mi and the default)
    ('cpu pod-level', '{"kind":"Pod","metadata":{"name":"r","namespace":"nz"},"spec":{"resources":{"requests":{"cpu":"1"}},"containers":[{"name":"a","resources":{"requests":{"memory":"100Mi"}}},{"name":"b"}]}}')
  ) AS t(name, pod), LATERAL (SELECT t.name, p.* FROM scheduler.pod_requests(t.pod) p) r;

-- apply() stores what pod_requests() computes, for every pod of this file
SELECT count(*) AS pods,
       count(*) FILTER (WHERE (p.requests, p.nonzero_cpu, p.nonzero_memory, p.pending_nonzero_cpu, p.pending_nonzero_memory)
                              IS DISTINCT FROM (r.requests, r.nonzero_cpu, r.nonzero_memory, r.pending_nonzero_cpu,
                                                r.pending_nonzero_memory)) AS differing,
       count(*) FILTER (WHERE p.pending_nonzero_cpu IS NOT NULL) AS with_pending_variant
FROM scheduler.pods p, LATERAL scheduler.pod_requests(p.object) r;

-- pod_requests() reads a pod as apply() does: the same errors
\set VERBOSITY terse
SELECT * FROM scheduler.pod_requests('[1]');
SELECT * FROM scheduler.pod_requests('{"kind":"Node","metadata":{"name":"x"}}');
SELECT * FROM scheduler.pod_requests('{"kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}');
SELECT * FROM scheduler.pod_requests('{"kind":"Pod","metadata":{"name":"x"},"spec":{"resources":{"requests":{"memory":-1}},"containers":[]}}');
\set VERBOSITY default

---------------------------------------------------------------------------
-- Scoring with them: on a node of 4 cpu and 8Gi, empty (its taint keeps
-- the other pods of this file off it), the mixed pod scores as 300m and
-- 400Mi (LeastAllocated: ((4000 - 300) * 100 / 4000 + (8192Mi - 400Mi) *
-- 100 / 8192Mi) / 2 = (92 + 95) / 2 = 93).  Once schedule_pending()
-- assumes it there, the node counts it as 200m and 1Gi: in this backend's
-- snapshot at once, and from the table in a new session.  The second pod,
-- alike, then scores ((4000 - 200 - 300) * 100 / 4000 + (8192Mi - 1024Mi -
-- 400Mi) * 100 / 8192Mi) / 2 = (87 + 82) / 2 = 84 (87 had the first
-- counted as the scorer reads it).
---------------------------------------------------------------------------
SELECT scheduler.apply('{"kind":"Node","metadata":{"name":"nz-node","labels":{"nz":"yes"}},"spec":{"taints":[{"key":"nz","effect":"NoSchedule"}]},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"10"}}}');
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"mixed-1","namespace":"nz","uid":"mixed-1"},"spec":{"nodeSelector":{"nz":"yes"},"tolerations":[{"key":"nz","operator":"Exists"}],"resources":{"requests":{"memory":"1Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"200m"}}},{"name":"b"}]}}');
SELECT nonzero_cpu, nonzero_memory, pending_nonzero_cpu, pending_nonzero_memory FROM scheduler.pods WHERE uid = 'mixed-1';
SELECT node, plugin, raw FROM scheduler.score('nz', 'mixed-1') WHERE plugin = 'NodeResourcesFit';
SELECT namespace, name, node, result FROM schedule_pending() WHERE namespace = 'nz';
SELECT node, nonzero_cpu, nonzero_memory FROM scheduler.snapshot() WHERE node = 'nz-node';
SELECT scheduler.apply('{"kind":"Pod","metadata":{"name":"mixed-2","namespace":"nz","uid":"mixed-2"},"spec":{"nodeSelector":{"nz":"yes"},"tolerations":[{"key":"nz","operator":"Exists"}],"resources":{"requests":{"memory":"1Gi"}},"containers":[{"name":"a","resources":{"requests":{"cpu":"200m"}}},{"name":"b"}]}}');
SELECT node, plugin, raw FROM scheduler.score('nz', 'mixed-2') WHERE plugin = 'NodeResourcesFit';
\c
SELECT node, nonzero_cpu, nonzero_memory FROM scheduler.snapshot() WHERE node = 'nz-node';
SELECT node, nonzero_cpu, nonzero_memory FROM scheduler.snapshot_from_tables WHERE node = 'nz-node';
SELECT node, plugin, raw FROM scheduler.score('nz', 'mixed-2') WHERE plugin = 'NodeResourcesFit';
