// A real SysV init script for the Debian service backend's tests: installed in /etc/init.d under
// a unique name, it runs `sleep` in the background and keeps its pid in a temp dir, so `service`
// and `update-rc.d` (init-system-helpers) drive it exactly as they drive a packaged daemon.
// remove() stops it, drops its rc?.d links and deletes everything it wrote.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface InitScript {
  name: string;
  /** A regular expression matching the daemon's command line only (for `sig`). */
  sig: string;
  /** The pid of the running daemon, or undefined. */
  pid(): number | undefined;
  /** The names of the rc?.d links update-rc.d wrote for it. */
  links(): string[];
  remove(): void;
}

const script = (name: string, state: string, seconds: number) => `#!/bin/sh
### BEGIN INIT INFO
# Provides:          ${name}
# Required-Start:
# Required-Stop:
# Default-Start:     2 3 4 5
# Default-Stop:      0 1 6
# Short-Description: brine test daemon
### END INIT INFO
PIDFILE=${state}/pid
running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
case "$1" in
  start) running && exit 0; /bin/sleep ${seconds} >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo "$1" >> ${state}/log ;;
  stop) running && kill "$(cat "$PIDFILE")"; rm -f "$PIDFILE"; echo "$1" >> ${state}/log ;;
  restart|force-reload) "$0" stop; "$0" start; echo "$1" >> ${state}/log ;;
  reload) running || exit 7; echo "$1" >> ${state}/log ;;
  status) running || exit 3 ;;
  *) echo "Usage: $0 {start|stop|restart|reload|force-reload|status}" >&2; exit 2 ;;
esac
exit 0
`;

export function installInitScript(prefix = 'brine-test'): InitScript {
  const name = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-initd-'));
  const file = path.join('/etc/init.d', name);
  // a duration no other process has, so that ps finds this daemon only
  const seconds = 900000 + Math.floor(Math.random() * 99999);
  fs.writeFileSync(file, script(name, state, seconds), { mode: 0o755 });
  const pid = (): number | undefined => {
    try {
      const n = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8').trim());
      process.kill(n, 0);
      return n;
    } catch {
      return undefined;
    }
  };
  const links = (): string[] =>
    fs
      .readdirSync('/etc')
      .filter((d) => /^rc[0-6S]\.d$/.test(d))
      .flatMap((d) =>
        fs
          .readdirSync(path.join('/etc', d))
          .filter((l) => l.replace(/^[SK]\d+/, '') === name)
          .map((l) => `${d}/${l}`),
      )
      .sort();
  return {
    name,
    sig: `^/bin/sleep ${seconds}$`,
    pid,
    links,
    remove: () => {
      const p = pid();
      if (p !== undefined) process.kill(p, 'SIGTERM');
      spawnSync('update-rc.d', ['-f', name, 'remove'], { stdio: 'ignore' });
      for (const l of links()) fs.rmSync(path.join('/etc', l), { force: true });
      fs.rmSync(file, { force: true });
      fs.rmSync(state, { recursive: true, force: true });
    },
  };
}
