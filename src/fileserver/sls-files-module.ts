// The slsutil.* and defaults.get functions that read the state tree through the minion's file
// client (salt/modules/slsutil.py file_exists, dir_exists, path_exists, findup, renderer;
// salt/modules/defaults.py get): formulas call them from map.jinja to find their own files.

import * as fs from 'node:fs';
import { BrineError } from '../util/errors.js';
import { defineFunction, traverseDictAndList, type ExecContext, type FileClient, type ModuleFunction } from '../modules/index.js';
import { loadYaml, renderSls, renderTemplate } from '../render/index.js';
import { checkSaltenv, parseSaltUrl } from './path-check.js';

function filesOf(ctx: ExecContext, fun: string): FileClient {
  if (!ctx.files) throw new BrineError('FILESERVER_UNAVAILABLE', `${fun}: no file server is reachable here; run it through a minion (brine run) or set file_client: local`);
  return ctx.files;
}

async function fileExists(ctx: ExecContext, fun: string, p: string, saltenv: string): Promise<boolean> {
  return (await filesOf(ctx, fun).listFiles(checkSaltenv(saltenv))).includes(p);
}

async function dirExists(ctx: ExecContext, fun: string, p: string, saltenv: string): Promise<boolean> {
  return (await filesOf(ctx, fun).listDirs(checkSaltenv(saltenv))).includes(p);
}

async function pathExists(ctx: ExecContext, fun: string, p: string, saltenv: string): Promise<boolean> {
  return (await fileExists(ctx, fun, p, saltenv)) || (await dirExists(ctx, fun, p, saltenv));
}

/** posixpath.normpath for a state tree path (findup normalises its start). */
function normpath(p: string): string {
  const out: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..' && out.length > 0 && out.at(-1) !== '..') out.pop();
    else out.push(c);
  }
  return (p.startsWith('/') ? '/' : '') + (out.join('/') || (p.startsWith('/') ? '' : '.'));
}

async function findup(ctx: ExecContext, startpath: string, filenames: unknown, saltenv: string): Promise<string> {
  let start = startpath === '' ? '' : normpath(startpath);
  if (start !== '' && !(await pathExists(ctx, 'slsutil.findup', start, saltenv))) throw new BrineError('EXEC_FAILED', `Starting path not found in the state tree: ${start}`);
  const names = typeof filenames === 'string' ? [filenames] : filenames;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new BrineError('BAD_ARGUMENTS', 'Filenames argument must be a string or list of strings');
  for (;;) {
    for (const name of names) {
      const full = start === '' ? name.replace(/^\/+/, '') : `${start}/${name.replace(/^\/+/, '')}`;
      if (await pathExists(ctx, 'slsutil.findup', full, saltenv)) return full;
    }
    if (start === '') throw new BrineError('EXEC_FAILED', 'File pattern(s) not found in path ancestry');
    start = start.includes('/') ? start.slice(0, start.lastIndexOf('/')) : '';
  }
}

/** A salt:// file's text, or undefined when no root of the environment has it. */
async function readSalt(ctx: ExecContext, fun: string, url: string, saltenv: string): Promise<string | undefined> {
  const p = parseSaltUrl(url, saltenv);
  const files = filesOf(ctx, fun);
  if (!(await files.stat(`salt://${p.path}`, p.saltenv))) return undefined;
  return fs.readFileSync((await files.cacheFile(`salt://${p.path}`, p.saltenv)).localPath, 'utf8');
}

