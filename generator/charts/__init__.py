"""Helm charts the clusters deploy, inflated offline: found, locked, cached, rendered.

The engines (helm-controller, Argo CD's repo-server) inflate a chart inside the cluster; this
part does what they do, before merge, so a chart bump is reviewed, validated and linted as the
objects it changes. ``helm`` finds and runs a real Helm; ``lock`` is the committed record of
every chart's digest; ``store`` the content-addressed cache of chart packages; ``pull`` fills
it (the only code here that reaches the network); ``releases`` reads what the engine would
install from the rendered HelmRelease/Application objects; ``inflate`` runs ``helm template``
as the engine does and caches the result by everything it depends on; ``offline`` finds what
``helm template`` cannot know of the cluster (``lookup``, generated values, ``.Capabilities``).

May import: generator.regex, generator.diagnostic, generator.errors, generator.paths, generator.yamlio.
"""
