// The Till daemon (from dist/, configured from the environment like bench/auth/till-server.mjs) with a cheap event
// source inside it, for bench/webhooks/one-endpoint.mjs. Events are outbox rows written through the core's
// recordEvents, in batches of one transaction each, by the daemon's own process: the commit wakes the delivery worker
// exactly as an API request's commit does (onEventsCommitted), without the HTTP and domain work an API request costs
// (PATCH /v1/products tops out at 400-650 commits/s on 2 CPUs, below the rates measured here).
//
// IPC from the parent:
//   {type:'emit', organizationId, rate, durationMs, customers, from}  paced events for durationMs, then
//                                                                      {type:'emitted', count, behindMs}
//   {type:'backlog', organizationId, count, customers, from}          `count` events as fast as they can be written,
//                                                                      then {type:'backlog-ready', count} once fanned out
//   {type:'settle'}                                                   {type:'settled'} once every outbox row is fanned
//                                                                      out (so deleting the endpoint takes them all)
// Each event is `order.updated` with data {id: "e<n>", n, customer_id: "cus_<n % customers>"}: the customer is its
// ordering key, and `n` rises in commit order, which the parent's receiver checks per customer.
const dist = new URL('../../dist/src/', import.meta.url);
const { loadConfig } = await import(new URL('core/config/index.js', dist).href);
const { startDaemon } = await import(new URL('daemon/server.js', dist).href);
const { recordEvents } = await import(new URL('core/kernel/outbox.js', dist).href);

const daemon = await startDaemon({ config: loadConfig(process.env) });
const db = daemon.core.db;
process.stdout.write(`till listening on ${daemon.url}\n`);
process.send?.({ type: 'ready', url: daemon.url });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function events(organizationId, from, count, customers) {
  const at = new Date();
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return {
      organizationId,
      type: 'order.updated',
      data: { id: `e${n}`, n, customer_id: `cus_${n % customers}`, amount: 1000, currency: 'usd' },
      at,
    };
  });
}

async function write(organizationId, from, count, customers) {
  await db.transaction((trx) => recordEvents(trx, events(organizationId, from, count, customers)));
}

/** Open loop: every 2 ms the events due by now are written in one transaction (a late tick writes more, not later). */
async function emit({ organizationId, rate, durationMs, customers, from }) {
  const start = performance.now();
  let written = 0;
  let behindMs = 0;
  for (;;) {
    const elapsed = performance.now() - start;
    if (elapsed >= durationMs) break;
    const due = Math.floor((elapsed / 1000) * rate) - written;
    if (due > 0) {
      const t0 = performance.now();
      await write(organizationId, from + written, due, customers);
      written += due;
      behindMs = Math.max(behindMs, performance.now() - t0);
    }
    await sleep(2);
  }
  return { count: written, behindMs };
}

/** Once the dispatcher has fanned every outbox row out. */
async function dispatched() {
  for (;;) {
    const [{ n }] = await db('outbox_events').whereNull('dispatched_at').count({ n: '*' });
    if (Number(n) === 0) return;
    await sleep(50);
  }
}

async function backlog({ organizationId, count, customers, from }) {
  for (let done = 0; done < count; done += 1000)
    await write(organizationId, from + done, Math.min(1000, count - done), customers);
  // Ready once every row is fanned out: the events wait as webhook events, as after an outage.
  await dispatched();
  return { count };
}

process.on('message', (message) => {
  const work =
    message.type === 'emit'
      ? emit(message).then((result) => ({ type: 'emitted', ...result }))
      : message.type === 'backlog'
        ? backlog(message).then((result) => ({ type: 'backlog-ready', ...result }))
        : message.type === 'settle'
          ? dispatched().then(() => ({ type: 'settled' }))
          : null;
  work?.then(
    (reply) => process.send(reply),
    (error) => process.send({ type: 'failed', error: String(error?.stack ?? error) }),
  );
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 3000).unref();
  await daemon.close().catch(() => undefined);
  process.exit(0);
}
const onSignal = () => void stop();
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
process.on('disconnect', onSignal);
