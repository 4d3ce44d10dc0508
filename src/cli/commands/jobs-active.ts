// `brine jobs active`: the jobs still running somewhere (Salt's jobs.active runner). Asks every
// connected minion with saltutil.running and joins the answers by jid, with the job cache's
// target and user where the cache has the job.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { controlSocketPath } from '../../master/control-socket-path.js';
import { JobCache } from '../../jobs/index.js';
import { BrineError } from '../../util/errors.js';
import { masterOptions, type ConfigFlags } from '../common.js';
import { format, outputterNames, type Outputter } from '../output/index.js';
import { startJob } from '../run/index.js';

export interface ActiveFlags extends ConfigFlags {
  out?: string;
  timeout?: string;
  color?: boolean;
}

interface RunningEntry {
  jid: string;
  fun: string;
  arg: unknown[];
  pid: number;
  started: string;
}

function isRunningEntry(x: unknown): x is RunningEntry {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return typeof r.jid === 'string' && typeof r.fun === 'string';
}

export async function activeJobs(flags: ActiveFlags): Promise<number> {
  const opts = masterOptions(flags);
  const out = (flags.out ?? 'nested') as Outputter;
  if (!outputterNames().includes(out)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const timeout = flags.timeout === undefined ? opts.timeout : Number(flags.timeout);
  if (!Number.isFinite(timeout) || timeout < 0) throw new BrineError('USAGE', `-t/--timeout must be a number of seconds, got '${flags.timeout}'`);

  const byJid = new Map<string, { entry: RunningEntry; running: Array<Record<string, number>> }>();
  const stream = await startJob(
    controlSocketPath(opts),
    { t: 'publish', tgt: '*', tgtType: 'glob', fun: 'saltutil.running', arg: [], kwarg: {}, timeout, user: process.env.USER ?? 'root' },
    {
      onReturn: (m) => {
        if (!Array.isArray(m.ret)) return;
        for (const e of m.ret) {
          if (!isRunningEntry(e)) continue;
          const slot = byJid.get(e.jid) ?? { entry: e, running: [] };
          slot.running.push({ [m.minion]: typeof e.pid === 'number' ? e.pid : 0 });
          byJid.set(e.jid, slot);
        }
      },
    },
  );
  try {
    await stream.finished;
  } catch (err) {
    // no minions at all: nothing can be running
    if (err instanceof BrineError && err.code === 'NO_MINIONS_MATCHED') return 0;
    throw err;
  }

  const cacheFile = path.join(opts.cachedir, 'jobs.sqlite');
  const cache = fs.existsSync(cacheFile) ? JobCache.open(cacheFile, { keepJobsSeconds: 0 }) : undefined;
  const data: Record<string, unknown> = {};
  try {
    for (const jid of [...byJid.keys()].sort()) {
      const { entry, running } = byJid.get(jid)!;
      const job = cache?.getJob(jid);
      const info: Record<string, unknown> = { Function: entry.fun, Arguments: entry.arg, StartTime: entry.started, Running: running };
      if (job) {
        info.Target = job.tgt;
        info['Target-type'] = job.tgtType;
        info.User = job.user;
      }
      Object.defineProperty(data, jid, { value: info, enumerable: true, writable: true, configurable: true });
    }
  } finally {
    cache?.close();
  }
  const color = flags.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR;
  process.stdout.write(format(out, data, { color }));
  return 0;
}
