// file.recurse: a directory mirrors a salt:// directory: every file managed as file.managed
// would (template, owner, file_mode), empty directories on request, and with clean everything
// else removed. Reported as Salt 3007's salt/states/file.py recurse does: each directory's and
// each file's own state return merged per path (merge_ret), comments flattened under headers.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { defineState, type StateContext, type StateResult } from '../types.js';
import { fileDirectory } from './file-directory.js';
import { excludeMatcher, pathsToClean, patternArg, removePaths, requiredPaths } from './file-clean.js';
import { chooseSource } from './file-recurse-source.js';
import { withAccumulator } from './file-accumulated.js';
import { renderWith, templateKwargs } from './file-contents.js';
import { manageFile } from './file-manage.js';
import { modeArg, resolvePerms, type ResolvedPerms } from './file-perms.js';
import { checkAbsolute, errorText, failed } from './file-result.js';
import { makeParents } from './file-write.js';

interface RecursePlan {
  files: { rel: string; url: string; mode: number }[];
  dirs: string[];
}

/** The files (and, with include_empty, directories) below the source, filtered by the patterns. */
async function sourceTree(ctx: StateContext, prefix: string, includeEmpty: boolean, keep: (rel: string) => boolean): Promise<RecursePlan | { error: string }> {
  const files = ctx.exec.files;
  if (!files) return { error: 'No file server is reachable from this minion (FILESERVER_UNAVAILABLE); check the master connection or set file_client: local' };
  const saltenv = ctx.saltenv;
  const under = prefix === '' ? '' : `${prefix}/`;
  const listed = (await files.listFiles(saltenv, prefix)).filter((f) => f.startsWith(under));
  const dirs = includeEmpty ? (await files.listDirs(saltenv, prefix)).filter((d) => d.startsWith(under)) : [];
  if (listed.length === 0 && dirs.length === 0) {
    return { error: `The directory 'salt://${prefix}' does not exist on the file server in saltenv '${saltenv}' (or is empty); check the source` };
  }
  const plan: RecursePlan = { files: [], dirs: [] };
  for (const f of listed) {
    const rel = f.slice(under.length);
    // A file server path never climbs, but a destination outside `name` must be impossible.
    if (path.isAbsolute(rel) || rel.split('/').includes('..')) return { error: `The file server listed '${f}', which would leave the destination; refusing` };
    if (!keep(rel)) continue;
    const st = await files.stat(`salt://${f}`, saltenv);
    plan.files.push({ rel, url: `salt://${f}`, mode: st?.mode ?? 0o644 });
  }
  for (const d of dirs) {
    const rel = d.slice(under.length);
    if (path.isAbsolute(rel) || rel.split('/').includes('..')) return { error: `The file server listed '${d}', which would leave the destination; refusing` };
    if (keep(rel)) plan.dirs.push(rel);
  }
  return plan;
}

/** Salt's recurse bookkeeping (merge_ret / add_comment): the most negative result wins. */
class RecurseReport {
  result_: boolean | null = true;
  readonly changes: Record<string, unknown> = {};
  private readonly comments = new Map<string, string[]>();
  constructor(private readonly name: string) {}

  merge(p: string, r: StateResult): void {
    if (r.result === false || this.result_ === true) this.result_ = r.result;
    if (r.result !== true && r.comment) this.comments.set(p, [...(this.comments.get(p) ?? []), r.comment]);
    if (Object.keys(r.changes).length > 0) this.changes[p] = r.changes;
  }

  /** test=True: what clean would remove is a comment, not a change. */
  cleaned(paths: string[]): void {
    if (this.result_ === true) this.result_ = null;
    this.comments.set('removed', [...(this.comments.get('removed') ?? []), ...paths]);
  }

  result(): StateResult {
    // "Flatten comments until salt command line client learns to display structured comments"
    let comment = [...this.comments]
      .map(([k, v]) => `\n#### ${k} ####\n${v.join('\n')}`)
      .join('\n')
      .trim();
    if (comment === '') comment = `Recursively updated ${this.name}`;
    if (Object.keys(this.changes).length === 0 && this.result_ === true) comment = `The directory ${this.name} is in the correct state`;
    return { name: this.name, result: this.result_, changes: this.changes, comment };
  }
}

