// `brine run TARGET FUNCTION [ARGS...]`: the `salt` command. Publishes through the master's
// control socket, prints each return as it arrives (or all at the end with --static), reports
// unconnected minions at once, runs in batches with -b, detaches with --async, and exits with
// Salt's codes.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { MasterOptions } from '../../config/index.js';
import type { PublishRequest, TargetType } from '../../protocol/index.js';
import { BrineError } from '../../util/errors.js';
import { fail, masterOptions, type ConfigFlags } from '../common.js';
import { cliExit, defaultOutputterFor, minionRetcode, noReturn, outputterNames, type MinionOutcome, type Outputter } from '../output/index.js';
import { consoleLog, type ConsoleLog } from '../console-log.js';
import { outIndent } from '../out-indent.js';
import { parseSaltArgs } from '../salt-args.js';
import { targetFix } from '../target-fixes.js';
import { addStateOutputFlags, highstateOptions, useColor, type StateOutputFlags } from '../state-output-flags.js';
import { targetFromFlags, type TargetFlags } from '../target-flags.js';
import {
  batchSize,
  checkJidArgs,
  JobProgress,
  masterLostDetail,
  masterLostError,
  parseBatch,
  parseBatchWait,
  ProgressLine,
  ReturnPrinter,
  runBatch,
  StateProgressPrinter,
  followStateProgress,
  wantsStateProgress,
  startJob,
  summaryText,
  wantsProgress,
  type JobStream,
} from '../run/index.js';
import { systemClock } from '../../util/clock.js';

interface RunFlags extends ConfigFlags, TargetFlags, StateOutputFlags {
  timeout?: string;
  out?: string;
  outIndent?: string;
  outFile?: string;
  outFileAppend?: boolean;
  verbose?: boolean;
  showJid?: boolean;
  hideTimeout?: boolean;
  async?: boolean;
  batch?: string;
  batchWait?: string;
  failhard?: boolean;
  static?: boolean;
  summary?: boolean;
  progress?: boolean;
  return?: string;
  return_config?: string;
  return_kwargs?: string;
}

/** `--return`, `--return_config`, `--return_kwargs` as the publish carries them (docs/returners.md). */
function returnersOf(flags: RunFlags): Pick<PublishRequest, 'ret' | 'retConfig' | 'retKwargs'> {
  const out: Pick<PublishRequest, 'ret' | 'retConfig' | 'retKwargs'> = {};
  if (flags.return !== undefined) out.ret = flags.return;
  if (flags.return_config !== undefined) out.retConfig = flags.return_config;
  if (flags.return_kwargs !== undefined) {
    let kw: unknown;
    try {
      kw = JSON.parse(flags.return_kwargs);
    } catch {
      kw = undefined;
    }
    if (typeof kw !== 'object' || kw === null || Array.isArray(kw))
      throw new BrineError('USAGE', `--return_kwargs must be a JSON mapping such as '{"db": "another-salt"}', got '${flags.return_kwargs.slice(0, 200)}'`);
    out.retKwargs = kw as Record<string, unknown>;
  }
  return out;
}

function lookupHint(jid: string): string {
  return `The minions may not have all finished running and any remaining minions will return upon completion. To look up the return data for this job later, run the following command:\n\nbrine jobs show ${jid}`;
}

/** The target as the publish request carries it. */
function targetOf(target: string, flags: RunFlags): { tgt: string | string[]; tgtType: TargetType; delimiter?: string } {
  const { tgtType, delimiter } = targetFromFlags(flags);
  const tgt =
    tgtType === 'list'
      ? target
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : target;
  return delimiter === undefined ? { tgt, tgtType } : { tgt, tgtType, delimiter };
}

function outcomeOf(ret: { ret: unknown; retcode: number; success: boolean }): MinionOutcome {
  return { return: ret.ret, retcode: ret.retcode !== 0 ? ret.retcode : ret.success ? 0 : 1 };
}

interface RunContext {
  opts: MasterOptions;
  log: ConsoleLog;
  /** The counter on stderr while waiting, on a terminal only. */
  progress: ProgressLine | undefined;
  /** --progress on a state run: each state's line as it finishes. */
  states: StateProgressPrinter | undefined;
  flags: RunFlags;
  printer: ReturnPrinter;
  /** The stream being waited on, for Ctrl-C. */
  current: JobStream | undefined;
}

