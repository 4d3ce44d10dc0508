// dnf/yum repositories as INI sections in reposdir/*.repo: list, find, add or change the keys
// of one, remove one (a file left with no section is deleted).

import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { writeAtomic } from './pkgrepo-apt.js';

export type RepoConfig = Record<string, string>;

interface Section {
  id: string;
  /** key → value, in file order. */
  keys: Map<string, string>;
}

interface RepoFile {
  /** Lines before the first section (comments). */
  head: string[];
  sections: Section[];
}

export function parseRepoFile(text: string): RepoFile {
  const out: RepoFile = { head: [], sections: [] };
  let cur: Section | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) {
      cur = { id: sec[1]!.trim(), keys: new Map() };
      out.sections.push(cur);
      continue;
    }
    if (!cur) {
      if (line !== '') out.head.push(raw);
      continue;
    }
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) cur.keys.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return out;
}

export function renderRepoFile(f: RepoFile): string {
  const parts: string[] = [...f.head];
  for (const s of f.sections) {
    if (parts.length) parts.push('');
    parts.push(`[${s.id}]`, ...[...s.keys].map(([k, v]) => `${k}=${v}`));
  }
  return `${parts.join('\n')}\n`;
}

const REPO_ID = /^[A-Za-z0-9_.:-]+$/;
const KEY = /^[a-z_][a-z0-9_]*$/;

export function checkRepoId(fun: string, id: string): string {
  if (!REPO_ID.test(id)) throw new BrineError('BAD_ARGUMENTS', `${fun}: repository id '${id}' must be letters, digits, '_', '.', ':' and '-'`);
  return id;
}

/** Salt's values: booleans as 1/0, lists joined by spaces; no line breaks. */
export function repoValue(fun: string, key: string, v: unknown): string {
  if (!KEY.test(key)) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${key}' is not a repository option name`);
  const text = typeof v === 'boolean' ? (v ? '1' : '0') : Array.isArray(v) ? v.map(String).join(' ') : String(v);
  if (/[\n\r\0]/.test(text)) throw new BrineError('BAD_ARGUMENTS', `${fun}: the value of ${key} must be one line`);
  return text;
}

export class YumRepos {
  constructor(private readonly dir: string) {}

  private async files(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names
      .filter((n) => n.endsWith('.repo'))
      .sort()
      .map((n) => path.join(this.dir, n));
  }

  async list(): Promise<Map<string, RepoConfig & { file: string }>> {
    const out = new Map<string, RepoConfig & { file: string }>();
    for (const file of await this.files()) {
      for (const s of parseRepoFile(await readFile(file, 'utf8')).sections) out.set(s.id, { ...Object.fromEntries(s.keys), file });
    }
    return out;
  }

  async get(id: string): Promise<(RepoConfig & { file: string }) | undefined> {
    return (await this.list()).get(id);
  }

  defaultFile(id: string): string {
    return path.join(this.dir, `${id}.repo`);
  }

  checkFile(fun: string, file: string): string {
    const resolved = path.resolve(this.dir, file);
    if (path.dirname(resolved) !== path.resolve(this.dir) || !resolved.endsWith('.repo'))
      throw new BrineError('BAD_ARGUMENTS', `${fun}: file '${file}' must be a <name>.repo file directly in ${this.dir}`);
    return resolved;
  }

  /** Sets keys of the section (an empty-string value deletes the key); creates it in `file` when new. */
  async put(id: string, changes: RepoConfig, file: string): Promise<void> {
    const existing = await this.get(id);
    const target = existing?.file ?? file;
    const parsed = parseRepoFile(await readFile(target, 'utf8').catch(() => ''));
    let sec = parsed.sections.find((s) => s.id === id);
    if (!sec) {
      sec = { id, keys: new Map() };
      parsed.sections.push(sec);
    }
    for (const [k, v] of Object.entries(changes)) {
      if (v === '') sec.keys.delete(k);
      else sec.keys.set(k, v);
    }
    await writeAtomic(target, renderRepoFile(parsed));
  }

  async remove(id: string): Promise<string | undefined> {
    const existing = await this.get(id);
    if (!existing) return undefined;
    const parsed = parseRepoFile(await readFile(existing.file, 'utf8'));
    parsed.sections = parsed.sections.filter((s) => s.id !== id);
    if (parsed.sections.length === 0) await rm(existing.file, { force: true });
    else await writeAtomic(existing.file, renderRepoFile(parsed));
    return existing.file;
  }
}
