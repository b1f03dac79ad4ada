"""A label, annotation or node selector written unquoted (``gpu: true``, ``count: 8``) is a boolean or a number to
YAML, which the API server refuses for these maps of strings (kubectl: "cannot unmarshal bool into Go struct field ...
of type string"). Trial 179: such a nodeSelector was matched as "true" in silence; a note of the dump names each
now, and the object is judged as if the value were quoted."""

from __future__ import annotations

from rules.evaluate import evaluate
from rules.loader import load_policies
from rules.reader import parse_bytes

DUMP = b"""\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.workload.config: container}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
  namespace: ml
  annotations: {replicas-wanted: 8}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.present: true}
      containers:
      - name: c
        image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_an_unquoted_label_annotation_or_node_selector_is_said_and_read_as_its_text() -> None:
    dump = parse_bytes(DUMP, "lab.yaml")
    assert dump.errors == []  # the dump is read whole: a hand-built lab's manifest, judged as it is meant
    assert dump.unquoted_note() == [
        "2 values of labels, annotations or node selectors written unquoted, a boolean or a number where Kubernetes"
        " takes a string (Deployment ml/train metadata.annotations['replicas-wanted']: 8, Deployment ml/train"
        " spec.template.spec.nodeSelector['nvidia.com/gpu.present']: true): kubectl apply refuses such an object"
        ' ("cannot unmarshal bool into Go struct field ... of type string", a number likewise), so quote them in the'
        " manifest; each is judged as if it were quoted"
    ]
    deployment = dump.objects[1].obj
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert deployment["metadata"]["annotations"] == {"replicas-wanted": "8"}
    # judged as quoted: the template lands on the labelled node; the report carries the note
    report = evaluate(dump, load_policies(), name="lab.yaml")
    [result] = [r for o in report.objects if o.ref.name == "train" for r in o.results if r.rule == "workload-schedulable"]
    assert result.result == "pass" and "gpu-1" in result.message
    assert dump.unquoted_note()[0] in report.notes


def test_the_same_values_quoted_are_no_error() -> None:
    quoted = parse_bytes(DUMP.replace(b"gpu.present: true}", b'gpu.present: "true"}').replace(b": 8}", b': "8"}'), "x")
    assert (quoted.errors, quoted.unquoted_note()) == ([], [])
