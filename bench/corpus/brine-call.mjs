// One masterless brine call in process, as `brine call --local` runs it (each call in a worker
// thread): shared by bench/corpus.mjs and bench/salt-lowchunks.mjs.

import * as path from 'node:path';

export const MINION_ID = 'corpus-minion';
export const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Loads the compiled modules once; returns the helpers bound to them. */
export async function brineCalls(build, timeoutSeconds) {
  const [{ loadConfig }, { asMinionOptions }, { runLocalCall }] = await Promise.all([
    import(build.module('config/load.js')),
    import(build.module('config/options.js')),
    import(build.module('minion/local-call.js')),
  ]);

  /** Minion options for a tree laid out under `scratch` (file_roots/pillar_roots as given). */
  /** `extra`: more minion options (render_dirs for a tree's own renderers: layout.mjs renderDirs). */
  function optionsFor(scratch, fileRoots, pillar, extra = {}) {
    const cfg = loadConfig('minion', {
      configDir: scratch,
      env: {},
      overrides: {
        id: MINION_ID,
        file_client: 'local',
        cachedir: path.join(scratch, 'cache'),
        pki_dir: path.join(scratch, 'pki'),
        file_roots: { base: fileRoots },
        pillar_roots: { base: pillar.length > 0 ? pillar : [path.join(scratch, 'no-pillar')] },
        log_level: 'quiet',
        ...extra,
      },
    });
    return asMinionOptions(cfg);
  }

  /** One call through the same path as `brine call --local`, with a time limit. */
  async function call(executor, fun, arg, kwarg, o) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutSeconds * 1000);
    try {
      return await runLocalCall(fun, arg, kwarg, { ...o, localFiles: true, signal: controller.signal, executor, log: quiet });
    } finally {
      clearTimeout(timer);
    }
  }

  return { optionsFor, call };
}
