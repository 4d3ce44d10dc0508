// A small fleet with different grains, shared by the targeting tests.

import type { Grains } from '../../../src/targeting/index.js';

export const GRAINS: Record<string, Grains> = {
  web1: { id: 'web1', os: 'Debian', roles: ['web'], env: 'prod', ipv4: ['10.0.1.11', '127.0.0.1'], ipv6: ['::1', 'fd00::11'] },
  web2: { id: 'web2', os: 'Ubuntu', roles: ['web', 'cache'], env: 'dev', ipv4: ['10.0.1.12', '127.0.0.1'], ipv6: ['::1'] },
  db1: { id: 'db1', os: 'Debian', roles: ['db'], env: 'prod', ipv4: ['10.0.2.21'], ipv6: ['fd00::21'] },
  db2: { id: 'db2', os: 'Fedora', roles: ['db'], env: 'dev', ipv4: ['10.0.2.22'] },
  cache1: { id: 'cache1', os: 'Debian', roles: ['cache'], env: 'prod', ipv4: ['192.168.5.1'] },
};

/** Accepted IDs: `fresh1` has never sent grains (no cached data). */
export const IDS = ['web1', 'web2', 'db1', 'db2', 'cache1', 'fresh1'];

export const lookup = (id: string): Grains | undefined => GRAINS[id];
