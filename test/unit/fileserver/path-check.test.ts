// The file server's path grammar (threats.md #8 and #10; Salt's CVE-2020-11652, CVE-2021-25282,
// CVE-2024-22232 class): every attack is PATH_REFUSED before any filesystem access, legitimate
// nested paths and environments still work.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BrineError } from '../../../src/util/errors.js';
import { checkRelativePath, checkSaltenv, parseSaltUrl, slsNameOf } from '../../../src/fileserver/index.js';

function refused(fn: () => unknown, why: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof BrineError, String(err));
    assert.equal(err.code, 'PATH_REFUSED');
    assert.match(err.message, why);
    return true;
  });
}

describe('salt:// paths', () => {
  const attacks: Array<[string, RegExp]> = [
    ['salt://../../etc/shadow', /\.\. segment/],
    ['../etc/passwd', /\.\. segment/],
    ['a/../../etc/shadow', /\.\. segment/],
    ['a/b/..', /\.\. segment/],
    ['salt:///etc/shadow', /absolute/],
    ['/etc/shadow', /absolute/],
    ['file:///etc/shadow', /URL scheme/],
    ['http://evil/x', /URL scheme/],
    ['salt://salt://x', /URL scheme/],
    ['C:/windows/win.ini', /URL scheme/],
    ['..\\..\\etc\\shadow', /backslash/],
    ['a\\b', /backslash/],
    ['top.sls\u0000.png', /NUL or control/],
    ['a\nb', /NUL or control/],
    ['a\u001b[2Jb', /NUL or control/],
    ['%2e%2e%2fetc%2fshadow', /percent-encoded/],
    ['%2E%2E/etc/shadow', /percent-encoded/],
    ['..%2fetc', /percent-encoded/],
    ['a%2fb', /percent-encoded/],
    ['%252e%252e%252fetc', /percent-encoded/],
    ['a/%5c..', /percent-encoded/],
    ['', /names no file/],
    ['salt://', /names no file/],
    ['./.', /names no file/],
    [`${'a/'.repeat(3000)}x`, /longer than/],
  ];
  for (const [p, why] of attacks) {
    it(`refuses ${JSON.stringify(p.slice(0, 60))}`, () => refused(() => parseSaltUrl(p, 'base'), why));
  }

  it('keeps nested paths, dots inside names and leading dots of file names', () => {
    assert.deepEqual(parseSaltUrl('salt://web/nginx/nginx.conf', 'base'), { path: 'web/nginx/nginx.conf', saltenv: 'base' });
    assert.deepEqual(parseSaltUrl('a/b..c/.hidden', 'base'), { path: 'a/b..c/.hidden', saltenv: 'base' });
    assert.deepEqual(parseSaltUrl('salt://a//b/./c', 'base'), { path: 'a/b/c', saltenv: 'base' });
    assert.equal(checkRelativePath('', true), '');
    assert.equal(checkRelativePath('web/', true), 'web');
  });

  it('takes ?saltenv= from the URL over the argument, and checks it too', () => {
    assert.deepEqual(parseSaltUrl('salt://x.conf?saltenv=dev', 'base'), { path: 'x.conf', saltenv: 'dev' });
    refused(() => parseSaltUrl('salt://x.conf?saltenv=../x', 'base'), /environment name/);
    refused(() => parseSaltUrl('salt://x.conf?version=3', 'base'), /unknown query parameter/);
  });
});

describe('saltenv names', () => {
  for (const bad of ['../x', '..', '.', '.hidden', 'a/b', 'a\\b', '', 'a\u0000', 'a..b', '%2e%2e', 'x'.repeat(129), ' base']) {
    it(`refuses ${JSON.stringify(bad.slice(0, 40))}`, () => refused(() => checkSaltenv(bad), /environment name/));
  }
  it('accepts plain names', () => {
    for (const ok of ['base', 'dev', 'prod-eu_1', 'v1.2', '0']) assert.equal(checkSaltenv(ok), ok);
  });
});

describe('SLS names', () => {
  it('maps files to SLS names as Salt does', () => {
    assert.equal(slsNameOf('top.sls'), 'top');
    assert.equal(slsNameOf('web/nginx.sls'), 'web.nginx');
    assert.equal(slsNameOf('web/init.sls'), 'web');
    assert.equal(slsNameOf('init.sls'), 'init');
    assert.equal(slsNameOf('web/nginx.conf'), undefined);
  });
});
