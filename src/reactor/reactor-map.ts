// The master's `reactor:` option as Salt reads it (salt/utils/reactor.py list_reactors): a list of
// one-key mappings, tag glob -> an SLS path or a list of them; an event's reactors are the paths
// of every glob its tag matches (Python fnmatch), in the order written.

import { BrineError } from '../util/errors.js';
import { globMatch } from '../util/glob.js';

export interface ReactorEntry {
  readonly glob: string;
  readonly sls: readonly string[];
}

const EXAMPLE = "e.g. reactor: [{'salt/minion/*/start': [/srv/reactor/start.sls]}]";

/**
 * The entries of a `reactor:` value. Salt skips an entry that is not a one-key mapping; brine
 * refuses it at start (CONFIG_VALUE), since a skipped entry is a reaction that silently never runs.
 */
export function parseReactorMap(raw: unknown): ReactorEntry[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new BrineError('CONFIG_VALUE', `reactor must be a list of {tag glob: [SLS paths]} mappings, ${EXAMPLE}`);
  return raw.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length !== 1) {
      throw new BrineError('CONFIG_VALUE', `reactor entry ${i + 1} must be a mapping of one tag glob to SLS paths, ${EXAMPLE}`);
    }
    const [glob, value] = Object.entries(entry as Record<string, unknown>)[0] as [string, unknown];
    const sls = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(sls) || sls.length === 0 || !sls.every((p) => typeof p === 'string' && validPath(p))) {
      throw new BrineError('CONFIG_VALUE', `reactor entry '${glob.slice(0, 100)}' must list SLS files as absolute paths or salt:// paths, ${EXAMPLE}`);
    }
    return { glob, sls: sls as string[] };
  });
}

function validPath(p: string): boolean {
  return p.startsWith('/') || (p.startsWith('salt://') && p.length > 'salt://'.length);
}

/** The SLS paths for a tag: every matching entry's, in order (a path listed twice runs twice, as in Salt). */
export function reactorsFor(map: readonly ReactorEntry[], tag: string): Array<{ glob: string; sls: string }> {
  const out: Array<{ glob: string; sls: string }> = [];
  for (const e of map) if (globMatch(e.glob, tag)) for (const sls of e.sls) out.push({ glob: e.glob, sls });
  return out;
}
