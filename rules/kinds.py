"""The kinds of objects verdict knows by name, for the policy schema (a kind a rule matches) and the reader (a kind a
dump's object has)."""

from __future__ import annotations

#: Kinds of Kubernetes' own APIs and of the operators the packs read: a kind one letter off one of them, or its
#: plural, is a slip (trial 94: a context of kind PriorityClas read no object, and a message said none was in the
#: dump); any other CamelCase kind may be a custom resource's.
KNOWN_KINDS = frozenset(
    {
        "Node", "Pod", "Namespace", "Service", "Endpoints", "EndpointSlice", "ConfigMap", "Secret", "ServiceAccount",
        "Event", "LimitRange", "ResourceQuota", "PersistentVolume", "PersistentVolumeClaim", "PodTemplate",
        "ReplicationController", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "ControllerRevision", "Job",
        "CronJob", "PriorityClass", "RuntimeClass", "StorageClass", "CSIDriver", "CSINode", "VolumeAttachment",
        "PodDisruptionBudget", "NetworkPolicy", "Ingress", "IngressClass", "Role", "ClusterRole", "RoleBinding",
        "ClusterRoleBinding", "HorizontalPodAutoscaler", "Lease", "CustomResourceDefinition", "APIService",
        "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ResourceClaim", "ResourceClaimTemplate",
        "DeviceClass", "ResourceSlice", "ClusterPolicy", "NVIDIADriver", "KubeVirt", "HyperConverged",
        "VirtualMachine", "VirtualMachineInstance", "VirtualMachineInstanceReplicaSet", "VirtualMachinePool",
        "VirtualMachineInstanceMigration", "VirtualMachineInstancetype", "VirtualMachineClusterInstancetype",
        "VirtualMachinePreference", "VirtualMachineClusterPreference", "DataVolume", "NodeFeature", "NodeFeatureRule",
        "PolicyReport", "ClusterPolicyReport",
    }
)  # fmt: skip

#: Each known kind by its case-folded name: ``node`` is ``Node`` written in the wrong case, which kubectl refuses.
KINDS_FOLDED = {kind.casefold(): kind for kind in KNOWN_KINDS}
