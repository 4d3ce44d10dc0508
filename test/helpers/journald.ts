// A real systemd-journald for a test, in its own journal namespace (systemd-journald <namespace>,
// as systemd-journald@.service runs it), so that a test owns its journal and leaves the host's
// alone: sockets under /run/systemd/journal.<ns>/, files under <journal dir>/<machine-id>.<ns>/,
// all removed by stop(). `send` writes an entry through journald's native socket, `logger` as
// syslog does. `journaldSkipReason` says why it cannot run here.

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './repo.js';
import { waitUntil } from './wait.js';

const JOURNALD = ['/usr/lib/systemd/systemd-journald', '/lib/systemd/systemd-journald'].find((p) => fs.existsSync(p));
const hasJournalctl = (() => {
  try {
    execFileSync('journalctl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Why a namespaced journald cannot be started here, or false. */
export const journaldSkipReason: string | false =
  process.getuid?.() !== 0
    ? 'needs root to run systemd-journald'
    : JOURNALD === undefined || !hasJournalctl
      ? 'systemd-journald or journalctl is missing (Debian: apt-get install systemd)'
      : !fs.existsSync('/etc/machine-id')
        ? 'no /etc/machine-id (journald names its files after it; systemd-machine-id-setup writes one)'
        : false;

/** The python3 that has python-systemd (Debian's python3-systemd installs it for /usr/bin/python3). */
export const PYTHON_SYSTEMD = '/usr/bin/python3';
export const pythonSystemdSkipReason: string | false = (() => {
  try {
    execFileSync(PYTHON_SYSTEMD, ['-c', 'import systemd.journal'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'python-systemd is not installed (Debian: apt-get install python3-systemd)';
  }
})();

export class NamespacedJournald {
  private constructor(
    readonly namespace: string,
    private readonly child: ChildProcess,
  ) {}

  private keepalive: NodeJS.Timeout | undefined;

  static async start(): Promise<NamespacedJournald> {
    if (JOURNALD === undefined) throw new Error(String(journaldSkipReason));
    // namespace names are short: the pid keeps parallel test files apart
    const namespace = `brinet${process.pid}`;
    const child = spawn(JOURNALD, [namespace], { stdio: ['ignore', 'ignore', 'pipe'] });
    const j = new NamespacedJournald(namespace, child);
    await waitUntil(() => fs.existsSync(j.socket) && fs.existsSync(j.devLog), 10_000, `systemd-journald ${namespace} to create ${j.socket}`);
    // a namespace's journald exits after 30 s without a message (systemd-journald@.service is
    // started again by its socket); a message every 10 s keeps this one up for the test
    j.keepalive = setInterval(() => execFile('logger', ['-u', j.devLog, '-t', 'brine-test-keepalive', 'keepalive'], () => undefined), 10_000);
    j.keepalive.unref();
    return j;
  }

  get runDir(): string {
    return `/run/systemd/journal.${this.namespace}`;
  }

  get socket(): string {
    return path.join(this.runDir, 'socket');
  }

  get devLog(): string {
    return path.join(this.runDir, 'dev-log');
  }

  /** One entry through the native protocol: {FIELD: value | {hex} | [values]}. */
  send(fields: Record<string, unknown>): void {
    execFileSync(PYTHON_SYSTEMD, [path.join(repoRoot(), 'test', 'helpers', 'journal-send.py'), this.socket], { input: JSON.stringify(fields) });
  }

  /** One entry as syslog(3) writes it, with logger(1). */
  logger(tag: string, priority: string, message: string): void {
    execFileSync('logger', ['-u', this.devLog, '-t', tag, '-p', priority, message]);
  }

  /** journalctl -o json of the whole namespace: the entries as journalctl prints them. */
  entries(): Record<string, unknown>[] {
    const out = execFileSync('journalctl', [`--namespace=${this.namespace}`, '-o', 'json', '--all', '--no-pager', '--quiet'], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  /** The pids of journalctl processes reading this namespace (a minion killed with SIGKILL leaves its follower behind). */
  readers(): number[] {
    const pids: number[] = [];
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (path.basename(argv[0] ?? '') === 'journalctl' && argv.includes(`--namespace=${this.namespace}`)) pids.push(Number(pid));
      } catch {
        // gone meanwhile
      }
    }
    return pids;
  }

  async stop(): Promise<void> {
    clearInterval(this.keepalive);
    for (const pid of this.readers()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
    }
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      await exited;
    }
    const machineId = fs.readFileSync('/etc/machine-id', 'utf8').trim();
    for (const dir of [this.runDir, `/var/log/journal/${machineId}.${this.namespace}`, `/run/log/journal/${machineId}.${this.namespace}`]) fs.rmSync(dir, { recursive: true, force: true });
  }
}