/** One publish, its returns printed as they come; resolves with the jid once the wait is over. */
async function publishAndPrint(ctx: RunContext, request: PublishRequest, onMinion?: (id: string, outcome: MinionOutcome) => void): Promise<string | undefined> {
  const { flags, printer, log } = ctx;
  const socket = controlSocketPath(ctx.opts);
  log('debug', `publishing ${request.fun} to ${request.tgtType} target ${JSON.stringify(request.tgt)} through the master's control socket ${socket}`);
  const progress = new JobProgress();
  const record = (id: string, outcome: MinionOutcome, returned = true): void => {
    log('debug', `${id}: retcode ${outcome.retcode}`);
    progress.returned(id);
    const print = (): void => printer.add(id, outcome);
    if (ctx.progress) ctx.progress.around(print, { returned, failed: minionRetcode(outcome) !== 0 });
    else print();
    onMinion?.(id, outcome);
  };
  /** The minions still waited for when the master went away: its fault, not theirs. */
  const masterLost = (jid: string, ids: readonly string[], how: string): BrineError => {
    const lost = [...ids].sort();
    for (const id of lost) record(id, { return: noReturn('master_lost', masterLostDetail(jid)), retcode: 1 });
    return masterLostError(jid, progress, lost, how);
  };
  let lostError: BrineError | undefined;
  // subscribed before the publish, so the first state's event cannot come before the listener
  const follow = ctx.states ? await followStateProgress(socket, ctx.states, ctx.opts.sock_group) : undefined;
  const stream = await startJob(
    socket,
    request,
    {
      onPublished: (m) => {
        log('debug', `job ${m.jid} published; not connected: ${m.notConnected.length}, missing: ${m.missing.length}`);
        progress.published(m.minions, [...m.notConnected, ...m.missing]);
        ctx.states?.published(m.jid, m.minions.length);
        if (!flags.async) ctx.progress?.start(progress.sent);
        if (flags.async) {
          process.stdout.write(`Executed command with job ID: ${m.jid}\n`);
          return 'detach';
        }
        if (flags.verbose) process.stdout.write(`Executing job with jid ${m.jid}\n-------------------------------------------\n\n`);
        else if (flags.showJid) process.stdout.write(`jid: ${m.jid}\n`);
        for (const id of [...m.notConnected, ...m.missing].sort()) {
          const outcome = { return: noReturn('not_connected'), retcode: 1 };
          if (flags.hideTimeout) onMinion?.(id, outcome);
          else record(id, outcome, false);
        }
        return undefined;
      },
      onReturn: (m) => record(m.minion, outcomeOf(m)),
      onDone: (m) => {
        log('debug', `job ${m.jid} done; no response from ${m.noResponse.length} minion(s)`);
        if (m.reason === 'master_shutdown') {
          lostError = masterLost(m.jid, m.noResponse, 'the master is shutting down');
          return;
        }
        for (const id of m.noResponse) {
          const outcome = { return: noReturn('no_response', lookupHint(m.jid)), retcode: 1 };
          if (flags.hideTimeout) onMinion?.(id, outcome);
          else record(id, outcome);
        }
      },
    },
    ctx.opts.sock_group,
  ).catch((err: unknown) => {
    follow?.close();
    throw err;
  });
  ctx.current = stream;
  try {
    await stream.finished;
  } catch (err) {
    // published, then the control socket closed without a `done`: the master was killed
    const jid = stream.jid;
    if (jid === undefined || !(err instanceof BrineError) || err.code !== 'MASTER_UNREACHABLE') throw err;
    lostError = masterLost(jid, [...progress.pending], `its control socket closed: ${stream.closeReason ?? 'peer_closed'}`);
  } finally {
    follow?.close();
    ctx.progress?.stop();
    stream.close();
  }
  if (lostError !== undefined) throw lostError;
  return stream.jid;
}

