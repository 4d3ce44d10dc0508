// Public surface of `brine doctor`: the checks per group, their verdicts and how they print.
export { exitCodeFor, formatCheck, formatChecks, worst, duration, ok, warn, fail, type Check, type Level } from './check.js';
export { judgeKeyState, judgeMasterFinger, judgeMasterKey, judgeMinionStatus, summarizeId, type KeyTrust, type StatusProblem } from './minion-verdicts.js';
export { judgeDenied, judgeFlapping, judgeKeyCounts, DUPLICATE_WINDOW_MS, TROUBLESHOOTING_DOC, type DeniedKey, type KeyCounts } from './master-verdicts.js';
export { minionChecks } from './minion-checks.js';
export { masterChecks } from './master-checks.js';
export { connectToMaster, loadProbeIdentity, probeKeyState, type ProbeIdentity, type ProbeOptions, type ProbeResult } from './probe-master.js';
export { runAll, runGroup, groupsFor, configDirOf, type DoctorGroup } from './run.js';
