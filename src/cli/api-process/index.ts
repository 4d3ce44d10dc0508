// `brine api`: the REST API as its own process, over the master's control socket.
export { startApiProcess, standaloneApiOptions, type ApiProcess } from './run-api.js';
export { createRemoteBackend, type RemoteBackend, type RemoteBackendDeps } from './remote-backend.js';
