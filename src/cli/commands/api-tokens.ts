// `brine api tokens revoke [TOKEN] [--user NAME]`: ends API sessions at once, e.g. of a user who
// left or whose token leaked. The tokens live in <cachedir>/api-tokens.sqlite, which the master's
// API and `brine api` both read at every request, so removing them there takes effect at the
// next request of either, and works while the master is down. Needs the master's user (the file
// is 0600), like `brine key`.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { TokenStore } from '../../auth/index.js';
import { systemClock } from '../../util/clock.js';
import { BrineError } from '../../util/errors.js';
import { type ConfigFlags, fail, masterOptions } from '../common.js';

interface RevokeFlags extends ConfigFlags {
  user?: string;
}

export function registerApiTokens(api: Command): void {
  const tokens = api.command('tokens').description('manage the REST API tokens issued by POST /login');
  tokens
    .command('revoke')
    .description('revoke one token, or every token of a user (--user); the next request with them is 401')
    .argument('[token]', 'the token to revoke (64 hex digits, as POST /login returned it)')
    .option('-u, --user <name>', 'revoke every token of this user (all eauth backends)')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .action((token: string | undefined, _flags: RevokeFlags, cmd: Command) => {
      try {
        // `brine api -c DIR tokens revoke` and `brine api tokens revoke -c DIR` both work
        const flags = cmd.optsWithGlobals<RevokeFlags>();
        if ((token === undefined) === (flags.user === undefined)) {
          throw new BrineError('USAGE', 'give a token or --user NAME (one of them): brine api tokens revoke TOKEN | --user NAME');
        }
        const opts = masterOptions(flags);
        const file = path.join(opts.cachedir, 'api-tokens.sqlite');
        if (!fs.existsSync(file)) {
          process.stdout.write(`revoked 0 tokens: there is no token file ${file} (the API has issued none with this configuration)\n`);
          return;
        }
        // the fingerprint binds tokens being issued or looked up; revoking needs neither
        const store = TokenStore.open(file, systemClock, '');
        try {
          if (flags.user !== undefined) {
            const n = store.revokeUser(flags.user);
            process.stdout.write(`revoked ${n} token${n === 1 ? '' : 's'} of ${flags.user}\n`);
          } else {
            if (!/^[0-9a-f]{64}$/.test(token!)) throw new BrineError('USAGE', 'a token is 64 hex digits, as POST /login returned it');
            const n = store.revoke(token!) ? 1 : 0;
            process.stdout.write(n === 1 ? 'revoked 1 token\n' : 'revoked 0 tokens: the token is unknown (already revoked, expired or never issued here)\n');
          }
        } finally {
          store.close();
        }
      } catch (err) {
        fail(err);
      }
    });
}