/** -b: ping the targets, then run the job on the responders in a sliding window (§5.6). */
async function runBatched(ctx: RunContext, base: PublishRequest): Promise<number> {
  const { flags } = ctx;
  const spec = parseBatch(flags.batch!);
  const waitS = parseBatchWait(flags.batchWait);
  const responders: string[] = [];
  const silent: string[] = [];
  const ping = await startJob(
    controlSocketPath(ctx.opts),
    { ...base, fun: 'test.ping', arg: [], kwarg: {} },
    {
      onPublished: (m) => void silent.push(...m.notConnected, ...m.missing),
      onReturn: (m) => void (m.ret === true ? responders : silent).push(m.minion),
      onDone: (m) => void silent.push(...m.noResponse),
    },
    ctx.opts.sock_group,
  );
  ctx.current = ping;
  await ping.finished;
  for (const id of silent.sort()) process.stdout.write(`Minion ${id} did not respond. No job will be sent.\n`);
  responders.sort();
  if (responders.length === 0) {
    process.stderr.write('ERROR: No minions responded to test.ping; nothing was run.\n');
    return 2;
  }
  const size = batchSize(spec, responders.length);
  const result = await runBatch({
    minions: responders,
    size,
    waitS,
    failhard: flags.failhard === true,
    announce: (group) => process.stdout.write(`\nExecuting run on [${group.map((id) => `'${id}'`).join(', ')}]\n\n`),
    runGroup: async (group, done) => {
      const seen = new Set<string>();
      await publishAndPrint(ctx, { ...base, tgt: group, tgtType: 'list' }, (id, outcome) => {
        seen.add(id);
        done(id, minionRetcode(outcome));
      });
      for (const id of group) if (!seen.has(id)) done(id, 1);
    },
  });
  if (result.failedHard !== undefined) {
    process.stderr.write(`ERROR: Minion ${result.failedHard} returned with non-zero exit code. Batch run stopped due to failhard\n`);
  }
  return result.retcode;
}

