// One nats-server SIGKILLed under N emulated minions (bench/nats.mjs, issue 13 and issue 27
// point 5): the same procedure in the raw phase (the floor: bare nats.js connections, a bare
// master) and in the brine phase, so the two times to "all back" come from the same run.
// Besides the times it gathers the evidence for a slow recovery: nats.js connections closed for
// good and why, the servers' error replies the clients saw ('Authentication Timeout'), the
// emulators' worst event-loop delay, and the servers' own log lines about slow clients.

import * as fs from 'node:fs';
import { sleep } from './procfs.mjs';
import { progress } from './report.mjs';

/** Lines of the servers' logs that explain a slow recovery, counted per pattern. */
const LOG_PATTERNS = {
  authTimeout: /Authentication Timeout/,
  authViolation: /Authorization Violation/,
  readloop: /Readloop processing time/,
  slowConsumer: /Slow Consumer/i,
  staleConnection: /Stale Client Connection/i,
};

function logCounts(nodes) {
  const out = Object.fromEntries(Object.keys(LOG_PATTERNS).map((k) => [k, 0]));
  for (const node of nodes) {
    let text = '';
    try {
      text = fs.readFileSync(node.logFile, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) for (const [k, re] of Object.entries(LOG_PATTERNS)) if (re.test(line)) out[k]++;
  }
  return out;
}

/**
 * Why the servers closed client connections, per reason, from their /connz of closed connections
 * (nats-server keeps the last 10,000): 'Authentication Timeout', 'Stale Connection', 'Slow Consumer
 * (Write Deadline)', 'Client Closed'... nats-server logs most of these only at debug level.
 */
async function closedReasons(nodes) {
  const out = {};
  for (const node of nodes) {
    try {
      const res = await fetch(`http://127.0.0.1:${node.ports.monitor}/connz?state=closed&limit=10000`);
      for (const c of (await res.json()).connections ?? []) out[c.reason ?? '?'] = (out[c.reason ?? '?'] ?? 0) + 1;
    } catch {}
  }
  return out;
}

const minus = (a, b) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]));
const tableMinus = (a = {}, b = {}) => Object.fromEntries(Object.entries(a).flatMap(([k, v]) => (v - (b[k] ?? 0) > 0 ? [[k, v - (b[k] ?? 0)]] : [])));

/** Seconds after `from` when `value(stats)` first reached each fraction of `n` (null: never). */
export function spreadS(history, from, value, n) {
  const marks = [0.5, 0.9, 0.99, 1];
  return Object.fromEntries(
    marks.map((m) => {
      const hit = history.find((s) => s.at >= from && value(s) >= Math.ceil(m * n));
      return [`p${Math.round(m * 100)}`, hit ? (hit.at - from) / 1000 : null];
    }),
  );
}

/**
 * SIGKILLs the first server holding no client whose name matches `spare` (the masters), then
 * waits up to `timeoutMs` until its share has come back (a nats.js reconnect, or a new
 * connection after nats.js closed the old one) and all `n` are connected.
 */
export async function killOneServer({ cluster, emu, n, spare, timeoutMs, label }) {
  const masters = await cluster.countClients(spare);
  const victim = cluster.nodes.find((nd) => masters[nd.name] === 0) ?? cluster.nodes[0];
  const placement = await cluster.countClients(/^emu-/);
  const share = placement[victim.name];
  const survivors = cluster.nodes.filter((nd) => nd !== victim);
  progress(`${label}: SIGKILL nats-server ${victim.name} (${share} minions, ${masters[victim.name]} masters on it)`);
  const s0 = { ...emu.stats };
  const logs0 = logCounts(survivors);
  const closed0 = await closedReasons(survivors);
  const back = (s) => s.reconnects - s0.reconnects + (s.redials - s0.redials);
  const killed = Date.now();
  await cluster.kill(victim, 'SIGKILL');
  const ticker = setInterval(
    () =>
      progress(
        `  ${label} ${((Date.now() - killed) / 1000).toFixed(0)} s: ${emu.stats.ready} connected, ${back(emu.stats)} back, ${emu.stats.disconnects - s0.disconnects} disconnects, ${emu.stats.closes - s0.closes} closed by nats.js, emulator lag ${emu.stats.lagMaxMs} ms`,
      ),
    10_000,
  );
  let allBackMs = null;
  try {
    await emu.waitUntil((s) => back(s) >= share && s.ready === n, timeoutMs, `the ${share} minions of ${victim.name} to come back`);
    allBackMs = Date.now() - killed;
  } catch (err) {
    progress(`${label}: ${err.message}: ${emu.stats.ready} of ${n} connected, ${back(emu.stats)} back`);
  } finally {
    clearInterval(ticker);
  }
  // the stats arrive every 100 ms: one more period so the last figures are in
  await sleep(200);
  const s1 = emu.stats;
  const window = emu.history.filter((s) => s.at >= killed);
  return {
    victim: victim.name,
    mastersOnIt: masters[victim.name],
    share,
    allBackMs,
    atThatPoint: { ready: s1.ready, back: back(s1), disconnects: s1.disconnects - s0.disconnects },
    // clients of the surviving servers that gave up on them too (pings unanswered): a cascade
    stales: (s1.stales ?? 0) - (s0.stales ?? 0),
    reconnectSpreadS: spreadS(emu.history, killed, back, share),
    reconnects: s1.reconnects - s0.reconnects,
    // nats.js gave up on these connections (two auth errors in a row) and a new one was dialled
    closes: s1.closes - s0.closes,
    redials: s1.redials - s0.redials,
    closeErrors: tableMinus(s1.closeErrors, s0.closeErrors),
    statusErrors: tableMinus(s1.statusErrors, s0.statusErrors),
    emulatorLagMaxMs: Math.max(0, ...window.map((s) => s.lagMaxMs ?? 0)),
    serverLog: minus(logCounts(survivors), logs0),
    serverClosedReasons: tableMinus(await closedReasons(survivors), closed0),
    killedAt: killed,
  };
}

/** One line for the report. */
export function describeLoss(k) {
  const spread = Object.values(k.reconnectSpreadS)
    .map((v) => (v === null ? '-' : v.toFixed(1)))
    .join(' / ');
  const back = k.allBackMs === null ? `never (${JSON.stringify(k.atThatPoint)})` : `${(k.allBackMs / 1000).toFixed(1)} s`;
  return `nats-server ${k.victim} SIGKILLed (${k.share} minions): all back after ${back} (50/90/99/100%: ${spread} s); stale ${k.stales}; nats.js closed ${k.closes} for good ${JSON.stringify(k.closeErrors)}, server errors seen ${JSON.stringify(k.statusErrors)}; emulator lag max ${k.emulatorLagMaxMs} ms; server logs ${JSON.stringify(k.serverLog)}; connections the servers closed ${JSON.stringify(k.serverClosedReasons)}`;
}
