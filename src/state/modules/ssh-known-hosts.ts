// ssh_known_hosts.present / absent: a host's public key is (or is not) in a known_hosts file,
// through ssh-keygen (-F to find, -R to remove, -H to hash) as Salt's salt/modules/ssh.py does;
// comments and changes are Salt's salt/states/ssh_known_hosts.py. Without `key`, the key is
// fetched with ssh-keyscan (needs the host reachable).

import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';
import { findUser, readPasswd } from '../../modules/user-db.js';
import type { StateResult } from '../types.js';
import { defineState } from '../types.js';
import { writeAtomic } from './file-write.js';

export interface HostEntry {
  hostname: string;
  enc: string;
  key: string;
  fingerprint?: string;
}

/** Salt's _fingerprint with the sha256 default: colon-separated hex of the decoded key's hash. */
export function fingerprint(key: string, type = 'sha256'): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0) return undefined;
  const hex = createHash(type).update(Buffer.from(key, 'base64')).digest('hex');
  return hex.match(/../g)!.join(':');
}

async function sshKeygen(args: string[]): Promise<string> {
  if (!which('ssh-keygen')) throw new Error('ssh-keygen is not installed on this minion; install openssh-client first (pkg.installed: openssh-client)');
  const r = await runProcess({ argv: ['ssh-keygen', ...args], label: 'ssh_known_hosts', mergeStderr: true, rstrip: true });
  return r.stdout;
}

function sshHostname(host: string, port: number | undefined): string {
  return port === undefined || port === 22 ? host : `[${host}]:${port}`;
}

/** Salt's _get_known_hosts_file: a relative config is under the user's home. */
async function knownHostsFile(user: string | undefined, config: string): Promise<{ path: string; uid?: number; gid?: number } | { error: string }> {
  if (!user) return { path: config };
  const u = findUser(await readPasswd('ssh_known_hosts'), user);
  if (!u) return { error: `User ${user} does not exist` };
  return { path: path.isAbsolute(config) ? config : path.join(u.home, config), uid: u.uid, gid: u.gid };
}

/** Salt's get_known_host_entries (ssh-keygen -F), or undefined when the host is not there. */
async function entries(file: string, host: string, port: number | undefined, fpType: string): Promise<HostEntry[] | undefined> {
  if (!existsSync(file)) return undefined;
  const out: HostEntry[] = [];
  for (const raw of (await sshKeygen(['-F', sshHostname(host, port), '-f', file])).split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const parts = line.split(/\s+/);
    if (parts.length !== 3) continue;
    const fp = fingerprint(parts[2]!, fpType);
    if (fp) out.push({ hostname: parts[0]!, key: parts[2]!, enc: parts[1]!, fingerprint: fp });
  }
  return out.length > 0 ? out : undefined;
}

/** ssh-keyscan of the host (Salt's recv_known_host_entries), for present without `key`. */
async function scan(host: string, enc: string | undefined, port: number | undefined, hash: boolean, timeout: number, fpType: string): Promise<HostEntry[]> {
  if (!which('ssh-keyscan')) return [];
  const argv = ['ssh-keyscan', ...(port ? ['-p', String(port)] : []), ...(enc ? ['-t', enc.replace(/^ssh-/, '')] : []), ...(hash ? ['-H'] : []), '-T', String(timeout), host];
  const r = await runProcess({ argv, label: 'ssh_known_hosts', rstrip: true });
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .flatMap((l) => {
      const [hostname, e, key] = l.trim().split(/\s+/);
      const fp = key ? fingerprint(key, fpType) : undefined;
      return hostname && e && key && fp ? [{ hostname, enc: e, key, fingerprint: fp }] : [];
    });
}

const COMMON = [
  { name: 'name', type: 'string', required: true, doc: 'the host name (or address)' },
  { name: 'user', type: 'string', doc: "whose known_hosts file (default: the system's /etc/ssh/ssh_known_hosts)" },
  { name: 'config', type: 'string', doc: 'the file; relative to the home with user (default .ssh/known_hosts)' },
] as const;

