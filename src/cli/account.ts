// `verdict account create NAME`: creates an account and prints {"account_id", "token"}.
import { Accounts } from "../accounts/accounts.js";
import { optionsFromEnv } from "../config/env.js";
import type { RedisClient } from "../redis/client.js";
import { openClient, resolveRedis } from "../redis/connect.js";
import { Keys } from "../redis/keys.js";
import { silentLogger } from "../telemetry/logger.js";

/** Runs `work` against the configured Redis (the embedded one too: started, or reused if serving). */
export async function withAccounts<T>(
  work: (accounts: Accounts, redis: RedisClient, keys: Keys) => Promise<T>,
): Promise<T> {
  const options = optionsFromEnv(process.env);
  const resolved = await resolveRedis(options.redis, silentLogger);
  try {
    const redis = await openClient(resolved.endpoint, { connectionName: "verdict-cli" }, silentLogger);
    try {
      const keys = new Keys(options.keyPrefix);
      return await work(new Accounts(redis, keys, options.tokenSecret, options.replicaAcks), redis, keys);
    } finally {
      redis.disconnect();
    }
  } finally {
    await resolved.release();
  }
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const name = rest.join(" ").trim();
  if (sub !== "create" || name === "") {
    process.stderr.write("usage: verdict account create NAME\n");
    return 2;
  }
  const created = await withAccounts((accounts) => accounts.create(name));
  process.stdout.write(`${JSON.stringify(created)}\n`);
  return 0;
}
