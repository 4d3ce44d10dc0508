// One bcrypt hash off the master's main thread (bcrypt.ts says why): the setting and password
// come in workerData, the hash goes back as the one message.

import { parentPort, workerData } from 'node:worker_threads';
import { hashSync } from 'bcryptjs';

const { password, setting } = workerData as { password: string; setting: string };
parentPort?.postMessage(hashSync(password, setting));
