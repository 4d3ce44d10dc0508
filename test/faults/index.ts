// Fault-injection tools for brine's fault suite: a userland TCP fault proxy for loopback tests
// and network-namespace helpers for faults that need the kernel (iptables DROP).

export { FaultProxy, type FaultProxyOptions, type FaultProxyStats, type NewFlowMode, type WaitForFlowsOptions } from './fault-proxy.js';
export type { FlowCloseReason, FlowControl, FlowSnapshot, FlowState, FlowTarget } from './flow.js';
export {
  NETNS_PREFIX,
  NetnsPair,
  createNetnsPair,
  execCommand,
  isAvailable,
  listNetns,
  netnsSkip,
  sweepStale,
  type ExecResult,
  type NetnsAvailability,
  type NetnsEnd,
  type NetnsPairOptions,
} from './netns.js';
