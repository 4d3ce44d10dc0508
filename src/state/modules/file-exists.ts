// file.exists and file.missing: assert that a path is (or is not) there, changing nothing
// (Salt's salt/states/file.py exists/missing); a tree uses them as requisite gates.

import { lstat } from 'node:fs/promises';
import { defineState } from '../types.js';
import { failed, succeed } from './file-result.js';

const present = async (p: string): Promise<boolean> => (await lstat(p).catch(() => undefined)) !== undefined;

export const fileExists = defineState({
  name: 'file.exists',
  // Salt's function takes **kwargs: arguments it does not know are ignored, without a warning.
  kwargs: true,
  doc: 'Succeed when the path exists, fail when it does not; nothing is changed.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the path that must exist' }],
  example: 'app config is in place:\n  file.exists:\n    - name: /etc/app/app.conf',
  run: async (_ctx, { named: a }) => {
    if (a.name === '') return failed(a.name, 'Must provide name to file.exists');
    return (await present(a.name)) ? succeed(a.name, `Path ${a.name} exists`) : failed(a.name, `Specified path ${a.name} does not exist`);
  },
});

export const fileMissing = defineState({
  name: 'file.missing',
  // Salt's function takes **kwargs: arguments it does not know are ignored, without a warning.
  kwargs: true,
  doc: 'Succeed when the path does not exist, fail when it does; nothing is changed.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the path that must not exist' }],
  example: 'no stale lock:\n  file.missing:\n    - name: /var/lib/app/lock',
  run: async (_ctx, { named: a }) => {
    if (a.name === '') return failed(a.name, 'Must provide name to file.missing');
    return (await present(a.name)) ? failed(a.name, `Specified path ${a.name} exists`) : succeed(a.name, `Path ${a.name} is missing`);
  },
});
