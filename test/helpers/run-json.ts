// `brine run <id> ... --out json` for tests that look at one minion's return: the return, the
// exit code, and everything printed (for assertion messages).

import type { Cluster } from './cluster.js';

export async function runJson(cluster: Cluster, id: string, args: string[]): Promise<{ ret: unknown; code: number; raw: string }> {
  const r = await cluster.brine(['run', id, ...args, '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
  const parsed = r.stdout.trim() === '' ? {} : (JSON.parse(r.stdout) as Record<string, unknown>);
  return { ret: parsed[id], code: r.code ?? -1, raw: r.stdout + r.stderr };
}
