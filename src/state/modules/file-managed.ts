// file.managed: a file with the given content (salt:// or local source, contents, pillar,
// template), owner and mode; Salt's arguments, change report and comments.

import { defineState } from '../types.js';
import { templateKwargs, wantedContents } from './file-contents.js';
import { withAccumulator } from './file-accumulated.js';
import { manageFile } from './file-manage.js';
import { modeArg, resolvePerms } from './file-perms.js';
import { checkAbsolute, errorText, failed } from './file-result.js';

export const fileManaged = defineState({
  name: 'file.managed',
  // Salt's file.managed takes **kwargs: keys it does not know (backupname, show_diff, ...) are ignored.
  kwargs: true,
  doc: 'Manage a file: its content (from a source, a template or contents), owner and mode.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
    { name: 'source', type: 'any', doc: 'salt:// or http(s):// URL or absolute local path, or a list of them (the first that exists is used); http(s) needs source_hash or skip_verify' },
    { name: 'source_hash', type: 'string', doc: "expected hash of the source: 'sha256=<hex>', a bare hex digest, or a hash file URL" },
    { name: 'user', type: 'string', doc: 'owner of the file' },
    { name: 'group', type: 'string', doc: 'group of the file' },
    { name: 'mode', type: 'any', doc: "octal mode, e.g. '0644' or 644" },
    { name: 'template', type: 'string', doc: 'render the source (or contents) with this engine: jinja' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'dir_mode', type: 'any', doc: 'mode of directories created by makedirs (default: mode with x added where it has r)' },
    { name: 'context', type: 'map', doc: 'template variables (win over defaults)' },
    { name: 'defaults', type: 'map', doc: 'default template variables' },
    { name: 'replace', type: 'bool', default: true, doc: 'false: only create the file when missing, never change its content' },
    { name: 'backup', type: 'string', default: '', doc: "'minion': keep the replaced version under cachedir/file_backup" },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put a unified diff in changes (false: a placeholder)' },
    { name: 'create', type: 'bool', default: true, doc: 'false: do not create the file when missing' },
    { name: 'contents', type: 'any', doc: 'the content as text (or a list of lines); excludes source' },
    { name: 'contents_pillar', type: 'string', doc: "pillar key (nested with ':') whose value is the content" },
    { name: 'contents_newline', type: 'bool', default: true, doc: 'end contents with a newline' },
    { name: 'skip_verify', type: 'bool', default: false, doc: 'do not check the source against source_hash' },
    { name: 'source_hash_name', type: 'string', doc: 'the file name to look up in a source_hash file (default: the source file name)' },
    { name: 'follow_symlinks', type: 'bool', default: true, doc: 'manage the file a symlink at name points to (false: replace the link)' },
    { name: 'keep_source', type: 'bool', default: true, doc: 'accepted for compatibility: the cached source is always kept' },
    { name: 'verify_ssl', type: 'bool', default: true, doc: "false: an https source's (and source_hash file's) certificate is not verified" },
    { name: 'use_etag', type: 'bool', default: false, doc: 'accepted: a downloaded source is kept while it matches source_hash (brine sends no If-None-Match)' },
  ],
  example:
    '/etc/nginx/nginx.conf:\n  file.managed:\n    - source: salt://nginx/nginx.conf.j2\n    - template: jinja\n    - user: root\n    - group: root\n    - mode: 644\n    - context:\n        workers: 4',
  run: async (ctx, { named: a, extra }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (a.backup !== '' && a.backup !== 'minion') return failed(name, `Unsupported backup '${a.backup}'; use backup: minion (or leave it out)`);
    const mode = modeArg(a.mode);
    if ('error' in mode) return failed(name, mode.error);
    const dirMode = modeArg(a.dir_mode);
    if ('error' in dirMode) return failed(name, dirMode.error);
    try {
      const perms = await resolvePerms('file.managed', { user: a.user, group: a.group, mode: mode.mode }, ctx.test);
      if ('error' in perms) return failed(name, perms.error);
      const wanted = await wantedContents(ctx, {
        source: a.source,
        sourceHash: a.skip_verify ? undefined : a.source_hash,
        sourceHashName: a.source_hash_name,
        skipVerify: a.skip_verify,
        verifySsl: a.verify_ssl,
        contents: a.contents,
        contentsPillar: a.contents_pillar,
        contentsNewline: a.contents_newline,
        template: a.template,
        context: withAccumulator(ctx, name, a.context),
        defaults: a.defaults,
        templateVars: { name, user: a.user ?? null, group: a.group ?? null, mode: a.mode ?? null, attrs: null },
        kwargs: templateKwargs(extra),
      });
      if ('error' in wanted) return failed(name, wanted.error);
      return await manageFile(ctx, {
        name,
        contents: wanted.contents,
        perms,
        makedirs: a.makedirs,
        // Salt: without dir_mode, created directories get the file's mode plus x where it has r.
        dirMode: dirMode.mode ?? (mode.mode === undefined ? undefined : mode.mode | ((mode.mode & 0o444) >> 2)),
        replace: a.replace,
        create: a.create,
        backup: a.backup,
        showChanges: a.show_changes,
        followSymlinks: a.follow_symlinks,
        origin: a.source !== undefined && a.source !== null && a.source !== '' ? 'source' : 'contents',
      });
    } catch (err) {
      return failed(name, `Unable to manage file ${name}: ${errorText(err)}`);
    }
  },
});
