// `brine doctor`: checks that print OK, WARN or FAIL lines, each WARN and FAIL with its fix;
// exit 1 when any line is FAIL, else 0 (warnings alone pass). A command group: with no
// subcommand it runs the minion and/or master checks for the configs it finds; `minion`,
// `master` and `id` run one group.

import type { Command } from 'commander';
import { checkIdResolution, formatIdReport, idOptionsFrom, resolveMinionId } from '../../minion/index.js';
import { minionOptions, type ConfigFlags, exitWith } from '../common.js';
import { exitCodeFor, formatChecks, runAll, runGroup, type Check } from '../doctor/index.js';

/**
 * How this minion's ID is resolved: the ID, its source, every candidate and why it was skipped,
 * the cache and whether it is stale, the machine-id check. Read-only: never writes the cache.
 */
export async function doctorId(flags: ConfigFlags): Promise<number> {
  const opts = minionOptions(flags);
  const res = await resolveMinionId({ ...idOptionsFrom(opts), writeCache: false, explain: true });
  const checks = checkIdResolution(res, { refuseClonedId: opts.refuse_cloned_id });
  const report = formatIdReport(res, checks);
  process.stdout.write(report.text);
  return checks.some((c) => c.level === 'fail') ? 1 : 0;
}

async function print(run: () => Promise<Check[]>): Promise<number> {
  const checks = await run();
  process.stdout.write(formatChecks(checks));
  return exitCodeFor(checks);
}

const CONFIG_DIR_FLAG = ['-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)'] as const;

export function registerDoctor(program: Command): void {
  const doctor = program
    .command('doctor')
    .description('check this node and say what to fix: one OK, WARN or FAIL line per check; exit 1 on any FAIL. Without a subcommand: the minion and/or master checks, for each config found')
    .option(...CONFIG_DIR_FLAG)
    .action(exitWith((flags: ConfigFlags) => print(() => runAll(flags))));
  // subcommand flags merge with the group's, so `-c` works before or after the subcommand
  const sub = (name: string, description: string, action: (flags: ConfigFlags) => Promise<number>) =>
    doctor
      .command(name)
      .description(description)
      .option(...CONFIG_DIR_FLAG)
      .action(exitWith((_flags: ConfigFlags, cmd: Command) => action(cmd.optsWithGlobals<ConfigFlags>())));
  sub('minion', "config, ID, and per master: DNS, TCP, TLS (its key against the pin and master_finger), this key's state there; the running minion's links, RTT and return queue", (flags) =>
    print(() => runGroup('minion', flags)),
  );
  sub('master', 'config, control socket, keys per state, duplicate-ID events in the last 24 h, flapping minions, job cache', (flags) => print(() => runGroup('master', flags)));
  sub('id', "how this minion's ID is resolved: source, every candidate and why it was skipped, cache and machine id", doctorId);
}
