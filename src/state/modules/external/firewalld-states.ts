// firewalld.present and firewalld.service with Salt's arguments and test=True answers
// (salt/states/firewalld.py _present/_service): the would-be changes of each list given, as
// Salt reports them against a zone or service that has none of them yet. A real run fails:
// firewalld missing or not running, or brine not driving it yet.

import { runArgv } from '../../../modules/host-tools.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, findProgram, isUnreachable } from './backend.js';

async function refuse(ctx: StateContext, name: string): Promise<StateResult> {
  const cmd = findProgram('firewall-cmd', 'firewalld');
  if (isUnreachable(cmd)) return cannotAct(ctx, name, cmd);
  const st = await runArgv('firewall-cmd', [cmd.path, '--state'], { signal: ctx.exec.signal, timeoutMs: 15_000 });
  if (st.retcode !== 0) return cannotAct(ctx, name, { reason: 'firewalld is not running: start it (systemctl start firewalld)' });
  return cannotAct(ctx, name, { reason: 'brine answers firewalld states only with test=True so far; use cmd.run with firewall-cmd until it does' });
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** Salt's changes for the lists given, from nothing to what is asked; then its test comment. */
function predict(name: string, wanted: Record<string, unknown>): StateResult {
  const changes: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(wanted)) {
    if (key === 'masquerade') {
      if (v) changes.masquerade = 'Masquerading successfully set.';
    } else if (key === 'default') {
      if (v) changes.default = { old: '', new: name };
    } else if (list(v).length > 0) changes[key] = { old: [], new: list(v) };
  }
  if (Object.keys(changes).length === 0) return stateResult(name, null, `Configuration for '${name}' will change.`);
  return stateResult(name, null, `Configuration for '${name}' will change.`, changes);
}

const present = defineState({
  name: 'firewalld.present',
  doc: 'Make sure a firewalld zone has the given services, ports, sources, interfaces and rules (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the zone' },
    { name: 'block_icmp', type: 'list' },
    { name: 'prune_block_icmp', type: 'bool', default: false },
    { name: 'default', type: 'bool' },
    { name: 'masquerade', type: 'bool', default: false },
    { name: 'ports', type: 'list' },
    { name: 'prune_ports', type: 'bool', default: false },
    { name: 'port_fwd', type: 'list' },
    { name: 'prune_port_fwd', type: 'bool', default: false },
    { name: 'services', type: 'list' },
    { name: 'prune_services', type: 'bool', default: false },
    { name: 'interfaces', type: 'list' },
    { name: 'prune_interfaces', type: 'bool', default: false },
    { name: 'sources', type: 'list' },
    { name: 'prune_sources', type: 'bool', default: false },
    { name: 'rich_rules', type: 'list' },
    { name: 'prune_rich_rules', type: 'bool', default: false },
  ],
  example: 'public:\n  firewalld.present:\n    - services:\n      - ssh\n      - https\n    - ports:\n      - 8080/tcp',
  run: async (ctx, a) => {
    const n = a.named;
    if (!ctx.test) return refuse(ctx, n.name);
    return predict(n.name, {
      block_icmp: n.block_icmp,
      default: n.default,
      masquerade: n.masquerade,
      ports: n.ports,
      port_fwd: n.port_fwd,
      services: n.services,
      interfaces: n.interfaces,
      sources: n.sources,
      rich_rules: n.rich_rules,
    });
  },
});

const service = defineState({
  name: 'firewalld.service',
  doc: 'Make sure a firewalld service definition exists with the given ports and protocols (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true },
    { name: 'ports', type: 'list' },
    { name: 'protocols', type: 'list' },
  ],
  example: 'myapp:\n  firewalld.service:\n    - ports:\n      - 8443/tcp',
  run: async (ctx, a) => (ctx.test ? predict(a.named.name, { ports: a.named.ports, protocols: a.named.protocols }) : refuse(ctx, a.named.name)),
});

export const firewalldStates: readonly StateFunction[] = [present, service];
