// Salt's "No Top file or master_tops data matches found." return, with the cause spelled out
// (issue 26): the environments (and, masterless, the file_roots directories) searched, and what
// the top files held: none found, or top files whose targets all miss this minion (a few named).
// Salt's own text ends "Please see master log for details." while its master log says nothing.

import type { ExecContext } from '../modules/index.js';
import type { StateReturn } from './runtime/runner.js';
import { slsLoader } from './sls-render.js';
import type { SlsFiles } from './sls-source.js';
import { topEnvsToRead, type TopReadOptions } from './top-merge.js';

/** What the explanation reads: the run's files and its minion (a StateEnv has both). */
interface StateEnv {
  files: SlsFiles;
  exec: ExecContext;
}

/** Salt's first sentence, kept so scripts that look for it still find it. */
export const NO_TOP_SENTENCE = 'No Top file or master_tops data matches found.';

/** How many top-file targets the comment names before "and N more". */
const TARGETS_SHOWN = 5;

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Each environment read and the targets its top.sls has (undefined: no top.sls there). */
async function topTargets(env: StateEnv, read: readonly string[]): Promise<Array<[string, string[] | undefined]>> {
  const loader = slsLoader(env.files, env.exec);
  const out: Array<[string, string[] | undefined]> = [];
  for (const e of read) {
    let loaded: { data: unknown } | undefined;
    try {
      loaded = await loader.load('top', e);
    } catch {
      // a top file that does not render is a compile error, reported before this point
      loaded = undefined;
    }
    if (loaded === undefined) {
      out.push([e, undefined]);
      continue;
    }
    const data = isMapping(loaded.data) ? loaded.data : {};
    out.push([e, Object.values(data).flatMap((section) => (isMapping(section) ? Object.keys(section) : []))]);
  }
  return out;
}

/** `base: /srv/salt, /srv/common; dev: /srv/dev` for a masterless minion's own file_roots. */
function localRoots(config: Readonly<Record<string, unknown>>, envs: readonly string[]): string | undefined {
  if (config.file_client !== 'local' || !isMapping(config.file_roots)) return undefined;
  const roots = config.file_roots;
  const parts = envs.map((e) => `${e}: ${Array.isArray(roots[e]) ? roots[e].map(String).join(', ') : '(none)'}`);
  return parts.join('; ');
}

function quoteList(items: readonly string[]): string {
  const shown = items.slice(0, TARGETS_SHOWN).map((t) => `'${t}'`);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The comment: what was searched and what the top files gave this minion. */
export async function explainNoTopMatch(env: StateEnv, options: TopReadOptions): Promise<string> {
  const envs = await env.files.listEnvs();
  const read = topEnvsToRead(envs, options);
  const tops = await topTargets(env, read);
  const found = tops.filter((t): t is [string, string[]] => t[1] !== undefined);
  const id = env.exec.minionId;
  let what: string;
  if (found.length === 0) what = `No top file (top.sls) was found in the environments searched: ${read.join(', ') || '(none)'}.`;
  else {
    const targets = found.flatMap(([, t]) => t);
    const where = found.map(([e]) => e).join(', ');
    what =
      targets.length === 0
        ? `The top file (${where}) has no targets, so nothing is applied to minion '${id}'.`
        : `The top file (${where}) has no target that matches minion '${id}'; its targets: ${quoteList(targets)}. Add a target for this minion, or check its ID and grains (brine run ${id} grains.items).`;
  }
  const roots = localRoots(env.exec.config, read);
  const searched =
    roots !== undefined ? `file_roots searched: ${roots}.` : `The master's file_roots were searched (environments: ${read.join(', ') || '(none)'}); the master log names their directories.`;
  return `${NO_TOP_SENTENCE} ${what} ${searched}`;
}

/** Salt's no-match return (a failure, retcode 2 at the caller) with the explained comment. */
export function noTopMatchReturn(comment: string): Record<string, StateReturn> {
  return {
    'no_|-states_|-states_|-None': {
      name: 'No States',
      result: false,
      changes: {},
      comment,
      __id__: 'states',
      __sls__: 'None',
      __run_num__: 0,
      start_time: '00:00:00.000000',
      duration: 0,
    },
  };
}