function renderEnv(ctx: ExecContext, source: string, saltenv: string, extra: Record<string, unknown>) {
  return {
    source,
    saltenv,
    // a map file's keys are data, not state IDs
    pillar: true,
    context: { grains: ctx.grains(), pillar: ctx.pillar?.() ?? {}, opts: ctx.config, saltenv, ...extra },
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

const SALTENV = { name: 'saltenv', type: 'string', default: 'base', doc: 'file server environment' } as const;
const TREE_PATH = { name: 'path', type: 'string', required: true, doc: 'path in the state tree, e.g. nginx/defaults.yaml' } as const;

export const slsFileFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'slsutil.file_exists',
    doc: 'True when the file is in the state tree (cp.list_master).',
    params: [TREE_PATH, SALTENV],
    run: (ctx, a) => fileExists(ctx, 'slsutil.file_exists', a.named.path, a.named.saltenv),
  }),
  defineFunction({
    name: 'slsutil.dir_exists',
    doc: 'True when the directory is in the state tree (cp.list_master_dirs).',
    params: [TREE_PATH, SALTENV],
    run: (ctx, a) => dirExists(ctx, 'slsutil.dir_exists', a.named.path, a.named.saltenv),
  }),
  defineFunction({
    name: 'slsutil.path_exists',
    doc: 'True when a file or directory is in the state tree.',
    params: [TREE_PATH, SALTENV],
    run: (ctx, a) => pathExists(ctx, 'slsutil.path_exists', a.named.path, a.named.saltenv),
  }),
  defineFunction({
    name: 'slsutil.findup',
    doc: 'The first of filenames found in startpath or its nearest ancestor in the state tree.',
    params: [
      { name: 'startpath', type: 'string', required: true, doc: "state tree directory to start from ('' is the root)" },
      { name: 'filenames', type: 'any', required: true, doc: 'a name or a list of names' },
      SALTENV,
    ],
    run: (ctx, a) => findup(ctx, a.named.startpath, a.named.filenames, a.named.saltenv),
  }),
  defineFunction({
    name: 'slsutil.renderer',
    doc: "Renders a salt:// file, a local file or a string through a renderer pipe (default 'jinja|yaml'); returns its data or text.",
    params: [
      { name: 'path', type: 'string', doc: 'salt://path or a local path' },
      { name: 'string', type: 'string', doc: 'the text to render instead of a file' },
      { name: 'default_renderer', type: 'string', default: 'jinja|yaml', doc: "'jinja|yaml', 'yaml' or 'jinja'; a #! line wins" },
    ],
    kwargs: true,
    run: async (ctx, a) => {
      const { path: p, string: text, default_renderer: pipe } = a.named;
      if (p === undefined && text === undefined) throw new BrineError('BAD_ARGUMENTS', 'Must pass either path or string');
      if (p !== undefined && text !== undefined) throw new BrineError('BAD_ARGUMENTS', 'Must not pass both path and string');
      const saltenv = typeof a.extra.saltenv === 'string' ? a.extra.saltenv : 'base';
      let source = ':string:';
      let body = text ?? '';
      if (p !== undefined) {
        source = p;
        const read = p.startsWith('salt://') ? await readSalt(ctx, 'slsutil.renderer', p, saltenv) : fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined;
        if (read === undefined) throw new BrineError('FILE_NOT_FOUND', `slsutil.renderer: ${p} not found`);
        body = read;
      }
      const { saltenv: _s, ...extra } = a.extra;
      const env = renderEnv(ctx, source, saltenv, extra);
      if (pipe === 'jinja' && !body.startsWith('#!')) return renderTemplate(body, 'jinja', env);
      if (pipe === 'yaml' && !body.startsWith('#!')) return renderSls(`#!yaml\n${body}`, env);
      if (pipe !== 'jinja|yaml' && !body.startsWith('#!')) throw new BrineError('BAD_ARGUMENTS', `slsutil.renderer: brine renders with 'jinja|yaml', 'yaml' or 'jinja', not '${pipe}'`);
      return renderSls(body, env);
    },
  }),
  defineFunction({
    name: 'defaults.get',
    doc: "A value from the formula's defaults.yaml (or defaults.json): the key's first part names the formula, e.g. core:users:root.",
    params: [
      { name: 'key', type: 'string', required: true, doc: 'formula:path:to:value' },
      { name: 'default', type: 'any', default: '', doc: 'returned when the value is missing' },
    ],
    run: async (ctx, a) => {
      const colon = a.named.key.indexOf(':');
      const namespace = colon >= 0 ? a.named.key.slice(0, colon) : a.named.key;
      const key = colon >= 0 ? a.named.key.slice(colon + 1) : '';
      let defaults: unknown;
      // Salt tries defaults.yaml, then defaults.json; a missing file gives None, an empty one {}
      for (const ext of ['yaml', 'json']) {
        const text = await readSalt(ctx, 'defaults.get', `salt://${namespace}/defaults.${ext}`, 'base');
        if (text === undefined) continue;
        defaults = (ext === 'yaml' ? loadYaml(text) : JSON.parse(text)) ?? {};
        break;
      }
      if (key === '') return defaults ?? null;
      return traverseDictAndList(defaults ?? {}, key, a.named.default);
    },
  }),
];
