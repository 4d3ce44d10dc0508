// file.serialize: a data set (or a pillar key) written as JSON, YAML or key=value lines, optionally
// merged into what the file already holds. Serialized as Salt's serializers print (json.dumps
// indent 2 sorted; PyYAML block style; "\n" appended), then managed like file.managed, with the
// comments of Salt's salt/states/file.py serialize().

import { readFileSync, statSync } from 'node:fs';
import { traverseDictAndList } from '../../modules/traverse.js';
import { jsonDumps } from '../../render/jinja/serialize.js';
import { yamlDump } from '../../render/jinja/yaml-emitter.js';
import { loadYaml } from '../../render/yaml-load.js';
import { defineState } from '../types.js';
import { manageFile } from './file-manage.js';
import { modeArg, resolvePerms } from './file-perms.js';
import { checkAbsolute, errorText, failed } from './file-result.js';

type Data = Record<string, unknown>;
const isDict = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Salt's dictupdate.merge_recurse(a, b): b's keys win, nested maps merged, lists replaced. */
export function mergeRecurse(a: unknown, b: unknown): unknown {
  if (!isDict(a) || !isDict(b)) return b;
  const out: Data = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isDict(out[k]) && isDict(v) ? mergeRecurse(out[k], v) : v;
  return out;
}

/** Salt's repack_dictlist: [{a: 1}, {b: 2}] (or a map) as one map. */
function repack(opts: unknown): Data {
  if (isDict(opts)) return opts;
  const out: Data = {};
  for (const item of Array.isArray(opts) ? opts : []) if (isDict(item)) Object.assign(out, item);
  return out;
}

function keyvalueDump(v: unknown, opts: Data): string {
  if (!isDict(v)) throw new Error('the keyvalue serializer needs a mapping');
  const quote = opts.quoting === true;
  const end = typeof opts.line_ending === 'string' ? opts.line_ending : '\n';
  return Object.entries(v)
    .map(([k, x]) => `${k}=${quote ? `"${String(x)}"` : String(x)}`)
    .join(end);
}

interface Serializer {
  dump(v: unknown, opts: Data): string;
  load(text: string): unknown;
}

const SERIALIZERS: Record<string, Serializer> = {
  json: {
    dump: (v, o) => jsonDumps(v, { sortKeys: o.sort_keys !== false, indent: typeof o.indent === 'number' ? o.indent : 2, ensureAscii: o.ensure_ascii !== false }),
    load: (t) => JSON.parse(t),
  },
  yaml: { dump: (v) => yamlDump(v, false), load: (t) => loadYaml(t, undefined, { octal: 'pyyaml' }) },
  keyvalue: {
    dump: keyvalueDump,
    load: (t) =>
      Object.fromEntries(
        t.split('\n').flatMap((l) => (l.includes('=') && !l.trimStart().startsWith('#') ? [[l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^"(.*)"$/, '$1')]] : [])),
      ),
  },
};

export const fileSerialize = defineState({
  name: 'file.serialize',
  // Salt's function takes **kwargs: arguments it does not know are ignored, without a warning.
  kwargs: true,
  doc: 'Serialize a data set (or pillar key) into a file as JSON, YAML or key=value lines.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the file' },
    { name: 'dataset', type: 'any', doc: 'the data to write' },
    { name: 'dataset_pillar', type: 'string', doc: 'a pillar key (a:b:c) whose value is the data' },
    { name: 'serializer', type: 'string', doc: 'json, yaml (default) or keyvalue' },
    { name: 'formatter', type: 'string', doc: 'older name of serializer' },
    { name: 'serializer_opts', type: 'any', doc: 'serializer options, e.g. [{indent: 4}] for json' },
    { name: 'deserializer_opts', type: 'any', doc: 'accepted; used only with merge_if_exists' },
    { name: 'merge_if_exists', type: 'bool', default: false, doc: "merge the data set into the file's current data" },
    { name: 'user', type: 'string', doc: 'owner' },
    { name: 'group', type: 'string', doc: 'group' },
    { name: 'mode', type: 'any', doc: 'octal mode' },
    { name: 'backup', type: 'string', default: '', doc: "'minion' keeps the old version in the minion's backup tree" },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put a diff in changes' },
    { name: 'create', type: 'bool', default: true, doc: 'false: do nothing when the file does not exist' },
    { name: 'encoding', type: 'string', doc: 'accepted; files are written as UTF-8' },
    { name: 'encoding_errors', type: 'string', default: 'strict', doc: 'accepted' },
    { name: 'tmp_dir', type: 'string', default: '', doc: 'accepted (files are written beside the target)' },
  ],
  example: '/etc/app/config.json:\n  file.serialize:\n    - serializer: json\n    - dataset:\n        name: app\n        workers: 4',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (!a.create && !statSync(name, { throwIfNoEntry: false })?.isFile()) {
      return { name, result: true, changes: {}, comment: `File ${name} is not present and is not set for creation` };
    }
    if (a.serializer && a.formatter) return failed(name, 'Only one of serializer and formatter are allowed');
    const kind = String(a.serializer ?? a.formatter ?? 'yaml').toLowerCase();
    if (a.dataset !== undefined && a.dataset !== null && a.dataset_pillar) return failed(name, "Only one of 'dataset' and 'dataset_pillar' is permitted");
    let dataset: unknown = a.dataset;
    if (a.dataset_pillar) dataset = traverseDictAndList(ctx.exec.pillar?.() ?? {}, a.dataset_pillar, null);
    if (dataset === undefined || dataset === null) return failed(name, "Neither 'dataset' nor 'dataset_pillar' was defined");
    const ser = SERIALIZERS[kind];
    if (!ser) {
      return failed(name, `The ${kind} serializer could not be found. It either does not exist or its prerequisites are not installed. (brine serializes json, yaml and keyvalue)`);
    }
    try {
      if (a.merge_if_exists && statSync(name, { throwIfNoEntry: false })?.isFile()) {
        let existing: unknown;
        try {
          existing = ser.load(readFileSync(name, 'utf8'));
        } catch (err) {
          return failed(name, `Failed to deserialize existing data: ${errorText(err)}`);
        }
        if (existing !== null && existing !== undefined) {
          const merged = mergeRecurse(existing, dataset);
          if (JSON.stringify(merged) === JSON.stringify(existing)) return { name, result: true, changes: {}, comment: `The file ${name} is in the correct state` };
          dataset = merged;
        }
      }
      const contents = `${ser.dump(dataset, repack(a.serializer_opts))}\n`;
      const mode = modeArg(a.mode);
      if ('error' in mode) return failed(name, mode.error);
      const perms = await resolvePerms('file.serialize', { user: a.user, group: a.group, mode: mode.mode });
      if ('error' in perms) return failed(name, perms.error);
      const r = await manageFile(ctx, {
        name,
        contents: Buffer.from(contents),
        perms,
        makedirs: a.makedirs,
        replace: true,
        create: a.create,
        backup: a.backup,
        showChanges: a.show_changes,
      });
      if (!ctx.test || r.result === false) return r;
      // Salt words the test=True report itself (file.check_managed_changes gives the changes).
      if (Object.keys(r.changes).length > 0) return { ...r, result: null, comment: `Dataset will be serialized and stored into ${name}` };
      return { ...r, result: true, comment: `The file ${name} is in the correct state` };
    } catch (err) {
      return failed(name, `Unable to serialize into ${name}: ${errorText(err)}`);
    }
  },
});
