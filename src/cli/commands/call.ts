// `brine call FUNCTION [ARGS...]`: run an execution module on this machine, with salt-call's
// output and exit status. Without --local (and without file_client: local or master_type:
// disable) it runs through the minion daemon and its master (salt-call against the master, see
// call-through-minion.ts); with them, here, with the minion's config, ID and grains (--local).

import type { Command } from 'commander';
import { SALT_LOG_LEVELS } from '../../util/log-levels.js';
import { WorkerExecutor } from '../../minion/worker-executor.js';
import type { ConfigFlags } from '../common.js';
import type { MinionOptions } from '../../config/index.js';
import type { FormatOptions, Outputter } from '../output/index.js';
import { addStateOutputFlags, type StateOutputFlags } from '../state-output-flags.js';

interface CallFlags extends ConfigFlags, StateOutputFlags {
  local?: boolean;
  out?: string;
  retcodePassthrough?: boolean;
  /** commander's name for --no-return-event. */
  returnEvent?: boolean;
  /** --return: returners this process sends the return to (docs/returners.md). */
  return?: string;
  outIndent?: string;
  outFile?: string;
  outFileAppend?: boolean;
}

/**
 * Prints the call's return as `brine run` prints a minion's (the same printer): to stdout, or to
 * --out-file (uncoloured), with --out-indent for json and yaml, as salt-call's output options.
 */
async function printCall(outputter: Outputter, value: unknown, retcode: number, state: FormatOptions['state'], flags: CallFlags): Promise<void> {
  const [{ ReturnPrinter }, { outIndent }, { useColor }] = await Promise.all([import('../run/printer.js'), import('../out-indent.js'), import('../state-output-flags.js')]);
  const format: FormatOptions = {
    color: useColor(flags, flags.outFile === undefined),
    ...(state === undefined ? {} : { state }),
    ...(flags.outIndent === undefined ? {} : { indent: outIndent(flags.outIndent) }),
  };
  const printer = new ReturnPrinter({ outputter, format, static: false, ...(flags.outFile === undefined ? {} : { outFile: flags.outFile, append: flags.outFileAppend === true }) });
  printer.add('local', { return: value, retcode });
  printer.finish();
}

async function call(fun: string, rest: string[], flags: CallFlags): Promise<number> {
  let opts: MinionOptions | undefined;
  if (flags.local !== true) {
    // salt-call's is_local: --local, file_client: local or master_type: disable
    opts = (await import('../common.js')).minionOptions(flags);
    if (opts.file_client !== 'local' && opts.master_type !== 'disable') return callMaster(opts, fun, rest, flags);
  }
  // the thread the function will run in starts loading its modules (the registry, states,
  // renderer) now, while this thread loads the config, the minion ID, the grains and its own
  // modules; both are needed and otherwise happen one after the other
  const executor = new WorkerExecutor(0);
  executor.prewarm();
  try {
    return await callWith(executor, fun, rest, flags, opts);
  } finally {
    executor.close();
  }
}

