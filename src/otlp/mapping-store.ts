// Where each account's OTLP mapping override lives: one Redis key per account, read once per trace export.
import { msgpack } from "../codec/msgpack.js";
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { DEFAULT_OTLP_MAPPING, withDefaults, type OtlpMapping } from "./mapping-config.js";

export class MappingStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The account's mapping: its override over the defaults, or the defaults. */
  async get(accountId: string): Promise<OtlpMapping> {
    const stored = await this.redis.getBuffer(this.keys.otlpMapping(accountId));
    return stored === null ? { ...DEFAULT_OTLP_MAPPING } : withDefaults(msgpack.unpack(stored) as Partial<OtlpMapping>);
  }

  /** Replaces the account's override; true when it had none before. */
  async put(accountId: string, partial: Partial<OtlpMapping>): Promise<boolean> {
    const previous = await this.redis.set(this.keys.otlpMapping(accountId), msgpack.pack(partial), "GET");
    return previous === null;
  }
}
