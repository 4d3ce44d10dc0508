// apt repositories as one-line sources (`deb [opts] uri suite comp...`) in sources.list and
// sources.list.d/*.list: parse, find, add or change one, remove one. A repository is identified
// by type, URI and suite; components and options are its attributes. deb822 `.sources` files
// are left alone (listed nowhere, changed never).

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrineError } from '../util/errors.js';

export interface AptRepo {
  type: 'deb' | 'deb-src';
  uri: string;
  dist: string;
  comps: string[];
  architectures: string[];
  signedby: string;
  disabled: boolean;
  file: string;
  /** The line as written (options and comments included). */
  line: string;
}

const LINE = /^(#\s*)?(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)((?:\s+[^\s#]+)*)\s*(#.*)?$/;
// What may appear in a sources line we write: no line breaks, no option brackets in the URI.
const SAFE = /^[^\s[\]\n\r\0]+$/;

export function parseSourceLine(line: string, file: string): AptRepo | undefined {
  const m = LINE.exec(line.trim());
  if (!m) return undefined;
  const opts = new Map<string, string>();
  for (const o of (m[3] ?? '').trim().split(/\s+/)) {
    const eq = o.indexOf('=');
    if (eq > 0) opts.set(o.slice(0, eq), o.slice(eq + 1));
  }
  return {
    type: m[2] as 'deb' | 'deb-src',
    uri: m[4]!,
    dist: m[5]!,
    comps: (m[6] ?? '')
      .trim()
      .split(/\s+/)
      .filter((c) => c !== ''),
    architectures: (opts.get('arch') ?? '').split(',').filter((a) => a !== ''),
    signedby: opts.get('signed-by') ?? '',
    disabled: m[1] !== undefined,
    file,
    line: line.trim(),
  };
}

export function formatSourceLine(r: Omit<AptRepo, 'file' | 'line'>, comment?: string): string {
  const opts = [r.architectures.length ? `arch=${r.architectures.join(',')}` : '', r.signedby ? `signed-by=${r.signedby}` : ''].filter((o) => o !== '');
  const parts = [r.disabled ? '# ' : '', r.type, opts.length ? ` [${opts.join(' ')}]` : '', ` ${r.uri} ${r.dist}`, r.comps.length ? ` ${r.comps.join(' ')}` : '', comment ? ` # ${comment}` : ''];
  return parts.join('');
}

/** The repository named by a sources line given by the caller; BAD_ARGUMENTS when it is not one. */
export function repoFromLine(fun: string, line: string): Omit<AptRepo, 'file' | 'line'> {
  if (/[\n\r\0]/.test(line)) throw new BrineError('BAD_ARGUMENTS', `${fun}: the repository must be one line`);
  const r = parseSourceLine(line, '');
  if (!r) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${line}' is not an apt sources line; write it as 'deb [signed-by=/etc/apt/keyrings/x.gpg] http://host/path suite component...'`);
  for (const v of [r.uri, r.dist, ...r.comps, ...r.architectures, r.signedby].filter((x) => x !== '')) {
    if (!SAFE.test(v)) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${v}' cannot appear in a sources line`);
  }
  return r;
}

export const sameRepo = (a: { type: string; uri: string; dist: string }, b: { type: string; uri: string; dist: string }): boolean =>
  a.type === b.type && a.uri.replace(/\/+$/, '') === b.uri.replace(/\/+$/, '') && a.dist === b.dist;

export class AptSources {
  constructor(private readonly root: string) {}

  get mainFile(): string {
    return path.join(this.root, 'sources.list');
  }

  get listDir(): string {
    return path.join(this.root, 'sources.list.d');
  }

  private async files(): Promise<string[]> {
    const names = await readdir(this.listDir).catch(() => [] as string[]);
    return [
      this.mainFile,
      ...names
        .filter((n) => n.endsWith('.list'))
        .sort()
        .map((n) => path.join(this.listDir, n)),
    ];
  }

  async list(): Promise<AptRepo[]> {
    const out: AptRepo[] = [];
    for (const file of await this.files()) {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        const r = parseSourceLine(line, file);
        if (r) out.push(r);
      }
    }
    return out;
  }

  async find(repo: { type: string; uri: string; dist: string }): Promise<AptRepo | undefined> {
    return (await this.list()).find((r) => sameRepo(r, repo));
  }

  /** Checks a caller-given file name: a .list file in sources.list.d, or sources.list itself. */
  checkFile(fun: string, file: string): string {
    const resolved = path.resolve(file);
    if (resolved === this.mainFile) return resolved;
    if (path.dirname(resolved) !== this.listDir || !resolved.endsWith('.list') || !/^[A-Za-z0-9_.-]+$/.test(path.basename(resolved))) {
      throw new BrineError('BAD_ARGUMENTS', `${fun}: file '${file}' must be ${this.mainFile} or a <name>.list file directly in ${this.listDir}`);
    }
    return resolved;
  }

  /** Writes `line` in place of the existing line of the same repository, or appends it to `file`. */
  async put(repo: Omit<AptRepo, 'file' | 'line'>, line: string, file: string): Promise<void> {
    const existing = await this.find(repo);
    const target = existing?.file ?? file;
    const text = await readFile(target, 'utf8').catch(() => '');
    const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
    if (existing) {
      const i = lines.findIndex((l) => {
        const r = parseSourceLine(l, target);
        return r !== undefined && sameRepo(r, repo);
      });
      lines[i] = line;
    } else {
      lines.push(line);
    }
    await writeAtomic(target, `${lines.join('\n')}\n`);
  }

  /** Removes every line of the repository; a sources.list.d file left with no repository is deleted. */
  async remove(repo: { type: string; uri: string; dist: string }): Promise<string[]> {
    const touched: string[] = [];
    for (const file of await this.files()) {
      const text = await readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      const lines = text.replace(/\n$/, '').split('\n');
      const kept = lines.filter((l) => {
        const r = parseSourceLine(l, file);
        return !(r && sameRepo(r, repo));
      });
      if (kept.length === lines.length) continue;
      touched.push(file);
      const empty = !kept.some((l) => parseSourceLine(l, file));
      if (empty && file !== this.mainFile) await rm(file, { force: true });
      else await writeAtomic(file, kept.length ? `${kept.join('\n')}\n` : '');
    }
    return touched;
  }
}

/** Write-then-rename, so apt never reads a half-written sources file. */
export async function writeAtomic(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.brine-tmp-${process.pid}`;
  await writeFile(tmp, text, { mode: 0o644 });
  await rename(tmp, file);
}
