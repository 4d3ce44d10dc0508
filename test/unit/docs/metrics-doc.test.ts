// docs/metrics.md lists every brine_ metric the registry has, with its type and label names,
// and no metric the registry does not have (issue 11 item 4).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineMetrics } from '../../../src/metrics/index.js';
import { repoRoot } from '../../helpers/repo.js';

const doc = fs.readFileSync(path.join(repoRoot(), 'docs', 'metrics.md'), 'utf8');

/** Table rows `| \`brine_x\` | type | labels | meaning |` -> name -> { type, labels cell }. */
function documented(): Map<string, { type: string; labels: string }> {
  const out = new Map<string, { type: string; labels: string }>();
  for (const line of doc.split('\n')) {
    const m = /^\| `(brine_\w+)` \| (\w+) \|([^|]*)\|/.exec(line);
    if (m) out.set(m[1]!, { type: m[2]!, labels: m[3]! });
  }
  return out;
}

test('every brine_ metric is documented with its type and labels, and nothing else is', async () => {
  const metrics = new BrineMetrics({
    processMetrics: false,
    fleet: { presence: () => [], keyCounts: () => ({ accepted: 0, pending: 0, rejected: 0, denied: 0 }), queuedReturns: () => [], awaitingSignIn: () => 0, turnedAway: () => 0 },
  });
  const registered = (await metrics.registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('brine_'));
  const docs = documented();
  assert.deepEqual([...docs.keys()].sort(), registered.map((m) => m.name).sort());
  for (const m of registered) {
    const row = docs.get(m.name)!;
    assert.equal(row.type, String(m.type), `${m.name}: type`);
    const labels = new Set(m.values.flatMap((v) => Object.keys(v.labels)));
    for (const label of labels) assert.ok(row.labels.includes(`\`${label}\``), `${m.name}: label ${label} not documented`);
  }
});
