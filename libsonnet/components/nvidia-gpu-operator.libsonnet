// nvidia-gpu-operator: not implemented yet (renders nothing).
function(params) []
