"""A model of kube-scheduler's filter plugins over a Kubernetes dump: would this workload's pod fit?

Plain Python over plain dicts. Build a ``ClusterModel`` once per dump from its Node and Pod objects,
then ``predict(workload)`` for each workload; a failure reads like kube-scheduler's FailedScheduling
event (``0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's node
affinity/selector.``). Modelled: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity (with its
PreFilter) and NodeResourcesFit, in upstream's order; not modelled: volumes, NodePorts, inter-pod
affinity, topology spread, DRA, PostFilter/preemption and scoring. See ``docs/scheduling.md``.

Modules: ``resources`` (effective requests), ``matching`` (taints, tolerations, selector terms),
``workloads`` (pod spec of a workload, its own pods), ``cluster`` (indexes), ``model`` (predict),
``placement`` (the selected nodes whose taints keep a workload's pod off: ``ClusterModel.taint_check``).
"""

from .model import ClusterModel, Prediction
from .placement import TaintCheck
from .resources import effective_requests
from .workloads import pod_spec_of

__all__ = ["ClusterModel", "Prediction", "TaintCheck", "effective_requests", "pod_spec_of"]
