// node-tuning: not implemented yet (renders nothing).
function(params) []
