// The minion's side of the mine: runs the mine_functions (config merged with pillar) through the
// job runner, sends their data to the master, and asks the master for other minions' data.
// mine.update runs at start once a master session is up, every mine_interval, and when the
// pillar's mine_functions change. A function that fails is reported by name (log and return);
// the others are still sent.

import { BrineError, toBrineError } from '../../util/errors.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { MAX_MINE_JSON, TARGET_TYPES, mineGetSchema, mineSendSchema, type MineEntry } from '../../protocol/index.js';
import type { ExecResult, MineAccess, MineFunctionSpec, MineUpdateReport } from '../../modules/index.js';
import { describeMineFunctions, mergeMineFunctions, parseMineFunctions, type MineFunction } from './mine-functions.js';
import { MineTimer } from './mine-timer.js';
import type { MineBackend, MineBody } from './master-mine.js';
import type { PillarStore } from '../pillar-store.js';

/** A mine function that runs longer is stopped (JOB_TIMEOUT), so a hung one cannot stall every later update; job_timeout wins when shorter. */
export const MINE_FUNCTION_TIMEOUT_S = 600;

export interface MineServiceDeps {
  /** The master over the session, or the local mine when masterless. */
  master: MineBackend;
  /** Whether the minion has this function (registry lookup; a promise while the registry is built). */
  hasFunction(fun: string): boolean | Promise<boolean>;
  /** Runs one function like a job (JobRunner.runFunction). */
  run(fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<ExecResult>;
  /** The minion config's mine_functions. */
  configured: unknown;
  pillar: PillarStore;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'debug'>;
  /** mine_interval in ms; mine_enabled off = undefined (no automatic updates). */
  intervalMs: number | undefined;
}

/** The last mine.update, for brine doctor (minion_status). */
export interface MineStatus {
  lastUpdate: number;
  sent: number;
  failed: Array<{ name: string; code: string; message: string }>;
}

export class MineService implements MineAccess {
  private readonly timer: MineTimer | undefined;
  private last: MineStatus | undefined;
  private readonly unsubscribe: () => void;
  private lastMerged: string;

  constructor(private readonly deps: MineServiceDeps) {
    this.lastMerged = JSON.stringify(this.merged());
    if (deps.intervalMs !== undefined) {
      this.timer = new MineTimer(deps.clock, deps.intervalMs, () => this.scheduledUpdate());
    }
    // a pillar change that changes mine_functions is sent at once, not an interval later
    this.unsubscribe = deps.pillar.onChange(() => {
      const merged = JSON.stringify(this.merged());
      if (merged === this.lastMerged) return;
      this.lastMerged = merged;
      if (this.deps.master.connected) this.timer?.trigger();
    });
  }

  /** A master session is up (the first one starts the periodic updates). */
  onReady(): void {
    this.timer?.onReady();
  }

  stop(): void {
    this.timer?.stop();
    this.unsubscribe();
  }

  private merged(): Record<string, unknown> {
    return mergeMineFunctions(this.deps.configured, this.deps.pillar.get().mine_functions);
  }

  private async scheduledUpdate(): Promise<void> {
    try {
      await this.update(undefined, false);
    } catch (err) {
      const e = toBrineError(err);
      this.deps.logger.warn({ code: e.code }, `mine.update failed: ${e.message}`);
    }
  }

  /** The last mine.update, or undefined before the first. */
  get status(): MineStatus | undefined {
    return this.last;
  }

  async update(only: readonly string[] | undefined, clear: boolean): Promise<MineUpdateReport | undefined> {
    try {
      const report = await this.updateOnce(only, clear);
      if (report !== undefined) this.last = { lastUpdate: this.deps.clock.now(), sent: report.sent.length, failed: report.failed.map((f) => ({ ...f, message: f.message.slice(0, 4000) })) };
      return report;
    } catch (err) {
      // nothing reached the master: the whole update failed
      const e = toBrineError(err);
      this.last = { lastUpdate: this.deps.clock.now(), sent: 0, failed: [{ name: '*', code: e.code, message: e.message.slice(0, 4000) }] };
      throw err;
    }
  }

