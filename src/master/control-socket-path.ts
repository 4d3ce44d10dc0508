// Where the master's control socket lives: the one thing CLI commands need from the master, in a
// module of its own so that importing it does not load the master (SQLite, the API, the renderers).

import * as path from 'node:path';
import type { MasterOptions } from '../config/index.js';

export function controlSocketPath(opts: Pick<MasterOptions, 'sock_dir'>): string {
  return path.join(opts.sock_dir, 'master.sock');
}
