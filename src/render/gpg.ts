// Salt's gpg renderer (salt/renderers/gpg.py), the last stage of `#!yaml|gpg` and
// `#!jinja|yaml|gpg`: every string value of the rendered data that holds a PGP message block
// gets the block replaced by its plaintext, decrypted by the real `gpg` program with the keys of
// gpg_keydir. Neither the ciphertext nor the plaintext ever goes into an error or a log line:
// a failure names the file, the data path of the value and the key ID gpg reports.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as os from 'node:os';
import { BrineError } from '../util/errors.js';
import { printable } from '../util/printable.js';

/** Salt's GPG_CIPHERTEXT (re.DOTALL, non-greedy). */
const GPG_CIPHERTEXT = /-----BEGIN PGP MESSAGE-----[\s\S]*?-----END PGP MESSAGE-----/g;

/** One decryption may not take longer than this (a gpg-agent that hangs must not hang the master). */
const DECRYPT_TIMEOUT_MS = 30_000;

/** What the renderer needs from its caller (the master's configuration). */
export interface GpgOptions {
  /** gpg_keydir: gpg's home directory holding the secret keys (Salt: <config_dir>/gpgkeys). */
  readonly keydir: string;
  /** gpg_decrypt_must_succeed (True in Salt 3007): a block gpg cannot decrypt fails the render. */
  readonly mustSucceed: boolean;
  /** Told (file, path, reason; never the block) about a block left encrypted when mustSucceed is off. */
  readonly onUndecrypted?: (what: string) => void;
  /** The gpg program (tests and hosts with gpg2 elsewhere); `gpg` from PATH by default. */
  readonly program?: string;
  /**
   * Plaintexts by the SHA-256 of their block, shared by the renders of one process (the same SLS
   * rendered for a thousand minions runs gpg once per block, not a thousand times). Its owner
   * clears it when the secret keys change. Absent: every render runs gpg.
   */
  readonly cache?: GpgCache;
}

/** A bounded memo of decryptions: emptied when full (simple, and a refill costs one gpg run per block). */
export class GpgCache {
  private readonly map = new Map<string, string>();
  constructor(private readonly max = 20_000) {}
  static keyOf(block: string): string {
    return createHash('sha256').update(block).digest('hex');
  }
  get(block: string): string | undefined {
    return this.map.get(GpgCache.keyOf(block));
  }
  set(block: string, plaintext: string): void {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(GpgCache.keyOf(block), plaintext);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

type Outcome = { ok: true; plaintext: string } | { ok: false; reason: string };

/** Runs `gpg --decrypt` on one block; the reason on failure comes from gpg's status lines. */
function decryptBlock(block: string, opts: GpgOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(opts.program ?? 'gpg', ['--homedir', opts.keydir, '--batch', '--no-tty', '--status-fd', '2', '--decrypt'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    const out: Buffer[] = [];
    let status = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), DECRYPT_TIMEOUT_MS);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => {
      if (status.length < 65536) status += b.toString('utf8');
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: err.code === 'ENOENT' ? `the gpg program is not installed on this host (install the gnupg package)` : `gpg could not be started: ${err.message}` });
    });
    child.on('close', (_code, signal) => {
      clearTimeout(timer);
      // DECRYPTION_OKAY decides, not the exit code (gpg may exit non-zero after a good decryption,
      // over a signature it cannot check); without it nothing is taken from stdout (Salt takes
      // any output)
      if (/^\[GNUPG:\] DECRYPTION_OKAY/m.test(status) && !/^\[GNUPG:\] DECRYPTION_FAILED/m.test(status)) return resolve({ ok: true, plaintext: Buffer.concat(out).toString('utf8') });
      resolve({ ok: false, reason: signal === 'SIGKILL' ? `gpg did not finish within ${DECRYPT_TIMEOUT_MS / 1000} s` : failureReason(status, opts.keydir) });
    });
    child.stdin.on('error', () => {
      // gpg exits early on damaged input; its status lines say why
    });
    // Salt turns a literal backslash-n into a newline first (a block written on one line)
    child.stdin.end(block.replace(/\\n/g, '\n'));
  });
}

