// Reads the events an account received per minute (counted by the workers' commits, streams/ingest-minutes.ts),
// summed over the shards.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { hourOfMinute, minuteOf } from "../streams/ingest-minutes.js";

export interface MinuteCount {
  /** Start of the minute, epoch ms. */
  at: number;
  events: number;
}

export class IngestCounts {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: Keys,
    private readonly shards: number,
  ) {}

  /** The last `minutes` whole minutes before `now`'s minute, plus the current one, oldest first. */
  async perMinute(accountId: string, now: number, minutes: number): Promise<MinuteCount[]> {
    const last = minuteOf(now);
    const wanted = Array.from({ length: minutes + 1 }, (_, i) => last - minutes + i);
    const byHour = new Map<number, number[]>();
    for (const minute of wanted) {
      const hour = hourOfMinute(minute);
      const list = byHour.get(hour);
      if (list) list.push(minute);
      else byHour.set(hour, [minute]);
    }
    const totals = new Map<number, number>();
    const reads: Promise<void>[] = [];
    for (let shard = 0; shard < this.shards; shard++) {
      for (const [hour, inHour] of byHour) {
        reads.push(
          this.client.hmget(this.keys.ingestCounts(shard, accountId, hour), ...inHour.map(String)).then((values) => {
            values.forEach((value, i) => {
              if (value !== null) totals.set(inHour[i]!, (totals.get(inHour[i]!) ?? 0) + Number(value));
            });
          }),
        );
      }
    }
    await Promise.all(reads);
    return wanted.map((minute) => ({ at: minute * 60_000, events: totals.get(minute) ?? 0 }));
  }
}
