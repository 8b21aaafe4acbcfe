"""gpu-gitops: render and lint GitOps manifests for GPU / AI Kubernetes clusters."""

__version__ = "0.1.0"
