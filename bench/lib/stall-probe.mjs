// The floor of an event-loop stall on this machine right now: an idle node process measuring
// its own loop delay exactly as the master's metrics do (perf_hooks.monitorEventLoopDelay at
// prom-client's 10 ms resolution). On a loaded shared host a process that does nothing still
// "stalls" while it waits for a core; the master's figure means something only next to this.
// IPC: { t: 'reset' } starts a window, { t: 'read' } answers { t: 'stall', maxMs }.

import { monitorEventLoopDelay } from 'node:perf_hooks';

const h = monitorEventLoopDelay({ resolution: 10 });
h.enable();
process.on('message', (m) => {
  if (m.t === 'reset') h.reset();
  else if (m.t === 'read') process.send({ t: 'stall', maxMs: h.max / 1e6 });
  else if (m.t === 'close') process.exit(0);
});
