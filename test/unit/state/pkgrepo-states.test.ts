import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPkgrepoFunctions } from '../../../src/modules/index.js';
import { installFakeApt } from './fake-apt.js';
import { runState, type CtxOptions } from './state-ctx.js';

// Real files, written into a temp directory that stands for /etc/apt or /etc/yum.repos.d.
let root: string;
const roots: string[] = [];
const apt = installFakeApt();
after(() => apt.dispose());
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-repos-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'sources.list.d'));
  fs.writeFileSync(path.join(root, 'sources.list'), 'deb http://deb.debian.org/debian bookworm main\n');
});
after(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});

const aptOpts = (o: CtxOptions = {}): CtxOptions => ({ ...o, override: createPkgrepoFunctions({ backend: 'apt', aptRoot: root }) });
const dnfOpts = (o: CtxOptions = {}): CtxOptions => ({ ...o, override: createPkgrepoFunctions({ backend: 'dnf', reposDir: root }) });
const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');

const LINE = 'deb [signed-by=/etc/apt/keyrings/nginx.gpg] http://nginx.org/packages/debian bookworm nginx';

describe('pkgrepo.managed / absent on apt', () => {
  it('writes the line into the named .list file, refreshes, and is idempotent; test=True writes nothing', async () => {
    const file = path.join(root, 'sources.list.d', 'nginx.list');
    const dry = await runState('pkgrepo.managed', { name: LINE, file, refresh: false }, aptOpts({ test: true }));
    assert.equal(dry.result, null);
    assert.deepEqual(dry.changes, { repo: LINE });
    assert.match(dry.comment, /^Package repo '.*' would be configured\./);
    assert.equal(fs.existsSync(file), false);

    const before = apt.calls().length;
    const r = await runState('pkgrepo.managed', { name: LINE, file }, aptOpts());
    assert.deepEqual(r, { name: LINE, result: true, changes: { repo: LINE }, comment: `Configured package repo '${LINE}'` });
    assert.equal(read('sources.list.d/nginx.list'), `${LINE}\n`);
    assert.match(apt.calls().slice(before).join('\n'), /update/, 'refresh: True updated the index');
    assert.equal(read('sources.list'), 'deb http://deb.debian.org/debian bookworm main\n', 'other files untouched');

    const again = await runState('pkgrepo.managed', { name: LINE, file }, aptOpts());
    assert.deepEqual(again, { name: LINE, result: true, changes: {}, comment: `Package repo '${LINE}' already configured` });
  });

  it('changing an option (arch, components) rewrites the same line in place and reports {key: {old, new}}', async () => {
    const file = path.join(root, 'sources.list.d', 'nginx.list');
    await runState('pkgrepo.managed', { name: LINE, file, refresh: false }, aptOpts());
    const r = await runState('pkgrepo.managed', { name: LINE, file, refresh: false, architectures: 'amd64', comps: ['nginx', 'extra'] }, aptOpts());
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { comps: { old: ['nginx'], new: ['nginx', 'extra'] }, architectures: { old: [], new: ['amd64'] } });
    assert.equal(read('sources.list.d/nginx.list'), 'deb [arch=amd64 signed-by=/etc/apt/keyrings/nginx.gpg] http://nginx.org/packages/debian bookworm nginx extra\n');
  });

  it('absent removes the line and deletes the emptied file; then reports it absent', async () => {
    const file = path.join(root, 'sources.list.d', 'nginx.list');
    await runState('pkgrepo.managed', { name: LINE, file, refresh: false }, aptOpts());
    const dry = await runState('pkgrepo.absent', { name: LINE }, aptOpts({ test: true }));
    assert.equal(dry.result, null);
    assert.ok(fs.existsSync(file));
    const r = await runState('pkgrepo.absent', { name: LINE }, aptOpts());
    assert.deepEqual(r, { name: LINE, result: true, changes: { repo: LINE }, comment: `Removed repo ${LINE}` });
    assert.equal(fs.existsSync(file), false);
    assert.equal((await runState('pkgrepo.absent', { name: LINE }, aptOpts())).comment, `Package repo ${LINE} is absent`);
  });

  it("absent with a name that is no sources line (rabbitmq-formula's dnf ids on Debian) is absent, as Salt's get_repo matches nothing (issue 22)", async () => {
    const before = read('sources.list');
    const dry = await runState('pkgrepo.absent', { name: 'rabbitmq-rabbitmq-erlang' }, aptOpts({ test: true }));
    assert.deepEqual(dry, { name: 'rabbitmq-rabbitmq-erlang', result: true, changes: {}, comment: 'Package repo rabbitmq-rabbitmq-erlang is absent' });
    assert.equal((await runState('pkgrepo.absent', { name: 'rabbitmq-rabbitmq-erlang' }, aptOpts())).result, true);
    assert.equal(read('sources.list'), before);
    // managed: test=True says it would be configured (as Salt), the real run refuses it: a repository to add must be a sources line
    assert.equal((await runState('pkgrepo.managed', { name: 'rabbitmq-rabbitmq-erlang', refresh: false }, aptOpts({ test: true }))).result, null);
    const m = await runState('pkgrepo.managed', { name: 'rabbitmq-rabbitmq-erlang', refresh: false }, aptOpts());
    assert.equal(m.result, false);
    assert.match(m.comment, /is not an apt sources line/);
    assert.equal(read('sources.list'), before);
  });

  it('a file outside sources.list.d, a line with a newline, and a key_url that cannot be fetched are refused; nothing is written', async () => {
    const out = await runState('pkgrepo.managed', { name: LINE, file: path.join(root, '..', 'evil.list'), refresh: false }, aptOpts());
    assert.equal(out.result, false);
    assert.match(out.comment, /must be .*sources\.list or a <name>\.list file directly in/);
    const nl = await runState('pkgrepo.managed', { name: `${LINE}\ndeb http://evil/ x main`, refresh: false }, aptOpts());
    assert.equal(nl.result, false);
    const key = await runState('pkgrepo.managed', { name: LINE, key_url: 'https://nginx.org/keys/nginx_signing.key', refresh: false }, aptOpts());
    assert.equal(key.result, false);
    // pkgrepo-keys.test.ts covers key_url itself; here the minion has no cachedir to fetch it into
    assert.match(key.comment, /no cachedir to download key_url into; set cachedir/);
    assert.deepEqual(fs.readdirSync(path.join(root, 'sources.list.d')), []);
    assert.equal(read('sources.list'), 'deb http://deb.debian.org/debian bookworm main\n');
  });
});

