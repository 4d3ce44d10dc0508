// Password checks (bcrypt, apr1/md5-crypt, {SHA}, plain; refusals by name), the file and pam
// eauth backends, external_auth parsing, tokens (hashed, persistent, expiring, bound to the
// master key, revoked) and the login throttle, through the Authenticator the API uses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, sourceBucket, bcryptHash, bcryptHashAsync, bcryptVerify, groupsFromFiles, htpasswdVerify, md5CryptVerify, parseExternalAuth, TokenStore } from '../../../src/auth/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';
import { createLogger } from '../../../src/util/logger.js';

// vectors from libxcrypt (Python's crypt module) and openssl passwd
const BCRYPT: Array<[string, string]> = [
  ['U*U', '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
  ['', '$2b$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy'],
  ['correct horse battery staple', '$2b$05$CCCCCCCCCCCCCCCCCCCCC.poIKaw08HWUz4zkVKLs8VPIydUmXBPC'],
  ['ünïcode', '$2y$04$abcdefghijklmnopqrstuui0gEXX76XZW2C7TKLb..7UM9bgPaJg.'],
  ['s3cret', '$2y$04$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG'],
];

const rejects = (fn: () => unknown, code: string, re?: RegExp) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(isBrineError(err), `expected a BrineError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (re) assert.match(err.message, re);
    return true;
  });

test('bcrypt: libxcrypt vectors verify, a wrong password or changed hash does not', async () => {
  for (const [pw, hash] of BCRYPT) {
    assert.equal(await bcryptVerify(pw, hash), true, `${pw} against ${hash}`);
    assert.equal(await bcryptVerify(`${pw}x`, hash), false);
    assert.equal(await bcryptVerify(pw, `${hash.slice(0, -1)}${hash.endsWith('a') ? 'b' : 'a'}`), false);
    const m = /^\$(2[aby])\$(\d\d)\$(.{22})/.exec(hash)!;
    assert.equal(bcryptHash(pw, m[1] as '2b', Number(m[2]), m[3]!), hash, 'the synchronous form agrees');
  }
  assert.equal(await bcryptVerify('x', '$2y$99$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG'), undefined, 'cost outside 4..16');
  assert.equal(await bcryptVerify('x', '$2y$04$short'), undefined);
});

test('bcrypt yields to the event loop while it works (a login does not stall the master)', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    // cost 9: 512 rounds, about 35 ms of work
    await bcryptHashAsync('pw', '2b', 9, 'CCCCCCCCCCCCCCCCCCCCC.');
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks >= 3, `timers ran ${ticks} times during the hash`);
});

test('md5-crypt: $apr1$ and $1$ as openssl passwd writes them', () => {
  assert.equal(md5CryptVerify('secret', '$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/'), true);
  assert.equal(md5CryptVerify('Secret', '$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/'), false);
  assert.equal(md5CryptVerify('', '$1$xy$JSgu5Zv4igzK2ULm5nTM30'), true);
  assert.equal(md5CryptVerify('a much longer password than sixteen bytes', '$1$saltsalt$kL1Bms5vqNqrS8fEEnfCW1'), true);
});

test('md5-crypt hashes a non-ASCII password as its UTF-8 bytes, as openssl passwd does', () => {
  // printf 'ünïcode' | openssl passwd -apr1 -salt abcdefgh -stdin; printf 'pässwörd' | openssl passwd -1 -salt Ab.9 -stdin
  assert.equal(md5CryptVerify('ünïcode', '$apr1$abcdefgh$RseaHM3OTygvWlcYBh/c90'), true);
  assert.equal(md5CryptVerify('pässwörd', '$1$Ab.9$9014XmJEKkZ.0WI9QssF61'), true);
  assert.equal(md5CryptVerify('passwoerd', '$1$Ab.9$9014XmJEKkZ.0WI9QssF61'), false);
  assert.equal(md5CryptVerify('x', '$apr1$toolongsalt$9014XmJEKkZ.0WI9QssF61'), undefined, 'a salt over 8 characters is not a hash brine checks');
});

const rejectsAsync = async (p: Promise<unknown>, c: string, re?: RegExp) =>
  assert.rejects(p, (err: unknown) => {
    assert.ok(isBrineError(err), `expected a BrineError, got ${String(err)}`);
    assert.equal(err.code, c);
    if (re) assert.match(err.message, re);
    assert.doesNotMatch(err.message, /OcHWp0|abhWCwo/, 'the hash itself never appears in the message');
    return true;
  });

test('htpasswd hashes: bcrypt, apr1, {SHA}, plain; DES crypt and $5$ are refused by name', async () => {
  assert.equal(await htpasswdVerify('s3cret', '$2y$04$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG', 'u'), true);
  assert.equal(await htpasswdVerify('s3cret', '$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0', 'u'), true);
  assert.equal(await htpasswdVerify('wrong', '$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0', 'u'), false);
  assert.equal(await htpasswdVerify('s3cret', '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', 'u'), true);
  assert.equal(await htpasswdVerify('s3creT', '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', 'u'), false);
  assert.equal(await htpasswdVerify('plain pass!', 'plain pass!', 'u'), true);
  await rejectsAsync(htpasswdVerify('s3cret', 'abhWCwoTZY2c6', 'alice'), 'HTPASSWD_HASH_UNSUPPORTED', /alice.*des-crypt/);
  await rejectsAsync(htpasswdVerify('s3cret', '$5$abcdefgh$OcHWp0Vj4l19dnE2g4tHD4hbItEZgO0bjRV6LjwCLoA', 'bob'), 'HTPASSWD_HASH_UNSUPPORTED', /sha256-crypt/);
  await rejectsAsync(htpasswdVerify('s3cret', '$argon2id$v=19$xyz', 'bob'), 'HTPASSWD_HASH_UNSUPPORTED', /\$argon2id\$/);
});

test('groups of a local account from /etc/passwd and /etc/group text', () => {
  const passwd = 'root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n';
  const group = 'root:x:0:\nalice:x:1000:\nadmins:x:27:bob,alice\nops:x:30:bob\n# c:x:1:alice\n';
  assert.deepEqual(groupsFromFiles('alice', passwd, group).sort(), ['admins', 'alice']);
  assert.deepEqual(groupsFromFiles('bob', passwd, group).sort(), ['admins', 'ops']);
});

test('external_auth parsing refuses what brine cannot use, with EAUTH_CONFIG', () => {
  rejects(() => parseExternalAuth({ ldap: { fred: ['.*'] } }), 'EAUTH_CONFIG', /ldap.*file or pam/);
  rejects(() => parseExternalAuth({ file: { fred: ['.*'] } }), 'EAUTH_CONFIG', /\^filename is required/);
  rejects(() => parseExternalAuth({ file: { '^filename': '/x', '^filetype': 'htdigest', fred: ['.*'] } }), 'EAUTH_CONFIG', /htdigest/);
  rejects(() => parseExternalAuth({ file: { '^filename': '/x', '^hashtype': 'rot13', fred: ['.*'] } }), 'EAUTH_CONFIG', /rot13/);
  rejects(() => parseExternalAuth({ file: { '^filename': '/x', fred: 'test.*' } }), 'EAUTH_CONFIG', /must be a list/);
  rejects(() => parseExternalAuth({ file: { '^filename': '/x', '^bogus': 1, fred: ['.*'] } }), 'EAUTH_CONFIG', /unknown option \^bogus/);
  rejects(() => parseExternalAuth({ pam: { fred: [42] } }), 'EAUTH_CONFIG', /neither a string nor a mapping/);
  const cfg = parseExternalAuth({ file: { filename: '/x', filetype: 'htpasswd', fred: ['test.*'], 'admins%': ['@wheel'] } });
  assert.deepEqual(Object.keys(cfg.get('file')!.acl), ['fred', 'admins%'], 'options without ^ are not users');
});

function setup(externalAuth: (dir: string) => Record<string, unknown>, extra: { pamLoader?: () => never; fingerprint?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'brine-eauth-'));
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'trace', format: 'json', write: (l) => lines.push(l) });
  const clock = new FakeClock();
  const make = (fingerprint = extra.fingerprint ?? 'fp-1') =>
    new Authenticator({
      externalAuth: externalAuth(dir),
      tokenExpireS: 60,
      tokenFile: join(dir, 'api-tokens.sqlite'),
      keyFingerprint: fingerprint,
      maxFailures: 3,
      windowS: 300,
      clock,
      logger,
      ...(extra.pamLoader ? { pamLoader: extra.pamLoader } : {}),
    });
  return { dir, lines, clock, make, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const expectReject = async (p: Promise<unknown>, code: string) =>
  assert.rejects(p, (err: unknown) => {
    assert.ok(isBrineError(err));
    assert.equal(err.code, code);
    return true;
  });

test('file eauth (text, sha256 and plaintext): login gives a token whose perms are the ACL', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'users.txt'), `# users\nalice:1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0\n`);
    writeFileSync(join(dir, 'plain.txt'), 'bob|x|hunter2\n');
    return {
      file: { '^filename': join(dir, 'users.txt'), '^hashtype': 'sha256', alice: ['test.*', '@runner'], '*': ['grains.items'] },
    };
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  const res = await auth.login('alice', 's3cret', 'file', '127.0.0.1');
  assert.match(res.token, /^[0-9a-f]{64}$/);
  assert.deepEqual(res.perms, ['test.*', '@runner', 'grains.items']);
  assert.equal(res.expire - res.start, 60);
  assert.equal(auth.session(res.token, '127.0.0.1').user, 'alice');
  await expectReject(auth.login('alice', 'wrong', 'file', '127.0.0.1'), 'LOGIN_FAILED');
  await expectReject(auth.login('mallory', 's3cret', 'file', '127.0.0.1'), 'LOGIN_FAILED');
  await expectReject(auth.login('alice', 's3cret', 'pam', '127.0.0.1'), 'EAUTH_UNAVAILABLE');
  await expectReject(auth.login('alice', 's3cret', '', '127.0.0.1'), 'LOGIN_FAILED');
  await expectReject(auth.login(['alice'], 's3cret', 'file', '127.0.0.2'), 'LOGIN_FAILED');
  // no password and no hash is ever logged
  const log = env.lines.join('\n');
  assert.doesNotMatch(log, /s3cret|1ec1c26b|wrong"/);
  assert.doesNotMatch(log, new RegExp(res.token));
  assert.match(log, /login refused.*alice|"user":"alice".*LOGIN_FAILED/);
  // the token is stored hashed, in a 0600 file
  const file = join(env.dir, 'api-tokens.sqlite');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(!readFileSync(file).includes(Buffer.from(res.token)), 'the raw token is not in the token file');

  // text file with another separator and fields, plaintext
  const env2 = setup((dir) => ({ file: { '^filename': join(dir, 'p.txt'), '^field_separator': '|', '^username_field': 1, '^password_field': 3, bob: ['test.ping'] } }));
  t.after(env2.cleanup);
  writeFileSync(join(env2.dir, 'p.txt'), 'bob|x|hunter2\n');
  const a2 = env2.make();
  t.after(() => a2.close());
  assert.equal((await a2.login('bob', 'hunter2', 'file', '::1')).user, 'bob');
  await expectReject(a2.login('bob', 'x', 'file', '::1'), 'LOGIN_FAILED');
});

test('file eauth (htpasswd): bcrypt and apr1 lines log in; an unsupported hash is refused by name', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'htpasswd'), ['carol:$2y$04$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG', 'dave:$apr1$QWERTYui$X9loan3DaNUX6PQ5FlFRC0', 'erin:abhWCwoTZY2c6', ''].join('\n'));
    return { file: { '^filename': join(dir, 'htpasswd'), '^filetype': 'htpasswd', carol: ['.*'], dave: ['.*'], erin: ['.*'] } };
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  assert.equal((await auth.login('carol', 's3cret', 'file', '10.0.0.1')).user, 'carol');
  assert.equal((await auth.login('dave', 's3cret', 'file', '10.0.0.1')).user, 'dave');
  await expectReject(auth.login('carol', 'nope', 'file', '10.0.0.1'), 'LOGIN_FAILED');
  await expectReject(auth.login('erin', 's3cret', 'file', '10.0.0.1'), 'HTPASSWD_HASH_UNSUPPORTED');
  // a user without ACL entries cannot log in even with the right password
  writeFileSync(join(env.dir, 'htpasswd'), 'frank:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=\n');
  await expectReject(auth.login('frank', 's3cret', 'file', '10.0.0.9'), 'LOGIN_FAILED');
});

