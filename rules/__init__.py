"""verdict's engine: read a Kubernetes dump, index it, evaluate compiled policies, render a report.

Data flows one way: ``reader`` (bytes -> objects with their place) -> ``index`` -> ``evaluate``
(compiled policies x matching objects -> results) -> ``render``.
"""

__version__ = "0.1.0"
