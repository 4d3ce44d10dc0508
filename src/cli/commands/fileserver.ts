// `brine fileserver update [--backend gitfs]`: Salt's `salt-run fileserver.update`, until
// brine has a runner CLI (issue 25). The master fetches its gitfs remotes at once and answers
// with each remote's outcome; a remote that failed makes the command fail (exit 1) with
// GITFS_REMOTE_UNREACHABLE, while the master keeps serving that remote's last good checkout.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { FileserverUpdated, GitPillarUpdated } from '../../protocol/index.js';
import { BrineError, ERRORS } from '../../util/errors.js';
import { printable, printableJson } from '../../util/printable.js';
import { requestOnce } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';

interface UpdateFlags extends ConfigFlags {
  backend?: string;
  out?: string;
}

export function renderUpdate(reply: FileserverUpdated | GitPillarUpdated): string {
  if (reply.remotes.length === 0) return 'no gitfs remotes to update (fileserver_backend has no gitfs, or gitfs_remotes is empty)\n';
  return reply.remotes.map((r) => `${printable(r.remote)}: ${r.ok ? (r.changed ? 'updated' : 'up to date') : `FAILED: ${printable(r.error ?? 'unknown error')}`}\n`).join('');
}

async function update(flags: UpdateFlags): Promise<number> {
  const opts = masterOptions(flags);
  if (flags.out !== undefined && flags.out !== 'json' && flags.out !== 'text') throw new BrineError('USAGE', `unknown --out '${flags.out}': use text or json`);
  const request = flags.backend === undefined ? { t: 'fileserver_update' as const } : { t: 'fileserver_update' as const, backend: flags.backend };
  const reply = await requestOnce<FileserverUpdated>(controlSocketPath(opts), request, 'fileserver_updated');
  return printUpdates(reply, flags.out, 'GITFS_REMOTE_UNREACHABLE', 'gitfs remote(s) could not be fetched; their last good checkout is still served');
}

/** Prints each remote's outcome (text or json); the exit status is `code`'s when one failed. */
export function printUpdates(reply: FileserverUpdated | GitPillarUpdated, out: string | undefined, code: 'GITFS_REMOTE_UNREACHABLE' | 'GIT_PILLAR_REMOTE_UNREACHABLE', what: string): number {
  process.stdout.write(out === 'json' ? `${printableJson(reply.remotes, 4)}\n` : renderUpdate(reply));
  const failed = reply.remotes.filter((r) => !r.ok);
  if (failed.length === 0) return 0;
  process.stderr.write(`${code}: ${failed.length} ${what}\n  fix: ${ERRORS[code].fix}\n`);
  return ERRORS[code].exit;
}

export function registerFileserver(program: Command): void {
  const cmd = program.command('fileserver').description("the master's file server backends (Salt's fileserver runner)");
  cmd
    .command('update')
    .description("fetch the gitfs remotes now instead of waiting for gitfs_update_interval (Salt's salt-run fileserver.update)")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--backend <name>', 'only this backend (gitfs or roots; roots needs no update)')
    .option('--out <format>', 'text (default) or json')
    .action(exitWith((flags: UpdateFlags) => update(flags)));
}