test('pam eauth reports EAUTH_UNAVAILABLE when the binding cannot be loaded', async (t) => {
  const env = setup(() => ({ pam: { alice: ['.*'] } }), {
    pamLoader: () => {
      throw new Error("Cannot find module 'authenticate-pam'");
    },
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  await assert.rejects(auth.login('alice', 'pw', 'pam', '127.0.0.1'), (err: unknown) => {
    assert.ok(isBrineError(err, 'EAUTH_UNAVAILABLE'));
    assert.match(err.message, /authenticate-pam.*Cannot find module/);
    return true;
  });
});

test('tokens: valid across a reopen, expired after token_expire, refused after a key change, revoked by logout', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'u'), 'alice:pw\n');
    return { file: { '^filename': join(dir, 'u'), alice: ['.*'] } };
  });
  t.after(env.cleanup);
  const first = env.make();
  const a = await first.login('alice', 'pw', 'file', '127.0.0.1');
  const b = await first.login('alice', 'pw', 'file', '127.0.0.1');
  first.close();
  // a "restart": a new Authenticator over the same file
  const second = env.make();
  assert.equal(second.session(a.token, 'x').user, 'alice');
  // logout revokes that token only
  assert.equal(second.logout(a.token), true);
  rejects(() => second.session(a.token, 'x'), 'TOKEN_INVALID');
  assert.equal(second.session(b.token, 'x').user, 'alice');
  // malformed, empty, null and forged tokens
  for (const bad of ['', null, 'null', undefined, 42, 'a'.repeat(64), `${b.token.slice(0, 63)}X`, [b.token]]) rejects(() => second.session(bad, 'x'), 'TOKEN_INVALID');
  second.close();
  // a key rotation: the same file, another fingerprint
  const rotated = env.make('fp-2');
  rejects(() => rotated.session(b.token, 'x'), 'TOKEN_KEY_CHANGED');
  const c = await rotated.login('alice', 'pw', 'file', '127.0.0.1');
  assert.equal(rotated.session(c.token, 'x').user, 'alice');
  env.clock.advance(60_001);
  rejects(() => rotated.session(c.token, 'x'), 'TOKEN_EXPIRED');
  rejects(() => rotated.session(c.token, 'x'), 'TOKEN_INVALID', /not one this master issued/);
  rotated.close();
  // the store itself: 0600 even if the file existed with other permissions
  const store = TokenStore.open(join(env.dir, 'api-tokens.sqlite'), env.clock, 'fp-2');
  store.close();
  assert.equal(statSync(join(env.dir, 'api-tokens.sqlite')).mode & 0o777, 0o600);
});

