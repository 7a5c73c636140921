// The peer's consumer: a BullMQ Worker applying the same per-outcome counts Verdict keeps
// (HINCRBY counts:<outcome> <action> 1 per event), with a tunable concurrency. Run as its own process by
// bench/run.ts with an IPC channel; argument {"redisPort", "concurrency"}; sends {"ready": true} once
// running and {"completed": n} (jobs finished, i.e. counts committed) every 20 ms.
import { Worker } from "bullmq";
import { Redis } from "ioredis";

interface EventBody {
  outcome_key?: string;
  key?: string;
  action: string;
}

async function main(): Promise<void> {
  const { redisPort, concurrency } = JSON.parse(process.argv[2] ?? "{}") as { redisPort: number; concurrency: number };
  const counts = new Redis({ port: redisPort, host: "127.0.0.1" });
  let completed = 0;
  const worker = new Worker<EventBody>(
    "events",
    async (job) => {
      const event = job.data;
      await counts.hincrby(`counts:${event.outcome_key ?? event.key ?? ""}`, event.action, 1);
    },
    { connection: { host: "127.0.0.1", port: redisPort, maxRetriesPerRequest: null }, concurrency },
  );
  worker.on("completed", () => completed++);
  worker.on("error", (error) => console.error(error));
  await worker.waitUntilReady();
  process.send?.({ ready: true });
  setInterval(() => process.send?.({ completed }), 20);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
