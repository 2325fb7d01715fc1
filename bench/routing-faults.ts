// The routing fault table: plays every fault in lib/routing-fault-cases.ts once and writes what
// Spark did and how long it took to docs/routing-faults.md (and prints it). Timings are findings
// for people, never assertions; the tests under test/router/ prove the behaviour.
// `npx tsx bench/routing-faults.ts`
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import {
  CHAIN_SETTINGS,
  chainFaults,
  killedReplicaFaults,
  poolFaults,
  UPSTREAM_TIMEOUT_MS,
  type FaultRow,
} from "./lib/routing-fault-cases.ts";

const DOC = fileURLToPath(new URL("../docs/routing-faults.md", import.meta.url));

function markdownTable(rows: readonly FaultRow[]): string {
  const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    "| fault | what Spark did | what the client saw | time |",
    "| --- | --- | --- | ---: |",
    ...rows.map(
      (row) => `| ${cell(row.fault)} | ${cell(row.did)} | ${cell(row.client)} | ${row.ms} ms |`,
    ),
  ].join("\n");
}

function document(rows: readonly FaultRow[]): string {
  return `# Routing faults: what Spark does, and how long it takes

Written by \`npx tsx bench/routing-faults.ts\` (${new Date().toISOString().slice(0, 10)}, ${process.platform}, Node ${process.version}); rerun it to refresh the table.
Each fault is played once against the real gateway and router (\`test/router/routed-gateway.ts\`)
over loopback fake upstreams (\`test/openai-compatible/replay-server.ts\`); the last two rows use
real \`spark serve\` processes (two scripted replicas behind a third whose model is the pool).
Times are the client's, from sending the request to the final event, on a shared 2-core machine.
The behaviour is asserted by \`test/router/routing-faults.test.ts\`, \`upstream-pool.test.ts\`,
\`pool-health-checks.test.ts\` and \`pool-replica-processes.test.ts\`; the times only here.

Settings: route \`fast = ["spark", "spark-backup", "codex"]\`; every upstream's connect, first-byte
and idle timeouts ${UPSTREAM_TIMEOUT_MS} ms (the defaults are 5 s, 120 s and 60 s);

\`\`\`toml
[router]
${CHAIN_SETTINGS}
\`\`\`

Pools: two replicas, health probes every 100 ms (default 5 s) with a ${UPSTREAM_TIMEOUT_MS} ms timeout
(1 s for the processes), each replica's breaker opening on its first failure (5 s open).

${markdownTable(rows)}

## Reading the table

- **Nothing is retried once output reached the client** (reset or stall mid-stream, a replica
  killed while streaming): the turn fails with the cause, and what was streamed is never sent a
  second time. Before any output, every failure is retried (same upstream, backoff with jitter,
  never sooner than \`retry-after\`) and then falls back down the chain.
- **Stall before headers** costs two first-byte timeouts and one backoff before the fallback:
  2 × ${UPSTREAM_TIMEOUT_MS} ms + ~40 ms. An earlier run of the test table showed 3.6 s for the
  same fault on two upstreams (four timeouts): undici runs its \`headersTimeout\` on a coarse clock
  (\`FastTimer\` in \`undici/lib/util/timers.js\`, a 499 ms tick, and a timer only becomes active
  on the tick after it is set), so a 400 ms timeout fired after 0.5–1.0 s — measured 1004 ms
  alone. The engine now runs the first-byte timeout on a native timer
  (\`src/engines/openai-compatible/upstream-request.ts\`, undici's stays as a backstop): that
  four-timeout row went from 4.0 s to 1.7 s. With the default 120 s first-byte timeout the
  difference never mattered; with the short timeouts a fast failover wants, it doubled the wait.
- **Stall mid-stream** is still undici's \`bodyTimeout\` on the same coarse clock, so an idle
  timeout of ${UPSTREAM_TIMEOUT_MS} ms ends the turn after 0.5–1 s. It is left so because the
  default idle timeout is 60 s (a 0.5 s granularity is noise there) and the body timer must pause
  while backpressure pauses the socket, which undici already handles.
- **A replica killed while streaming** (SIGKILL of a real \`spark serve\`): the front sees the
  connection drop, ends the turn with \`network_error\` after the words already sent, and opens that
  replica's breaker; the session's next turn goes to the other replica with no error. Its time is
  mostly the scripted answer's own ~0.6 s stream; its first token is what the failover cost.
- **A replica failing its probe** never sees the request: the probe took it out first, so the
  session's turn costs nothing extra. With probes off, the first request of each of the dead
  replica's sessions pays one refused connection (about a millisecond on loopback; a connect
  timeout for a host that is gone from the network) before the breaker keeps the rest away.
- **The breaker** opens after \`failures\` failures within \`window_ms\`; while open the
  upstream is skipped at no cost; after \`open_ms\` one request probes it, and its success closes
  the circuit. The breakers' clock is stepped in this run, so no row waits 30 s.
- **The deadline** cuts the whole request, retries and fallbacks included, at \`deadline_ms\`.
`;
}

const rows = [...(await chainFaults()), ...(await poolFaults()), ...(await killedReplicaFaults())];
const table = markdownTable(rows);
process.stdout.write(`${table}\n`);
// Formatted as `npm run format` would, so rerunning the bench leaves no formatting diff.
await writeFile(
  DOC,
  await format(document(rows), { ...(await resolveConfig(DOC)), parser: "markdown" }),
);
process.stdout.write(`\nwrote ${DOC}\n`);
