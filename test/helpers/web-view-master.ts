// A master with the REST API on plain HTTP on loopback and one file-eauth user who may run
// everything, for the web view tests (the browser talks to http://127.0.0.1:<port>/ui/).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Cluster, freePort } from './cluster.js';

export const USER = 'operator';
export const PASSWORD = 'correct horse battery staple';
export const EAUTH = 'file';

/** Starts the cluster's master with the API; returns the API port. `others`: more users, name -> [password, ACL]. */
export async function startWebViewMaster(cluster: Cluster, extra: Record<string, unknown> = {}, others: Record<string, [string, unknown[]]> = {}): Promise<number> {
  const port = await freePort();
  const users = path.join(cluster.root, 'eauth-users');
  const lines = [`${USER}:${PASSWORD}`, ...Object.entries(others).map(([name, [password]]) => `${name}:${password}`)];
  fs.writeFileSync(users, `${lines.join('\n')}\n`, { mode: 0o600 });
  const acls = Object.fromEntries(Object.entries(others).map(([name, [, acl]]) => [name, acl]));
  await cluster.startMaster({
    api: { port, host: '127.0.0.1', disable_ssl: true },
    external_auth: { file: { '^filename': users, '^filetype': 'text', '^hashtype': 'plaintext', [USER]: ['.*', '@runner', '@wheel', '@jobs'], ...acls } },
    ...extra,
  });
  return port;
}
