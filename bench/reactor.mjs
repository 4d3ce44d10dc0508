#!/usr/bin/env node
// The reactor's latency from event to job published (issue 25): the master's real EventBus,
// JobTracker (a real SQLite job cache, --minions accepted IDs) and reactor engine in one process.
// An event `bench/<n>` is fired; the reactor renders a reactor SLS (Jinja then YAML) and publishes
// local.test.ping to data['id']; the time to the job's salt/job/<jid>/new on the bus is measured.
// Raw floor, same run: a bus subscriber that publishes the same job itself, with no reactor (what
// any event-driven publish costs). One event at a time for latency, then bursts for throughput.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { printReport, progress, ratio, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:reactor -- [--events N] [--burst N] [--minions N] [--build-dir DIR]
  --events N     events fired one at a time, per mode (default 2000)
  --burst N      events fired at once for the throughput figure (default 5000)
  --minions N    accepted minion IDs the target is matched among (default 1000)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { events: 2000, burst: 5000, minions: 1000, buildDir: 'dist' }, USAGE);

const pctl = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};

async function main() {
  const build = resolveBuild(f.buildDir);
  const { EventBus } = await import(build.module('master/event-bus.js'));
  const { JobTracker } = await import(build.module('master/job-tracker.js'));
  const { reactorClients } = await import(build.module('master/reactor-clients.js'));
  const { Reactor, parseReactorMap } = await import(build.module('reactor/index.js'));
  const { JobCache, JidGenerator } = await import(build.module('jobs/index.js'));
  const { systemClock } = await import(build.module('util/clock.js'));
  const { silentLogger } = await import(build.module('util/logger.js'));

  const tmp = tempDir('brine-bench-reactor-');
  const logger = silentLogger();
  const ids = Array.from({ length: f.minions }, (_, i) => `m${i}`);
  const sls = path.join(tmp, 'ping.sls');
  fs.writeFileSync(sls, "ping_it:\n  local.test.ping:\n    - tgt: {{ data['id'] }}\n");

  /** A bus and a job tracker over a fresh job cache; `react` wires the reactor (else the raw floor). */
  function setup(react) {
    const bus = new EventBus(systemClock);
    const cache = JobCache.open(path.join(tmp, `jobs-${react ? 'reactor' : 'raw'}.sqlite`), { keepJobsSeconds: 86_400, clock: systemClock });
    const tracker = new JobTracker({
      clock: systemClock,
      logger,
      cache,
      jids: new JidGenerator(systemClock),
      acceptedIds: () => ids,
      session: () => undefined,
      defaultTimeoutS: 5,
      emit: (e) => bus.emit(e),
    });
    let reactor;
    if (react) {
      const clients = reactorClients({ opts: {}, master: undefined, jobs: tracker, cache, targeting: { grains: () => undefined, pillar: () => undefined }, logger, clock: systemClock });
      const map = parseReactorMap([{ 'bench/*': [sls] }]);
      reactor = new Reactor({ map, clients, readSls: (p) => fs.readFileSync(p, 'utf8'), loadFile: () => undefined, opts: {}, grains: {}, workers: 10, hwm: 1_000_000, logger, clock: systemClock });
      bus.subscribe((e) => reactor.onEvent(e));
    } else {
      const sink = { onReturn: () => {}, onDone: () => {} };
      bus.subscribe((e) => {
        if (e.tag.startsWith('bench/')) tracker.publish({ t: 'publish', tgt: e.data.id, tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {}, user: 'root' }, sink);
      });
    }
    const published = [];
    bus.subscribe((e) => {
      if (e.tag.startsWith('salt/job/') && e.tag.endsWith('/new')) published.push(performance.now());
    });
    return { bus, cache, published, reactor };
  }

  async function run(react) {
    const s = setup(react);
    const lat = [];
    for (let i = 0; i < f.events; i++) {
      const before = s.published.length;
      const t0 = performance.now();
      s.bus.fire(`bench/${i}`, { id: ids[i % ids.length] });
      while (s.published.length === before) await new Promise((r) => setImmediate(r));
      lat.push(s.published[before] - t0);
    }
    const start = s.published.length;
    const t0 = performance.now();
    for (let i = 0; i < f.burst; i++) s.bus.fire(`bench/burst/${i}`, { id: ids[i % ids.length] });
    while (s.published.length < start + f.burst) await new Promise((r) => setImmediate(r));
    const burstMs = performance.now() - t0;
    if (s.reactor && s.reactor.recent.counts.published < f.events + f.burst) throw new Error(`the reactor published ${s.reactor.recent.counts.published} jobs, expected ${f.events + f.burst}`);
    await s.reactor?.close();
    s.cache.close();
    return { p50: pctl(lat, 50), p99: pctl(lat, 99), max: Math.max(...lat), perSecond: Math.round((f.burst / burstMs) * 1000) };
  }

  progress(`raw floor: ${f.events} events one at a time, then a burst of ${f.burst}`);
  const raw = await run(false);
  progress(`reactor: ${f.events} events one at a time, then a burst of ${f.burst}`);
  const reactor = await run(true);
  const ms = (x) => `${x.toFixed(3)} ms`;
  printReport(
    'bench:reactor',
    [
      [
        `event fired -> salt/job/<jid>/new on the bus (one event at a time, ${f.events} events, ${f.minions} accepted minions)`,
        [
          `raw floor (a subscriber publishes):  p50 ${ms(raw.p50)}  p99 ${ms(raw.p99)}  max ${ms(raw.max)}`,
          `reactor (render SLS + publish):      p50 ${ms(reactor.p50)}  p99 ${ms(reactor.p99)}  max ${ms(reactor.max)}  (p50 ${showRatio(ratio(reactor.p50, raw.p50))} the floor)`,
        ],
      ],
      [
        `burst of ${f.burst} events fired at once (reactor_worker_threads 10)`,
        [`raw floor: ${raw.perSecond} jobs/s`, `reactor:   ${reactor.perSecond} jobs/s  (${showRatio(ratio(raw.perSecond, reactor.perSecond))} slower than the floor)`],
      ],
    ],
    { raw, reactor, events: f.events, burst: f.burst, minions: f.minions },
  );
}

main().catch((err) => {
  process.stderr.write(`bench:reactor failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
