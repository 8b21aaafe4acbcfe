// keda: not implemented yet (renders nothing).
function(params) []
