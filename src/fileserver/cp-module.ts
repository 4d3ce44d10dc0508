// The `cp` execution module (Salt's salt/modules/cp.py): salt:// files fetched through the
// minion's FileClient (ctx.files: the master's file server, or its own file_roots with
// file_client: local), cached under cachedir, copied or rendered to a destination.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import { cacheUrl, defineFunction, type ExecContext, type FileClient, isRemoteUrl, type ModuleFunction } from '../modules/index.js';
import { renderTemplate } from '../render/index.js';
import { sha256File } from './hash-cache.js';
import { checkRelativePath, checkSaltenv, parseSaltUrl, slsNameOf } from './path-check.js';

function filesOf(ctx: ExecContext, fun: string): FileClient {
  if (!ctx.files) throw new BrineError('FILESERVER_UNAVAILABLE', `${fun}: no file server is reachable here; run it through a minion (brine run) or set file_client: local`);
  return ctx.files;
}

function cachedir(ctx: ExecContext): string {
  const dir = ctx.config.cachedir;
  if (typeof dir !== 'string' || dir === '') throw new BrineError('EXEC_FAILED', 'the minion has no cachedir configured');
  return dir;
}

/** `salt://x` stays a file server URL; anything else is a local path (cp.hash_file accepts both). */
function isSaltUrl(p: string): boolean {
  return p.startsWith('salt://');
}