async function runJob(target: string, fun: string, rest: string[], flags: RunFlags): Promise<number> {
  const opts = masterOptions(flags);
  const log = consoleLog(flags.logLevel);
  log('debug', `read the master configuration from ${opts.config_dir}`);
  // state.apply & co. print with the highstate outputter unless --out says otherwise, as in Salt.
  const outputter = defaultOutputterFor(fun, flags.out) as Outputter;
  if (!outputterNames().includes(outputter)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const timeout = flags.timeout === undefined ? opts.timeout : Number(flags.timeout);
  if (!Number.isFinite(timeout) || timeout < 0) throw new BrineError('USAGE', `-t/--timeout must be a number of seconds, got '${flags.timeout}'`);
  if (flags.async && flags.batch !== undefined) throw new BrineError('USAGE', '--async and -b/--batch do not combine: a batch waits for each group');
  if (flags.batch !== undefined) parseBatch(flags.batch);
  parseBatchWait(flags.batchWait);
  const { arg, kwarg } = parseSaltArgs(rest);
  checkJidArgs(fun, arg, kwarg);
  const color = useColor(flags, flags.outFile === undefined);
  const state = highstateOptions(opts, flags, kwarg);
  const format = flags.outIndent === undefined ? { color, state } : { color, state, indent: outIndent(flags.outIndent) };
  const printer = new ReturnPrinter({ outputter, format, static: flags.static === true, ...(flags.outFile !== undefined ? { outFile: flags.outFile, append: flags.outFileAppend === true } : {}) });
  // batches print their own progress lines; the counter is for one job's wait
  const progress =
    flags.batch === undefined && wantsProgress({ outputter, async: flags.async === true, outFile: flags.outFile !== undefined })
      ? new ProgressLine((t) => process.stderr.write(t), systemClock)
      : undefined;
  const stateLines = wantsStateProgress({ progress: flags.progress === true, fun, terminal: progress !== undefined, batch: flags.batch !== undefined });
  // Salt's state_events=True for this job only; a state_events= the operator typed wins
  if (stateLines && kwarg.state_events === undefined) kwarg.state_events = true;
  const ctx: RunContext = { opts, log, progress, states: undefined, flags, printer, current: undefined };
  if (stateLines) {
    const write = (line: string) => (): void => void process.stderr.write(`${line}\n`);
    ctx.states = new StateProgressPrinter({ color, print: (line) => (ctx.progress ? ctx.progress.above(write(line)) : write(line)()) });
  }
  // no `user`: the master names the job's user from the socket's peer credentials
  const request: PublishRequest = { t: 'publish', ...targetOf(target, flags), fun, arg, kwarg, timeout, ...returnersOf(flags) };

  const interrupt = (): void => {
    ctx.progress?.stop();
    const jid = ctx.current?.jid;
    if (jid) process.stderr.write(`\nThis job's jid is: ${jid}\nExiting gracefully on Ctrl-c\n${lookupHint(jid)}\n`);
    process.exit(1);
  };
  process.once('SIGINT', interrupt);
  try {
    if (flags.batch !== undefined) {
      const code = await runBatched(ctx, request);
      printer.finish();
      return code;
    }
    await publishAndPrint(ctx, request);
  } catch (err) {
    printer.finish();
    if (err instanceof BrineError && err.code === 'NO_MINIONS_MATCHED') {
      process.stdout.write(`${err.message}\n`);
      process.stderr.write(`ERROR: No return received\n  fix: ${targetFix(request.tgtType)}\n`);
      return 2;
    }
    if (err instanceof BrineError && err.code === 'TARGET_INVALID') throw new BrineError(err.code, err.message, { cause: err, fix: targetFix(request.tgtType) });
    throw err;
  } finally {
    process.off('SIGINT', interrupt);
  }
  printer.finish();
  if (flags.async) return 0;
  if (flags.summary && flags.out === undefined) process.stdout.write(summaryText(printer.outcomes, flags.verbose === true));
  const result = cliExit(printer.outcomes);
  if (result.message) process.stderr.write(`${result.message}\n`);
  return result.code;
}

export function registerRun(program: Command): void {
  const cmd = program
    .command('run')
    .description('run FUNCTION on the minions matched by TARGET (the salt command)')
    .argument('<target>', 'glob by default; -E regex, -L list, -G grain, -P grain regex, -S IP/CIDR, -C compound, -N nodegroup, -I pillar, -J pillar regex')
    .argument('<function>', 'module.function, e.g. test.ping')
    .argument('[args...]', 'positional args and key=value kwargs, YAML-typed as in Salt')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-l, --log-level <level>', "print this command's own log lines at this level on stderr (Salt's names: debug, info, warning ...)")
    .option('-E, --pcre', 'the target is a regular expression (anchored at the start)')
    .option('-L, --list', 'the target is a comma-separated list of minion IDs')
    .option('-G, --grain', 'the target is grain:value, a glob on the value (nested keys by :)')
    .option('-P, --grain-pcre', 'the target is grain:regex, a regular expression on the value')
    .option('-S, --ipcidr', 'the target is an IP address or network (CIDR) matched against the ipv4/ipv6 grains')
    .option('-C, --compound', "the target is a compound expression: 'G@os:Debian and web* or not L@a,b'")
    .option('-N, --nodegroup', "the target is a nodegroup from the master's nodegroups option")
    .option('-I, --pillar', "the target is pillar_key:value, a glob on the value in the master's pillar cache")
    .option('-J, --pillar-pcre', 'the target is pillar_key:regex, a regular expression on the value')
    .option('--pillar-exact', 'the target is pillar_key:value, the exact value')
    .option('--delimiter <chars>', 'key delimiter for -G, -P, -I and -J (default :)')
    .option('-t, --timeout <seconds>', "seconds to wait for returns before asking minions whether they still run the job (default: the master's timeout, 5)")
    .option('--async', 'publish and print the jid without waiting for returns')
    .option('-b, --batch <n|n%>', 'run on N minions (or N% of the responders) at a time, after pinging them')
    .option('--batch-size <n|n%>', 'same as -b')
    .option('--batch-wait <seconds>', "with -b: seconds a finished minion's slot stays closed before the next minion starts")
    .option('--failhard', 'with -b: stop starting minions after the first non-zero retcode')
    .option('-s, --static', 'print all returns at once at the end (one document for json/yaml/raw)')
    .option('--progress', "state.apply/sls/highstate on a terminal: print each state's one-line result on stderr as it finishes (turns Salt's state_events on for this job)")
    .option('--summary', 'print a summary (targeted, returned, silent, failed) after the returns (only without --out)')
    .option('--out <outputter>', 'nested (default; highstate for state runs), json, yaml, txt, raw, newline_values_only or highstate')
    .option('--out-indent <n>', 'indentation for json/yaml output')
    .option('--out-file <file>', 'write the returns to FILE instead of stdout (truncated first)')
    .option('--out-file-append', 'with --out-file: append instead of truncating')
    .option('-v, --verbose', 'print the jid before the returns (and the minion lists in --summary)')
    .option('--show-jid', 'print the jid')
    .option('--hide-timeout', 'do not list minions that did not return')
    .option('--no-color', 'never colour the output')
    .option('--return <returners>', 'also send each return to these returners from the minion (syslog, local_cache, postgres; comma-separated), as Salt does')
    .option('--return_config <name>', "the returners' alternative option set (alternative.returner.postgres.host ...)")
    .option('--return_kwargs <json>', 'options overriding the returners\' configured ones, a JSON mapping such as \'{"db": "other"}\'')
    .allowUnknownOption(false);
  addStateOutputFlags(cmd).action(async (target: string, fun: string, args: string[], flags: RunFlags & { batchSize?: string }) => {
    try {
      if (flags.batch === undefined && flags.batchSize !== undefined) flags.batch = flags.batchSize;
      process.exitCode = await runJob(target, fun, args, flags);
    } catch (err) {
      fail(err);
    }
  });
}
