// `brine runner FUN [ARGS] [key=value ...]`: Salt's salt-run. The master runs the runner function
// as a job (salt/run/<jid>/new and ret on its bus, the job cache) through the control socket's
// `runner` request; the return is printed as salt-run prints it (nested by default, --out), and
// the exit status is salt-run's: 0, or 1 when the runner failed (RUNNER_UNKNOWN included).

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { RunnerRet } from '../../protocol/index.js';
import { BrineError, ERRORS } from '../../util/errors.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';
import { requestOnce } from '../control-client.js';
import { formatRunnerReturn, outputterNames, type Outputter } from '../output/index.js';
import { parseSaltArgs } from '../salt-args.js';
import { useColor } from '../state-output-flags.js';

interface RunnerFlags extends ConfigFlags {
  out?: string;
  outIndent?: string;
  timeout?: string;
  async?: boolean;
  color?: boolean;
  forceColor?: boolean;
}

async function runner(fun: string, rest: string[], flags: RunnerFlags): Promise<number> {
  const opts = masterOptions(flags);
  if (flags.out !== undefined && !outputterNames().includes(flags.out)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const timeout = flags.timeout === undefined ? undefined : Number(flags.timeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout >= 0)) throw new BrineError('USAGE', `-t/--timeout must be a number of seconds, got '${flags.timeout}'`);
  const { arg, kwarg } = parseSaltArgs(rest);
  const reply = await requestOnce<RunnerRet>(
    controlSocketPath(opts),
    { t: 'runner', fun, arg: arg as never, kwarg: kwarg as never, ...(flags.async ? { async: true } : {}), ...(timeout === undefined ? {} : { timeout }) },
    'runner_ret',
  ).catch((err: unknown) => {
    // Salt prints "'<fun>' is not available." and fails
    if (err instanceof BrineError && err.code === 'RUNNER_UNKNOWN') {
      process.stdout.write(`${err.message}\n`);
      process.stderr.write(`RUNNER_UNKNOWN: ${ERRORS.RUNNER_UNKNOWN.fix}\n`);
      return undefined;
    }
    throw err;
  });
  if (reply === undefined) return ERRORS.RUNNER_UNKNOWN.exit;
  if (!reply.done) {
    // salt-run --async prints the jid (and logs the tag to watch)
    process.stdout.write(`${reply.jid}\n`);
    return 0;
  }
  const color = useColor(flags, true);
  const indent = flags.outIndent === undefined ? undefined : Number(flags.outIndent);
  process.stdout.write(formatRunnerReturn(flags.out as Outputter | undefined, reply.return, indent === undefined ? { color } : { color, indent }));
  if (reply.error) process.stderr.write(`${reply.error.code}: ${reply.error.message}\n`);
  return retcodeOf(reply);
}

/** salt-run's exit status: the retcode in the return ({retcode} or {data: {retcode}}), else the job's. */
function retcodeOf(reply: RunnerRet): number {
  const r = reply.return;
  if (typeof r === 'object' && r !== null && !Array.isArray(r)) {
    const rec = r as Record<string, unknown>;
    if (typeof rec.retcode === 'number') return rec.retcode;
    const data = rec.data;
    if (typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>).retcode === 'number') return (data as Record<string, number>).retcode as number;
  }
  return reply.retcode ?? (reply.success ? 0 : 1);
}

export function registerRunner(program: Command): void {
  program
    .command('runner')
    .description("run a runner function on the master (Salt's salt-run): brine runner jobs.list_jobs, brine runner manage.down")
    .argument('<fun>', 'the runner function, module.function')
    .argument('[args...]', 'positional arguments and key=value keyword arguments (YAML values, as salt-run)')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-t, --timeout <seconds>', "seconds the jobs the runner sends (manage.status pings...) wait for returns; default: the master's timeout")
    .option('--async', 'start the runner and print its jid without waiting (follow salt/run/<jid>/ret with brine events)')
    .option('--out <outputter>', 'nested (default), json, yaml, txt, raw, newline_values_only or highstate')
    .option('--out-indent <n>', 'indentation for json/yaml output')
    .option('--no-color', 'never colour the output')
    .option('--force-color', 'colour the output even when it is not a terminal')
    .allowUnknownOption(false)
    .action(exitWith((fun: string, args: string[], flags: RunnerFlags) => runner(fun, args, flags)));
}
