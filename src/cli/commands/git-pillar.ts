// `brine git-pillar update [--branch B] [--repo R]`: Salt's `salt-run git_pillar.update`, until
// brine has a runner CLI (issue 25). The master fetches its git_pillar remotes at once (those of
// that branch and/or URL or name) and answers with each remote's outcome; a remote that failed
// makes the command fail (exit 1) with GIT_PILLAR_REMOTE_UNREACHABLE, while the master keeps
// rendering pillar from that remote's last good checkout.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { GitPillarUpdated } from '../../protocol/index.js';
import { BrineError } from '../../util/errors.js';
import { requestOnce } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';
import { printUpdates } from './fileserver.js';

interface UpdateFlags extends ConfigFlags {
  branch?: string;
  repo?: string;
  out?: string;
}

async function update(flags: UpdateFlags): Promise<number> {
  const opts = masterOptions(flags);
  if (flags.out !== undefined && flags.out !== 'json' && flags.out !== 'text') throw new BrineError('USAGE', `unknown --out '${flags.out}': use text or json`);
  const request = { t: 'git_pillar_update' as const, ...(flags.branch !== undefined ? { branch: flags.branch } : {}), ...(flags.repo !== undefined ? { repo: flags.repo } : {}) };
  const reply = await requestOnce<GitPillarUpdated>(controlSocketPath(opts), request, 'git_pillar_updated');
  return printUpdates(reply, flags.out, 'GIT_PILLAR_REMOTE_UNREACHABLE', 'git_pillar remote(s) could not be fetched; pillar keeps coming from their last good checkout');
}

export function registerGitPillar(program: Command): void {
  const cmd = program.command('git-pillar').description("the master's git ext_pillar remotes (Salt's git_pillar runner)");
  cmd
    .command('update')
    .description("fetch the git_pillar remotes now instead of waiting for git_pillar_update_interval (Salt's salt-run git_pillar.update)")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--branch <name>', "only the remotes of this branch (the first word of '<branch> <URL>', e.g. __env__)")
    .option('--repo <url-or-name>', 'only the remotes with this URL or name')
    .option('--out <format>', 'text (default) or json')
    .action(exitWith((flags: UpdateFlags) => update(flags)));
}
