// Watches a master while a job runs: CPU seconds (utime + stime from /proc), RSS sampled every
// 250 ms (peak and median), and the longest event-loop stall read from the master's own metrics
// endpoint (metrics_port): prom-client's nodejs_eventloop_lag_max_seconds comes from
// perf_hooks.monitorEventLoopDelay and is reset at each scrape, so the largest value over the
// scrapes is the longest the loop was blocked during the window (10 ms resolution). An idle
// probe process (stall-probe.mjs) measures the same over the same window: the machine's floor.

import { fork } from 'node:child_process';
import * as http from 'node:http';
import { fileURLToPath } from 'node:url';
import { nextMessage, track } from './cleanup.mjs';
import { cpuSeconds, median, rssKb, sleep } from './procfs.mjs';

function scrape(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        const m = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(body);
        resolve(m ? Number(m[1]) * 1000 : undefined);
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}

let probe;

/** The idle probe process, started once and stopped with the benchmark (cleanup.mjs). */
function stallProbe() {
  if (!probe) {
    probe = track(fork(fileURLToPath(new URL('./stall-probe.mjs', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    probe.channel?.unref();
    probe.unref();
  }
  return probe;
}

/** Starts watching `pid` (metrics on `metricsPort`); `stop()` resolves with the figures. */
export async function watchMaster(pid, metricsPort) {
  const p = stallProbe();
  await scrape(metricsPort); // resets the delay histogram: the window starts now
  p.send({ t: 'reset' });
  const cpu0 = cpuSeconds(pid);
  const rss = [];
  const stalls = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const r = rssKb(pid);
      if (r !== undefined) rss.push(r);
      const s = await scrape(metricsPort);
      if (s !== undefined) stalls.push(s);
      await sleep(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const s = await scrape(metricsPort);
      if (s !== undefined) stalls.push(s);
      p.channel?.ref();
      p.send({ t: 'read' });
      const { maxMs: probeStallMs } = await nextMessage(p, 'stall', 10_000, 'the stall probe');
      p.channel?.unref();
      return {
        probeStallMs,
        cpuSeconds: cpuSeconds(pid) - cpu0,
        rssPeakKb: Math.max(...rss),
        rssMedianKb: median(rss),
        maxStallMs: stalls.length ? Math.max(...stalls) : null,
        scrapes: stalls.length,
      };
    },
  };
}
