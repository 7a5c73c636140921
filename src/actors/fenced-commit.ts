// A shard's commit: one call of commit.lua, fenced by the lease (a worker that lost the shard writes
// nothing), then, when replicas are required, a WAIT so that a failover cannot undo what memory now holds.
import type { Logger } from "../telemetry/logger.js";
import { replicated } from "../redis/replica-acks.js";
import { tracedCommit } from "./actor-tracing.js";
import type { ActorServices, ActorTuning, ShardLease } from "./actor-deps.js";
import { WriterPool } from "../codec/msgpack-writer.js";
import { BatchCommit, type CommitResult } from "./batch-commit.js";
import { CONSUMER_GROUP } from "./consumer-group.js";
import { stageRollups } from "./rollup-staging.js";

/** Writes from which a commit is sent at once rather than with the turn's other commands. */
const RELEASE_AT_WORK = 256;

export interface FencedCommitDeps {
  lease: Pick<ShardLease, "shard" | "value">;
  tuning: Pick<ActorTuning, "replicaAcks" | "replicaAckTimeoutMs">;
  services: Pick<ActorServices, "client" | "cork" | "keys" | "scripts">;
  logger: Logger;
}

export class FencedCommit {
  /** The buffers of answered commits, for the next ones to write their operations in. */
  private readonly writers = new WriterPool(2);

  constructor(private readonly deps: FencedCommitDeps) {}

  /** An empty commit of this shard, to stage writes in. */
  begin(): BatchCommit {
    const { keys } = this.deps.services;
    const { shard } = this.deps.lease;
    return new BatchCommit(
      keys.lease(shard),
      keys.stream(shard),
      keys.due(shard),
      keys.fence(shard),
      keys.lastCommit(shard),
      this.writers.take(),
    );
  }

  /** Runs the staged commit; "unreplicated" when the master committed but too few replicas confirmed it. */
  run(commit: BatchCommit): Promise<CommitResult> {
    return tracedCommit(this.deps.lease.shard, () => this.execute(commit));
  }

  private async execute(commit: BatchCommit): Promise<CommitResult> {
    const { client, cork, keys, scripts } = this.deps.services;
    const { shard, value } = this.deps.lease;
    stageRollups(commit, keys, shard);
    cork.hold();
    const sent = commit.execute((scriptKeys, args) => scripts.run("commit", scriptKeys, args), value, CONSUMER_GROUP);
    // A large commit leaves at once: Redis runs it while this turn stages the next (a storm's pages of
    // every shard are staged in one turn, and held to its end Redis and the worker took turns idling).
    if (commit.work >= RELEASE_AT_WORK) cork.release();
    const result = await sent;
    // Answered, so the call was written and is never sent again: its buffer is free. (A call that failed
    // keeps its buffer: a client layer might still hold it to send.)
    this.writers.give(commit.writer);
    if (!result.ok) {
      if (result.reason === "create-conflict" || result.reason === "open-quota") {
        this.deps.logger.info(
          { shard, key: result.reason === "create-conflict" ? result.key : undefined },
          "outcome created concurrently, or the open-outcome quota filled meanwhile; reprocessing batch",
        );
      }
      return result;
    }
    // Committed on the master; until the replicas hold it a failover could undo it, so memory (which is
    // ahead of what would survive) is not trusted: the caller reloads from Redis, as after any doubt.
    const { replicaAcks, replicaAckTimeoutMs } = this.deps.tuning;
    if (!(await replicated(client, keys.lease(shard), replicaAcks, replicaAckTimeoutMs))) {
      this.deps.logger.warn({ shard, replicas: replicaAcks }, "commit not acknowledged by enough replicas; reloading");
      return { ok: false, reason: "unreplicated" };
    }
    return result;
  }
}
