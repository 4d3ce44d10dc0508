// Public surface of the minion emulator.
export { MinionEmulator, type EmulatorOptions, type EmulatorStats } from './emulator.js';
