#!/usr/bin/env node
// GPG pillar benchmark: one `#!yaml|gpg` pillar SLS holding N distinct PGP message blocks (and
// each block a second time, as a tree repeats a password under two keys), decrypted by brine's
// renderer (one gpg process per distinct block, a few at a time) against the raw floor Salt's
// renderer amounts to: one `gpg --decrypt` per block occurrence, one after the other; then the
// same file rendered again (the next minion), its blocks from the master's memory. Keys are
// made with the real gpg in a temp home whose gpg-agent is stopped at the end.

import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { printReport, progress, ratio, secs, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:gpg-pillar -- [--blocks N] [--build-dir DIR]
  --blocks N     distinct encrypted values in the SLS (default 40; each appears twice)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { blocks: 40, buildDir: 'dist' }, USAGE);

async function main() {
  const build = resolveBuild(f.buildDir);
  const { renderSls } = await import(build.module('render/index.js'));
  const home = path.join(tempDir('brine-bench-gpg-'), 'gpgkeys');
  const gpg = (args, input) => execFileSync('gpg', ['--homedir', home, '--batch', ...args], { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  try {
    execFileSync('mkdir', ['-m', '700', '-p', home]);
    gpg(['--passphrase', '', '--quick-gen-key', 'bench@example.org', 'future-default', 'default', 'never']);
    progress(`encrypting ${f.blocks} values`);
    const blocks = Array.from({ length: f.blocks }, (_, i) => gpg(['--armor', '--trust-model', 'always', '--encrypt', '-r', 'bench@example.org'], `value-${i}`));
    const yamlBlock = (b) =>
      `|\n${b
        .trimEnd()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n`;
    const text = `#!yaml|gpg\n${blocks.map((b, i) => `k${i}:\n  a: ${yamlBlock(b)}  b: ${yamlBlock(b)}`).join('')}`;
    const occurrences = blocks.length * 2;

    progress('raw floor: one gpg --decrypt per occurrence, in sequence');
    // warm the agent once (it loads the key on first use) for both sides
    gpg(['--decrypt'], blocks[0]);
    let t = performance.now();
    for (const b of [...blocks, ...blocks]) {
      const r = spawnSync('gpg', ['--homedir', home, '--batch', '--no-tty', '--status-fd', '2', '--decrypt'], { input: b });
      if (r.status !== 0) throw new Error('the raw gpg run failed');
    }
    const rawMs = performance.now() - t;

    progress('brine: renderSls with the gpg stage');
    const env = { source: 'bench.sls', saltenv: 'base', pillar: true, context: {}, callFunction: () => undefined, loadFile: () => undefined, gpg: { keydir: home, mustSucceed: true } };
    t = performance.now();
    const data = await renderSls(text, env);
    const brineMs = performance.now() - t;
    if (data.k0.a !== 'value-0' || data[`k${blocks.length - 1}`].b !== `value-${blocks.length - 1}`) throw new Error('brine did not decrypt the values');

    progress('brine: the same SLS for the next minion (the master keeps decrypted blocks in memory)');
    const { GpgCache } = await import(build.module('render/index.js'));
    const cached = { ...env, gpg: { ...env.gpg, cache: new GpgCache() } };
    await renderSls(text, cached);
    t = performance.now();
    await renderSls(text, cached);
    const nextMs = performance.now() - t;
    const r = ratio(brineMs, rawMs);
    printReport(
      'bench:gpg-pillar',
      [
        [
          `${blocks.length} distinct blocks, ${occurrences} occurrences in one #!yaml|gpg SLS`,
          [
            `raw floor (gpg --decrypt per occurrence, sequential, as Salt): ${secs(rawMs)} = ${(rawMs / occurrences).toFixed(1)} ms per block`,
            `brine render (one gpg per distinct block, 4 at a time):        ${secs(brineMs)}   ratio ${showRatio(r)}`,
            `brine, next minion's render (blocks from the master's cache):  ${nextMs.toFixed(1)} ms   ratio ${showRatio(ratio(nextMs, rawMs))}`,
          ],
        ],
      ],
      { blocks: blocks.length, occurrences, rawMs, brineMs, nextMs, ratio: r },
    );
  } finally {
    spawnSync('gpgconf', ['--homedir', home, '--kill', 'all']);
  }
}

main().catch((err) => {
  process.stderr.write(`bench:gpg-pillar failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exitCode = 1;
});
