// How a `ret` value names returners, in a file of its own: a minion reads the names of every
// job's `ret` but loads the returners themselves (registry.ts, with postgres) only when one is
// named (issue 27, thinmin2).

/** The returner names a `ret`/`returner`/`event_return` value gives, each once, in order. */
export function returnerNames(value: unknown): string[] {
  const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  return [...new Set(parts.map((p) => p.trim()).filter((p) => p !== ''))];
}
