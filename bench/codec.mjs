#!/usr/bin/env node
// Codec benchmark: brine's real encode (JSON + frame) and decode (frame, strict UTF-8, JSON,
// depth check, schema validation) against bare JSON.stringify/JSON.parse on the same messages.

import { parseFlags, resolveBuild } from './lib/args.mjs';
import { median } from './lib/procfs.mjs';
import { printReport, progress, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:codec -- [--ms N] [--repeats N] [--build-dir DIR]
  --ms N          time per measurement (default 300)
  --repeats N     measurements per case; the median counts (default 5)
  --build-dir DIR compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { ms: 300, repeats: 5, buildDir: 'dist' }, USAGE);

const JID = '20261202143000123456';

/** A grains-like object of about `bytes` of JSON: nested maps, lists, numbers, strings. */
function structured(bytes) {
  const out = {};
  for (let i = 0; JSON.stringify(out).length < bytes; i++) {
    out[`key_${i}`] =
      i % 4 === 0
        ? { version: `1.${i}.0-${i % 7}`, arch: 'amd64', installed: true }
        : i % 4 === 1
          ? [`10.0.${i % 255}.1`, `fe80::${i.toString(16)}`]
          : i % 4 === 2
            ? i * 1024
            : `value-${'x'.repeat(i % 40)}`;
  }
  return out;
}

const CASES = [
  ['ping (heartbeat)', 'minion', { t: 'ping', seq: 123456, rtt: 0.412 }],
  ['job test.ping', 'master', { t: 'job', jid: JID, fun: 'test.ping', arg: [], kwarg: {}, tgt: 'emu-*', tgtType: 'glob', timeout: 5 }],
  ['return 1 KB', 'minion', { t: 'return', jid: JID, fun: 'grains.items', ret: structured(1024), retcode: 0, success: true }],
  ['return 100 KB', 'minion', { t: 'return', jid: JID, fun: 'pkg.list_pkgs', ret: structured(100 * 1024), retcode: 0, success: true }],
  ['return 100 KB string', 'minion', { t: 'return', jid: JID, fun: 'cmd.run', ret: 'line of command output, fairly typical\n'.repeat(2700), retcode: 0, success: true }],
];

/** Nanoseconds per call of fn, median of `repeats` runs of about `ms` each (after a warm-up). */
function measure(fn) {
  let sink = 0;
  const runFor = (ms) => {
    let n = 0;
    const t0 = process.hrtime.bigint();
    const end = t0 + BigInt(ms * 1e6);
    let now = t0;
    while (now < end) {
      for (let i = 0; i < 16; i++) sink ^= fn() ? 1 : 0;
      n += 16;
      now = process.hrtime.bigint();
    }
    return Number(now - t0) / n;
  };
  runFor(Math.min(200, f.ms));
  const runs = [];
  for (let i = 0; i < f.repeats; i++) runs.push(runFor(f.ms));
  if (sink === 2) process.stdout.write('');
  return median(runs);
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const protocol = await import(build.module('protocol/index.js'));
  const { encodeMessage, decodeMessage, FrameDecoder, MINION_MESSAGES, MASTER_MESSAGES } = protocol;
  const results = [];
  for (const [name, dir, msg] of CASES) {
    const schemas = dir === 'minion' ? MINION_MESSAGES : MASTER_MESSAGES;
    const frame = encodeMessage(msg);
    const payload = frame.subarray(4);
    // check the real codec accepts the message before timing it
    decodeMessage(new FrameDecoder(16 * 1024 * 1024).push(frame)[0], schemas);
    progress(name);
    const encode = measure(() => encodeMessage(msg));
    const rawEncode = measure(() => Buffer.from(JSON.stringify(msg), 'utf8'));
    const decoder = new FrameDecoder(16 * 1024 * 1024);
    const decode = measure(() => decodeMessage(decoder.push(frame)[0], schemas));
    const rawDecode = measure(() => JSON.parse(payload.toString('utf8')));
    results.push({ name, bytes: frame.length, encodeNs: encode, rawEncodeNs: rawEncode, encodeRatio: encode / rawEncode, decodeNs: decode, rawDecodeNs: rawDecode, decodeRatio: decode / rawDecode });
  }
  const us = (ns) => (ns >= 1e5 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(2)} us`);
  const lines = results.map(
    (r) =>
      `${r.name.padEnd(21)} ${String(r.bytes).padStart(7)} B  encode ${us(r.encodeNs).padStart(9)} vs ${us(r.rawEncodeNs).padStart(9)} = ${showRatio(r.encodeRatio).padStart(6)}   decode ${us(r.decodeNs).padStart(9)} vs ${us(r.rawDecodeNs).padStart(9)} = ${showRatio(r.decodeRatio).padStart(6)}`,
  );
  printReport('codec benchmark (brine codec vs raw JSON.stringify/JSON.parse, per message, median)', [['messages', lines]], { bench: 'codec', flags: f, results });
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:codec failed: ${err.stack ?? err}\n`);
    process.exit(1);
  },
);
