// Starts the Till daemon from the build (dist/) with its configuration taken from the environment
// (TILL_DATABASE_URL, TILL_SECRET, TILL_PORT, TILL_RATE_LIMIT, TILL_DATA_DIR, ...), as `till daemon run` does.
// run.js uses it when the CLI is not built; it can also be run by hand:
//   TILL_DATABASE_URL=postgres://... TILL_SECRET=... node bench/auth/till-server.mjs
const dist = new URL('../../dist/src/', import.meta.url);
const { loadConfig } = await import(new URL('core/config/index.js', dist).href);
const { startDaemon } = await import(new URL('daemon/server.js', dist).href);

const daemon = await startDaemon({ config: loadConfig(process.env) });
process.stdout.write(`till listening on ${daemon.url}\n`);
process.send?.({ type: 'ready', url: daemon.url });

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  // exit() also flushes a --cpu-prof profile; do not wait forever on keep-alive connections.
  setTimeout(() => process.exit(0), 3000).unref();
  await daemon.close().catch(() => undefined);
  process.exit(0);
}
// stop() swallows its own errors and exits.
const onSignal = () => void stop();
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
process.on('disconnect', onSignal);
