// Issue 26 point 5: `file.recurse` under test=True when the directory it fills (and its parent)
// would first be created by a file.directory it requires: Salt 3007's recurse reports what it
// would do (result None, each directory's and file's own test comment under its #### header,
// the changes per path), not a failure. A real tree run by `brine call --local` as a real
// process; then the real run creates it all and a second test=True has nothing to do.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

type Ret = { result: boolean | null; changes: Record<string, unknown>; comment: string };

describe('file.recurse test=True below a required file.directory (issue 26)', () => {
  let cluster: Cluster;
  let app: string;
  let apply: (...extra: string[]) => Promise<Record<string, Ret>>;

  before(async () => {
    cluster = await Cluster.create();
    app = path.join(cluster.root, 'out', 'app');
    cluster.writeMinionConfig('m', { id: 'recurse-minion', file_client: 'local' });
    const srv = path.join(cluster.root, 'minions', 'm', 'srv', 'salt');
    fs.mkdirSync(path.join(srv, 'app', 'conf', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(srv, 'app', 'conf', 'app.ini'), "id = {{ grains['id'] }}\n");
    fs.writeFileSync(path.join(srv, 'app', 'conf', 'sub', 'extra.ini'), 'extra = 1\n');
    const sls = [
      'app-dir:',
      '  file.directory:',
      `    - name: ${app}`,
      '    - makedirs: True',
      '    - mode: 750',
      'app-conf:',
      '  file.recurse:',
      `    - name: ${app}/conf`,
      '    - source: salt://app/conf',
      '    - template: jinja',
      '    - require:',
      '      - file: app-dir',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(srv, 'app', 'init.sls'), sls);
    apply = async (...extra) => {
      const r = await runCli(['call', 'state.apply', 'app', ...extra, '--out', 'json', '-c', cluster.minionConfigDir('m')]);
      const out = JSON.parse(r.stdout) as { local: Record<string, Ret> };
      const byId: Record<string, Ret> = {};
      for (const [key, v] of Object.entries(out.local)) byId[key.split('_|-')[1]!] = v;
      return byId;
    };
  });
  after(() => cluster.cleanup());

  it('test=True: None with what each path would become; nothing is created', async () => {
    const r = await apply('test=True');
    assert.equal(r['app-dir']?.result, null);
    const conf = `${app}/conf`;
    const note = 'Note: No changes made, actual changes may\nbe different due to other states.';
    assert.deepEqual(r['app-conf'], {
      ...r['app-conf'],
      result: null,
      comment: [
        `#### ${conf} ####\nThe following files will be changed:\n${conf}: directory - new\n\n`,
        `#### ${conf}/sub ####\nThe following files will be changed:\n${conf}/sub: directory - new\n\n`,
        `#### ${conf}/app.ini ####\nThe file ${conf}/app.ini is set to be changed\n${note}\n`,
        `#### ${conf}/sub/extra.ini ####\nThe file ${conf}/sub/extra.ini is set to be changed\n${note}`,
      ].join('\n'),
      changes: {
        [conf]: { [conf]: { directory: 'new' } },
        [`${conf}/sub`]: { [`${conf}/sub`]: { directory: 'new' } },
        [`${conf}/app.ini`]: { newfile: `${conf}/app.ini` },
        [`${conf}/sub/extra.ini`]: { newfile: `${conf}/sub/extra.ini` },
      },
    });
    assert.equal(fs.existsSync(path.join(cluster.root, 'out')), false, 'test=True created nothing');
  });

  it('the real run creates the tree (templates rendered); test=True then has nothing to do', async () => {
    const r = await apply();
    assert.equal(r['app-dir']?.result, true);
    assert.equal(r['app-conf']?.result, true, r['app-conf']?.comment);
    assert.equal(fs.readFileSync(path.join(app, 'conf', 'app.ini'), 'utf8'), 'id = recurse-minion\n');
    assert.equal(fs.readFileSync(path.join(app, 'conf', 'sub', 'extra.ini'), 'utf8'), 'extra = 1\n');
    const again = await apply('test=True');
    assert.deepEqual(again['app-conf'], { ...again['app-conf'], result: true, changes: {}, comment: `The directory ${app}/conf is in the correct state` });
  });
});
