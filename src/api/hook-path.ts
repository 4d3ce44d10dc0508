// The path of POST /hook/<path>: checked the same way by the API and by the master's control
// socket (`emit_hook` from `brine api`), so the event tag never holds anything else.

import { BrineError } from '../util/errors.js';

/** The path without leading and trailing slashes; API_BAD_REQUEST for anything but letters, digits, _ - . and /. */
export function checkedHookPath(path: string): string {
  if (!/^[A-Za-z0-9_\-/.]{0,256}$/.test(path) || path.split('/').includes('..')) throw new BrineError('API_BAD_REQUEST', `hook path '${path.slice(0, 64)}' may hold only letters, digits, _ - . and /`);
  return path.replace(/^\/+|\/+$/g, '');
}