/** Why gpg failed, from its status lines: key IDs and gpg's own one-line reason, never data. */
function failureReason(status: string, keydir: string): string {
  const noSeckey = [...status.matchAll(/^\[GNUPG:\] NO_SECKEY (\S+)/gm)].map((m) => m[1]!);
  if (noSeckey.length > 0) {
    return `gpg_keydir ${keydir} holds no secret key for key ID ${noSeckey.join(', ')}: import that key there (gpg --homedir ${keydir} --import key.asc) or encrypt the value to a key it holds`;
  }
  if (/^\[GNUPG:\] NODATA/m.test(status)) return 'the block is not a valid PGP message (damaged or truncated armor): encrypt the value again';
  const encTo = [...status.matchAll(/^\[GNUPG:\] ENC_TO (\S+)/gm)].map((m) => m[1]!);
  const gpgLines = status.split('\n').filter((l) => l.startsWith('gpg: '));
  const last = gpgLines.at(-1);
  return `gpg could not decrypt it${encTo.length > 0 ? ` (encrypted to key ID ${encTo.join(', ')})` : ''}${last ? `: ${printable(last.slice(5, 300))}` : ''}; check gpg_keydir ${keydir} (a secret key with a passphrase cannot be used by the master)`;
}

interface Site {
  /** `a:b:0`: where the value sits in the data (Salt's delimiter), for the error message. */
  path: string;
}

/** Every string value holding a block, with its data path (keys are not decrypted, as in Salt). */
function collect(data: unknown, path: string[], sites: Map<string, Site[]>): void {
  if (typeof data === 'string') {
    for (const m of data.matchAll(GPG_CIPHERTEXT)) {
      const list = sites.get(m[0]) ?? [];
      list.push({ path: path.join(':') || '(top)' });
      sites.set(m[0], list);
    }
  } else if (Array.isArray(data)) {
    for (const [i, v] of data.entries()) collect(v, [...path, String(i)], sites);
  } else if (typeof data === 'object' && data !== null) {
    for (const [k, v] of Object.entries(data)) collect(v, [...path, k], sites);
  }
}

function substitute(data: unknown, plain: ReadonlyMap<string, string>): unknown {
  if (typeof data === 'string') {
    let hit = false;
    const out = data.replace(GPG_CIPHERTEXT, (block) => {
      hit = true;
      return plain.get(block) ?? block;
    });
    // Salt strips trailing newlines once a block matched (a YAML block scalar adds one), even one
    // left encrypted
    return hit ? out.replace(/\n+$/, '') : out;
  }
  if (Array.isArray(data)) return data.map((v) => substitute(v, plain));
  if (typeof data === 'object' && data !== null) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) o[k] = substitute(v, plain);
    return o;
  }
  return data;
}

/** Runs `fn` over `items` with at most `limit` at a time (one gpg process per distinct block). */
async function pooled<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Decrypts every PGP message block in the data's string values. Identical blocks are decrypted
 * once; distinct ones run in parallel (a few gpg processes at a time). Throws GPG_DECRYPT_FAILED
 * naming `source`, the data path and gpg's reason when a block cannot be decrypted and
 * mustSucceed is on; otherwise leaves that block as it is and tells onUndecrypted.
 */
export async function decryptData(data: unknown, source: string, opts: GpgOptions): Promise<unknown> {
  const sites = new Map<string, Site[]>();
  collect(data, [], sites);
  if (sites.size === 0) return data;
  const blocks = [...sites.keys()];
  const outcomes = await pooled(blocks, Math.max(1, Math.min(4, os.availableParallelism())), async (b): Promise<Outcome> => {
    const hit = opts.cache?.get(b);
    if (hit !== undefined) return { ok: true, plaintext: hit };
    const o = await decryptBlock(b, opts);
    if (o.ok) opts.cache?.set(b, o.plaintext);
    return o;
  });
  const plain = new Map<string, string>();
  const failures: string[] = [];
  blocks.forEach((b, i) => {
    const o = outcomes[i]!;
    if (o.ok) plain.set(b, o.plaintext);
    else
      failures.push(
        `at ${sites
          .get(b)!
          .map((s) => `'${s.path}'`)
          .join(', ')}: ${o.reason}`,
      );
  });
  if (failures.length > 0) {
    const what = `${source}: ${failures.length} of ${blocks.length} PGP message block(s) could not be decrypted (${failures.join('; ')})`;
    if (opts.mustSucceed) throw new BrineError('GPG_DECRYPT_FAILED', what, { details: { file: source } });
    opts.onUndecrypted?.(`${what}; left encrypted because gpg_decrypt_must_succeed is False`);
  }
  return substitute(data, plain);
}
