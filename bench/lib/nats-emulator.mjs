// One process of emulated NATS minions for bench/nats.mjs (forked, IPC): each minion is its own
// nats.js connection to the cluster as the minion's user (its own Ed25519 key signs the server's
// nonce, its user JWT was issued by a master's key), with the minion link's settings: inbox
// prefix brine.inbox.<m>, pingInterval/maxPingOut from heartbeat_timeout, reconnect forever with
// jittered waits. It speaks the wire protocol of src/nats/minion-link.ts: hello on brine.hb.<m> at
// every (re)connect, a ping every heartbeat interval (spread over the interval), jobs on
// brine.job.<m> answered with a `return` (a fast copy on brine.evt.<m>.ret) published to JetStream on brine.ret.<m>.<jid> with the
// message id <jid>/<id> (ret true: test.ping), find_job answered with job_status. No job runs:
// this measures the transport and the masters, not the module layer.
//
// Parent -> child: { t: 'start', ...opts }, { t: 'stop' }.
// Child -> parent: { t: 'stats', ... } every statsMs, { t: 'started' } once every minion has
// been asked to connect.

import * as fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';

const stats = {
  total: 0,
  /** connected now */
  ready: 0,
  /** first connections made */
  connected: 0,
  /** nats.js 'reconnect' events (a connection moved to a server again) */
  reconnects: 0,
  /** nats.js 'disconnect' events */
  disconnects: 0,
  /** nats.js 'staleConnection' events: pings unanswered (natsPingSettings), the client gave up on its server */
  stales: 0,
  /** initial connect() attempts that failed (retried) */
  connectFailures: 0,
  connectErrors: {},
  /** connections nats.js closed for good (it stops redialling after two auth errors in a row) */
  closes: 0,
  closeErrors: {},
  /** new connections made after such a close (the minion link's next session) */
  redials: 0,
  /** nats.js 'error' status events by message (e.g. the server's 'Authentication Timeout') */
  statusErrors: {},
  /** this process's longest event-loop delay over the last stats period, ms */
  lagMaxMs: 0,
  hellos: 0,
  pings: 0,
  jobs: 0,
  /** returns JetStream acknowledged */
  acks: 0,
  /** returns JetStream did not acknowledge (published again later) */
  retFailures: 0,
  findJobs: 0,
};

let minions = [];
let stopping = false;
let statsTimer;
let wheelTimer;

const encoder = new TextEncoder();
// a starved emulator answers the server's nonce late: its event-loop delay is part of the evidence
const lag = monitorEventLoopDelay({ resolution: 20 });
lag.enable();

const why = (err) => String(err?.message ?? err?.code ?? err).slice(0, 60);
const bump = (table, key) => {
  table[key] = (table[key] ?? 0) + 1;
};

function send(m) {
  if (process.connected) process.send(m);
}

function sendStats() {
  stats.lagMaxMs = Math.round(lag.max / 1e6);
  lag.reset();
  send({ t: 'stats', at: Date.now(), ...stats, connectErrors: { ...stats.connectErrors }, closeErrors: { ...stats.closeErrors }, statusErrors: { ...stats.statusErrors } });
}

