// `brine run TARGET FUNCTION [ARGS...]`: the `salt` command. Publishes through the master's
// control socket, prints each return as it arrives, reports unconnected minions at once and
// exits with Salt's codes.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/index.js';
import type { PublishRequest } from '../../protocol/index.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import { openControl } from '../control-client.js';
import { fail, masterOptions, type ConfigFlags } from '../common.js';
import { cliExit, formatReturn, noReturn, outputterNames, type MinionOutcome, type Outputter } from '../output/index.js';
import { parseSaltArgs } from '../salt-args.js';
import { targetFromFlags, type TargetFlags } from '../target-flags.js';

interface RunFlags extends ConfigFlags, TargetFlags {
  timeout?: string;
  out?: string;
  outIndent?: string;
  verbose?: boolean;
  showJid?: boolean;
  hideTimeout?: boolean;
  color?: boolean;
}

function lookupHint(jid: string): string {
  return `The minions may not have all finished running and any remaining minions will return upon completion. To look up the return data for this job later, run the following command:\n\nbrine jobs show ${jid}`;
}

async function runJob(target: string, fun: string, rest: string[], flags: RunFlags): Promise<number> {
  const opts = masterOptions(flags);
  const outputter = (flags.out ?? 'nested') as Outputter;
  if (!outputterNames().includes(outputter)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  const { tgtType, delimiter } = targetFromFlags(flags);
  const timeout = flags.timeout === undefined ? opts.timeout : Number(flags.timeout);
  if (!Number.isFinite(timeout) || timeout < 0) throw new BrineError('USAGE', `-t/--timeout must be a number of seconds, got '${flags.timeout}'`);
  const { arg, kwarg } = parseSaltArgs(rest);
  const color = flags.color !== false && process.stdout.isTTY === true && !process.env['NO_COLOR'];
  const formatOpts = flags.outIndent === undefined ? { color } : { color, indent: Number(flags.outIndent) };

  const outcomes = new Map<string, MinionOutcome>();
  const print = (id: string, outcome: MinionOutcome) => {
    outcomes.set(id, outcome);
    const block = formatReturn(outputter, id, outcome.return, { ...formatOpts, retcodes: { [id]: typeof outcome.retcode === 'number' ? outcome.retcode : 0 } });
    if (block !== '') process.stdout.write(`${block}\n`);
  };

  const request: PublishRequest = { t: 'publish', tgt: tgtType === 'list' ? target.split(',').map((s) => s.trim()).filter(Boolean) : target, tgtType, ...(delimiter ? { delimiter } : {}), fun, arg, kwarg, timeout, user: process.env['USER'] ?? 'root' };
  const conn = await openControl(controlSocketPath(opts));
  let jid: string | undefined;

  const finished = new Promise<void>((resolve, reject) => {
    conn.onMessage((m) => {
      switch (m.t) {
        case 'published':
          jid = m.jid;
          if (flags.verbose) process.stdout.write(`Executing job with jid ${m.jid}\n-------------------------------------------\n\n`);
          else if (flags.showJid) process.stdout.write(`jid: ${m.jid}\n`);
          if (!flags.hideTimeout) {
            for (const id of [...m.notConnected, ...m.missing].sort()) print(id, { return: noReturn('not_connected'), retcode: 1 });
          }
          return;
        case 'ret':
          print(m.minion, { return: m.ret, retcode: m.retcode !== 0 ? m.retcode : m.success ? 0 : 1 });
          return;
        case 'done':
          if (!flags.hideTimeout) for (const id of m.noResponse) print(id, { return: noReturn('no_response', lookupHint(m.jid)), retcode: 1 });
          resolve();
          return;
        case 'error':
          reject(new BrineError(isErrorCode(m.code) ? m.code : 'INTERNAL', m.message));
          return;
        case 'sessions':
          return;
      }
    });
    conn.onClose((info) => reject(new BrineError('MASTER_UNREACHABLE', `the master closed the connection before the job finished (${info.reason})`)));
  });
  const interrupt = () => {
    if (jid) process.stderr.write(`\nThis job's jid is: ${jid}\nExiting gracefully on Ctrl-c\n${lookupHint(jid)}\n`);
    process.exit(1);
  };
  process.once('SIGINT', interrupt);
  conn.send(request);
  try {
    await finished;
  } catch (err) {
    if (err instanceof BrineError && err.code === 'NO_MINIONS_MATCHED') {
      process.stdout.write(`${err.message}\n`);
      process.stderr.write('ERROR: No return received\n');
      return 2;
    }
    throw err;
  } finally {
    process.off('SIGINT', interrupt);
    conn.close('shutdown');
  }
  const result = cliExit(outcomes);
  if (result.message) process.stderr.write(`${result.message}\n`);
  return result.code;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run FUNCTION on the minions matched by TARGET (the salt command)')
    .argument('<target>', 'glob by default; -E regex, -L list, -G grain, -P grain regex, -S IP/CIDR, -C compound, -N nodegroup')
    .argument('<function>', 'module.function, e.g. test.ping')
    .argument('[args...]', "positional args and key=value kwargs, YAML-typed as in Salt")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-E, --pcre', 'the target is a regular expression (anchored at the start)')
    .option('-L, --list', 'the target is a comma-separated list of minion IDs')
    .option('-G, --grain', 'the target is grain:value, a glob on the value (nested keys by :)')
    .option('-P, --grain-pcre', 'the target is grain:regex, a regular expression on the value')
    .option('-S, --ipcidr', 'the target is an IP address or network (CIDR) matched against the ipv4/ipv6 grains')
    .option('-C, --compound', "the target is a compound expression: 'G@os:Debian and web* or not L@a,b'")
    .option('-N, --nodegroup', "the target is a nodegroup from the master's nodegroups option")
    .option('--delimiter <chars>', 'key delimiter for -G and -P (default :)')
    .option('-t, --timeout <seconds>', "seconds to wait for returns (default: the master's timeout, 5)")
    .option('--out <outputter>', 'nested (default), json, yaml, txt or raw')
    .option('--out-indent <n>', 'indentation for json/yaml output')
    .option('-v, --verbose', 'print the jid before the returns')
    .option('--show-jid', 'print the jid')
    .option('--hide-timeout', 'do not list minions that did not return')
    .option('--no-color', 'never colour the output')
    .allowUnknownOption(false)
    .action(async (target: string, fun: string, args: string[], flags: RunFlags) => {
      try {
        process.exitCode = await runJob(target, fun, args, flags);
      } catch (err) {
        fail(err);
      }
    });
}
