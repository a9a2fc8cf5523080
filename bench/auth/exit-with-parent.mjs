// Preloaded (node --import) into a server that does not watch its IPC channel itself, such as
// `bin/till.js daemon run`: when the benchmark that forked it goes away, even by SIGKILL, the channel closes and
// the server gets the SIGTERM it would have sent.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
