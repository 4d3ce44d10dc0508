// `brine config show`: the effective configuration after merging files, defaults and root_dir.

import type { Command } from 'commander';
import { renderConfig } from '../../config/index.js';
import { BrineError } from '../../util/errors.js';
import { fail, loadRole, type ConfigFlags } from '../common.js';

interface ShowFlags extends ConfigFlags {
  role?: string;
  json?: boolean;
  sources?: boolean;
}

export function registerConfig(program: Command): void {
  const config = program.command('config').description('inspect configuration');
  config
    .command('show')
    .description('print the effective configuration (defaults, files and root_dir applied)')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--role <role>', 'master or minion', 'minion')
    .option('--json', 'print JSON instead of YAML')
    .option('--sources', 'show which file set each option')
    .action((flags: ShowFlags) => {
      try {
        if (flags.role !== 'master' && flags.role !== 'minion') throw new BrineError('USAGE', `--role must be master or minion, got '${flags.role}'`);
        const cfg = loadRole(flags.role, flags);
        process.stdout.write(renderConfig(cfg, flags.json ? 'json' : 'yaml', flags.sources ?? false));
      } catch (err) {
        fail(err);
      }
    });
}
