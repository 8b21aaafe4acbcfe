// node-feature-discovery: not implemented yet (renders nothing).
function(params) []
