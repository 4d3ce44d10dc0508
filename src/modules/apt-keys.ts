// The signing key of an apt repository, as Salt 3007's aptpkg.mod_repo adds it: from key_url
// (salt://, http(s)://, file:// or a local path), key_text, or keyid + keyserver. With apt-key
// (aptkey: True, the default, and apt-key on PATH) the key goes into apt's trusted keyring
// (`apt-key add`, `apt-key adv --recv-keys`); without it (aptkey: False, or no apt-key, as on
// Debian 13) the repository line must name its keyring (signed-by=/etc/apt/keyrings/x.gpg) and the
// key is written there, de-armored, in the binary format apt reads. The keys themselves are
// handled by gpg (and apt-key), never parsed here.

import { chmod, copyFile, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { runArgv, runChecked, which } from './host-tools.js';
import type { ExecContext } from './types.js';
import { cacheUrl, isRemoteUrl, redact } from './url-cache.js';

export interface AptKeyRequest {
  key_url?: unknown;
  key_text?: unknown;
  keyid?: unknown;
  keyserver?: unknown;
  aptkey?: unknown;
}

export interface AptKeyOptions {
  /** The keyring `apt-key` writes (`apt-key --keyring <file>`); apt's default when unset. */
  aptKeyring?: string;
}

/** Whether the request carries a key at all. */
export const wantsKey = (kw: AptKeyRequest): boolean => kw.key_url != null || kw.key_text != null || kw.keyid != null;

/** Salt reads a YAML int keyid (`keyid: 12345678`) as hex digits: hex(key) without its 0x. */
function keyIds(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((k) => {
    const id = typeof k === 'number' ? k.toString(16) : String(k);
    if (!/^(0x)?[0-9A-Fa-f]{8,40}$/.test(id)) throw new BrineError('BAD_ARGUMENTS', `pkg.mod_repo: keyid '${id}' is not a key ID; give 8, 16 or 40 hex digits`);
    return id.replace(/^0x/, '').toUpperCase();
  });
}

/** key_url made local as Salt's cp.cache_file does. */
async function fetchKey(ctx: ExecContext, url: string, saltenv: string): Promise<string> {
  if (url.startsWith('salt://')) {
    if (!ctx.files) throw new BrineError('FILESERVER_UNAVAILABLE', `pkg.mod_repo: cannot fetch ${url}: no file server is reachable from this minion`);
    return (await ctx.files.cacheFile(url, saltenv)).localPath;
  }
  if (isRemoteUrl(url)) {
    const cachedir = ctx.config.cachedir;
    if (typeof cachedir !== 'string' || cachedir === '') throw new BrineError('EXEC_FAILED', 'pkg.mod_repo: this minion has no cachedir to download key_url into; set cachedir');
    const ca = ctx.config.ca_bundle;
    return cacheUrl(url, { cachedir, saltenv, signal: ctx.signal, ...(typeof ca === 'string' && ca !== '' ? { caBundle: ca } : {}) });
  }
  const local = url.startsWith('file://') ? url.slice('file://'.length) : url;
  if (!path.isAbsolute(local) || !(await stat(local).catch(() => undefined))?.isFile()) {
    throw new BrineError('FILE_NOT_FOUND', `pkg.mod_repo: Error: file not found: ${redact(url)}`);
  }
  return local;
}

function needGpg(): void {
  if (!which('gpg')) throw new BrineError('EXEC_FAILED', 'pkg.mod_repo: the gpg program is needed to write a repository keyring (apt-get install gpg)');
}

/** Runs gpg in a throwaway home (so no key lands in root's keyring), then stops its agents. */
async function withGpgHome<T>(body: (home: string) => Promise<T>): Promise<T> {
  needGpg();
  const home = await mkdtemp(path.join(os.tmpdir(), 'brine-aptkey-'));
  try {
    return await body(home);
  } finally {
    await runArgv('pkg.mod_repo', ['gpgconf', '--homedir', home, '--kill', 'all']).catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}

/** The key file as apt reads it: de-armored when it is ASCII-armored (Salt's _decrypt_key), else as it is. */
async function binaryKey(file: string, into: string): Promise<string> {
  const head = (await readFile(file)).subarray(0, 64).toString('latin1');
  if (!head.replace(/^-+/, '').startsWith('BEGIN PGP')) return file;
  const out = path.join(into, 'key.gpg');
  await withGpgHome((home) => runChecked('pkg.mod_repo', ['gpg', '--homedir', home, '--batch', '--yes', '--output', out, '--dearmor', file]));
  return out;
}

/** The keyring directory for aptkey: False: signed-by's directory, which must exist (Salt refuses to create it). */
async function keyringDir(signedby: string): Promise<string> {
  const dir = path.dirname(signedby);
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    throw new BrineError('BAD_ARGUMENTS', `pkg.mod_repo: The directory ${dir} does not exist. Please create this directory only writable by root (file.directory with mode: 755)`);
  }
  return dir;
}

/**
 * Adds the repository's key before its line is written (Salt's order). `signedby` is the keyring
 * the line names ('' for none). Returns nothing; a failure throws with Salt's wording.
 */
export async function addRepoKey(ctx: ExecContext, kw: AptKeyRequest, signedby: string, saltenv: string, o: AptKeyOptions = {}): Promise<void> {
  if (!wantsKey(kw)) return;
  const aptkey = kw.aptkey !== false && which('apt-key') !== undefined;
  if (!aptkey && signedby === '') {
    throw new BrineError('BAD_ARGUMENTS', "pkg.mod_repo: missing 'signedby' option when apt-key is missing; name the keyring in the line: deb [signed-by=/etc/apt/keyrings/<name>.gpg] ...");
  }
  const aptKey = (args: string[], stdin?: string) =>
    runArgv('pkg.mod_repo', ['apt-key', ...(o.aptKeyring ? ['--keyring', o.aptKeyring] : []), ...args], {
      env: { APT_KEY_DONT_WARN_ON_DANGEROUS_USAGE: '1' },
      signal: ctx.signal,
      ...(stdin !== undefined ? { stdin } : {}),
    });
  if (kw.keyid != null) {
    if (kw.keyserver == null || kw.keyserver === '') throw new BrineError('BAD_ARGUMENTS', 'pkg.mod_repo: both keyserver and keyid options required.');
    await recvKeys(keyIds(kw.keyid), String(kw.keyserver), aptkey ? undefined : signedby, aptKey);
    return;
  }
  if (kw.key_url != null) {
    const url = String(kw.key_url);
    const file = await fetchKey(ctx, url, saltenv);
    if (aptkey) {
      const r = await aptKey(['add', file]);
      if (!r.stdout.toUpperCase().startsWith('OK')) throw new BrineError('EXEC_FAILED', `pkg.mod_repo: Error: failed to add key from ${redact(url)}: ${r.stderr.trim()}`);
      return;
    }
    await writeKeyring(file, signedby);
    return;
  }
  const text = String(kw.key_text);
  if (aptkey) {
    const r = await aptKey(['add', '-'], text);
    if (!r.stdout.toUpperCase().startsWith('OK')) throw new BrineError('EXEC_FAILED', `pkg.mod_repo: Error: failed to add key:\n${text}`);
    return;
  }
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'brine-keytext-'));
  try {
    await writeFile(path.join(tmp, 'key.asc'), text);
    await writeKeyring(path.join(tmp, 'key.asc'), signedby);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Writes the key file into signed-by's keyring (Salt's add_repo_key with aptkey=False). */
