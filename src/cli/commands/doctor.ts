// `brine doctor`: checks that print OK, WARN or FAIL lines, each WARN and FAIL with its fix;
// exit 0 when every line is OK, 1 otherwise. A command group: `id` now, more checks later.

import type { Command } from 'commander';
import { checkIdResolution, formatIdReport, idOptionsFrom, resolveMinionId } from '../../minion/index.js';
import { fail, minionOptions, type ConfigFlags } from '../common.js';

/**
 * How this minion's ID is resolved: the ID, its source, every candidate and why it was skipped,
 * the cache and whether it is stale, the machine-id check. Read-only: never writes the cache.
 */
export async function doctorId(flags: ConfigFlags): Promise<number> {
  const opts = minionOptions(flags);
  const res = await resolveMinionId({ ...idOptionsFrom(opts), writeCache: false, explain: true });
  const report = formatIdReport(res, checkIdResolution(res, { refuseClonedId: opts['refuse_cloned_id'] === true }));
  process.stdout.write(report.text);
  return report.ok ? 0 : 1;
}

export function registerDoctor(program: Command): void {
  const doctor = program.command('doctor').description('check this node and say what to fix (OK, WARN or FAIL per line; exit 1 on any WARN or FAIL)');
  doctor
    .command('id')
    .description("how this minion's ID is resolved: source, every candidate and why it was skipped, cache and machine id")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .action(async (flags: ConfigFlags) => {
      try {
        process.exitCode = await doctorId(flags);
      } catch (err) {
        fail(err);
      }
    });
}
