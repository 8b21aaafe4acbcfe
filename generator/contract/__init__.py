"""A cluster's contract: what it offers the workloads that will run on it (pools, taints,
resources, namespaces, quotas, classes, admission policies), built from the cluster's completed
input and its rendered tree (``build``), as plain data (``model``). Above inputs, below lint:
``lint --cluster`` checks workloads against it.

May import: generator.errors, generator.paths, generator.yamlio, generator.inputs, generator.kube.
"""
