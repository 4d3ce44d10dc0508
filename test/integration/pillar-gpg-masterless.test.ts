// Masterless `#!yaml|gpg` pillar: `brine call --local` decrypts its own pillar_roots with the
// minion's gpg_keydir (a key made here with the real gpg); a block for another key shows under
// _errors as GPG_DECRYPT_FAILED with the file and key ID, without the block.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster, runCli } from '../helpers/cluster.js';
import { GpgHome } from '../helpers/gpg.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const block = (armored: string): string =>
  `|\n${armored
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')}\n`;

describe('masterless #!yaml|gpg pillar', () => {
  let cluster: Cluster;
  let keys: GpgHome;
  let stranger: GpgHome;
  let pillarDir: string;

  before(async () => {
    cluster = await Cluster.create();
    keys = GpgHome.create('minion-ml@example.org');
    stranger = GpgHome.create('other@example.org');
    cluster.writeMinionConfig('ml', { id: 'ml-gpg', file_client: 'local', gpg_keydir: keys.dir });
    pillarDir = path.join(cluster.root, 'minions', 'ml', 'srv', 'pillar');
    write(path.join(pillarDir, 'top.sls'), "base:\n  '*':\n    - secret\n");
    write(path.join(pillarDir, 'secret.sls'), `#!yaml|gpg\ntoken: ${block(keys.encrypt('masterless-plain'))}`);
  });
  after(async () => {
    keys?.close();
    stranger?.close();
    await cluster?.cleanup();
  });

  const items = async (): Promise<Record<string, unknown>> => {
    const r = await runCli(['call', 'pillar.items', '--out', 'json', '-c', cluster.minionConfigDir('ml')]);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { local: Record<string, unknown> }).local;
  };

  it('decrypts with the minion gpg_keydir', async () => {
    assert.deepEqual(await items(), { token: 'masterless-plain' });
  });

  it('a block for another key is GPG_DECRYPT_FAILED under _errors, naming the file and key ID', async () => {
    write(path.join(pillarDir, 'secret.sls'), `#!yaml|gpg\ntoken: ${block(keys.encrypt('x', stranger))}`);
    const got = await items();
    const errors = got._errors as string[];
    assert.equal(errors.length, 1, JSON.stringify(got));
    assert.match(errors[0]!, /pillar_roots base:secret\.sls: 1 of 1 PGP message block\(s\) could not be decrypted \(at 'token': /);
    assert.ok(errors[0]!.includes(stranger.encKeyId));
    assert.ok(!errors[0]!.includes('BEGIN PGP'));
  });
});