export const sshKnownHostsPresent = defineState({
  name: 'ssh_known_hosts.present',
  doc: "Make sure a host's public key is in a known_hosts file.",
  params: [
    ...COMMON,
    { name: 'fingerprint', type: 'string', doc: 'the expected fingerprint (the key is then fetched with ssh-keyscan)' },
    { name: 'key', type: 'string', doc: 'the public key (base64), written without contacting the host' },
    { name: 'port', type: 'int', doc: 'ssh port of the host' },
    { name: 'enc', type: 'string', doc: 'key type, e.g. ssh-ed25519 (required with key)' },
    { name: 'hash_known_hosts', type: 'bool', default: true, doc: 'hash the host names in the file (ssh-keygen -H)' },
    { name: 'timeout', type: 'int', default: 5, doc: 'ssh-keyscan timeout in seconds' },
    { name: 'fingerprint_hash_type', type: 'string', doc: 'hash of fingerprints (default sha256)' },
  ],
  example: 'github.com:\n  ssh_known_hosts.present:\n    - user: root\n    - enc: ssh-ed25519\n    - key: AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const name = a.name;
    const config = a.config ?? (a.user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts');
    const ret: StateResult = { name, result: ctx.test ? null : true, changes: {}, comment: '' };
    if (!a.user && !path.isAbsolute(config)) return { ...ret, result: false, comment: 'If not specifying a "user", specify an absolute "config".' };
    if (a.key && a.fingerprint) return { ...ret, result: false, comment: 'Specify either "key" or "fingerprint", not both.' };
    if (a.key && !a.enc) return { ...ret, result: false, comment: 'Required argument "enc" if using "key" argument.' };
    const file = await knownHostsFile(a.user, config);
    if ('error' in file) return { ...ret, result: false, comment: file.error };
    const fpType = a.fingerprint_hash_type ?? 'sha256';
    const stored = await entries(file.path, name, a.port, fpType);
    if (ctx.test) {
      if (!stored) return { ...ret, comment: `Key for ${name} is set to be added to ${config}` };
      const exists = a.key ? stored.some((e) => e.key === a.key) : a.fingerprint ? stored.some((e) => e.fingerprint === a.fingerprint) : true;
      if (exists) return { ...ret, result: true, comment: `Host ${name} is already in ${config}` };
      return { ...ret, comment: `Key for ${name} is set to be updated in ${config}` };
    }
    let update = !stored || (a.fingerprint !== undefined && !stored.some((e) => e.fingerprint === a.fingerprint)) || (a.key !== undefined && !stored.some((e) => e.key === a.key));
    const check = !update && a.key === undefined && a.fingerprint === undefined;
    if (!update && !check) return { ...ret, comment: `${name} already exists in ${config}` };
    let fresh: HostEntry[];
    if (a.key) fresh = [{ hostname: name, enc: a.enc!, key: a.key }];
    else {
      fresh = await scan(name, a.enc, a.port, a.hash_known_hosts, a.timeout, fpType);
      if (fresh.length === 0) return { ...ret, result: false, comment: 'Unable to receive remote host keys' };
      if (a.fingerprint && !fresh.some((e) => e.fingerprint === a.fingerprint)) {
        return { ...ret, result: false, comment: 'Remote host public keys found but none of their fingerprints match the one you have provided' };
      }
      if (check && fresh.some((e) => stored?.some((s) => s.key === e.key))) return { ...ret, comment: `${name} already exists in ${config}` };
      update = true;
    }
    const origMode = statSync(file.path, { throwIfNoEntry: false })?.mode;
    if (origMode !== undefined) {
      // Salt drops the host's lines of the same key type (found with ssh-keygen -F) first.
      const found = (await sshKeygen(['-F', sshHostname(name, a.port), '-f', file.path])).split('\n');
      const drop = new Set<number>();
      for (let i = 0; i + 1 < found.length; i += 2) {
        const lineNo = Number(found[i]!.trim().split(/\s+/).pop());
        if (found[i + 1]!.trim().split(/\s+/).at(-2) === (a.enc ?? 'rsa')) drop.add(lineNo);
      }
      if (drop.size > 0) {
        const lines = readFileSync(file.path, 'utf8').split(/(?<=\n)/);
        await writeAtomic(file.path, lines.filter((_, i) => !drop.has(i + 1)).join(''));
      }
    }
    const lines = fresh.map((e) => {
      const host = a.hash_known_hosts || a.port === undefined || a.port === 22 || e.hostname.includes(':') ? e.hostname : `[${e.hostname}]:${a.port}`;
      return `${host} ${e.enc} ${e.key}\n`;
    });
    const dir = path.dirname(file.path);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      if (a.user && file.uid !== undefined) {
        chownSync(dir, file.uid, file.gid!);
        chmodSync(dir, 0o700);
      }
    }
    const before = existsSync(file.path) ? readFileSync(file.path, 'utf8') : '';
    await writeAtomic(file.path, before + lines.join(''));
    if (process.geteuid?.() === 0 && a.user && file.uid !== undefined) chownSync(file.path, file.uid, file.gid!);
    chmodSync(file.path, origMode !== undefined ? origMode & 0o7777 : 0o600);
    if (a.key && a.hash_known_hosts) await sshKeygen(['-H', '-f', file.path]);
    const changes = { old: stored ?? null, new: fresh };
    if (a.key) return { ...ret, changes, comment: `${name}'s key saved to ${config} (key: ${fresh[0]!.key})` };
    return { ...ret, changes, comment: `${name}'s key saved to ${config} (fingerprint: ${fresh[0]!.fingerprint})` };
  },
});

export const sshKnownHostsAbsent = defineState({
  name: 'ssh_known_hosts.absent',
  doc: "Make sure a host's keys are not in a known_hosts file.",
  params: [...COMMON],
  example: 'old.example.com:\n  ssh_known_hosts.absent:\n    - user: root',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const name = a.name;
    const config = a.config ?? (a.user ? '.ssh/known_hosts' : '/etc/ssh/ssh_known_hosts');
    const ret: StateResult = { name, result: true, changes: {}, comment: '' };
    if (!a.user && !path.isAbsolute(config)) return { ...ret, result: false, comment: 'If not specifying a "user", specify an absolute "config".' };
    const file = await knownHostsFile(a.user, config);
    if ('error' in file) return { ...ret, result: false, comment: file.error };
    const known = await entries(file.path, name, undefined, 'sha256');
    if (!known) return { ...ret, comment: 'Host is already absent' };
    if (ctx.test) return { ...ret, result: null, comment: `Key for ${name} is set to be removed from ${config}` };
    const out = await sshKeygen(['-R', name, '-f', file.path]);
    if (process.geteuid?.() === 0 && a.user && file.uid !== undefined) chownSync(file.path, file.uid, file.gid!);
    return { ...ret, changes: { old: known, new: null }, comment: out };
  },
});
