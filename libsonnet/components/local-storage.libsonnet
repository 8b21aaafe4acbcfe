// local-storage: not implemented yet (renders nothing).
function(params) []
