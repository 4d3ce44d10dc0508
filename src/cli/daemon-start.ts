// What `brine master` and `brine minion` do around starting the daemon itself: refuse unsafe
// local directories before anything is opened (threats.md #34).

import * as os from 'node:os';
import type { CommonOptions } from '../config/index.js';
import { checkPrivateDirs } from '../util/private-dirs.js';

/** The directories a daemon keeps its control socket, keys and cache in. */
export function privateDirsOf(opts: Pick<CommonOptions, 'sock_dir' | 'pki_dir' | 'cachedir'>): Array<{ option: string; path: string }> {
  return [
    { option: 'sock_dir', path: opts.sock_dir },
    { option: 'pki_dir', path: opts.pki_dir },
    { option: 'cachedir', path: opts.cachedir },
  ];
}

/** Throws UNSAFE_DIR when another local user could change one of the daemon's directories. */
export function checkDaemonDirs(opts: Pick<CommonOptions, 'sock_dir' | 'pki_dir' | 'cachedir'>, alsoTrusted?: number): void {
  const me = os.userInfo();
  checkPrivateDirs(privateDirsOf(opts), { uid: me.uid, userName: me.username, ...(alsoTrusted === undefined ? {} : { alsoTrusted }) });
}
