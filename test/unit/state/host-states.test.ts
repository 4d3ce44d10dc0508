// host.present / host.absent / host.only on a real hosts file in a temp dir (the `hosts.file`
// option, as Salt's salt/modules/hosts.py reads it through config.option). Comments, changes and
// results are pinned from Salt 3007's salt/states/host.py (present, absent, only) and the file
// text from salt/modules/hosts.py (_write_hosts: `ip\t\taliases`, set_host, rm_host).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hostStates } from '../../../src/state/modules/host-states.js';
import type { StateFunction } from '../../../src/state/index.js';
import { runState, tempDir } from './file-fixture.js';
import { harness } from './harness.js';

let dir: string;
let hosts: string;
const fn = (name: string): StateFunction => hostStates.find((s) => s.name === name)!;
const run = (name: string, args: Record<string, unknown>, test = false) => runState(fn(name), args, { test, config: { 'hosts.file': hosts } });

before(() => {
  dir = tempDir('brine-hosts-');
  hosts = path.join(dir, 'hosts');
  fs.writeFileSync(hosts, '# static table\n127.0.0.1\tlocalhost\n10.0.0.5 db  # the database\n');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('host.present', () => {
  it('test=True: result None, would-be added; the file is untouched', async () => {
    const before = fs.readFileSync(hosts, 'utf8');
    assert.deepEqual(await run('host.present', { name: 'salt', ip: '192.168.0.42' }, true), {
      name: 'salt',
      result: null,
      changes: { added: { '192.168.0.42': ['salt'] } },
      comment: 'Host salt (192.168.0.42) would be added',
    });
    assert.equal(fs.readFileSync(hosts, 'utf8'), before);
  });

  it('adds a new address line, then is already present', async () => {
    assert.deepEqual(await run('host.present', { name: 'salt', ip: '192.168.0.42' }), {
      name: 'salt',
      result: true,
      changes: { added: { '192.168.0.42': ['salt'] } },
      comment: 'Added host salt (192.168.0.42)',
    });
    // _write_hosts rewrites every line as ip\t\taliases, keeping comment lines and `# comment`s
    assert.equal(fs.readFileSync(hosts, 'utf8'), '# static table\n127.0.0.1\t\tlocalhost\n10.0.0.5\t\tdb\t\t# the database\n192.168.0.42\t\tsalt\n');
    assert.deepEqual(await run('host.present', { name: 'salt', ip: '192.168.0.42' }), { name: 'salt', result: true, changes: {}, comment: 'Host salt (192.168.0.42) already present' });
    assert.deepEqual(await run('host.present', { name: 'salt', ip: '192.168.0.42' }, true), { name: 'salt', result: true, changes: {}, comment: 'Host salt (192.168.0.42) already present' });
  });

  it('a second name joins an existing address; a comment is set on it', async () => {
    const r = await run('host.present', { name: 'master', ip: ['192.168.0.42'], comment: 'the master' });
    assert.deepEqual(r, {
      name: 'master',
      result: true,
      changes: { added: { '192.168.0.42': ['master'] }, comment_added: { '192.168.0.42': ['the master'] } },
      comment: 'Added host master (192.168.0.42)\nSet comment for host 192.168.0.42 (the master)',
    });
    assert.match(fs.readFileSync(hosts, 'utf8'), /^192\.168\.0\.42\t\tsalt master\t\t# the master$/m);
  });

  it('clean: removes the name from addresses not listed (test=True first)', async () => {
    fs.appendFileSync(hosts, '10.9.9.9\t\tsalt old\n');
    assert.deepEqual(await run('host.present', { name: 'salt', ip: '192.168.0.42', clean: true }, true), {
      name: 'salt',
      result: null,
      changes: { removed: { '10.9.9.9': ['salt'] } },
      comment: 'Host salt (192.168.0.42) already present\nHost salt (10.9.9.9) would be removed',
    });
    const r = await run('host.present', { name: 'salt', ip: '192.168.0.42', clean: true });
    assert.deepEqual(r.changes, { removed: { '10.9.9.9': ['salt'] } });
    assert.equal(r.comment, 'Host salt (192.168.0.42) already present\nRemoved host salt (10.9.9.9)');
    assert.match(fs.readFileSync(hosts, 'utf8'), /^10\.9\.9\.9\t\told \n/m);
  });

  it('creates a missing hosts file', async () => {
    const other = path.join(dir, 'new-hosts');
    const r = await runState(fn('host.present'), { name: 'a', ip: '::1' }, { config: { 'hosts.file': other } });
    assert.equal(r.result, true);
    assert.equal(fs.readFileSync(other, 'utf8'), '::1\t\ta\n');
  });
});

describe('host.absent', () => {
  it('test=True, removal, then already absent', async () => {
    assert.deepEqual(await run('host.absent', { name: 'db', ip: '10.0.0.5' }, true), { name: 'db', result: null, changes: {}, comment: 'Host db (10.0.0.5) needs to be removed' });
    assert.deepEqual(await run('host.absent', { name: 'db', ip: '10.0.0.5' }), { name: 'db', result: true, changes: { host: 'db' }, comment: 'Removed host db (10.0.0.5)' });
    // rm_host drops a line left without names
    assert.doesNotMatch(fs.readFileSync(hosts, 'utf8'), /10\.0\.0\.5/);
    assert.deepEqual(await run('host.absent', { name: 'db', ip: ['10.0.0.5'] }), { name: 'db', result: true, changes: {}, comment: 'Host db (10.0.0.5) already absent' });
  });
});

describe('host.only', () => {
  it('test=True, replaces the names of an address in order, then already set; [] removes the address', async () => {
    assert.deepEqual(await run('host.only', { name: '127.0.0.1', hostnames: ['localhost', 'box.example.com'] }, true), {
      name: '127.0.0.1',
      result: null,
      changes: {},
      comment: 'Would change 127.0.0.1 from "localhost" to "localhost box.example.com"',
    });
    assert.deepEqual(await run('host.only', { name: '127.0.0.1', hostnames: ['localhost', 'box.example.com'] }), {
      name: '127.0.0.1',
      result: true,
      changes: { '127.0.0.1': { old: 'localhost', new: 'localhost box.example.com' } },
      comment: 'successfully changed 127.0.0.1 from "localhost" to "localhost box.example.com"',
    });
    assert.match(fs.readFileSync(hosts, 'utf8'), /^127\.0\.0\.1\t\tlocalhost box\.example\.com$/m);
    assert.deepEqual(await run('host.only', { name: '127.0.0.1', hostnames: ['localhost', 'box.example.com'] }), {
      name: '127.0.0.1',
      result: true,
      changes: {},
      comment: 'IP address 127.0.0.1 already set to "localhost box.example.com"',
    });
    const r = await run('host.only', { name: '127.0.0.1', hostnames: [] });
    assert.deepEqual(r.changes, { '127.0.0.1': { old: 'localhost box.example.com', new: '' } });
    assert.doesNotMatch(fs.readFileSync(hosts, 'utf8'), /127\.0\.0\.1/);
    assert.match(fs.readFileSync(hosts, 'utf8'), /^# static table$/m);
  });
});

describe('host.present in a state run', () => {
  it('names expand to one state per host; the minion option hosts.file is the file written', async () => {
    const file = path.join(dir, 'hosts.run');
    const h = harness({ base: { 's.sls': 'server1:\n  host.present:\n    - ip: 192.168.0.42\n    - names:\n      - server1\n      - florida\n' } }, { 'hosts.file': file });
    const r = await h.call('state.sls', ['s']);
    assert.equal(r.retcode, 0, JSON.stringify(r.return));
    // both chunks keep the ID server1 (Salt's names); tell them apart by name
    const comments = Object.values(r.return as Record<string, { name: string; comment: string }>).map((v) => `${v.name}: ${v.comment}`);
    assert.deepEqual(comments.sort(), ['florida: Added host florida (192.168.0.42)', 'server1: Added host server1 (192.168.0.42)']);
    assert.equal(fs.readFileSync(file, 'utf8'), '192.168.0.42\t\tserver1 florida\n');
  });
});
