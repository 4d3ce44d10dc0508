// Issue 22: a file template sees the arguments its state does not declare, as Salt's
// file.managed passes its **kwargs through file.get_managed to the renderer. apache-formula
// writes `- context:` with the keys under it at the same indentation, which YAML reads as one
// list item `{context: None, apache: {...}}`: Salt's template reads `apache` all the same.
// Through the real CLI (masterless `brine call state.apply`): test=True writes nothing, the real
// run writes the rendered file.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli } from '../helpers/cluster.js';

type Ret = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string; warnings?: string[] }>;

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('file templates see the state’s undeclared arguments (Salt’s **kwargs)', () => {
  let cluster: Cluster;
  let out: string;
  const apply = async (test: boolean): Promise<Ret> => {
    const r = await runCli(['call', '-c', cluster.minionConfigDir('tk'), '--out', 'json', 'state.apply', 'web', ...(test ? ['test=True'] : [])]);
    return (JSON.parse(r.stdout) as { local: Ret }).local;
  };

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('tk', { file_client: 'local' });
    out = path.join(cluster.root, 'out');
    const srv = path.join(cluster.root, 'minions', 'tk', 'srv', 'salt');
    write(
      path.join(srv, 'web', 'init.sls'),
      [
        // apache-formula's apache/config/file.sls shape: context's keys at its own indentation
        `${out}/envvars:`,
        '  file.managed:',
        '    - source: salt://web/envvars.jinja',
        '    - template: jinja',
        '    - makedirs: True',
        '    - context:',
        '      apache: {"user": "www-data", "group": "www-data"}',
        // an undeclared argument under defaults and context, which win; saltenv stays the run's
        `${out}/layered:`,
        '  file.managed:',
        '    - source: salt://web/layered.jinja',
        '    - template: jinja',
        '    - makedirs: True',
        '    - colour: red',
        '    - size: small',
        '    - shape: round',
        '    - defaults: {size: medium}',
        '    - context: {shape: square}',
        '    - saltenv: base',
        '',
      ].join('\n'),
    );
    write(path.join(srv, 'web', 'envvars.jinja'), 'export APACHE_RUN_USER={{ apache.user }}\nexport APACHE_RUN_GROUP={{ apache.group }}\n');
    write(path.join(srv, 'web', 'layered.jinja'), '{{ colour }} {{ size }} {{ shape }} {{ saltenv }} {{ name }}\n');
  });
  after(() => cluster.cleanup());

  it('test=True renders without error and writes nothing; the real run writes the values', async () => {
    const dry = await apply(true);
    for (const [id, r] of Object.entries(dry)) {
      assert.equal(r.result, null, `${id}: ${r.comment}`);
      assert.equal(r.warnings, undefined, `${id}: Salt's file.managed takes **kwargs, so no argument is refused`);
    }
    assert.equal(fs.existsSync(out), false);
    const real = await apply(false);
    for (const [id, r] of Object.entries(real)) assert.equal(r.result, true, `${id}: ${r.comment}`);
    assert.equal(fs.readFileSync(path.join(out, 'envvars'), 'utf8'), 'export APACHE_RUN_USER=www-data\nexport APACHE_RUN_GROUP=www-data\n');
    assert.equal(fs.readFileSync(path.join(out, 'layered'), 'utf8'), `red medium square base ${out}/layered\n`);
  });
});
