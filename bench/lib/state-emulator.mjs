// bench:states --emulate: N emulated minions (a forked child, driven over IPC), each a real
// MasterLink over the real TLS dialer, doing on the wire what one real minion did for a
// state.apply of the tree: at sign-in its grains and a pillar request; for each state.apply job
// the file server requests the real minion made (recorded from the master's trace log, in the
// same order, each waiting for its reply as the minion's caching client does), then a return of
// the real minion's size and shape (its own return with the minion ID swapped in).
// argv[2]: { build, port, count, prefix, pkiDir, runs: [{ requests, ret }] } (runs[i] for the i-th job)

const cfg = JSON.parse(process.argv[2]);
const mod = (rel) => import(`${cfg.build}/src/${rel}`);
const { systemClock } = await mod('util/clock.js');
const { createLogger } = await mod('util/logger.js');
const { loadOrCreateIdentity } = await mod('pki/index.js');
const { createMasterDialer } = await mod('transport/index.js');
const { MasterLink } = await mod('session/index.js');

const logger = createLogger({ name: 'state-emulator', level: 'warning', write: (l) => process.stderr.write(l) });
const identity = await loadOrCreateIdentity({ pkiDir: cfg.pkiDir, name: 'minion', commonName: `${cfg.prefix}emulator` });
const deps = {
  clock: systemClock,
  logger,
  ...createMasterDialer({
    identity,
    timeoutMs: 30_000,
    socketOptions: { enabled: true, idleSeconds: 60, count: -1, intervalSeconds: -1, userTimeoutMs: 60_000 },
    maxFrame: 64 * 1024,
    logger,
    cacheDns: true,
  }),
  trustMaster: () => undefined,
};

const stats = { ready: 0, pillars: 0, returned: 0, fileErrors: 0, errors: [] };
/** Sizes (JSON bytes) of the first minion's requests and replies, per run, for the raw floor. */
const sizes = [];
const minions = [];

function makeMinion(i) {
  const id = `${cfg.prefix}${i}`;
  const m = { id, link: undefined, waits: new Map(), rid: 0, jobs: 0, unacked: new Map(), running: new Set(), wasReady: false };
  const request = (msg) =>
    new Promise((resolve) => {
      m.rid = (m.rid + 1) % 2 ** 31;
      const rid = m.rid;
      m.waits.set(rid, resolve);
      if (!m.link.send({ ...msg, rid })) {
        m.waits.delete(rid);
        resolve({ ok: false, error: { code: 'LINK_DOWN', message: 'the link was down' } });
      }
    });
  const runJob = async (job) => {
    m.running.add(job.jid);
    const run = cfg.runs[Math.min(m.jobs, cfg.runs.length - 1)];
    const n = m.jobs++;
    const trace = i === 0 ? { requests: [], replies: [] } : undefined;
    for (const req of run.requests) {
      const reply = await request(req);
      if (trace) {
        trace.requests.push(JSON.stringify({ ...req, rid: m.rid }).length);
        trace.replies.push(JSON.stringify(reply).length);
      }
      // a minion probes salt://bench.sls before bench/init.sls: not found is an answer, not an error
      if (!reply.ok && reply.error?.code !== 'FILE_NOT_FOUND') {
        stats.fileErrors++;
        if (stats.errors.length < 5) stats.errors.push(`${id}: ${req.t} ${req.path ?? req.prefix}: ${reply.error?.code} ${reply.error?.message}`);
      }
    }
    const ret = { t: 'return', jid: job.jid, fun: job.fun, ret: JSON.parse(run.ret.split(cfg.soloId).join(id)), retcode: 0, success: true };
    if (trace) {
      trace.ret = JSON.stringify(ret).length;
      trace.job = JSON.stringify(job).length;
      sizes[n] = trace;
    }
    m.running.delete(job.jid);
    m.unacked.set(job.jid, ret);
    m.link.send(ret);
    stats.returned++;
  };
  m.link = new MasterLink(
    { host: '127.0.0.1', port: cfg.port },
    deps,
    { id, agent: 'brine-state-emulator', authTimeoutMs: 30_000, heartbeatIntervalMs: 10_000, heartbeatTimeoutMs: 30_000, maxFrame: 16 * 1024 * 1024 },
    { backoff: { baseMs: 1000, maxMs: 10_000, randomize: true }, acceptanceWaitMs: 1000, acceptanceWaitMaxMs: 0, rejectedRetry: true },
    {
      onReady: () => {
        if (!m.wasReady) stats.ready++;
        m.wasReady = true;
        // as a real minion: grains, then the pillar request, on the new session
        m.link.send({ t: 'grains', grains: { id, os_family: 'Debian', os: 'Debian', kernel: 'Linux' } });
        void request({ t: 'pillar_request' }).then(() => stats.pillars++);
        for (const ret of m.unacked.values()) m.link.send(ret);
      },
      onDown: () => {
        for (const w of m.waits.values()) w({ ok: false, error: { code: 'LINK_DOWN', message: 'the link went down' } });
        m.waits.clear();
      },
      onMessage: (msg) => {
        if (msg.t === 'file_reply' || msg.t === 'pillar_reply') {
          const w = m.waits.get(msg.rid);
          m.waits.delete(msg.rid);
          w?.(msg);
        } else if (msg.t === 'ack') m.unacked.delete(msg.jid);
        else if (msg.t === 'job') {
          if (msg.fun === 'state.apply') void runJob(msg);
          else m.link.send({ t: 'return', jid: msg.jid, fun: msg.fun, ret: true, retcode: 0, success: true });
        } else if (msg.t === 'find_job') m.link.send({ t: 'job_status', jid: msg.jid, running: m.running.has(msg.jid) });
      },
      onFatal: (err) => {
        if (stats.errors.length < 5) stats.errors.push(`${id}: ${err.code} ${err.message}`);
      },
    },
  );
  return m;
}

for (let i = 0; i < cfg.count; i++) minions.push(makeMinion(i));
// 200 sign-ins a second: the master's default auth_rate
let next = 0;
const starter = setInterval(() => {
  for (let k = 0; k < 2 && next < minions.length; k++) minions[next++].link.start();
  if (next >= minions.length) clearInterval(starter);
}, 10);

process.on('message', (cmd) => {
  if (cmd.t === 'stats') process.send({ t: 'stats', ...stats, sizes });
  else if (cmd.t === 'close') {
    clearInterval(starter);
    for (const m of minions) m.link.stop();
    setTimeout(() => process.exit(0), 500).unref();
  }
});
