// Everything a benchmark starts (child processes, temp dirs) is registered here and removed on
// exit, on Ctrl-C and on a crash, so a failed run leaves nothing behind.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const children = new Set();
const dirs = new Set();
let installed = false;

function removeAll() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

function install() {
  if (installed) return;
  installed = true;
  process.on('exit', removeAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      removeAll();
      process.exit(130);
    });
  }
}

/** Registers a child process to be SIGKILLed if it is still running when the benchmark ends. */
export function track(child) {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A fresh temp dir, removed when the benchmark ends. */
export function tempDir(prefix) {
  install();
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.add(d);
  return d;
}

/**
 * Sends `signal` (null: none, the child was asked over IPC) and waits for the exit, with SIGKILL
 * after `graceMs`; resolves at once if the child has already exited.
 */
export function stopChild(child, signal = 'SIGTERM', graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (signal) child.kill(signal);
  });
}

/** Resolves with the next IPC message of type `t` from a forked child. */
export function nextMessage(child, t, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    const onMessage = (m) => m && m.t === t && done(undefined, m);
    const onExit = (code) => done(new Error(`${what}: the process exited (${code}) first`));
    function done(err, m) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(m);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Asks a forked child to close over IPC (SIGTERM if its channel is gone), SIGKILL after `graceMs`. */
export async function closeForked(child, graceMs = 3000) {
  if (!child) return;
  if (child.connected) child.send({ t: 'close' });
  await stopChild(child, child.connected ? null : 'SIGTERM', graceMs);
}
