// A real OpenSSH server (Debian `openssh-server`) for tests: on a free loopback port, with a
// host key and one client key made by the test, accepting only that key for the current user.
// `knownHosts` holds the host key, so clients can keep StrictHostKeyChecking=yes.

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, Proc } from './cluster.js';

export const SSHD = '/usr/sbin/sshd';

export class Sshd {
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly proc: Proc,
  ) {}

  /** The client's private key (no passphrase). */
  get clientKey(): string {
    return path.join(this.dir, 'client_key');
  }

  get knownHosts(): string {
    return path.join(this.dir, 'known_hosts');
  }

  get user(): string {
    return os.userInfo().username;
  }

  /** An ssh:// URL of a path on this machine. */
  url(repoPath: string): string {
    return `ssh://${this.user}@127.0.0.1:${this.port}${repoPath}`;
  }

  static async start(dir: string): Promise<Sshd> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'brine-test', '-f', file]);
    keygen(path.join(dir, 'host_key'));
    keygen(path.join(dir, 'client_key'));
    fs.copyFileSync(path.join(dir, 'client_key.pub'), path.join(dir, 'authorized_keys'));
    const port = await freePort();
    const hostPub = fs.readFileSync(path.join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
    fs.writeFileSync(path.join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`);
    const config = path.join(dir, 'sshd_config');
    fs.writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${path.join(dir, 'host_key')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication yes',
        'PermitRootLogin prohibit-password',
        'UsePAM no',
        // the test's temporary directory is not laid out as sshd's strict mode wants
        'StrictModes no',
        'PidFile none',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
    );
    // sshd running as root wants its privilege separation directory
    if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    const proc = new Proc('sshd', child);
    await proc.waitForOutput(/Server listening on 127\.0\.0\.1 port/);
    return new Sshd(dir, port, proc);
  }

  async close(): Promise<void> {
    await this.proc.kill('SIGTERM');
  }
}
