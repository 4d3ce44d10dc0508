// ps (Salt's salt/beacons/ps.py): `processes: {name: running|stopped}`; fires {name: "Running"}
// while a process of that name runs (for `running`), {name: "Stopped"} while none does (for
// `stopped`). Names are psutil's Process.name() on Linux: /proc/<pid>/comm, or the command's
// basename when comm is the kernel's 15-character truncation of it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isPlainObject } from '../protocol/schema.js';
import type { BeaconData, BeaconModule } from './types.js';

/** The names of the running processes, as psutil names them. */
export function processNames(): Set<string> {
  const names = new Set<string>();
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return names;
  }
  for (const pid of pids) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').replace(/\n$/, '');
      let name = comm;
      if (comm.length >= 15) {
        const argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
        const base = path.basename(argv0);
        if (base.startsWith(comm)) name = base;
      }
      names.add(name);
    } catch {
      // the process ended while we looked
    }
  }
  return names;
}

export const psBeacon: BeaconModule = {
  name: 'ps',
  validate(config) {
    if (!('processes' in config)) return 'Configuration for ps beacon requires processes.';
    return isPlainObject(config.processes) ? undefined : 'Processes for ps beacon must be a dictionary.';
  },
  create: () => ({
    poll(config) {
      const running = processNames();
      const out: BeaconData[] = [];
      for (const [name, want] of Object.entries(isPlainObject(config.processes) ? config.processes : {})) {
        if (want === 'running') {
          if (running.has(name)) out.push({ [name]: 'Running' });
        } else if (!running.has(name)) out.push({ [name]: want === 'stopped' ? 'Stopped' : false });
      }
      return out;
    },
  }),
};
