// `brine emulate`: run many emulated minions in one process against a master (fault tests,
// benchmarks). Prints one JSON stats line per --stats-interval to stdout.

import * as os from 'node:os';
import * as path from 'node:path';
import type { Command } from 'commander';
import { MinionEmulator } from '../../emulator/index.js';
import { parseMasterEndpoint } from '../../minion/index.js';
import { BrineError } from '../../util/errors.js';
import { createLogger, isSaltLogLevel } from '../../util/logger.js';
import { fail, onSignals } from '../common.js';

interface EmulateFlags {
  master: string;
  count: string;
  prefix: string;
  pkiDir?: string;
  heartbeatInterval: string;
  heartbeatTimeout: string;
  reconDefault: string;
  reconMax: string;
  authTimeout: string;
  ramp: string;
  statsInterval: string;
  logLevel: string;
  pillar?: boolean;
  gcStats?: boolean;
}

function num(value: string, flag: string, min = 0): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new BrineError('USAGE', `${flag} must be a number >= ${min}, got '${value}'`);
  return n;
}

async function emulate(flags: EmulateFlags): Promise<void> {
  if (!isSaltLogLevel(flags.logLevel)) throw new BrineError('USAGE', `unknown log level '${flags.logLevel}'`);
  // one process speaks for thousands of minions: when a master restarts they all log at once, and
  // a write(2) per line was a tenth of the emulator's CPU (bench/README.md, issue 12); lines are
  // gathered and written every 100 ms (and when the process ends)
  const stderr = batchedStderr();
  const logger = createLogger({ name: 'emulator', level: flags.logLevel, write: stderr.write });
  const interval = num(flags.heartbeatInterval, '--heartbeat-interval', 0.01);
  const timeout = num(flags.heartbeatTimeout, '--heartbeat-timeout', 0.01);
  if (timeout <= interval) throw new BrineError('USAGE', '--heartbeat-timeout must be longer than --heartbeat-interval');
  const emulator = await MinionEmulator.start({
    master: parseMasterEndpoint(flags.master, 4506),
    count: num(flags.count, '--count', 1),
    prefix: flags.prefix,
    pkiDir: flags.pkiDir ?? path.join(os.tmpdir(), `brine-emulator-${process.getuid?.() ?? 0}`),
    heartbeatIntervalMs: interval * 1000,
    heartbeatTimeoutMs: timeout * 1000,
    authTimeoutMs: num(flags.authTimeout, '--auth-timeout', 0.1) * 1000,
    reconDefaultMs: num(flags.reconDefault, '--recon-default'),
    reconMaxMs: num(flags.reconMax, '--recon-max'),
    acceptanceWaitMs: 1000,
    rampPerSecond: num(flags.ramp, '--ramp'),
    keepalive: { enabled: true, idleSeconds: 60, count: -1, intervalSeconds: -1, userTimeoutMs: timeout * 1000 },
    ...(flags.pillar ? { pillar: true } : {}),
    logger,
  });
  const gc = flags.gcStats ? await gcCounter() : undefined;
  const print = () => process.stdout.write(`${JSON.stringify({ at: Date.now(), ...emulator.stats, ...(gc ? { gc: gc() } : {}) })}\n`);
  const timer = setInterval(print, num(flags.statsInterval, '--stats-interval', 0.05) * 1000);
  onSignals(async () => {
    clearInterval(timer);
    print();
    emulator.stop();
    // let the goodbyes and the last stats line flush
    await new Promise((resolve) => setTimeout(resolve, 100));
    stderr.flush();
  });
}

/**
 * --gc-stats (bench:fleet --trace-gc): the emulator's own V8 collections so far, by kind (count
 * and ms), read from perf_hooks' gc entries, so a benchmark can tell which rounds a collection
 * fell in. perf_hooks is loaded only with the flag.
 */
async function gcCounter(): Promise<() => { minorN: number; minorMs: number; majorN: number; majorMs: number }> {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const totals = { minorN: 0, minorMs: 0, majorN: 0, majorMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        totals.majorN++;
        totals.majorMs += e.duration;
      } else {
        totals.minorN++;
        totals.minorMs += e.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  return () => ({ ...totals, minorMs: Math.round(totals.minorMs * 10) / 10, majorMs: Math.round(totals.majorMs * 10) / 10 });
}

/** Log lines gathered and written to stderr together, at most 100 ms late; flushed at exit. */
function batchedStderr(): { write(line: string): void; flush(): void } {
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    // synchronous on Linux for files and pipes alike, as each line's own write was
    process.stderr.write(text);
  };
  process.once('exit', flush);
  return {
    write: (line) => {
      pending.push(line);
      if (pending.length >= 512) flush();
      else timer ??= setTimeout(flush, 100).unref();
    },
    flush,
  };
}

export function registerEmulate(program: Command): void {
  program
    .command('emulate')
    .description('run many emulated minions in one process (real client code) against a master')
    .requiredOption('--master <host:port>', 'the master to connect to')
    .option('--count <n>', 'how many minions', '100')
    .option('--prefix <prefix>', 'minion IDs are <prefix><n>', 'emu-')
    .option('--pki-dir <dir>', 'where the shared emulator key pair lives')
    .option('--heartbeat-interval <s>', 'seconds', '10')
    .option('--heartbeat-timeout <s>', 'seconds', '30')
    .option('--recon-default <ms>', 'first reconnect delay bound', '1000')
    .option('--recon-max <ms>', 'largest reconnect delay bound', '10000')
    .option('--auth-timeout <s>', 'connect + handshake + auth deadline', '5')
    .option('--ramp <n>', 'new connections per second while starting (0 = all at once)', '0')
    .option('--stats-interval <s>', 'print a JSON stats line this often', '1')
    .option('--pillar', 'send grains and ask for the pillar at sign-in and on saltutil.refresh_pillar, as real minions do')
    .option('--gc-stats', "add the emulator's V8 garbage collections so far (count, ms, minor and major) to each stats line")
    .option('-l, --log-level <level>', 'log level', 'warning')
    .action(async (flags: EmulateFlags) => {
      try {
        await emulate(flags);
      } catch (err) {
        fail(err);
      }
    });
}
