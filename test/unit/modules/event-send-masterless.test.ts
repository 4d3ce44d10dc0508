// event.send as Salt's salt/modules/event.py send(): on a masterless minion (file_client: local,
// master_type: disable) the event goes to the minion's own bus (its reactor hears it), unless
// use_master_when_local; otherwise to the master's bus. Through the real registry.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultRegistry, type MinionEventAccess } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();

function recorder() {
  const seen: string[] = [];
  const events: MinionEventAccess = {
    fireMaster: async (tag) => void seen.push(`master ${tag}`),
    fireLocal: async (tag, data) => {
      seen.push(`local ${tag} ${JSON.stringify(data)}`);
      return true;
    },
  };
  return { seen, events };
}

test("event.send on a masterless minion fires on its own bus with Salt's data; with a master, on the master's bus; use_master_when_local sends to the master", async () => {
  for (const [config, where] of [
    [{ file_client: 'local' }, 'local'],
    [{ master_type: 'disable' }, 'local'],
    [{ file_client: 'remote' }, 'master'],
    [{ file_client: 'local', use_master_when_local: true }, 'master'],
  ] as const) {
    const { seen, events } = recorder();
    const ctx = { ...makeCtx({ config }), events };
    const r = await registry.call('event.send', ['myco/x'], { data: { a: 1 }, b: 2 }, ctx);
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.return, true);
    assert.deepEqual(seen, [where === 'local' ? 'local myco/x {"b":2,"a":1}' : 'master myco/x'], JSON.stringify(config));
  }
});
