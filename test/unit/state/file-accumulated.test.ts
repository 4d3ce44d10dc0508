// file.accumulated through the real compiler and runtime on real files: text charged by
// accumulators reaches a file.blockreplace block (only the accumulators that name it, joined by
// newlines) and a file.managed template as `accumulator`, as in Salt's salt/states/file.py
// accumulated(), blockreplace() and managed(). An accumulator no file state requires is orphaned.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DirFileClient } from './file-fixture.js';
import { byId, harness } from './harness.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-accum-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('file.accumulated', () => {
  it('feeds file.blockreplace: the block gets the content plus the accumulated lines', async () => {
    const hosts = path.join(tmp, 'hosts');
    fs.writeFileSync(hosts, '127.0.0.1 localhost\n');
    const sls = `
hosts-block:
  file.blockreplace:
    - name: ${hosts}
    - marker_start: "# START managed"
    - marker_end: "# END managed"
    - content: First line of content
    - append_if_not_found: True
acc1:
  file.accumulated:
    - filename: ${hosts}
    - name: my-acc
    - text: "text 2"
    - require_in:
      - file: hosts-block
acc2:
  file.accumulated:
    - filename: ${hosts}
    - name: my-acc
    - text: |
        text 3
        text 4
    - require_in:
      - file: hosts-block
`;
    const h = harness({ base: { 's.sls': sls } });
    const r = byId((await h.call('state.sls', ['s'], {}, { jid: '20260101000000000001' })).return);
    assert.deepEqual([r.acc1!.result, r.acc1!.comment, r.acc1!.changes], [true, `Accumulator my-acc for file ${hosts} was charged by text`, {}]);
    assert.equal(r['hosts-block']!.result, true, r['hosts-block']!.comment);
    assert.equal(fs.readFileSync(hosts, 'utf8'), '127.0.0.1 localhost\n# START managed\nFirst line of content\ntext 2\ntext 3\ntext 4\n# END managed\n');
    const again = byId((await h.call('state.sls', ['s'], {}, { jid: '20260101000000000002' })).return);
    assert.deepEqual(again['hosts-block']!.changes, {}, 'a second run with the same accumulators changes nothing');
  });

  it('feeds a file.managed template as accumulator; an accumulator nothing requires is orphaned', async () => {
    const conf = path.join(tmp, 'app.conf');
    const sls = `
app-conf:
  file.managed:
    - name: ${conf}
    - source: salt://app.conf.j2
    - template: jinja
backend-a:
  file.accumulated:
    - filename: ${conf}
    - name: backends
    - text: server a
    - require_in:
      - file: app-conf
backend-b:
  file.accumulated:
    - filename: ${conf}
    - name: backends
    - text: server b
    - require_in:
      - file: app-conf
lonely:
  file.accumulated:
    - filename: ${conf}
    - text: nobody reads me
`;
    const tpl = '{% for line in accumulator["backends"] %}{{ line }}\n{% endfor %}';
    const root = path.join(tmp, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'app.conf.j2'), tpl);
    const files = new DirFileClient(root, path.join(tmp, 'cache'));
    const h = harness({ base: { 's.sls': sls } });
    const r = byId((await h.call('state.sls', ['s'], {}, { jid: '20260101000000000003', files })).return);
    assert.equal(r['app-conf']!.result, true, r['app-conf']!.comment);
    assert.equal(fs.readFileSync(conf, 'utf8'), 'server a\nserver b\n');
    assert.deepEqual([r.lonely!.result, r.lonely!.comment], [false, 'Orphaned accumulator lonely in s:lonely']);
  });

  it('feeds each file.recurse template as accumulator, keyed by the file it writes (tdf nginx includes, issue 22)', async () => {
    const dest = path.join(tmp, 'includes');
    const sls = `
include-dir:
  file.recurse:
    - name: ${dest}
    - source: salt://includes
    - template: jinja
ssl-include:
  file.accumulated:
    - filename: ${dest}/ssl
    - text: ''
    - require_in:
      - file: include-dir
ssl-dhparams:
  file.accumulated:
    - name: ssl-include
    - filename: ${dest}/ssl
    - text: "ssl_dhparam /etc/ssl/dh.pem;"
    - require_in:
      - file: include-dir
`;
    const root = path.join(tmp, 'recurse-root');
    fs.mkdirSync(path.join(root, 'includes'), { recursive: true });
    fs.writeFileSync(path.join(root, 'includes', 'ssl'), "ssl on;\n{% for line in accumulator['ssl-include'] %}[{{ line }}]\n{% endfor %}");
    fs.writeFileSync(path.join(root, 'includes', 'plain'), 'no accumulator here\n');
    const files = new DirFileClient(root, path.join(tmp, 'recurse-cache'));
    const h = harness({ base: { 's.sls': sls } });
    const t = byId((await h.call('state.sls', ['s'], { test: true }, { jid: '20260101000000000004', files })).return);
    assert.equal(t['include-dir']!.result, null, t['include-dir']!.comment);
    const r = byId((await h.call('state.sls', ['s'], {}, { jid: '20260101000000000005', files })).return);
    assert.equal(r['include-dir']!.result, true, r['include-dir']!.comment);
    assert.equal(fs.readFileSync(path.join(dest, 'ssl'), 'utf8'), 'ssl on;\n[]\n[ssl_dhparam /etc/ssl/dh.pem;]\n');
    assert.equal(fs.readFileSync(path.join(dest, 'plain'), 'utf8'), 'no accumulator here\n');
  });
});