describe('pkgrepo.managed / absent on dnf', () => {
  it('writes <id>.repo with humanname, baseurl, gpgcheck, enabled; changes per key; absent deletes it', async () => {
    const args = { name: 'epel', humanname: 'Extra Packages', baseurl: 'https://dl.example.org/epel/9/', gpgcheck: true, enabled: true, refresh: false };
    const r = await runState('pkgrepo.managed', args, dnfOpts());
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { repo: 'epel' });
    assert.equal(read('epel.repo'), '[epel]\nname=Extra Packages\nbaseurl=https://dl.example.org/epel/9/\ngpgcheck=1\nenabled=1\n');
    assert.deepEqual((await runState('pkgrepo.managed', args, dnfOpts())).changes, {});
    const off = await runState('pkgrepo.managed', { ...args, enabled: false }, dnfOpts());
    assert.deepEqual(off.changes, { enabled: { old: '1', new: '0' } });
    assert.match(read('epel.repo'), /\nenabled=0\n/);
    const gone = await runState('pkgrepo.absent', { name: 'epel' }, dnfOpts());
    assert.equal(gone.comment, 'Removed repo epel');
    assert.equal(fs.existsSync(path.join(root, 'epel.repo')), false);
  });

  it('a new repository without baseurl/mirrorlist is refused', async () => {
    const r = await runState('pkgrepo.managed', { name: 'nourl', refresh: false }, dnfOpts());
    assert.equal(r.result, false);
    assert.match(r.comment, /needs baseurl, mirrorlist or metalink/);
    assert.equal(fs.existsSync(path.join(root, 'nourl.repo')), false);
  });
});
