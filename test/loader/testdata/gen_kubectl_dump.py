#!/usr/bin/env python3
"""Writes kubectl-dump.yaml and kubectl-dump.json: what `kubectl get nodes,pods -A -o yaml|json` prints for a
small kind cluster (three nodes, system pods, two app pods, one pending), with the fields a real API server
fills in (managedFields, status.containerStatuses, projected token volumes, probes, ...).

Run from this directory: python3 gen_kubectl_dump.py
"""
import json
import yaml

T0 = "2026-11-20T09:14:03Z"


def managed(manager, op, time, fields):
    return {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": manager,
            "operation": op, "time": time}


def node(name, zone, control_plane=False, idx=0):
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "topology.kubernetes.io/zone": zone,
    }
    if control_plane:
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
    spec = {"podCIDR": f"10.244.{idx}.0/24", "podCIDRs": [f"10.244.{idx}.0/24"],
            "providerID": f"kind://docker/kind/{name}"}
    if control_plane:
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    cond = lambda t, s, reason, msg: {"lastHeartbeatTime": "2026-11-21T14:01:12Z",
                                      "lastTransitionTime": T0, "message": msg, "reason": reason,
                                      "status": s, "type": t}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": T0,
            "labels": labels,
            "managedFields": [
                managed("kubelet", "Update", T0, {"f:metadata": {"f:annotations": {".": {}}}}),
                managed("kube-controller-manager", "Update", T0, {"f:spec": {"f:podCIDR": {}}}),
            ],
            "name": name,
            "resourceVersion": str(918273 + idx),
            "uid": f"6f1c2a9e-0d4b-4b7a-9c51-2e8f7a3b1c0{idx}",
        },
        "spec": spec,
        "status": {
            "addresses": [{"address": f"172.18.0.{idx + 2}", "type": "InternalIP"},
                          {"address": name, "type": "Hostname"}],
            "allocatable": {"cpu": "8", "ephemeral-storage": "263174212Ki", "hugepages-1Gi": "0",
                            "hugepages-2Mi": "0", "memory": "32827340Ki", "pods": "110"},
            "capacity": {"cpu": "8", "ephemeral-storage": "263174212Ki", "hugepages-1Gi": "0",
                         "hugepages-2Mi": "0", "memory": "32827340Ki", "pods": "110"},
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "features": {"supplementalGroupsPolicy": True},
            "images": [
                {"names": ["registry.k8s.io/etcd:3.6.4-0"], "sizeBytes": 57680541},
                {"names": ["docker.io/kindest/kindnetd:v20251023-8a2b1c4d"], "sizeBytes": 39008320},
                {"names": ["registry.k8s.io/coredns/coredns:v1.12.1"], "sizeBytes": 22384805},
            ],
            "nodeInfo": {
                "architecture": "amd64", "bootID": "1d0b6a0e-7f2c-4d55-8f1e-3c9a0b2d4e6f",
                "containerRuntimeVersion": "containerd://2.1.4", "kernelVersion": "6.1.0-27-amd64",
                "kubeProxyVersion": "", "kubeletVersion": "v1.37.0",
                "machineID": "8c0e4a3f9b2d4f6a8e1c3b5d7f9a0c2e", "operatingSystem": "linux",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "systemUUID": "3b2c1d0e-9f8a-4b7c-6d5e-4f3a2b1c0d9e",
            },
            "runtimeHandlers": [{"features": {"recursiveReadOnlyMounts": True, "userNamespaces": True},
                                 "name": "runc"}],
        },
    }


def token_volume(suffix):
    return {"name": f"kube-api-access-{suffix}", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                    "path": "namespace"}]}},
    ]}}


DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
     "tolerationSeconds": 300},
]