test('failed logins are throttled per user and per source address (LOGIN_THROTTLED, not checked)', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'u'), 'alice:pw\nbob:pw\ncarl:pw\n');
    return { file: { '^filename': join(dir, 'u'), alice: ['.*'], bob: ['.*'], carl: ['.*'] } };
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  for (let i = 0; i < 3; i++) await expectReject(auth.login('alice', 'bad', 'file', '10.0.0.1'), 'LOGIN_FAILED');
  // the right password is not even checked now, from any address
  await expectReject(auth.login('alice', 'pw', 'file', '10.0.0.2'), 'LOGIN_THROTTLED');
  await assert.rejects(auth.login('alice', 'pw', 'file', '10.0.0.3'), (err: unknown) => isBrineError(err, 'LOGIN_THROTTLED') && Number(err.details.retryAfterS) > 0);
  // the source 10.0.0.1 is also used up, for other users
  await expectReject(auth.login('bob', 'pw', 'file', '10.0.0.1'), 'LOGIN_THROTTLED');
  // a spray across users from one address
  await expectReject(auth.login('bob', 'x', 'file', '10.0.0.7'), 'LOGIN_FAILED');
  await expectReject(auth.login('carl', 'x', 'file', '10.0.0.7'), 'LOGIN_FAILED');
  await expectReject(auth.login('dan', 'x', 'file', '10.0.0.7'), 'LOGIN_FAILED');
  await expectReject(auth.login('carl', 'pw', 'file', '10.0.0.7'), 'LOGIN_THROTTLED');
  // after the window, alice may log in again
  env.clock.advance(300_001);
  assert.equal((await auth.login('alice', 'pw', 'file', '10.0.0.2')).user, 'alice');
  assert.ok(env.lines.some((l) => l.includes('LOGIN_THROTTLED') === false && l.includes('login refused')));
});

