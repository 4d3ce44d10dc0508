// salt.wait_for_event (saltmod.py wait_for_event): wait on the master's bus until an event whose
// tag matches `name` has named every ID of id_list (in data[event_id], or data.data[event_id] for
// an event a minion sent), or the timeout passes. Events before the step starts do not count.

import type { SaltEvent } from '../protocol/index.js';
import { defineParams } from '../modules/index.js';
import { defineState, type StateFunction, type StateResult } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import { globMatch } from '../util/glob.js';
import type { OrchestrationRun } from './step-publish.js';

const params = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the event tag to wait for, a glob: salt/minion/*/start' },
  { name: 'id_list', type: 'list', required: true, doc: 'the IDs to see, each in one matching event' },
  { name: 'event_id', type: 'string', default: 'id', doc: 'the event data key holding the ID' },
  { name: 'timeout', type: 'number', default: 300, doc: 'seconds to wait' },
  { name: 'node', type: 'string', default: 'master', doc: "the bus to follow: only 'master'" },
]);

/** The IDs an event names: data[key], else data.data[key]; a list names each of its items. */
function idsOf(event: SaltEvent, key: string): unknown[] {
  let v = event.data[key];
  const inner = event.data.data;
  if ((v === undefined || v === null) && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) v = (inner as Record<string, unknown>)[key];
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

export function saltWaitForEvent(run: OrchestrationRun, clock: Clock): StateFunction {
  return defineState({
    name: 'salt.wait_for_event',
    doc: 'Wait until events with a matching tag have named every ID of id_list (orchestration).',
    params,
    example: 'wait_for_minions:\n  salt.wait_for_event:\n    - name: salt/minion/*/start\n    - id_list:\n      - web1\n      - web2\n    - timeout: 120',
    run: async (ctx, { named: a }): Promise<StateResult> => {
      const name = a.name;
      if (ctx.test) return { name, result: null, changes: {}, comment: `Orchestration would wait for event '${name}'` };
      const remaining = a.id_list.map(String);
      const started = clock.now();
      const seen: string[] = [];
      const elapsed = (): string => `${((clock.now() - started) / 1000).toFixed(6)}`;
      return new Promise<StateResult>((resolve) => {
        const finish = (ret: StateResult): void => {
          sub.dispose();
          timer.cancel();
          run.signal.removeEventListener('abort', onAbort);
          resolve(ret);
        };
        const changes = (): Record<string, unknown> => (seen.length > 0 ? { minions_seen: [...seen] } : {});
        const done = (): void => finish({ name, result: true, changes: changes(), comment: `All events seen in ${elapsed()} seconds.` });
        const sub = run.host.subscribe((event) => {
          if (!globMatch(name, event.tag)) return;
          for (const id of idsOf(event, a.event_id)) {
            const i = remaining.indexOf(String(id));
            if (i < 0) continue;
            remaining.splice(i, 1);
            seen.push(String(id));
          }
          if (remaining.length === 0) done();
        });
        const timer = clock.setTimeout(() => finish({ name, result: false, changes: changes(), comment: 'Timeout value reached.' }), a.timeout * 1000);
        const onAbort = (): void => finish({ name, result: false, changes: changes(), comment: 'The orchestration was stopped (the master is shutting down).' });
        run.signal.addEventListener('abort', onAbort, { once: true });
        if (remaining.length === 0) done();
      });
    },
  });
}
