// dcgm-exporter: not implemented yet (renders nothing).
function(params) []
