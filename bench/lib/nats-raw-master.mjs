// The raw floor's "master" for bench/nats.mjs (forked, IPC): a bare nats.js client with a
// master's user JWT doing the least a master must do on NATS, with no brine code on the path:
// it subscribes brine.hb.* (counts the emulated minions' hellos and pings, parses nothing),
// keeps an R3 file stream on brine.ret.> (as the BRINE stream, deduplicated by message id) with
// one durable pull consumer, and for a round publishes one job text to every minion's
// brine.job.<m> and counts the returns: the fast copies on core NATS end a round, as they do for
// brine; the consumer acks the stream's copies (each minion publishes both).
//
// Parent -> child: { t: 'start', ... }, { t: 'round', jid, ids }, { t: 'stop' }.
// Child -> parent: { t: 'ready' }, { t: 'round', ms, publishMs, returns }, { t: 'stats', hb }.

import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { connect, nanos } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';

export const RAW_STREAM = 'RAWBENCH';

let nc;
let jsm;
let hb = 0;
let current; // { jid, want, got, t0, resolve }
let stopping = false;

function send(m) {
  if (process.connected) process.send(m);
}

async function start(o) {
  const nats = await import(pathToFileURL(path.join(o.buildRoot, 'src', 'nats', 'index.js')).href);
  const signer = nats.NkeySigner.fromKey(fs.readFileSync(o.masterPem, 'utf8'));
  const { accounts } = nats.loadAccounts(o.natsDir);
  nc = await connect({
    servers: o.servers,
    authenticator: nats.nkeyAuthenticator(signer, nats.masterUserJwt(signer, accounts, 'raw-master')),
    name: 'raw-master',
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    ...nats.natsPingSettings(o.heartbeatTimeoutMs),
  });
  nc.subscribe('brine.hb.*', { callback: () => hb++ });
  // the fast copies (brine.evt.<m>.ret), as brine's masters take them: a round ends when every
  // minion's copy is in (parsed for its jid, as a master must); the stream's copies are acked below
  nc.subscribe('brine.evt.*.ret', {
    callback: (_e, msg) => {
      const c = current;
      if (c === undefined) return;
      let ret;
      try {
        ret = JSON.parse(new TextDecoder().decode(msg.data));
      } catch {
        return;
      }
      if (ret?.jid !== c.jid || c.fastFrom.has(msg.subject)) return;
      c.fastFrom.add(msg.subject);
      if (c.fastFrom.size === c.want) {
        current = undefined;
        c.resolve();
      }
    },
  });
  jsm = await jetstreamManager(nc, { timeout: 5000 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await jsm.streams.add({
        name: RAW_STREAM,
        subjects: ['brine.ret.>'],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        duplicate_window: nanos(10 * 60_000),
        max_age: nanos(3600_000),
        num_replicas: o.replicas,
      });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await jsm.consumers.add(RAW_STREAM, { durable_name: 'raw', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ack_wait: nanos(30_000), max_ack_pending: 20_000 });
  const js = jetstream(nc, { timeout: 5000 });
  const consumer = await js.consumers.get(RAW_STREAM, 'raw');
  const messages = await consumer.consume({ max_messages: 1000, expires: Math.min(30_000, o.heartbeatTimeoutMs) });
  void (async () => {
    for await (const m of messages) {
      m.ack();
      if (current === undefined) continue;
      // brine.ret.<m>.<jid>
      if (m.subject.endsWith(current.jid)) {
        current.got++;
        if (current.got === current.want) {
          const c = current;
          current = undefined;
          c.resolve();
        }
      }
    }
  })();
  setInterval(() => send({ t: 'stats', hb }), 500);
  send({ t: 'ready' });
}

async function round({ jid, ids, timeoutMs }) {
  const text = JSON.stringify({ t: 'job', jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: 'emu-*', tgtType: 'glob', timeout: 120 });
  const t0 = process.hrtime.bigint();
  const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
  const done = new Promise((resolve) => {
    current = { jid, want: ids.length, got: 0, fastFrom: new Set(), resolve };
  });
  for (const id of ids) nc.publish(`brine.job.${id.replaceAll('.', '~')}`, text);
  const publishMs = ms();
  const c = current;
  const timer = setTimeout(() => {
    if (current === c) {
      current = undefined;
      c.resolve();
    }
  }, timeoutMs);
  await done;
  clearTimeout(timer);
  send({ t: 'round', ms: ms(), publishMs, returns: Math.max(c.got, c.fastFrom.size) });
}

async function stop() {
  if (stopping) return;
  stopping = true;
  try {
    await jsm?.streams.delete(RAW_STREAM);
  } catch {}
  await nc?.close().catch(() => {});
  process.exit(0);
}

process.on('message', (m) => {
  const fail = (err) => {
    process.stderr.write(`nats-raw-master: ${err.stack ?? err}\n`);
    process.exit(1);
  };
  if (m?.t === 'start') start(m).catch(fail);
  else if (m?.t === 'round') round(m).catch(fail);
  else if (m?.t === 'stop') void stop();
});
process.on('disconnect', () => void stop());
