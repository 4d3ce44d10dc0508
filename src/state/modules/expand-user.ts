// Python's os.path.expanduser, which Salt's file states apply to their path first: `~` is $HOME,
// `~user` that user's home from the passwd database; an unknown user leaves the path unchanged.

import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parsePasswd } from '../../util/account-db.js';

function homeOf(user: string): string | undefined {
  if (user === '') return process.env.HOME ?? os.homedir();
  try {
    return parsePasswd(readFileSync('/etc/passwd', 'utf8')).find((e) => e.name === user)?.home;
  } catch {
    return undefined;
  }
}

export function expandUser(p: string): string {
  if (!p.startsWith('~')) return p;
  const slash = p.indexOf('/');
  const end = slash < 0 ? p.length : slash;
  const home = homeOf(p.slice(1, end));
  if (home === undefined) return p;
  // posixpath.expanduser: the home without its trailing '/', then the rest; '' becomes '/'
  return `${home.replace(/\/+$/, '')}${p.slice(end)}` || '/';
}
