// Issue 22 (corpus apply measurement): a test=True run of many pkg states ran `apt-get update`
// and dpkg-query once per state (REMnux/salt-states took 554 s). The index is refreshed once per
// run, as Salt's refresh tag does, and test=True reads the installed packages once per run.

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeApt } from './fake-apt.js';
import { harness } from './harness.js';

const apt = installFakeApt();
after(() => apt.dispose());

beforeEach(() => {
  apt.setInstalled({ curl: '7.88.1-10' });
  apt.setAvailable({ curl: ['7.88.1-10', '7.88.1-11'], nginx: ['1.22.1-9'], jq: ['1.6-2.1', '1.7-1'], git: ['2.39.2-1'] });
});

const updates = () => apt.calls().filter((c) => / update$/.test(c)).length;

const SLS = ['nginx:', '  pkg.installed: []', 'jq:', '  pkg.installed: []', 'tools:', '  pkg.installed:', '    - pkgs:', '      - git', '      - curl', 'curl:', '  pkg.latest: []', ''].join('\n');

describe('pkg states within one state run', () => {
  it('test=True: one apt-get update and one package listing for the whole run; every state still reports its own changes', async () => {
    const h = harness({ base: { 'pkgs.sls': SLS } });
    const [u0, q0] = [updates(), apt.queries()];
    const r = await h.call('state.sls', ['pkgs'], { test: true });
    const ret = r.return as Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;
    const byId = (id: string) => Object.entries(ret).find(([tag]) => tag.split('_|-')[1] === id)![1];
    assert.deepEqual(byId('nginx').changes, { nginx: { new: '1.22.1-9', old: '' } });
    assert.deepEqual(byId('jq').changes, { jq: { new: '1.7-1', old: '' } });
    assert.deepEqual(byId('tools').changes, { git: { new: '2.39.2-1', old: '' } });
    assert.equal(byId('curl').comment, 'The following packages would be installed/upgraded: curl=7.88.1-11');
    assert.equal(updates() - u0, 1, apt.calls().join('\n'));
    assert.equal(apt.queries() - q0, 1, 'pkg.list_pkgs ran once for four states');
    assert.deepEqual(apt.installed(), { curl: '7.88.1-10' }, 'test=True installed nothing');
    // the next run refreshes again: the memory is per run
    await h.call('state.sls', ['pkgs'], { test: true });
    assert.equal(updates() - u0, 2);
  });

  it('a real run: pkg.latest without refresh updates the index once, refresh: True always; installs see the new package list', async () => {
    const sls = ['curl:', '  pkg.latest: []', 'jq:', '  pkg.latest: []', 'again:', '  pkg.latest:', '    - name: curl', '    - refresh: True', 'nginx:', '  pkg.installed: []', ''].join('\n');
    const before = updates();
    const r = await harness({ base: { 'up.sls': sls } }).call('state.sls', ['up']);
    const ret = r.return as Record<string, { result: boolean; comment: string }>;
    for (const s of Object.values(ret)) assert.equal(s.result, true, s.comment);
    assert.equal(updates() - before, 2, `one for the run, one for refresh: True; nginx's install adds none: ${apt.calls().join(' / ')}`);
    assert.deepEqual(apt.installed(), { curl: '7.88.1-11', jq: '1.7-1', nginx: '1.22.1-9' });
  });

  it('a real run: the first pkg.installed with something to install refreshes the index, the next ones do not (Salt refresh tag)', async () => {
    const before = updates();
    const sls = ['nginx:', '  pkg.installed: []', 'jq:', '  pkg.installed: []', 'git:', '  pkg.installed:', '    - refresh: False', ''].join('\n');
    const r = await harness({ base: { 'inst.sls': sls } }).call('state.sls', ['inst']);
    for (const s of Object.values(r.return as Record<string, { result: boolean; comment: string }>)) assert.equal(s.result, true, s.comment);
    const calls = apt.calls().slice(-4);
    assert.match(calls[0]!, / update$/, 'the index is refreshed before the first install');
    assert.match(calls[1]!, /install -- nginx$/);
    assert.match(calls[2]!, /install -- jq$/);
    assert.match(calls[3]!, /install -- git$/);
    assert.equal(updates() - before, 1);
  });
});
