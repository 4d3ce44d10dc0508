// Salt's file_tree ext_pillar: a directory tree whose files are pillar values. For minion M,
// `<root_dir>/nodegroups/<group>/` (each nodegroup of the master's `nodegroups` that M is in)
// then `<root_dir>/hosts/M/` are read, directories becoming mappings and each file's text the
// value of its own name, merged recursively (the host's tree wins). One trailing newline is
// dropped unless keep_newline (True, or globs of paths relative to the host or nodegroup
// directory, `./name` at its top as in Salt) keeps it; `template: True` renders each file.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { renderSls, renderTemplate, type RenderEnv } from '../../render/index.js';
import { expandNodegroup, globMatch, minionMatches } from '../../targeting/index.js';
import { BrineError, isBrineError } from '../../util/errors.js';
import { mergeRecurse, type PillarData } from '../../util/dict-merge.js';
import { treeStamp } from '../source.js';
import type { ExtPillarContext, ExtPillarKind, ExtPillarSetup, ExtPillarSource } from './types.js';

const OPTIONS = new Set(['root_dir', 'follow_dir_links', 'debug', 'keep_newline', 'render_default', 'renderer_blacklist', 'renderer_whitelist', 'template']);

/** Deeper than this is a symlink loop (follow_dir_links), not a pillar. */
const MAX_DEPTH = 64;

interface TreeOptions {
  dirs: string[];
  followDirLinks: boolean;
  keepNewline: boolean | string[];
  renderDefault: string;
  blacklist: string[];
  whitelist: string[];
  template: boolean;
}

function stringList(v: unknown, what: string, label: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BrineError('CONFIG_VALUE', `${label}: file_tree ${what} must be a list of renderer names, e.g. [jinja, yaml]`);
  return v.map(String);
}

function parseOptions(value: unknown, setup: ExtPillarSetup): TreeOptions {
  const label = setup.label;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BrineError('CONFIG_VALUE', `${label}: file_tree takes a mapping of options, e.g. '- file_tree: {root_dir: /srv/ext_pillar}'`);
  }
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!OPTIONS.has(k)) throw new BrineError('CONFIG_VALUE', `${label}: file_tree has no option '${k}' (it takes ${[...OPTIONS].join(', ')})`);
  }
  const root = o.root_dir;
  if (typeof root !== 'string' || root === '') throw new BrineError('CONFIG_VALUE', `${label}: file_tree needs root_dir, the directory holding hosts/<minion id>/ and nodegroups/<name>/`);
  let dirs = [root];
  if (!path.isAbsolute(root)) {
    // Salt: relative to each pillar_roots directory of pillarenv, merged in order
    if (setup.pillarenv === null || setup.pillarenvRoots === undefined) {
      throw new BrineError('CONFIG_VALUE', `${label}: file_tree root_dir '${root}' is relative, which needs pillarenv set to an environment of pillar_roots: make root_dir absolute or set pillarenv`);
    }
    dirs = [];
    for (const r of setup.pillarenvRoots) {
      const d = path.normalize(path.join(r, root));
      if (dirs.at(-1) !== d) dirs.push(d);
    }
  }
  const keep = o.keep_newline ?? false;
  if (typeof keep !== 'boolean' && !Array.isArray(keep)) {
    throw new BrineError('CONFIG_VALUE', `${label}: file_tree keep_newline must be True/False or a list of file globs (e.g. [apache/config.d/*])`);
  }
  for (const b of ['follow_dir_links', 'template', 'debug'] as const) {
    if (o[b] !== undefined && typeof o[b] !== 'boolean') throw new BrineError('CONFIG_VALUE', `${label}: file_tree ${b} must be True or False`);
  }
  const renderDefault = o.render_default ?? 'jinja|yaml';
  if (typeof renderDefault !== 'string') throw new BrineError('CONFIG_VALUE', `${label}: file_tree render_default must be a renderer pipeline such as 'jinja|yaml'`);
  return {
    dirs,
    followDirLinks: o.follow_dir_links === true,
    keepNewline: typeof keep === 'boolean' ? keep : keep.map(String),
    renderDefault,
    blacklist: stringList(o.renderer_blacklist, 'renderer_blacklist', label),
    whitelist: stringList(o.renderer_whitelist, 'renderer_whitelist', label),
    template: o.template === true,
  };
}

function stripNewline(rel: string, opts: TreeOptions): boolean {
  if (typeof opts.keepNewline === 'boolean') return !opts.keepNewline;
  return !opts.keepNewline.some((g) => globMatch(g, rel));
}

/** Salt's check_render_pipe_str: a renderer the lists disallow is skipped (not an error). */
function allowedPipeline(pipe: string, opts: TreeOptions): string {
  return pipe
    .split('|')
    .map((p) => p.trim())
    .filter((p) => {
      const name = p.split(' ')[0]!;
      return !((opts.whitelist.length > 0 && !opts.whitelist.includes(name)) || opts.blacklist.includes(name));
    })
    .join('|');
}

