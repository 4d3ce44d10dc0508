// network.managed, network.routes and network.system (Debian ifupdown) with Salt's arguments and
// test=True answers (salt/states/network.py). brine reads /etc/network/interfaces to tell an
// interface to add from one to update, but writes no network configuration yet: a real run fails
// saying so, as an outage from a half-written interfaces file would be worse.

import fs from 'node:fs';
import { defineState, type StateContext, type StateFunction } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct } from './backend.js';

const INTERFACES = '/etc/network/interfaces';

/** An `iface <name>` stanza in /etc/network/interfaces (Salt's ip.get_interface on Debian). */
function hasStanza(name: string): boolean {
  try {
    return fs
      .readFileSync(INTERFACES, 'utf8')
      .split('\n')
      .some((l) => l.trim().split(/\s+/)[0] === 'iface' && l.trim().split(/\s+/)[1] === name);
  } catch {
    return false;
  }
}

const refuse = (ctx: StateContext, name: string) =>
  cannotAct(ctx, name, { reason: `brine answers network states only with test=True so far; write ${INTERFACES} (or /etc/network/interfaces.d/) with file.managed and run ifup until it does` });

const managed = defineState({
  name: 'network.managed',
  doc: 'Make sure a network interface is configured (Debian ifupdown) (test=True only on brine).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the interface' },
    { name: 'type', type: 'string', default: 'eth', doc: 'eth, bond, vlan, bridge, ...' },
    { name: 'enabled', type: 'bool', default: true },
  ],
  kwargs: true,
  example: 'eth0:\n  network.managed:\n    - type: eth\n    - proto: static\n    - ipaddr: 10.0.0.5\n    - netmask: 255.255.255.0',
  run: async (ctx, a) => {
    const name = a.named.name;
    if (!ctx.test) return refuse(ctx, name);
    // Salt prints the unified diff of the stanza for an update; brine does not render it yet.
    return stateResult(name, null, hasStanza(name) ? `Interface ${name} is set to be updated:\n` : `Interface ${name} is set to be added.`);
  },
});

const routes = defineState({
  name: 'network.routes',
  doc: "Make sure an interface's static routes are configured (Debian ifupdown) (test=True only on brine).",
  params: [{ name: 'name', type: 'string', required: true, doc: 'the interface' }],
  kwargs: true,
  example: 'eth0:\n  network.routes:\n    - routes:\n      - name: backend\n        ipaddr: 10.1.0.0\n        netmask: 255.255.0.0\n        gateway: 10.0.0.1',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, `Interface ${a.named.name} routes are set to be added.`) : refuse(ctx, a.named.name)),
});

const system = defineState({
  name: 'network.system',
  doc: 'Make sure the global network settings (hostname, gateway, networking) are configured (test=True only on brine).',
  params: [{ name: 'name', type: 'string', required: true }],
  kwargs: true,
  example: 'system:\n  network.system:\n    - enabled: True\n    - hostname: web1.example.com\n    - apply_hostname: True',
  run: async (ctx, a) => (ctx.test ? stateResult(a.named.name, null, 'Global network settings are set to be added.') : refuse(ctx, a.named.name)),
});

export const networkStates: readonly StateFunction[] = [managed, routes, system];
