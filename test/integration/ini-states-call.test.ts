// Issue 22 end to end: a systemd-formula-style SLS (ini.options_present with strict, values from
// Jinja) and mysql-formula's test.check_pillar, run by `brine call --local state.apply` as a
// real process on a real ini file: test=True changes nothing, the real run writes what Salt
// 3007 writes, a second run has nothing to do.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

const ORIGINAL = '[Journal]\n#Storage=auto\nCompress=yes\nSeal=yes\n';

describe('ini.options_present and test.check_pillar through brine call --local', () => {
  let cluster: Cluster;
  let conf: string;
  let apply: (...extra: string[]) => Promise<Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>>;

  before(async () => {
    cluster = await Cluster.create();
    conf = path.join(cluster.root, 'journald.conf');
    fs.writeFileSync(conf, ORIGINAL);
    cluster.writeMinionConfig('m', { id: 'ini-minion', file_client: 'local' });
    const srv = path.join(cluster.root, 'minions', 'm', 'srv', 'salt');
    fs.mkdirSync(path.join(srv, 'journald'), { recursive: true });
    const sls = [
      "{%- set config = {'Storage': 'persistent', 'Compress': 'yes'} %}",
      'journald-config:',
      '  ini.options_present:',
      `    - name: ${conf}`,
      "    - separator: '='",
      '    - strict: True',
      '    - sections:',
      '        Journal:',
      '          Storage: {{ config.Storage | yaml }}',
      '          Compress: {{ config.Compress | yaml }}',
      'pillar-check:',
      '  test.check_pillar:',
      '    - present:',
      '      - journald:level',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(srv, 'journald', 'init.sls'), sls);
    apply = async (...extra) => {
      const r = await runCli(['call', 'state.apply', 'journald', ...extra, '--out', 'json', '-c', cluster.minionConfigDir('m')]);
      const out = JSON.parse(r.stdout) as { local: Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }> };
      const byId: Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }> = {};
      for (const [key, v] of Object.entries(out.local)) byId[key.split('_|-')[1]!] = v;
      return byId;
    };
  });
  after(() => cluster.cleanup());

  it('test=True forecasts each key and leaves the file alone; a missing pillar key fails its check', async () => {
    const r = await apply('test=True');
    assert.equal(r['journald-config']?.result, null);
    assert.equal(r['journald-config']?.comment, 'Deleted key Seal in section Journal.\nChanged key Storage in section Journal.\nUnchanged key Compress in section Journal.\n');
    assert.deepEqual(r['pillar-check'], { ...r['pillar-check'], result: false, comment: 'Pillar key "journald:level" is missing.\n' });
    assert.equal(fs.readFileSync(conf, 'utf8'), ORIGINAL);
  });

  it('a real run writes the file as Salt does; the next run changes nothing; the pillar check passes with the key', async () => {
    const pillar = 'pillar={"journald": {"level": "info"}}';
    const r = await apply(pillar);
    assert.equal(r['journald-config']?.result, true);
    assert.deepEqual(r['journald-config']?.changes, {
      Journal: { Seal: { before: 'yes', after: null }, Storage: { before: null, after: 'persistent' } },
    });
    assert.equal(fs.readFileSync(conf, 'utf8'), '[Journal]\nStorage = persistent\nCompress = yes\n');
    assert.equal(r['pillar-check']?.result, true);
    const again = await apply(pillar);
    assert.deepEqual([again['journald-config']?.result, again['journald-config']?.changes, again['journald-config']?.comment], [true, {}, 'No anomaly detected']);
  });
});