function renderEnvFor(ctx: ExecContext, source: string, saltenv: string, extra: Record<string, unknown>) {
  const tplpath = source.replace(/^salt:\/\//, '').replace(/\?.*$/, '');
  const tpldir = tplpath.includes('/') ? tplpath.slice(0, tplpath.lastIndexOf('/')) : '.';
  return {
    source,
    saltenv,
    context: { grains: ctx.grains(), pillar: ctx.pillar?.() ?? {}, opts: ctx.config, saltenv, tplpath, tpldir, ...extra },
    callFunction: (fun: string, arg: unknown[], kwarg: Record<string, unknown>): unknown => {
      if (!ctx.syncHost) throw new BrineError('EXEC_FAILED', `${source}: salt['${fun}'] cannot be called here (no host thread for synchronous calls)`);
      const r = ctx.syncHost.call(fun, arg, kwarg);
      if (!r.success) throw new BrineError(r.error?.code ?? 'EXEC_FAILED', r.error?.message ?? String(r.return));
      return r.return;
    },
    loadFile: (name: string): string | undefined => ctx.syncHost?.readFile(`salt://${name}`, saltenv),
    ...(ctx.log ? { log: ctx.log } : {}),
  };
}

/** Salt's rule: a destination that is a directory (or ends with /) gets the source's file name. */
function destinationFor(dest: string, rel: string): string {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  if (dest.endsWith('/')) return path.join(dest, base);
  try {
    if (fs.statSync(dest).isDirectory()) return path.join(dest, base);
  } catch {
    // a new file
  }
  return dest;
}

function ensureParent(fun: string, file: string, makedirs: boolean): void {
  const dir = path.dirname(file);
  if (fs.existsSync(dir)) return;
  if (!makedirs) throw new BrineError('EXEC_FAILED', `${fun}: the directory ${dir} does not exist; pass makedirs=True to create it`);
  fs.mkdirSync(dir, { recursive: true });
}

/** Writes `data` to `dest` through a temporary file and a rename, so a reader never sees half a file. */
function writeAtomic(dest: string, data: Buffer | string, mode: number): void {
  const tmp = path.join(path.dirname(dest), `.${path.basename(dest).slice(0, 32)}.${process.pid}.${Date.now()}.tmp`);
  fs.writeFileSync(tmp, data, { mode });
  fs.renameSync(tmp, dest);
}

async function copyOne(ctx: ExecContext, fun: string, url: string, dest: string, saltenv: string, makedirs: boolean, template: string | undefined, extra: Record<string, unknown>): Promise<string> {
  const files = filesOf(ctx, fun);
  const p = parseSaltUrl(url, saltenv);
  const { localPath, stat } = await files.cacheFile(`salt://${p.path}`, p.saltenv);
  const target = destinationFor(dest, p.path);
  ensureParent(fun, target, makedirs);
  const mode = stat.mode & 0o777;
  if (template) {
    const text = fs.readFileSync(localPath, 'utf8');
    const rendered = await renderTemplate(text, template, renderEnvFor(ctx, `salt://${p.path}`, p.saltenv, extra));
    writeAtomic(target, rendered, mode);
  } else {
    writeAtomic(target, fs.readFileSync(localPath), mode);
  }
  return target;
}

/** `salt://a/b` -> prefix `a/b` of a directory, checked. */
function dirPrefix(url: string, saltenv: string): { prefix: string; saltenv: string } {
  const p = parseSaltUrl(url.replace(/\/+(\?|$)/, '$1'), saltenv);
  return { prefix: p.path, saltenv: p.saltenv };
}

const saltenvParam = { name: 'saltenv', type: 'string', default: 'base', doc: 'file server environment (salt://path?saltenv=env wins)' } as const;

export const cpFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'cp.get_file',
    doc: 'Copy a salt:// file to a path on the minion (rendered first with template=jinja); returns the destination.',
    params: [
      { name: 'path', type: 'string', required: true, doc: 'salt://path of the file' },
      { name: 'dest', type: 'string', required: true, doc: 'destination file, or a directory to copy into' },
      saltenvParam,
      { name: 'makedirs', type: 'bool', default: false, doc: "create the destination's parent directories" },
      { name: 'template', type: 'string', doc: 'render the file with this engine (jinja) before writing' },
      { name: 'gzip', type: 'any', doc: 'accepted for compatibility; transfers are not compressed' },
    ],
    kwargs: true,
    run: (ctx, a) => copyOne(ctx, 'cp.get_file', a.named.path, a.named.dest, a.named.saltenv, a.named.makedirs, a.named.template, a.extra),
  }),
  defineFunction({
    name: 'cp.get_template',
    doc: 'Render a salt:// template (jinja by default) with grains, pillar and salt[...] and write it to dest; returns the destination.',
    params: [
      { name: 'path', type: 'string', required: true, doc: 'salt://path of the template' },
      { name: 'dest', type: 'string', required: true, doc: 'destination file' },
      { name: 'template', type: 'string', default: 'jinja', doc: 'template engine' },
      saltenvParam,
      { name: 'makedirs', type: 'bool', default: false, doc: "create the destination's parent directories" },
    ],
    kwargs: true,
    run: (ctx, a) => copyOne(ctx, 'cp.get_template', a.named.path, a.named.dest, a.named.saltenv, a.named.makedirs, a.named.template, a.extra),
  }),
  defineFunction({
    name: 'cp.get_dir',
    doc: 'Copy a salt:// directory recursively into dest (as dest/<dirname>/...); returns the files written.',
    params: [
      { name: 'path', type: 'string', required: true, doc: 'salt://path of the directory' },
      { name: 'dest', type: 'string', required: true, doc: 'directory to copy into' },
      saltenvParam,
      { name: 'template', type: 'string', doc: 'render each file with this engine before writing' },
      { name: 'gzip', type: 'any', doc: 'accepted for compatibility; transfers are not compressed' },
    ],
    kwargs: true,
    run: async (ctx, a) => {
      const files = filesOf(ctx, 'cp.get_dir');
      const { prefix, saltenv } = dirPrefix(a.named.path, a.named.saltenv);
      const parent = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
      const out: string[] = [];
      for (const rel of await files.listFiles(saltenv, `${prefix}/`)) {
        const target = path.join(a.named.dest, rel.slice(parent.length));
        fs.mkdirSync(path.dirname(target), { recursive: true });
        out.push(await copyOne(ctx, 'cp.get_dir', `salt://${rel}`, target, saltenv, true, a.named.template, a.extra));
      }
      return out;
    },
  }),
  defineFunction({
    name: 'cp.cache_file',
    doc: "Fetch a salt:// file (only when its SHA-256 changed) or an http(s):// URL into the minion's cache; returns the cached path.",
    params: [{ name: 'path', type: 'string', required: true, doc: 'salt:// or http(s):// URL of the file' }, saltenvParam],
    run: async (ctx, a) => {
      if (isRemoteUrl(a.named.path)) {
        // Salt's fileclient.get_url: <cachedir>/extrn_files/<saltenv>/<host>/<path>
        const ca = ctx.config.ca_bundle;
        const saltenv = checkSaltenv(a.named.saltenv);
        return cacheUrl(a.named.path, { cachedir: cachedir(ctx), saltenv, signal: ctx.signal, ...(typeof ca === 'string' && ca !== '' ? { caBundle: ca } : {}) });
      }
      if (!isSaltUrl(a.named.path)) {
        // Salt returns a local path as it is
        if (fs.existsSync(a.named.path)) return a.named.path;
        throw new BrineError('FILE_NOT_FOUND', `cp.cache_file: ${a.named.path} is not a salt:// URL and no such local file exists`);
      }
      return (await filesOf(ctx, 'cp.cache_file').cacheFile(a.named.path, a.named.saltenv)).localPath;
    },
  }),
  defineFunction({
    name: 'cp.get_file_str',
    doc: 'The text of a salt:// file (or a local file); False when there is no such file, as in Salt.',
    params: [{ name: 'path', type: 'string', required: true, doc: 'salt://path of the file' }, saltenvParam],
    run: async (ctx, a) => {
      if (!isSaltUrl(a.named.path)) return fs.existsSync(a.named.path) ? fs.readFileSync(a.named.path, 'utf8') : false;
      const p = parseSaltUrl(a.named.path, a.named.saltenv);
      const files = filesOf(ctx, 'cp.get_file_str');
      if (!(await files.stat(`salt://${p.path}`, p.saltenv))) return false;
      return fs.readFileSync((await files.cacheFile(`salt://${p.path}`, p.saltenv)).localPath, 'utf8');
    },
  }),
  defineFunction({
    name: 'cp.cache_dir',
    doc: "Fetch every file under a salt:// directory into the minion's cache; returns the cached paths.",
    params: [
      { name: 'path', type: 'string', required: true, doc: 'salt://path of the directory' },
      saltenvParam,
      { name: 'include_empty', type: 'bool', default: false, doc: 'accepted for compatibility (empty directories are not cached)' },
      { name: 'include_pat', type: 'string', doc: 'only files whose path matches this regular expression' },
      { name: 'exclude_pat', type: 'string', doc: 'skip files whose path matches this regular expression' },
    ],
    run: async (ctx, a) => {
      const files = filesOf(ctx, 'cp.cache_dir');
      const { prefix, saltenv } = dirPrefix(a.named.path, a.named.saltenv);
      const include = a.named.include_pat ? new RegExp(a.named.include_pat) : undefined;
      const exclude = a.named.exclude_pat ? new RegExp(a.named.exclude_pat) : undefined;
      const out: string[] = [];
      for (const rel of await files.listFiles(saltenv, `${prefix}/`)) {
        if (include && !include.test(rel)) continue;
        if (exclude?.test(rel)) continue;
        out.push((await files.cacheFile(`salt://${rel}`, saltenv)).localPath);
      }
      return out;
    },
  }),
  defineFunction({
    name: 'cp.list_master',
    doc: 'List every file the file server has in an environment (optionally under a prefix).',
    params: [saltenvParam, { name: 'prefix', type: 'string', default: '', doc: 'only paths starting with this' }],
    run: (ctx, a) => filesOf(ctx, 'cp.list_master').listFiles(checkSaltenv(a.named.saltenv), a.named.prefix),
  }),
  defineFunction({
    name: 'cp.list_master_dirs',
    doc: 'List every directory the file server has in an environment (optionally under a prefix).',
    params: [saltenvParam, { name: 'prefix', type: 'string', default: '', doc: 'only paths starting with this' }],
    run: (ctx, a) => filesOf(ctx, 'cp.list_master_dirs').listDirs(checkSaltenv(a.named.saltenv), a.named.prefix),
  }),
  defineFunction({
    name: 'cp.list_states',
    doc: 'List the SLS names of an environment (a/b.sls is a.b, a/init.sls is a).',
    params: [saltenvParam],
    run: async (ctx, a) => {
      const names = new Set<string>();
      for (const f of await filesOf(ctx, 'cp.list_states').listFiles(checkSaltenv(a.named.saltenv))) {
        const sls = slsNameOf(f);
        if (sls !== undefined && sls !== '') names.add(sls);
      }
      return [...names].sort();
    },
  }),
  defineFunction({
    name: 'cp.hash_file',
    doc: "Hash a salt:// file on the file server (or a local file): Salt's {hash_type, hsum}.",
    params: [{ name: 'path', type: 'string', required: true, doc: 'salt://path or a local path' }, saltenvParam],
    run: async (ctx, a) => {
      if (!isSaltUrl(a.named.path)) {
        if (!fs.existsSync(a.named.path)) throw new BrineError('FILE_NOT_FOUND', `cp.hash_file: no local file ${a.named.path}`);
        return { hash_type: 'sha256', hsum: sha256File(a.named.path) };
      }
      const stat = await filesOf(ctx, 'cp.hash_file').stat(a.named.path, a.named.saltenv);
      if (!stat) {
        const p = parseSaltUrl(a.named.path, a.named.saltenv);
        throw new BrineError('FILE_NOT_FOUND', `cp.hash_file: salt://${p.path} is in no file root of saltenv ${p.saltenv}`);
      }
      return { hash_type: 'sha256', hsum: stat.sha256 };
    },
  }),
  defineFunction({
    name: 'cp.is_cached',
    doc: "Return the cached path of a salt:// file, or '' when the minion has not cached it.",
    params: [{ name: 'path', type: 'string', required: true, doc: 'salt://path of the file' }, saltenvParam],
    run: (ctx, a) => {
      const p = parseSaltUrl(a.named.path, a.named.saltenv);
      const local = path.join(cachedir(ctx), 'files', p.saltenv, p.path);
      return fs.existsSync(local) ? local : '';
    },
  }),
  defineFunction({
    name: 'cp.list_minion',
    doc: "List the files of an environment in the minion's cache (paths relative to the environment).",
    params: [saltenvParam],
    run: (ctx, a) => {
      const root = path.join(cachedir(ctx), 'files', checkSaltenv(a.named.saltenv));
      const out: string[] = [];
      const walk = (rel: string): void => {
        let entries: fs.Dirent[];
        try {
          entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
        } catch {
          return;
        }
        for (const e of entries) {
          const child = rel === '' ? e.name : `${rel}/${e.name}`;
          if (e.isDirectory()) walk(child);
          else if (e.isFile() && !e.name.startsWith('.')) out.push(checkRelativePath(child));
        }
      };
      walk('');
      return out.sort();
    },
  }),
];
