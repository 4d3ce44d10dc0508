// Returners (Salt's salt/returners): where job returns, job loads and events are copied to.
export type { ReturnedEvent, Returner, ReturnerContext, SaltReturn } from './returner.js';
export { returnerOptions } from './returner-options.js';
export { buildReturner, returnerNames, RETURNER_NAMES } from './registry.js';
export { syslogLine } from './syslog.js';
export { jidStartTime } from './jid-time.js';
export { EventReturnQueue, type EventReturnQueueDeps } from './event-return-queue.js';
