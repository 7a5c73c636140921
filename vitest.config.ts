// Test runner configuration: typia transform for validators, real Redis started once per run, and the suite
// in two groups: files that share nothing but the Redis servers (each test its own key prefix) run two at a
// time; files that measure time or load, or load the machine themselves, run after them one at a time.
import UnpluginTypia from "@ryoppippi/unplugin-typia/vite";
import { defineConfig } from "vitest/config";

/** Files whose subject is timing (deadlines, stalls, failovers, rates) or that saturate the cores alone. */
const RUN_ALONE = [
  "test/actors/crash-safety.test.ts",
  "test/actors/deadline-storm.test.ts",
  "test/actors/large-reads.test.ts",
  "test/actors/partition.test.ts",
  "test/actors/read-interval.test.ts",
  "test/actors/stale-reads.test.ts",
  "test/archive/memory.test.ts",
  "test/archive/postgres-down.test.ts",
  "test/archive/postgres-stalled.test.ts",
  "test/ingress/slow-reader.test.ts",
  "test/ingress/unavailable.test.ts",
  "test/quotas/event-rate.test.ts",
  "test/redis/failover.test.ts",
  "test/redis/liveness.test.ts",
  "test/redis/replica-acks.test.ts",
  "test/tenants/two-tenants.test.ts",
  "test/webhooks/kill-workers.test.ts",
];

export default defineConfig({
  plugins: [UnpluginTypia({ cache: false })],
  test: {
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/setup/redis-servers.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: RUN_ALONE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "alone", include: RUN_ALONE, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