export const fileRecurse = defineState({
  name: 'file.recurse',
  // Salt's file.recurse takes **kwargs: keys it does not know (backupname, show_diff, ...) are ignored.
  kwargs: true,
  doc: 'Mirror a salt:// directory into a local directory, file by file (with templates, modes and clean).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the local directory' },
    { name: 'source', type: 'any', required: true, doc: 'salt:// URL of the directory on the file server, or a list of them: the first that exists is used' },
    { name: 'clean', type: 'bool', default: false, doc: 'remove local files that are not in the source (nor required, nor excluded)' },
    { name: 'include_empty', type: 'bool', default: false, doc: 'also create empty directories of the source' },
    { name: 'user', type: 'string', doc: 'owner of files and directories' },
    { name: 'group', type: 'string', doc: 'group of files and directories' },
    { name: 'file_mode', type: 'any', doc: "mode of the files ('keep' keeps the source's mode)" },
    { name: 'dir_mode', type: 'any', doc: 'mode of the directories created' },
    { name: 'template', type: 'string', doc: 'render every file with this engine: jinja' },
    { name: 'context', type: 'map', doc: 'template variables (win over defaults)' },
    { name: 'defaults', type: 'map', doc: 'default template variables' },
    { name: 'include_pat', type: 'any', doc: "only files matching this glob (or 'E@regex'), or any of a list of them" },
    { name: 'exclude_pat', type: 'any', doc: "skip files matching this glob (or 'E@regex'), or any of a list of them; with clean they are kept" },
    { name: 'makedirs', type: 'bool', default: false, doc: 'accepted; as in Salt (makedirs_perms) missing parents of name are always created' },
    { name: 'backup', type: 'string', default: '', doc: "'minion': keep replaced files under cachedir/file_backup" },
    // As file.directory: declared so that clean keeps what the state requires.
    { name: 'require', type: 'any', doc: 'with clean: the files (and directories) listed here are kept' },
  ],
  example: '/etc/nginx/conf.d:\n  file.recurse:\n    - source: salt://nginx/conf.d\n    - template: jinja\n    - file_mode: 644\n    - dir_mode: 755\n    - clean: True',
  run: async (ctx, { named: a, extra }) => {
    const abs = checkAbsolute(a.name, 'directory');
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const chosen = await chooseSource(ctx, a.source);
    if ('error' in chosen) return failed(name, chosen.error);
    const prefix = chosen.prefix;
    const keepSourceMode = a.file_mode === 'keep';
    const fileMode = keepSourceMode ? {} : modeArg(a.file_mode);
    if ('error' in fileMode) return failed(name, fileMode.error);
    const dirMode = modeArg(a.dir_mode);
    if ('error' in dirMode) return failed(name, dirMode.error);
    try {
      const base = await resolvePerms('file.recurse', { user: a.user, group: a.group }, ctx.test);
      if ('error' in base) return failed(name, base.error);
      const includePat = patternArg('file.recurse', 'include_pat', a.include_pat);
      if ('error' in includePat) return failed(name, includePat.error);
      const excludePat = patternArg('file.recurse', 'exclude_pat', a.exclude_pat);
      if ('error' in excludePat) return failed(name, excludePat.error);
      const include = includePat.pattern && includePat.pattern.length > 0 ? excludeMatcher('file.recurse', includePat.pattern) : () => true;
      const exclude = excludeMatcher('file.recurse', excludePat.pattern);
      const tree = await sourceTree(ctx, prefix, a.include_empty, (rel) => include(rel) && !exclude(rel));
      if ('error' in tree) return failed(name, tree.error);

      const top = await stat(name).catch(() => undefined);
      if (top && !top.isDirectory()) return failed(name, `${name} exists and is not a directory; remove it first`);
      // Every file is fetched and rendered before anything is written: a template error leaves
      // the directory as it was.
      const wanted: { dest: string; contents: Buffer; perms: ResolvedPerms }[] = [];
      const renderErrors: string[] = [];
      for (const f of tree.files) {
        const cached = await ctx.exec.files!.cacheFile(f.url, ctx.saltenv);
        let contents = await readFile(cached.localPath);
        if (a.template) {
          // each file renders as file.managed would render it (Salt's recurse calls managed per file)
          // with recurse's own undeclared arguments but mode and makedirs (Salt's pass_kwargs)
          const vars = {
            name: path.join(name, f.rel),
            source: f.url,
            user: a.user ?? null,
            group: a.group ?? null,
            mode: a.file_mode ?? null,
            attrs: null,
            ...templateKwargs(extra, ['mode', 'makedirs']),
          };
          // as in file.managed, the text file.accumulated collected for this file is `accumulator`
          const out = await renderWith(ctx, a.template, contents.toString('utf8'), f.url, a.defaults, withAccumulator(ctx, vars.name, a.context), vars);
          if ('error' in out) {
            renderErrors.push(out.error);
            continue;
          }
          contents = Buffer.from(out.text);
        }
        wanted.push({ dest: path.join(name, f.rel), contents, perms: { ...base, mode: keepSourceMode ? f.mode : fileMode.mode } });
      }
      if (renderErrors.length > 0) return failed(name, `Nothing was changed: ${renderErrors.join('\n')}`);

      // Salt's recurse: each directory through file.directory and each file through
      // file.managed, their changes kept per path and their comments when not plainly True.
      const merged = new RecurseReport(name);
      // Salt creates the top directory and any missing parent quietly (makedirs_perms, whatever
      // `makedirs` says: its recurse has no such argument) before managing anything below.
      if (!top && !ctx.test) await makeParents(name, { mode: dirMode.mode, user: a.user, group: a.group });
      // The managed directories: each file's own directory and, with include_empty, the empty ones.
      const dirs = new Set<string>(tree.dirs.map((d) => path.join(name, d)));
      for (const w of wanted) dirs.add(path.dirname(w.dest));
      for (const d of [...dirs].sort()) {
        const args = { name: d, user: a.user, group: a.group, dir_mode: a.dir_mode, makedirs: true, force: false, recurse: [], clean: false };
        merged.merge(d, await fileDirectory.run(ctx, { named: args, rest: [], extra: {} } as never));
      }
      for (const w of wanted) {
        const r = await manageFile(ctx, {
          name: w.dest,
          contents: w.contents,
          perms: w.perms,
          makedirs: true,
          dirMode: dirMode.mode,
          replace: true,
          create: true,
          backup: a.backup,
          showChanges: true,
          origin: 'source',
        });
        merged.merge(w.dest, r);
      }
      if (a.clean && top) {
        const keep = new Set([...tree.files.map((f) => path.join(name, f.rel)), ...tree.dirs.map((d) => path.join(name, d)), ...requiredPaths(a.require)]);
        const toClean = await pathsToClean(name, keep, exclude, requiredPaths(a.require));
        if (toClean.length > 0) {
          if (ctx.test) merged.cleaned(toClean);
          else {
            await removePaths(toClean);
            merged.changes.removed = toClean;
          }
        }
      }
      return merged.result();
    } catch (err) {
      return failed(name, `Unable to recurse into ${name}: ${errorText(err)}`);
    }
  },
});