  private async updateOnce(only: readonly string[] | undefined, clear: boolean): Promise<MineUpdateReport | undefined> {
    const merged = this.merged();
    if (Object.keys(merged).length === 0 && !clear) return undefined;
    const { functions, problems } = parseMineFunctions(merged);
    const report: MineUpdateReport = { sent: [], failed: problems.map((p) => ({ name: p.name, code: p.error.code, message: p.error.message })) };
    if (only !== undefined) {
      for (const name of only) {
        if (!Object.hasOwn(merged, name)) report.failed.push({ name, code: 'BAD_ARGUMENTS', message: `${name} is not in mine_functions (config or pillar); mine.valid lists them` });
      }
    }
    const data: Record<string, MineEntry> = {};
    for (const f of functions) {
      if (only !== undefined && !only.includes(f.name)) continue;
      try {
        data[f.name] = await this.runEntry(f);
        report.sent.push(f.name);
      } catch (err) {
        const e = toBrineError(err);
        report.failed.push({ name: f.name, code: e.code, message: e.message });
      }
    }
    for (const f of report.failed) this.deps.logger.warn({ mine: f.name, code: f.code }, `mine function ${f.name} was not updated: ${f.code}: ${f.message}`);
    if (report.sent.length > 0 || clear) {
      this.checkSize(data);
      await this.deps.master.request({ t: 'mine_send', data, clear });
      this.deps.logger.debug({ sent: report.sent }, `sent ${report.sent.length} mine entries to the master`);
    }
    return report;
  }

  async send(spec: MineFunctionSpec): Promise<void> {
    const data = { [spec.name]: await this.runEntry(spec) };
    this.checkSize(data);
    await this.deps.master.request({ t: 'mine_send', data, clear: false });
  }

  async get(query: { tgt: string | string[]; tgtType: string; funs: string[]; delimiter?: string }): Promise<Record<string, Record<string, unknown>>> {
    const tgtType = TARGET_TYPES.find((t) => t === query.tgtType);
    if (tgtType === undefined) throw new BrineError('TARGET_INVALID', `mine.get: tgt_type ${JSON.stringify(query.tgtType)} is not supported; use one of ${TARGET_TYPES.join(', ')}`);
    const body: MineBody = { t: 'mine_get', tgt: query.tgt, tgtType, funs: query.funs, ...(query.delimiter === undefined ? {} : { delimiter: query.delimiter }) };
    // checked here: a message the master's schema refuses would end the session
    const problem = mineGetSchema.check({ ...body, rid: 0 }, 'mine.get');
    if (problem !== undefined) throw new BrineError('BAD_ARGUMENTS', `${problem}; see brine run <target> sys.doc mine.get`);
    return (await this.deps.master.request(body)) as Record<string, Record<string, unknown>>;
  }

  async delete(fun: string): Promise<void> {
    await this.deps.master.request({ t: 'mine_delete', fun });
  }

  async flush(): Promise<void> {
    await this.deps.master.request({ t: 'mine_flush' });
  }

  valid(): Record<string, unknown> {
    const { functions } = parseMineFunctions(this.merged());
    // runs inside a job (mine.valid), so the registry is built and the answers are booleans
    return describeMineFunctions(functions.filter((f) => this.deps.hasFunction(f.fun) === true));
  }

  /** Runs one entry's function; its return becomes the entry's data (with allow_tgt if set). */
  private async runEntry(f: MineFunction | MineFunctionSpec): Promise<MineEntry> {
    if (!(await this.deps.hasFunction(f.fun))) {
      throw new BrineError('UNKNOWN_FUNCTION', `mine function ${f.name}: ${f.fun} is not a function on this minion; fix mine_functions (brine run <target> sys.list_functions lists them)`);
    }
    if (f.fun.startsWith('mine.')) throw new BrineError('BAD_ARGUMENTS', `mine function ${f.name}: ${f.fun} cannot be mined (it would call the mine itself)`);
    const result = await this.deps.run(f.fun, f.arg, f.kwarg);
    if (!result.success) {
      const code = result.error?.code ?? 'EXEC_FAILED';
      throw new BrineError(code, `${f.fun} failed: ${result.error?.message ?? String(result.return)}`);
    }
    const entry: MineEntry = { data: result.return ?? null };
    if (f.allowTgt !== undefined) {
      entry.allowTgt = f.allowTgt;
      entry.allowTgtType = (f.allowTgtType ?? 'glob') as NonNullable<MineEntry['allowTgtType']>;
    }
    return entry;
  }

  /** Checked before sending: a message the master's schema refuses would end the session. */
  private checkSize(data: Record<string, MineEntry>): void {
    const size = JSON.stringify(data).length;
    if (size > MAX_MINE_JSON) {
      throw new BrineError('MINE_DATA_TOO_LARGE', `not sent: the mine data is ${size} characters of JSON, larger than ${MAX_MINE_JSON}; nothing was stored. Mine smaller data`);
    }
    const problem = mineSendSchema.check({ t: 'mine_send', rid: 0, data, clear: false }, 'mine data');
    if (problem !== undefined) throw new BrineError('BAD_ARGUMENTS', `not sent: ${problem}; nothing was stored`);
  }
}
