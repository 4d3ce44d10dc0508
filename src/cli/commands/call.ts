// `brine call FUNCTION [ARGS...]`: run an execution module on this machine without a master
// (salt-call --local), with the minion's config, ID and grains.

import type { Command } from 'commander';
import { Minion } from '../../minion/index.js';
import { collectGrains, loadModuleDirs } from '../../modules/index.js';
import { fail, minionOptions, type ConfigFlags } from '../common.js';
import { formatReturn, outputterNames, type Outputter } from '../output/index.js';
import { parseSaltArgs } from '../salt-args.js';
import { createMinionRegistry } from '../../state/index.js';
import { BrineError } from '../../util/errors.js';

interface CallFlags extends ConfigFlags {
  local?: boolean;
  out?: string;
  color?: boolean;
}

async function call(fun: string, rest: string[], flags: CallFlags): Promise<number> {
  const opts = minionOptions(flags);
  const outputter = (flags.out ?? 'nested') as Outputter;
  if (!outputterNames().includes(outputter)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const { arg, kwarg } = parseSaltArgs(rest);
  const id = (await Minion.resolveId(opts)).id;
  const grains = await collectGrains({ id, configGrains: opts.grains });
  const registry = createMinionRegistry();
  const say = (_o: object, msg: string) => void process.stderr.write(`${msg}\n`);
  await loadModuleDirs(registry, opts.module_dirs ?? [], { info: () => undefined, warn: say, error: say });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort(new Error('interrupted')));
  const result = await registry.call(fun, arg, kwarg, { grains: () => grains, minionId: id, config: opts, signal: controller.signal, jid: 'req' });
  const color = flags.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR;
  process.stdout.write(`${formatReturn(outputter, 'local', result.return, { color, retcodes: { local: result.retcode } })}\n`);
  if (result.error) process.stderr.write(`${result.error.code}: ${result.error.message}\n`);
  return result.retcode;
}

export function registerCall(program: Command): void {
  program
    .command('call')
    .description('run FUNCTION locally on this machine (salt-call --local)')
    .argument('<function>', 'module.function, e.g. grains.items')
    .argument('[args...]', 'positional args and key=value kwargs, YAML-typed as in Salt')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--local', 'run locally without a master (the only mode so far; accepted for salt-call compatibility)')
    .option('--out <outputter>', 'nested (default), json, yaml, txt or raw')
    .option('--no-color', 'never colour the output')
    .action(async (fun: string, args: string[], flags: CallFlags) => {
      try {
        process.exitCode = await call(fun, args, flags);
      } catch (err) {
        fail(err);
      }
    });
}