test('authorize: ACL_DENIED logged with user, source, target and function', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'u'), 'alice:pw\n');
    return { file: { '^filename': join(dir, 'u'), alice: [{ 'web*': ['test.*'] }] } };
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  const who = { user: 'alice', eauth: 'file', groups: [] };
  const minionsOf = (tgt: string | string[]) => (tgt === 'web*' || tgt === 'web1' ? ['web1'] : tgt === '*' ? ['web1', 'db1'] : []);
  auth.authorize(who, { client: 'local', fun: 'test.ping', tgt: 'web1', tgtType: 'glob' }, minionsOf, '10.1.1.1');
  rejects(() => auth.authorize(who, { client: 'local', fun: 'test.ping', tgt: '*', tgtType: 'glob' }, minionsOf, '10.1.1.1'), 'ACL_DENIED');
  rejects(() => auth.authorize(who, { client: 'local', fun: 'cmd.run', tgt: 'web1', tgtType: 'glob', arg: ['id'] }, minionsOf, '10.1.1.1'), 'ACL_DENIED');
  const denials = env.lines.map((l) => JSON.parse(l)).filter((r) => r.code === 'ACL_DENIED');
  assert.equal(denials.length, 2);
  assert.deepEqual(
    denials.map((d) => [d.user, d.source, d.tgt, d.fun]),
    [
      ['alice', '10.1.1.1', '*', 'test.ping'],
      ['alice', '10.1.1.1', 'web1', 'cmd.run'],
    ],
  );
});

