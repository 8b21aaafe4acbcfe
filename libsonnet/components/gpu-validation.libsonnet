// gpu-validation: not implemented yet (renders nothing).
function(params) []
