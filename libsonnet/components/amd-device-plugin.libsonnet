// amd-device-plugin: not implemented yet (renders nothing).
function(params) []
