// node-feature-rules: not implemented yet (renders nothing).
function(params) []