/** Through the running minion and its master: salt-call without --local. */
async function callMaster(opts: MinionOptions, fun: string, rest: string[], flags: CallFlags): Promise<number> {
  const [{ callThroughMinion }, { callExitCode, defaultOutputterFor, outputterNames }, { parseSaltArgs }, { highstateOptions }, { BrineError }] = await Promise.all([
    import('../call-through-minion.js'),
    import('../output/index.js'),
    import('../salt-args.js'),
    import('../state-output-flags.js'),
    import('../../util/errors.js'),
  ]);
  const outputter = defaultOutputterFor(fun, flags.out) as Outputter;
  if (!outputterNames().includes(outputter)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const { arg, kwarg } = parseSaltArgs(rest);
  const state = highstateOptions(opts, flags, kwarg);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  const result = await callThroughMinion(opts, { fun, arg, kwarg, noReturnEvent: flags.returnEvent === false, signal: controller.signal });
  await printCall(outputter, result.ret, result.retcode, state, flags);
  if (result.error) process.stderr.write(`${result.error.code}: ${result.error.message}\n`);
  await returnCall(opts, flags, { fun, arg, kwarg, jid: result.jid, ret: result.ret, retcode: result.retcode, success: result.success });
  return callExitCode(result.retcode, flags.retcodePassthrough === true);
}

/** `loaded`: the config, when the caller has read it already. */
async function callWith(executor: WorkerExecutor, fun: string, rest: string[], flags: CallFlags, loaded?: MinionOptions): Promise<number> {
  // the modules themselves, not the minion's and modules' index files: those load the whole
  // daemon (sessions, transport, key handling), which a local call never uses
  const [
    { resolveConfiguredId },
    { runLocalCall },
    { collectMinionGrains },
    { callExitCode, defaultOutputterFor, outputterNames },
    { parseSaltArgs },
    { highstateOptions },
    { BrineError },
    { minionOptions },
    { passesLogLevel },
    { configWarnings },
  ] = await Promise.all([
    import('../../minion/minion-id.js'),
    import('../../minion/local-call.js'),
    import('../../minion/minion-grains.js'),
    import('../output/index.js'),
    import('../salt-args.js'),
    import('../state-output-flags.js'),
    import('../../util/errors.js'),
    import('../common.js'),
    import('../../util/log-levels.js'),
    import('../../config/start-warnings.js'),
  ]);
  const opts = loaded ?? minionOptions(flags);
  const outputter = defaultOutputterFor(fun, flags.out) as Outputter;
  if (!outputterNames().includes(outputter)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const { arg, kwarg } = parseSaltArgs(rest);
  const state = highstateOptions(opts, flags, kwarg);
  const id = (await resolveConfiguredId(opts)).id;
  const say = (_o: object, msg: string) => void process.stderr.write(`${msg}\n`);
  // core grains, custom grains synced from the master, config grains (as the daemon's)
  const { grains } = await collectMinionGrains({ id, config: opts, logger: { info: () => undefined, warn: say, error: say } });
  const localFiles = flags.local === true || opts.file_client === 'local';
  // salt-call's own form of a warning on stderr, unless log_level asks for errors only
  const warns = SALT_LOG_LEVELS.indexOf(opts.log_level) <= SALT_LOG_LEVELS.indexOf('warning');
  if (warns) for (const w of configWarnings(opts, { role: 'minion', localTrees: localFiles })) say({}, `[WARNING ] ${w.message}`);
  // masterless: the pillar is this machine's pillar_roots, rendered with its grains by the
  // thread running the function (which has the renderer loaded; this one would load it first)
  const refreshPillar = async () => void (await (await import('../../minion/pillar-client.js')).renderLocalPillar(opts, id, grains));
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  // the function runs in a worker thread as a minion's job does (salt:// and salt[...] work);
  // salt-call --local implies file_client: local, and so does --local here
  const result = await runLocalCall(fun, arg, kwarg, {
    opts,
    minionId: id,
    grains,
    ...(localFiles ? { localPillar: true, refreshPillar } : {}),
    localFiles,
    signal: controller.signal,
    executor,
    log: { info: () => undefined, warn: say, error: say },
    // salt-call writes log.* lines to the console at log_level, as `[WARNING ] message`
    functionLog: (level, message) => {
      if (passesLogLevel(level, opts.log_level)) process.stderr.write(`[${level.toUpperCase().padEnd(8)}] ${message}\n`);
    },
  });
  await printCall(outputter, result.return, result.retcode, state, flags);
  if (result.error) process.stderr.write(`${result.error.code}: ${result.error.message}\n`);
  await returnCall(opts, flags, { fun, arg, kwarg, ret: result.return, retcode: result.retcode, success: result.success }, id);
  return callExitCode(result.retcode, flags.retcodePassthrough === true);
}

/** `--return` (or the `return` option): the returners get the call's return; loaded only when named. */
async function returnCall(
  opts: MinionOptions,
  flags: CallFlags,
  call: { fun: string; arg: unknown[]; kwarg: Record<string, unknown>; jid?: string; ret: unknown; retcode: number; success: boolean },
  knownId?: string,
): Promise<void> {
  const named = flags.return ?? opts.return;
  if (named === '' || (Array.isArray(named) && named.length === 0)) return;
  const { callReturners, sendCallReturn } = await import('../call-returners.js');
  const names = callReturners(opts, flags.return);
  if (names.length === 0) return;
  const [{ resolveConfiguredId }, { formatJid }] = await Promise.all([import('../../minion/minion-id.js'), import('../../jobs/jid.js')]);
  const id = knownId ?? (await resolveConfiguredId(opts)).id;
  await sendCallReturn(opts, names, { ...call, id, jid: call.jid ?? formatJid(Date.now() * 1000) });
}

export function registerCall(program: Command): void {
  const cmd = program
    .command('call')
    .description('run FUNCTION on this machine (salt-call): through the running minion and its master, or with --local without one')
    .argument('<function>', 'module.function, e.g. grains.items')
    .argument('[args...]', 'positional args and key=value kwargs, YAML-typed as in Salt')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--local', "run without a master: salt:// and pillar from this machine's file_roots and pillar_roots (file_client: local), as salt-call --local")
    .option('--no-return-event', "do not send the return to the master's job cache (salt-call --no-return-event)")
    .option('--out <outputter>', 'nested (default; highstate for state runs), json, yaml, txt, raw or highstate')
    .option('-l, --log-level <level>', "with --local: the level of the log lines printed on stderr (Salt's names; default the minion's log_level)")
    .option('--return <returners>', 'also send the return to these returners from this process (syslog, local_cache, postgres; comma-separated), as salt-call --return')
    .option('--retcode-passthrough', "exit with the function's retcode (2 for a failed state) instead of 1 for any failure")
    .option('--no-color', 'never colour the output')
    .option('--out-indent <n>', 'indentation for json/yaml output (salt-call --out-indent)')
    .option('--out-file <file>', 'write the return to FILE instead of stdout (truncated first)')
    .option('--out-file-append', 'with --out-file: append instead of truncating');
  addStateOutputFlags(cmd).action(async (fun: string, args: string[], flags: CallFlags) => {
    try {
      process.exitCode = await call(fun, args, flags);
    } catch (err) {
      (await import('../common.js')).fail(err);
    }
  });
}
