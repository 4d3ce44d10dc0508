// import() of a file chosen at run time (module_dirs, synced custom modules). In the bundled job
// worker, brine's code may come from a V8 code cache (src/minion/job-worker-loader.cts), and
// functions restored from a cache have no module loader for import(); the loader, compiled by
// Node as usual, publishes an import() of its own under this symbol, and that one works.

const LOADER_IMPORT = Symbol.for('brine.import');

export function importFile(url: string): Promise<Record<string, unknown>> {
  const viaLoader = (globalThis as Record<symbol, unknown>)[LOADER_IMPORT];
  if (typeof viaLoader === 'function') return (viaLoader as (u: string) => Promise<Record<string, unknown>>)(url);
  return import(url) as Promise<Record<string, unknown>>;
}
