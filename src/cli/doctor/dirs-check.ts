// `brine doctor`'s view of the daemon's start-up directory check (threats.md #34): the line the
// operator sees before a restart would fail with UNSAFE_DIR, not after.

import type { CommonOptions } from '../../config/index.js';
import { toBrineError } from '../../util/errors.js';
import { checkDaemonDirs } from '../daemon-start.js';
import { lookupUser } from '../run-as.js';
import { fail, ok, type Check } from './check.js';

export function directoriesCheck(opts: Pick<CommonOptions, 'sock_dir' | 'pki_dir' | 'cachedir' | 'user'>): Check {
  try {
    // the `user:` account may own them too; an unknown account is the daemon's own error to report
    let alsoTrusted: number | undefined;
    try {
      alsoTrusted = opts.user === '' ? undefined : lookupUser(opts.user).uid;
    } catch {
      alsoTrusted = undefined;
    }
    checkDaemonDirs(opts, alsoTrusted);
    return ok('directories', `sock_dir ${opts.sock_dir}, pki_dir ${opts.pki_dir} and cachedir ${opts.cachedir} cannot be changed by other local users`);
  } catch (err) {
    const e = toBrineError(err);
    const [detail, fix] = e.message.replace(/^refusing to start: /, '').split(' Fix: ');
    return fail('directories', `${e.code}: the daemon refuses to start: ${detail ?? e.message}`, fix ?? e.fix);
  }
}
