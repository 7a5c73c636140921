// Samples each Redis master's memory (INFO memory) on a timer, so an alert can fire before a master
// reaches maxmemory: with noeviction, every write (every enqueue) then fails.
import { Cluster, type Redis } from "ioredis";
import { Periodic } from "../runtime/periodic.js";
import { masters, type RedisClient } from "./client.js";

export interface MemorySample {
  /** "host:port" of the node, or its unix socket path. */
  node: string;
  usedBytes: number;
  /** 0 when the node has no limit. */
  maxBytes: number;
}

function field(info: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:(\\d+)\\r?$`, "m").exec(info);
  return match ? Number(match[1]) : undefined;
}

function nodeName(node: Redis): string {
  const { host, port, path } = node.options;
  return path ? path : `${host ?? "localhost"}:${port ?? 6379}`;
}

/** One INFO memory per master; a node that does not answer is left out of this sample. */
export async function sampleRedisMemory(client: RedisClient): Promise<MemorySample[]> {
  // A cluster client may not know its nodes before its first command has refreshed the slots.
  if (client instanceof Cluster && client.status !== "ready") return [];
  const samples = await Promise.all(
    masters(client).map(async (node) => {
      try {
        const info = await node.info("memory");
        const usedBytes = field(info, "used_memory");
        const maxBytes = field(info, "maxmemory");
        return usedBytes === undefined || maxBytes === undefined
          ? undefined
          : { node: nodeName(node), usedBytes, maxBytes };
      } catch {
        return undefined;
      }
    }),
  );
  return samples.filter((sample) => sample !== undefined);
}

/** Runs `sampleRedisMemory` now and every `intervalMs`, handing each sample to `record`. */
export class RedisMemorySampler {
  private readonly samples: Periodic;

  constructor(client: RedisClient, record: (samples: MemorySample[]) => void, intervalMs: number) {
    // A sampler never keeps a process alive on its own; a sample that fails is left out.
    this.samples = new Periodic(async () => record(await sampleRedisMemory(client)), {
      intervalMs,
      runAtStart: true,
      unref: true,
    });
  }

  start(): void {
    this.samples.start();
  }

  stop(): Promise<void> {
    return this.samples.stop();
  }
}
