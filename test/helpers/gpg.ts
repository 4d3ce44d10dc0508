// A throwaway GnuPG home made with the real gpg program: a key pair without a passphrase (as the
// master's gpg_keydir needs), encryption to it, and a close that stops the home's gpg-agent
// (gpgconf --kill all) before the directory is removed.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export class GpgHome {
  private constructor(
    readonly dir: string,
    readonly uid: string,
    /** The long ID of the encryption subkey (what gpg reports in NO_SECKEY / ENC_TO). */
    readonly encKeyId: string,
  ) {}

  /** A new home under `parent` (a fresh temp dir by default) holding one key pair for `uid`. */
  static create(uid: string, parent?: string): GpgHome {
    // gpg-agent's socket path must stay short (108 bytes): a temp dir directly under os.tmpdir()
    const dir = parent ? path.join(parent, 'gpgkeys') : fs.mkdtempSync(path.join(os.tmpdir(), 'brine-gpg-'));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const run = (args: string[]): string => execFileSync('gpg', ['--homedir', dir, '--batch', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    run(['--passphrase', '', '--quick-gen-key', uid, 'future-default', 'default', 'never']);
    const colons = run(['--with-colons', '--list-keys', uid]);
    const sub = colons.split('\n').find((l) => l.startsWith('sub:'));
    if (!sub) throw new Error(`gpg made no encryption subkey for ${uid}:\n${colons}`);
    return new GpgHome(dir, uid, sub.split(':')[4]!);
  }

  /** An ASCII-armored PGP message of `text` for this home's key (or another home's, `to`). */
  encrypt(text: string, to: GpgHome = this): string {
    const args = ['--homedir', this.dir, '--batch', '--armor', '--trust-model', 'always', '--encrypt', '-r', to.uid];
    if (to !== this) {
      // the recipient's public key, imported here once
      const pub = execFileSync('gpg', ['--homedir', to.dir, '--batch', '--armor', '--export', to.uid]);
      execFileSync('gpg', ['--homedir', this.dir, '--batch', '--import'], { input: pub, stdio: ['pipe', 'ignore', 'ignore'] });
    }
    return execFileSync('gpg', args, { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  }

  /** Stops this home's gpg-agent and removes it. */
  close(): void {
    try {
      execFileSync('gpgconf', ['--homedir', this.dir, '--kill', 'all'], { stdio: 'ignore' });
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
