import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPkgrepoFunctions, ModuleRegistry } from '../../../src/modules/index.js';
import { formatSourceLine, parseSourceLine } from '../../../src/modules/pkgrepo-apt.js';
import { parseRepoFile, renderRepoFile } from '../../../src/modules/pkgrepo-dnf.js';
import { makeCtx } from './context.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-pkgrepo-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('apt sources lines', () => {
  it('parses options, components and disabled lines, and writes them back the same', () => {
    const r = parseSourceLine('# deb [arch=amd64,arm64 signed-by=/k.gpg] http://x.org/debian/ bookworm main contrib # note', '/f.list')!;
    assert.deepEqual(
      { type: r.type, uri: r.uri, dist: r.dist, comps: r.comps, architectures: r.architectures, signedby: r.signedby, disabled: r.disabled },
      { type: 'deb', uri: 'http://x.org/debian/', dist: 'bookworm', comps: ['main', 'contrib'], architectures: ['amd64', 'arm64'], signedby: '/k.gpg', disabled: true },
    );
    assert.equal(formatSourceLine(r), '# deb [arch=amd64,arm64 signed-by=/k.gpg] http://x.org/debian/ bookworm main contrib');
    assert.equal(parseSourceLine('not a repo', ''), undefined);
  });

  it('list_repos, get_repo, mod_repo (append to sources.list by default), del_repo on real files', async () => {
    fs.writeFileSync(path.join(root, 'sources.list'), '# comment\ndeb http://deb.debian.org/debian bookworm main\n');
    const r = new ModuleRegistry();
    r.registerAll(createPkgrepoFunctions({ backend: 'apt', aptRoot: root }));
    const call = (fun: string, arg: unknown[], kw: Record<string, unknown> = {}) => r.call(fun, arg, kw, makeCtx());
    const added = await call('pkg.mod_repo', ['deb http://example.org/apt stable main'], { comments: 'added by brine' });
    assert.equal(added.error, undefined, added.error?.message);
    assert.equal(fs.readFileSync(path.join(root, 'sources.list'), 'utf8'), '# comment\ndeb http://deb.debian.org/debian bookworm main\ndeb http://example.org/apt stable main # added by brine\n');
    const list = (await call('pkg.list_repos', [])).return as Record<string, unknown[]>;
    assert.deepEqual(Object.keys(list).sort(), ['http://deb.debian.org/debian', 'http://example.org/apt']);
    assert.equal(((await call('pkg.get_repo', ['deb http://example.org/apt/ stable'])).return as { comps: string[] }).comps[0], 'main', 'a trailing / on the URI names the same repository');
    assert.deepEqual((await call('pkg.get_repo', ['deb http://nowhere/ x y'])).return, {});
    assert.equal((await call('pkg.del_repo', ['deb http://example.org/apt stable main'])).error, undefined);
    assert.equal(fs.readFileSync(path.join(root, 'sources.list'), 'utf8'), '# comment\ndeb http://deb.debian.org/debian bookworm main\n');
    assert.equal((await call('pkg.del_repo', ['deb http://example.org/apt stable main'])).error?.code, 'EXEC_FAILED');
  });
});

describe('dnf .repo files', () => {
  it('round-trips sections and keeps the head comments', () => {
    const text = '# managed\n\n[a]\nname=A\nbaseurl=http://a/\n\n[b]\nenabled=0\n';
    assert.equal(renderRepoFile(parseRepoFile(text)), text);
  });

  it('a repository id with path characters is refused', async () => {
    const r = new ModuleRegistry();
    r.registerAll(createPkgrepoFunctions({ backend: 'dnf', reposDir: root }));
    const res = await r.call('pkg.mod_repo', ['../evil'], { baseurl: 'http://x/' }, makeCtx());
    assert.equal(res.error?.code, 'BAD_ARGUMENTS');
    assert.equal(fs.existsSync(path.join(root, '..', 'evil.repo')), false);
  });
});
