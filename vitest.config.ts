// Test runner configuration: typia transform for validators, real Redis started once per run.
import UnpluginTypia from "@ryoppippi/unplugin-typia/vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [UnpluginTypia({ cache: false })],
  test: {
    pool: "forks",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/setup/redis-servers.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
