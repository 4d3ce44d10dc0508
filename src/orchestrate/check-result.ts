// Salt's salt.utils.state.check_result: whether a (possibly nested) state return succeeded. The
// orchestration uses it on each minion's return and on its own highstate.

/** False for a non-mapping or empty return, or when any state (at any depth) has `result: False`. */
export function checkResult(running: unknown): boolean {
  if (typeof running !== 'object' || running === null || Array.isArray(running)) return false;
  const entries = Object.entries(running);
  if (entries.length === 0) return false;
  for (const [, state] of entries) {
    if (typeof state !== 'object' || state === null || Array.isArray(state)) continue;
    if (!Object.hasOwn(state, 'result')) {
      if (!checkResult(state)) return false;
    } else if ((state as { result: unknown }).result === false) return false;
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
