// The job cache's WAL checkpoints, off the master's main thread (wal-checkpointer.ts says why):
// its own connection to the same file runs a PASSIVE checkpoint every `intervalMs`. A PASSIVE
// checkpoint never waits for the writer and never makes it wait: it copies the frames no reader
// still needs into the database file (and syncs both files), while the master goes on appending.

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file, { fileMustExist: true });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let last = 0;
const timer = setInterval(() => {
  // log: frames in the WAL; checkpointed: how many of them are in the database file now
  const row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
  if (row.checkpointed !== last && row.checkpointed > 0) parentPort?.postMessage({ t: 'checkpointed', log: row.log, checkpointed: row.checkpointed });
  last = row.checkpointed;
}, intervalMs);
parentPort?.on('message', (m: { t?: string }) => {
  if (m?.t !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
