// `brine api`: run the REST API in the foreground as its own process (the master keeps running
// separately with `api: {standalone: true}`), until SIGTERM or SIGINT; SIGHUP reopens api_logfile.
// `brine api tokens revoke` (api-tokens.ts) revokes API tokens.

import type { Command } from 'commander';
import { fail, masterOptions, onSignals, type ConfigFlags } from '../common.js';
import { prepareDaemon } from '../daemon-start.js';
import { registerApiTokens } from './api-tokens.js';

export function registerApi(program: Command): void {
  const api = program
    .command('api')
    .description("serve the REST API as its own process, through the running master's control socket (needs api: {standalone: true})")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-l, --log-level <level>', "log level: Salt's names (debug, info, warning, error, critical, quiet ...)")
    .action(async (flags: ConfigFlags) => {
      try {
        const master = masterOptions(flags);
        const { standaloneApiOptions, startApiProcess } = await import('../api-process/index.js');
        // refused before any file or port is touched
        standaloneApiOptions(master);
        const opts = { ...master, log_file: master.api_logfile };
        const daemon = prepareDaemon('api', opts);
        let api: Awaited<ReturnType<typeof startApiProcess>>;
        try {
          api = await startApiProcess(opts, daemon.logger);
        } catch (err) {
          daemon.dispose();
          throw err;
        }
        onSignals(async () => {
          try {
            await api.stop();
          } finally {
            daemon.dispose();
          }
        });
        daemon.started();
      } catch (err) {
        fail(err);
      }
    });
  registerApiTokens(api);
}