test('throttling counts IPv6 sources per /64 and IPv4-mapped addresses as IPv4', () => {
  assert.equal(sourceBucket('10.1.2.3'), '10.1.2.3');
  assert.equal(sourceBucket('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(sourceBucket('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(sourceBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.equal(sourceBucket('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(sourceBucket('::1'), '0:0:0:0::/64');
  assert.equal(sourceBucket('fe80::1%eth0'), 'fe80:0:0:0::/64');
});

test('a token of a user removed from the eauth file is TOKEN_USER_REMOVED at the next lookup, and stays revoked when the user comes back (issue 21, point 10)', async (t) => {
  const env = setup((dir) => {
    writeFileSync(join(dir, 'u'), 'alice:pw\nbob:pw\n');
    return { file: { '^filename': join(dir, 'u'), alice: ['.*'], bob: ['.*'] } };
  });
  t.after(env.cleanup);
  const auth = env.make();
  t.after(() => auth.close());
  const a1 = await auth.login('alice', 'pw', 'file', '127.0.0.1');
  const a2 = await auth.login('alice', 'pw', 'file', '127.0.0.1');
  const b = await auth.login('bob', 'pw', 'file', '127.0.0.1');
  assert.equal(auth.session(a1.token, 'x').user, 'alice');
  // an edit in place that keeps the size (the file is re-read when its stat changes)
  writeFileSync(join(env.dir, 'u'), 'alixe:pw\nbob:pw\n');
  rejects(() => auth.session(a1.token, 'x'), 'TOKEN_USER_REMOVED', /alice is no longer in the file eauth's users/);
  assert.equal(auth.session(b.token, 'x').user, 'bob');
  writeFileSync(join(env.dir, 'u'), 'alice:pw\nbob:pw\n');
  // every token of alice went with the first refusal
  rejects(() => auth.session(a2.token, 'x'), 'TOKEN_INVALID');
  assert.ok(env.lines.some((l) => l.includes('revoked 2 API token(s) of alice')));
  // revoke by user and by token
  const a3 = await auth.login('alice', 'pw', 'file', '127.0.0.1');
  assert.equal(auth.revoke({ user: 'alice' }), 1);
  rejects(() => auth.session(a3.token, 'x'), 'TOKEN_INVALID');
  assert.equal(auth.revoke({ token: b.token }), 1);
  assert.equal(auth.revoke({ token: b.token }), 0);
});