def pod(ns, name, node_name, image, *, priority_class=None, priority=0, requests=None, limits=None,
        labels=None, owner=None, tolerations=None, affinity=None, host_network=False, running=True, idx=0,
        static=False, ports=None):
    container = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name.split("-")[0] if not static else name.rsplit("-", 3)[0],
        "resources": {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                          "name": f"kube-api-access-{idx:05d}", "readOnly": True}],
    }
    if requests:
        container["resources"]["requests"] = requests
    if limits:
        container["resources"]["limits"] = limits
    if ports:
        container["ports"] = ports
    if not static:
        container["livenessProbe"] = {"failureThreshold": 5, "httpGet": {"path": "/health", "port": 8080,
                                      "scheme": "HTTP"}, "initialDelaySeconds": 60, "periodSeconds": 10,
                                      "successThreshold": 1, "timeoutSeconds": 5}
        container["env"] = [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                              "fieldPath": "metadata.name"}}}]
        container["args"] = ["-conf", "/etc/config"]
        container["securityContext"] = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True}
    spec = {
        "containers": [container],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": priority,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": (tolerations or []) + DEFAULT_TOLERATIONS,
        "volumes": [token_volume(f"{idx:05d}"),
                    {"name": "config", "configMap": {"defaultMode": 420, "name": "app-config"}}],
    }
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_name:
        spec["nodeName"] = node_name
    if affinity:
        spec["affinity"] = affinity
    if host_network:
        spec["hostNetwork"] = True
    meta = {
        "creationTimestamp": T0,
        "labels": labels or {},
        "name": name,
        "namespace": ns,
        "resourceVersion": str(5000 + idx),
        "uid": f"a1b2c3d4-0000-4000-8000-{idx:012d}",
    }
    if owner:
        meta["generateName"] = name.rsplit("-", 1)[0] + "-"
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True,
                                    "kind": owner[0], "name": owner[1],
                                    "uid": f"b1b2c3d4-0000-4000-8000-{idx:012d}"}]
    if static:
        meta["annotations"] = {"kubernetes.io/config.hash": "5f2c0a8f1f0c6f8e", "kubernetes.io/config.seen":
                               "2026-11-20T09:14:00.123456789Z", "kubernetes.io/config.source": "file"}
    meta["managedFields"] = [managed("kube-controller-manager", "Update", T0,
                                     {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}}}})]
    if running:
        status = {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": T0, "observedGeneration": 1,
                 "status": "True", "type": t}
                for t in ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                          "PodScheduled"]],
            "containerStatuses": [{
                "containerID": f"containerd://{idx:064x}", "image": image, "imageID": image + "@sha256:" + "ab" * 32,
                "lastState": {}, "name": container["name"], "ready": True, "restartCount": 0, "started": True,
                "state": {"running": {"startedAt": "2026-11-20T09:14:30Z"}},
                "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                  "name": f"kube-api-access-{idx:05d}", "readOnly": True,
                                  "recursiveReadOnly": "Disabled"}],
            }],
            "hostIP": "172.18.0.2", "hostIPs": [{"ip": "172.18.0.2"}],
            "observedGeneration": 1,
            "phase": "Running",
            "podIP": f"10.244.0.{idx + 2}", "podIPs": [{"ip": f"10.244.0.{idx + 2}"}],
            "qosClass": "Burstable" if requests else "BestEffort",
            "startTime": "2026-11-20T09:14:20Z",
        }
    else:
        status = {
            "conditions": [{"lastProbeTime": None, "lastTransitionTime": "2026-11-21T14:00:00Z",
                            "message": "0/3 nodes are available: 1 node(s) had untolerated taint "
                                       "{node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. "
                                       "preemption: 0/3 nodes are available: 1 Preemption is not helpful for "
                                       "scheduling, 2 No preemption victims found for incoming pod.",
                            "observedGeneration": 1, "reason": "Unschedulable", "status": "False",
                            "type": "PodScheduled"}],
            "phase": "Pending",
            "qosClass": "Burstable",
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


CP_TOL = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
items = [
    node("kind-control-plane", "zone-a", control_plane=True, idx=0),
    node("kind-worker", "zone-a", idx=1),
    node("kind-worker2", "zone-b", idx=2),
    pod("kube-system", "etcd-kind-control-plane", "kind-control-plane", "registry.k8s.io/etcd:3.6.4-0",
        priority_class="system-node-critical", priority=2000001000, static=True, host_network=True, idx=1,
        requests={"cpu": "100m", "memory": "100Mi"}, labels={"component": "etcd", "tier": "control-plane"},
        tolerations=[{"effect": "NoExecute", "operator": "Exists"}]),
    pod("kube-system", "coredns-7c65d6cfc9-4vq2x", "kind-control-plane", "registry.k8s.io/coredns/coredns:v1.12.1",
        priority_class="system-cluster-critical", priority=2000000000, idx=2,
        requests={"cpu": "100m", "memory": "70Mi"}, limits={"memory": "170Mi"},
        labels={"k8s-app": "kube-dns", "pod-template-hash": "7c65d6cfc9"},
        owner=("ReplicaSet", "coredns-7c65d6cfc9"),
        tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}] + CP_TOL,
        ports=[{"containerPort": 53, "name": "dns", "protocol": "UDP"},
               {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
               {"containerPort": 9153, "name": "metrics", "protocol": "TCP"}],
        affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"podAffinityTerm": {"labelSelector": {"matchExpressions": [
                {"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
                "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}}),
    pod("kube-system", "kindnet-8k2lp", "kind-worker", "docker.io/kindest/kindnetd:v20251023-8a2b1c4d",
        priority_class="system-node-critical", priority=2000001000, idx=3, host_network=True,
        requests={"cpu": "100m", "memory": "50Mi"}, limits={"cpu": "100m", "memory": "50Mi"},
        labels={"app": "kindnet", "controller-revision-hash": "5b8d9c6f7d", "k8s-app": "kindnet",
                "pod-template-generation": "1", "tier": "node"},
        owner=("DaemonSet", "kindnet"), tolerations=[{"operator": "Exists"}],
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["kind-worker"]}]}]}}}),
    pod("default", "shop-6d4cf56db6-jq8dn", "kind-worker2", "example.com/shop:1.4.2", idx=4,
        requests={"cpu": "2", "memory": "1Gi"}, limits={"memory": "2Gi"},
        labels={"app": "shop", "pod-template-hash": "6d4cf56db6"}, owner=("ReplicaSet", "shop-6d4cf56db6"),
        ports=[{"containerPort": 8080, "protocol": "TCP"}]),
    pod("default", "shop-6d4cf56db6-t7wz5", None, "example.com/shop:1.4.2", idx=5, running=False,
        requests={"cpu": "12", "memory": "1Gi"}, limits={"memory": "2Gi"},
        labels={"app": "shop", "pod-template-hash": "6d4cf56db6"}, owner=("ReplicaSet", "shop-6d4cf56db6"),
        ports=[{"containerPort": 8080, "protocol": "TCP"}]),
]

dump = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}

with open("kubectl-dump.yaml", "w") as f:
    yaml.safe_dump(dump, f, default_flow_style=False, sort_keys=True, width=1000)
with open("kubectl-dump.json", "w") as f:
    json.dump(dump, f, indent=4, sort_keys=True)
    f.write("\n")
