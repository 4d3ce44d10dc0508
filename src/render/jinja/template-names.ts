// Template names as Salt's SaltCacheLoader (salt/utils/jinja.py, 3007) resolves them for
// include/import/from/import_yaml: a plain name is relative to the root of the file server
// environment; `./x` and `../x` are relative to the environment's `tpldir` global, which the
// loader sets to the directory of every template it loads by a plain name (a relative load
// keeps it). So `./defaults.yaml` inside `packages/map.jinja`, imported by
// `packages/golang/clean.sls`, is `packages/defaults.yaml`. Jinja2 caches templates by the
// name as written for the whole render, so a name loaded a second time neither resolves again
// nor moves `tpldir`.

/** One render's loader: the current base directory and the names loaded so far. */
export interface LoaderState {
  tpldir: string;
  readonly loaded: Map<string, string | undefined>;
}

export function newLoaderState(tpldir: string): LoaderState {
  return { tpldir, loaded: new Map() };
}

/** posixpath.normpath's rule on a relative path; undefined when it climbs above the root. */
function normalise(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/**
 * The root-relative name a template name refers to, or undefined when it would climb above
 * the root (Salt: "attempts to ascend outside of salt://", TemplateNotFound). A leading
 * `salt://` is accepted.
 */
export function resolveTemplateName(name: string, state: LoaderState): string | undefined {
  if (state.loaded.has(name)) return state.loaded.get(name);
  const n = name.startsWith('salt://') ? name.slice('salt://'.length) : name;
  const first = n.split('/', 1)[0];
  const relative = first === '.' || first === '..';
  const resolved = normalise(relative ? `${state.tpldir}/${n}` : n);
  // Salt sets tpldir before it reads the file, so a missing template moves it too
  if (!relative && resolved !== undefined) {
    const slash = resolved.lastIndexOf('/');
    state.tpldir = slash === -1 ? '.' : resolved.slice(0, slash);
  }
  return resolved;
}

/** Jinja2 caches a template once it loaded (a failed load is tried again next time). */
export function rememberLoaded(name: string, resolved: string, state: LoaderState): void {
  state.loaded.set(name, resolved);
}
