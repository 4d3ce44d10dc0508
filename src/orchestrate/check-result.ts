// Salt's salt.utils.state.check_result: whether a (possibly nested) state return succeeded. The
// orchestration uses it on each minion's return and on its own highstate.

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * False for a non-mapping or empty return, or when any state (at any depth) has `result: False`;
 * at the top level every value must be a mapping (a minion's list of compile errors fails).
 */
export function checkResult(running: unknown, recurse = false): boolean {
  if (!isMapping(running)) return false;
  const entries = Object.values(running);
  if (entries.length === 0) return false;
  for (const state of entries) {
    if (!isMapping(state)) {
      if (!recurse) return false;
      continue;
    }
    if (!Object.hasOwn(state, 'result')) {
      if (!checkResult(state, true)) return false;
    } else if (state.result === false) return false;
  }
  return true;
}

/** Salt's fail_minions argument: a list or a comma-separated string (anything else is ignored with a warning). */
export function failMinionsOf(v: unknown): { ids: Set<string>; warning?: string } {
  if (v === undefined || v === null) return { ids: new Set() };
  if (typeof v === 'string') return { ids: new Set(v.split(',').map((m) => m.trim())) };
  if (Array.isArray(v)) return { ids: new Set(v.map(String)) };
  return { ids: new Set(), warning: "'fail_minions' needs to be a list or a comma separated string. Ignored." };
}
