// The salt-api compatible REST API (issue 11), started by the master when `api:` or
// `rest_cherrypy:` is set. docs/api.md describes every endpoint.
export { apiOptionsFrom, type ApiOptions } from './api-options.js';
export { startApiServer, buildApiApp, type ApiServer, type TlsMaterial } from './server.js';
export type { ApiBackend, ApiJobSink, ReactionView, RunnerBackend, RunnerHost } from './backend.js';
export { parseLowstate, batchSize, CLIENTS, type Chunk } from './lowstate.js';
export { RUNNERS, runnerFunction, runnerNames, type Runner, type RunnerCall } from './runners.js';

export { runRunner, startRunnerJob } from './runner-job.js';
export type { RunnerOutcome, RunnerReply } from './runner-call.js';
export { WHEELS, type WheelBackend } from './wheel.js';
export { runWheelJob, type WheelJob } from './wheel-job.js';
export { apiTlsMaterial, type ApiTlsSource } from './api-tls.js';
export { checkedHookPath } from './hook-path.js';