async function writeKeyring(file: string, signedby: string): Promise<void> {
  await keyringDir(signedby);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'brine-key-'));
  try {
    const bin = await binaryKey(file, tmp);
    await copyFile(bin, `${signedby}.brine-tmp`);
    await publish(`${signedby}.brine-tmp`, signedby);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Puts a written keyring in place in one step; apt reads it as its _apt user, so it is world-readable. */
async function publish(tmp: string, keyring: string): Promise<void> {
  await chmod(tmp, 0o644);
  await rename(tmp, keyring);
}

type AptKeyRunner = (args: string[]) => ReturnType<typeof runArgv>;

/**
 * keyid + keyserver. apt-key: `apt-key adv --recv-keys` unless `apt-key export` has it. Without
 * apt-key: fetched into a throwaway gpg home and exported to signed-by's keyring (an existing
 * keyring holding the key is left alone). Salt asks gpg to write that keyring directly, which makes
 * a keybox file apt cannot read; exporting gives the OpenPGP format apt needs.
 */
async function recvKeys(ids: string[], keyserver: string, signedby: string | undefined, aptKey: AptKeyRunner): Promise<void> {
  if (signedby === undefined) {
    for (const id of ids) {
      const have = await aptKey(['export', id]);
      if (have.stdout.startsWith('-----BEGIN PGP')) continue;
      const r = await aptKey(['adv', '--batch', '--keyserver', keyserver, '--logger-fd', '1', '--recv-keys', id]);
      if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `pkg.mod_repo: Error: key retrieval failed: ${r.stdout.trim() || r.stderr.trim()}`);
    }
    return;
  }
  await keyringDir(signedby);
  const held = await keyringIds(signedby);
  const missing = ids.filter((id) => !held.some((k) => k.endsWith(id)));
  if (missing.length === 0) return;
  await withGpgHome(async (home) => {
    const gpg = (args: string[]) => runChecked('pkg.mod_repo', ['gpg', '--homedir', home, '--batch', ...args]);
    if (held.length > 0) await gpg(['--import', signedby]);
    const r = await runArgv('pkg.mod_repo', ['gpg', '--homedir', home, '--batch', '--keyserver', keyserver, '--recv-keys', ...missing]);
    if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `pkg.mod_repo: Error: key retrieval failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
    await gpg(['--yes', '--output', `${signedby}.brine-tmp`, '--export']);
    await publish(`${signedby}.brine-tmp`, signedby);
  });
}

/** The fingerprints of the keys in a keyring file ([] when it does not exist). */
export async function keyringIds(keyring: string): Promise<string[]> {
  if (!(await stat(keyring).catch(() => undefined))) return [];
  return withGpgHome(async (home) => {
    const r = await runArgv('pkg.mod_repo', ['gpg', '--homedir', home, '--batch', '--no-default-keyring', '--keyring', keyring, '--list-keys', '--with-colons']);
    return r.stdout
      .split('\n')
      .filter((l) => l.startsWith('fpr:'))
      .map((l) => l.split(':')[9]!.toUpperCase());
  });
}