async function start(o) {
  const nats = await import(pathToFileURL(path.join(o.buildRoot, 'src', 'nats', 'index.js')).href);
  const list = JSON.parse(fs.readFileSync(o.minionsFile, 'utf8'));
  stats.total = list.length;
  const ping = nats.natsPingSettings(o.heartbeatTimeoutMs);
  minions = list.map((m, i) => {
    const token = nats.minionToken(m.id);
    return {
      id: m.id,
      index: i,
      signer: nats.NkeySigner.fromKey(m.pem),
      jwt: m.jwt,
      hb: `brine.hb.${token}`,
      job: `brine.job.${token}`,
      ret: `brine.ret.${token}`,
      fastRet: `brine.evt.${token}.ret`,
      inbox: `brine.inbox.${token}`,
      nc: undefined,
      js: undefined,
      ready: false,
      seq: 0,
    };
  });
  statsTimer = setInterval(sendStats, o.statsMs);

  // one timer for every minion's heartbeat: minion i pings in slot i % slots, so the pings of
  // the whole fleet are spread evenly over the interval (as minions that started at different
  // times are), and 10,000 minions cost one timer here instead of 10,000
  const slotMs = 100;
  const slots = Math.max(1, Math.round(o.heartbeatIntervalMs / slotMs));
  let slot = 0;
  wheelTimer = setInterval(() => {
    for (let i = slot; i < minions.length; i += slots) {
      const m = minions[i];
      if (!m.ready) continue;
      m.seq = (m.seq + 1) % 2 ** 31;
      publish(m, m.hb, { t: 'ping', seq: m.seq, returnsQueued: 0 });
      stats.pings++;
    }
    slot = (slot + 1) % slots;
  }, slotMs);

  const opts = (m) => ({
    servers: o.servers,
    authenticator: nats.nkeyAuthenticator(m.signer, m.jwt),
    name: m.id,
    inboxPrefix: m.inbox,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: o.reconnectTimeWaitMs,
    reconnectJitter: o.reconnectJitterMs,
    timeout: o.connectTimeoutMs,
    ...ping,
  });

  // connections in flight at once (a window, like the raw TLS floor's 64 handshakes)
  let next = 0;
  const worker = async () => {
    while (!stopping && next < minions.length) {
      const m = minions[next++];
      await openMinion(m, opts(m), o);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
  send({ t: 'started' });
}

async function openMinion(m, opts, o) {
  for (let attempt = 0; !stopping; attempt++) {
    try {
      m.nc = await connect(opts);
      break;
    } catch (err) {
      stats.connectFailures++;
      bump(stats.connectErrors, why(err));
      // the minion link's backoff: recon_default, doubling to recon_max, randomized
      const wait = Math.min(o.reconMaxMs, o.reconDefaultMs * 2 ** attempt) * (0.5 + Math.random() * 0.5);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  if (stopping) return m.nc?.close();
  const nc = m.nc;
  m.js = undefined;
  if (m.opened) stats.redials++;
  else stats.connected++;
  m.opened = true;
  nc.subscribe(m.job, { callback: (_err, msg) => onJob(m, msg, o) });
  becomeReady(m);
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        stats.disconnects++;
        if (m.ready) {
          m.ready = false;
          stats.ready--;
        }
      } else if (s.type === 'reconnect') {
        stats.reconnects++;
        becomeReady(m);
      } else if (s.type === 'staleConnection') {
        stats.stales++;
      } else if (s.type === 'error') {
        bump(stats.statusErrors, why(s.error));
      }
    }
  })();
  void nc.closed().then((err) => {
    if (m.ready) {
      m.ready = false;
      stats.ready--;
    }
    if (stopping) return;
    // nats.js gave up (two auth errors in a row: a server's 'Authentication Timeout' counts as
    // one). As the minion link: the session is over, a new one is dialled after the backoff.
    stats.closes++;
    bump(stats.closeErrors, why(err));
    const wait = o.reconDefaultMs * (0.5 + Math.random() * 0.5);
    setTimeout(() => void openMinion(m, opts, o), wait);
  });
}

function becomeReady(m) {
  if (m.ready) return;
  m.ready = true;
  stats.ready++;
  publish(m, m.hb, { t: 'hello', versions: [1], id: m.id, agent: 'brine-nats-bench' });
  stats.hellos++;
}

function publish(m, subject, message) {
  try {
    m.nc.publish(subject, encoder.encode(JSON.stringify(message)));
  } catch {
    // closed or draining: the next (re)connect sends hello again
  }
}

function onJob(m, msg, o) {
  let job;
  try {
    job = JSON.parse(new TextDecoder().decode(msg.data));
  } catch {
    return;
  }
  if (job.t === 'find_job') {
    stats.findJobs++;
    publish(m, m.hb, { t: 'job_status', jid: job.jid, running: false });
    return;
  }
  if (job.t !== 'job') return;
  stats.jobs++;
  const ret = { t: 'return', jid: job.jid, fun: job.fun, ret: true, retcode: 0, success: true };
  publishReturn(m, ret, o, 0);
}

function publishReturn(m, ret, o, attempt) {
  m.js ??= jetstream(m.nc, { timeout: o.connectTimeoutMs });
  // as the minion link: a fast copy to every master on core NATS, then the durable one
  publish(m, m.fastRet, ret);
  m.js.publish(`${m.ret}.${ret.jid}`, JSON.stringify(ret), { msgID: `${ret.jid}/${m.id}`, timeout: o.connectTimeoutMs }).then(
    () => {
      stats.acks++;
    },
    () => {
      stats.retFailures++;
      // as the minion link: kept and published again after a heartbeat interval (deduplicated by msgID)
      if (!stopping && attempt < 5) setTimeout(() => publishReturn(m, ret, o, attempt + 1), o.heartbeatIntervalMs);
    },
  );
}

async function stop() {
  stopping = true;
  clearInterval(wheelTimer);
  sendStats();
  clearInterval(statsTimer);
  await Promise.allSettled(minions.map((m) => m.nc?.close()));
  process.exit(0);
}

process.on('message', (m) => {
  if (m?.t === 'start')
    start(m).catch((err) => {
      process.stderr.write(`nats-emulator: ${err.stack ?? err}\n`);
      process.exit(1);
    });
  else if (m?.t === 'stop') void stop();
  else if (m?.t === 'stats') sendStats();
});
process.on('disconnect', () => void stop());
