// A real SysV init script for the init-script service backends' tests: installed in /etc/init.d
// (or a temp root's etc/init.d) under a unique name, it runs `sleep` in the background and keeps
// its pid in a temp dir, so `service` and `update-rc.d` (init-system-helpers) drive it exactly as
// they drive a packaged daemon. With `named`, the daemon's argv[0] is the service name, so that
// a search of ps by name (linux_service's status) finds it as it finds a packaged daemon.
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

const script = (name: string, state: string, daemon: string) => `#!/bin/sh
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
  start) running && exit 0; ${daemon} >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo "$1" >> ${state}/log ;;
  stop) running && kill "$(cat "$PIDFILE")"; rm -f "$PIDFILE"; echo "$1" >> ${state}/log ;;
  restart|force-reload) "$0" stop; "$0" start; echo "$1" >> ${state}/log ;;
  reload) running || exit 7; echo "$1" >> ${state}/log ;;
  status) running || exit 3 ;;
  *) echo "Usage: $0 {start|stop|restart|reload|force-reload|status}" >&2; exit 2 ;;
esac
exit 0
`;

export interface InitScriptOptions {
  prefix?: string;
  /** The tree whose etc/init.d gets the script and whose etc/rc?.d are listed ('/' by default). */
  root?: string;
  /** Run the daemon with the service name as its argv[0] (bash's exec -a). */
  named?: boolean;
}

export function installInitScript(opts: InitScriptOptions = {}): InitScript {
  const name = `${opts.prefix ?? 'brine-test'}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const root = opts.root ?? '/';
  const etc = path.join(root, 'etc');
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-initd-'));
  fs.mkdirSync(path.join(etc, 'init.d'), { recursive: true });
  const file = path.join(etc, 'init.d', name);
  // a duration no other process has, so that ps finds this daemon only
  const seconds = 900000 + Math.floor(Math.random() * 99999);
  // exec keeps the pid $! names (bash's exec -a only renames the process)
  const daemon = opts.named ? `/bin/bash -c 'exec -a ${name} /bin/sleep ${seconds}'` : `/bin/sleep ${seconds}`;
  fs.writeFileSync(file, script(name, state, daemon), { mode: 0o755 });
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
      .readdirSync(etc)
      .filter((d) => /^rc[0-6S]\.d$/.test(d))
      .flatMap((d) =>
        fs
          .readdirSync(path.join(etc, d))
          .filter((l) => l.replace(/^[SK]\d+/, '') === name)
          .map((l) => `${d}/${l}`),
      )
      .sort();
  return {
    name,
    sig: opts.named ? `^${name} ${seconds}$` : `^/bin/sleep ${seconds}$`,
    pid,
    links,
    remove: () => {
      const p = pid();
      if (p !== undefined) process.kill(p, 'SIGTERM');
      if (root === '/') spawnSync('update-rc.d', ['-f', name, 'remove'], { stdio: 'ignore' });
      for (const l of links()) fs.rmSync(path.join(etc, l), { force: true });
      fs.rmSync(file, { force: true });
      fs.rmSync(state, { recursive: true, force: true });
    },
  };
}