async function renderFile(text: string, file: string, opts: TreeOptions, ctx: ExtPillarContext): Promise<unknown> {
  const nl = text.indexOf('\n');
  const own = text.startsWith('#!') ? (nl < 0 ? text : text.slice(0, nl)).slice(2).trim() : undefined;
  const pipe = allowedPipeline(own ?? opts.renderDefault, opts);
  if (pipe === '') return text;
  // the file's own shebang line is replaced in place, so that line numbers stay the file's
  const body = own === undefined ? text : `#!${pipe}${nl < 0 ? '' : text.slice(nl)}`;
  const env: RenderEnv = {
    source: `file_tree ${file}`,
    saltenv: 'base',
    pillar: true,
    renderer: pipe,
    context: { opts: { id: ctx.minionId }, minion_id: ctx.minionId, saltenv: 'base' },
    callFunction: (fun) => {
      throw new BrineError('RENDER_FAILED', `file_tree ${file}: salt['${fun}'] cannot run in a file_tree template`);
    },
    loadFile: () => undefined,
    ...(ctx.gpg ? { gpg: ctx.gpg } : {}),
  };
  // Jinja alone renders text: its own shebang line is not part of the value
  if (pipe === 'jinja') return renderTemplate(own === undefined ? text : nl < 0 ? '' : text.slice(nl + 1), 'jinja', env);
  return renderSls(body, env);
}

async function construct(dir: string, rel: string, opts: TreeOptions, ctx: ExtPillarContext, depth: number): Promise<PillarData> {
  if (depth > MAX_DEPTH) throw new BrineError('EXT_PILLAR_FAILED', `file_tree: ${dir} is more than ${MAX_DEPTH} directories deep (a symlink loop with follow_dir_links?)`);
  const node: PillarData = {};
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      // os.walk lists a link to a directory but goes into it only with followlinks
      node[e.name] = e.isSymbolicLink() && !opts.followDirLinks ? {} : await construct(p, rel === '.' ? e.name : `${rel}/${e.name}`, opts, ctx, depth + 1);
      continue;
    }
    if (!st?.isFile()) continue; // a socket, a FIFO, a dangling link: not a value (Salt logs and skips)
    let text = fs.readFileSync(p, 'utf8');
    if (text.endsWith('\n') && stripNewline(`${rel}/${e.name}`, opts)) text = text.slice(0, -1);
    node[e.name] = opts.template ? await renderFile(text, p, opts, ctx) : text;
  }
  return node;
}

async function readRoot(root: string, opts: TreeOptions, ctx: ExtPillarContext, label: string): Promise<PillarData> {
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new BrineError('EXT_PILLAR_FAILED', `${label}: file_tree root_dir ${root} does not exist or is not a directory: create it or fix root_dir`);
  }
  let out: PillarData = {};
  const groupsDir = path.join(root, 'nodegroups');
  if (Object.keys(ctx.nodegroups).length > 0 && fs.statSync(groupsDir, { throwIfNoEntry: false })?.isDirectory()) {
    for (const group of fs.readdirSync(groupsDir).sort()) {
      if (!Object.hasOwn(ctx.nodegroups, group)) continue;
      if (!minionMatches(expandNodegroup(group, ctx.nodegroups), 'compound', ctx.minionId, ctx.grains)) continue;
      const dir = path.join(groupsDir, group);
      if (fs.statSync(dir).isDirectory()) out = mergeRecurse(out, await construct(dir, '.', opts, ctx, 0));
    }
  }
  const host = path.join(root, 'hosts', ctx.minionId);
  const st = fs.statSync(host, { throwIfNoEntry: false });
  if (st === undefined) return out;
  if (!st.isDirectory()) throw new BrineError('EXT_PILLAR_FAILED', `${label}: ${host} exists but is not a directory: make it the directory of ${ctx.minionId}'s files`);
  return mergeRecurse(out, await construct(host, '.', opts, ctx, 0));
}

export const FILE_TREE: ExtPillarKind = {
  name: 'file_tree',
  parse(value: unknown, setup: ExtPillarSetup): ExtPillarSource {
    const opts = parseOptions(value, setup);
    return {
      label: setup.label,
      stamp: () => treeStamp(opts.dirs),
      async run(ctx): Promise<PillarData> {
        // a minion ID never holds '/' and never starts with '.' (the ID grammar), so hosts/<id> stays inside
        if (ctx.minionId.includes('/') || ctx.minionId.startsWith('.')) return {};
        let out: PillarData = {};
        for (const root of opts.dirs) {
          try {
            out = mergeRecurse(out, await readRoot(root, opts, ctx, setup.label));
          } catch (err) {
            if (isBrineError(err, 'EXT_PILLAR_FAILED')) throw err;
            // a template's render error (its file and line), or the file system's
            const e = err as NodeJS.ErrnoException;
            const why = isBrineError(err) ? err.message : `file_tree could not read ${e.path ?? root} (${e.code ?? e.message}): fix its permissions for the master's user`;
            throw new BrineError('EXT_PILLAR_FAILED', `${setup.label}: ${why}`, { cause: err });
          }
        }
        return out;
      },
    };
  },
};
