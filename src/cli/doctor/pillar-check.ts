// `brine doctor master`: the master's pillar cache. Minions whose latest pillar render failed
// (with the first line of each error: file and line, never the text of the file), and those
// the pillar top file gives nothing, which Salt leaves silent (an empty pillar is not an error).

import type { PillarCacheRecord } from '../../master/index.js';
import { fail, ok, type Check } from './check.js';

const SHOWN = 5;

function firstLine(s: string): string {
  const nl = s.indexOf('\n');
  return (nl < 0 ? s : s.slice(0, nl)).slice(0, 300);
}

function listIds(ids: readonly string[]): string {
  return ids.length <= SHOWN ? ids.join(', ') : `${ids.slice(0, SHOWN).join(', ')} and ${ids.length - SHOWN} more`;
}

/** Pure: the pillar lines for the cached records. */
export function judgePillar(records: readonly PillarCacheRecord[]): Check[] {
  const failed = records.filter((r) => r.errors.length > 0).sort((a, b) => a.id.localeCompare(b.id));
  const empty = records
    .filter((r) => r.errors.length === 0 && r.matchedNothing)
    .map((r) => r.id)
    .sort();
  const checks: Check[] = [];
  for (const r of failed.slice(0, SHOWN)) {
    checks.push(
      fail(
        `pillar of ${r.id}`,
        `the latest render failed (${r.errors.length} error(s)): ${r.errors.map(firstLine).join('; ')}; the minion keeps its last good pillar`,
        `fix the file and line named, then run 'brine run ${r.id} saltutil.refresh_pillar'`,
      ),
    );
  }
  if (failed.length > SHOWN) checks.push(fail('pillar', `${failed.length - SHOWN} more minions' pillar failed to render`, "run 'brine run <id> pillar.items' to see each one's _errors"));
  const good = records.length - failed.length;
  let detail = records.length === 0 ? 'no minion has fetched its pillar yet' : `${good} of ${records.length} minions' pillar rendered without errors`;
  if (empty.length > 0) {
    detail += `; the pillar top file gives ${empty.length === 1 ? 'this minion' : `these ${empty.length} minions`} no SLS, so their pillar is empty: ${listIds(empty)} (fine if intended; otherwise add them to pillar_roots' top.sls)`;
  }
  checks.push(ok('pillar', detail));
  return checks;
}
