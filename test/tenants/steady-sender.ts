// A tenant's steady load on a thread of its own: single events at a fixed rate, round robin over its open
// outcomes, each request's time to its answer recorded. On its own thread, the test's other work (a flood
// built in the main thread) cannot hold a request back before it is sent.
import { Worker } from "node:worker_threads";

export interface SteadyLoad {
  base: string;
  token: string;
  /** Events a second. */
  rate: number;
  seconds: number;
  /** Outcomes b-0 ... b-(n-1), already open. */
  outcomes: number;
  /** A name for this run: it makes the idempotency keys unique across runs. */
  round: string;
}

export interface SteadyRun {
  round: string;
  sent: number;
  /** Statuses of the answers that were not 202. */
  refused: number[];
  p99Ms: number;
}

// Plain JavaScript: the thread runs without the test runner's TypeScript transform.
const SENDER = `
const { parentPort, workerData: load } = require("node:worker_threads");
const latencies = [];
const refused = [];
const started = performance.now();
const total = load.rate * load.seconds;
const send = async (n) => {
  const at = performance.now();
  const response = await fetch(load.base + "/v1/events", {
    method: "POST",
    headers: { authorization: "Bearer " + load.token, "content-type": "application/json" },
    body: JSON.stringify({ outcome_key: "b-" + (n % load.outcomes), action: "step", idempotency_key: load.round + "/" + n }),
  }).catch(() => undefined);
  await response?.arrayBuffer();
  latencies.push(performance.now() - at);
  if (response?.status !== 202) refused.push(response?.status ?? 0);
};
(async () => {
  const inFlight = [];
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / load.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(n));
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  parentPort.postMessage({ sent: total, refused, p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] });
})();
`;

/** Runs one steady load to its end on a new thread. */
export function steadyLoad(load: SteadyLoad): Promise<SteadyRun> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SENDER, { eval: true, workerData: load });
    worker.once("message", (result: Omit<SteadyRun, "round">) => {
      resolve({ round: load.round, ...result });
      void worker.terminate();
    });
    worker.once("error", reject);
  });
}
