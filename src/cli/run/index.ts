// Public surface of the `brine run` machinery: the job stream, batches, printing and the summary.

export { startJob, type JobHandlers, type JobStream } from './job-client.js';
export { parseBatch, parseBatchWait, batchSize, runBatch, type BatchSpec, type BatchDeps, type BatchResult } from './batch.js';
export { ReturnPrinter, type PrinterOptions } from './printer.js';
export { summaryText } from './summary.js';
export { checkJidArgs } from './jid-args.js';
export { JobProgress, masterLostDetail, masterLostError } from './master-lost.js';
export { ProgressLine, wantsProgress } from './progress-line.js';
export { STATE_RUN_FUNCTIONS, StateProgressPrinter, followStateProgress, progressLineOf, wantsStateProgress } from './state-progress.js';
