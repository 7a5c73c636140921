// The one key builder: nobody else formats a Redis key. Every key of a shard carries the tag {s<N>} so one
// Lua call's keys share a cluster slot; account-wide records carry {a:<account>}.

import type { RecordKind } from "../records/record-kind.js";

export class Keys {
  constructor(readonly prefix: string) {
    if (/[{}]/.test(prefix)) throw new Error("key prefix must not contain '{' or '}'");
  }

  private shardTag(shard: number): string {
    return `${this.prefix}{s${shard}}`;
  }

  private accountTag(accountId: string): string {
    return `${this.prefix}{a:${accountId}}`;
  }

  // ---- per shard ----

  /** The shard's event stream: the queue between ingress and the shard's actor. */
  stream(shard: number): string {
    return `${this.shardTag(shard)}:stream`;
  }

  /** Idempotency keys of one outcome: a hash whose fields are the claimed keys (values unused). */
  idempotency(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:idem:${accountId}:${outcomeKey}`;
  }

  /** The committed snapshot of one outcome (msgpack). */
  outcome(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:outcome:${accountId}:${outcomeKey}`;
  }

  /** The outcome's event log (a stream of applied events). */
  eventLog(shard: number, accountId: string, outcomeKey: string): string {
    return `${this.shardTag(shard)}:log:${accountId}:${outcomeKey}`;
  }

  /** Due-time index of the shard: sorted set of outcome refs scored by the next instant time can change them. */
  due(shard: number): string {
    return `${this.shardTag(shard)}:due`;
  }

  /**
   * Settled outcomes of the shard waiting to move to the PostgreSQL archive: a sorted set of outcome refs
   * scored by when their verdict was committed (wall time, ms); only written while an archive is configured.
   */
  settled(shard: number): string {
    return `${this.shardTag(shard)}:settled`;
  }

  /**
   * Settled outcomes whose rows are committed in the archive, waiting out a grace period before their keys
   * are deleted: a sorted set of refs scored by the archive commit time (ms).
   */
  archived(shard: number): string {
    return `${this.shardTag(shard)}:archived`;
  }

  /** What was archived of each outcome in `archived`: hash ref -> "<snapshot SHA-1> <event log length>". */
  archivedDigests(shard: number): string {
    return `${this.shardTag(shard)}:archived-digests`;
  }

  /**
   * A Bloom filter (a bitmap) of the refs the archiver deleted from the shard's Redis keys: a batch asks
   * PostgreSQL only about the unknown outcomes it may hold (src/archive-read/archived-filter.ts).
   */
  archivedFilter(shard: number): string {
    return `${this.shardTag(shard)}:archived-filter`;
  }

  /** Lease of the shard: the owning worker and its fencing token. */
  lease(shard: number): string {
    return `${this.shardTag(shard)}:lease`;
  }

  /** The id of the shard's last commit (commit.lua): a re-sent commit finds it and writes nothing twice. */
  lastCommit(shard: number): string {
    return `${this.shardTag(shard)}:last-commit`;
  }

  /** Monotonic fencing counter of the shard. */
  fence(shard: number): string {
    return `${this.shardTag(shard)}:fence`;
  }

  /**
   * The account's outcomes on this shard (sorted set by creation time); listing merges the shards. Kept per
   * shard so the actor's commit touches one slot.
   */
  outcomeIndex(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:outcomes:${accountId}`;
  }

  /**
   * Open outcomes of each account on this shard (hash account -> count): the open-outcome quota's share on
   * the shard, kept by open-outcome.lua and by the shard's commits.
   */
  openOutcomes(shard: number): string {
    return `${this.shardTag(shard)}:open-outcomes`;
  }

  /** The account's dead letters on this shard (a stream); the DLQ API merges the shards. */
  deadLetters(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:dlq:${accountId}`;
  }

  /**
   * Accounts that have had dead letters on this shard (sorted set, all score 0), written by the commit that
   * dead-letters: how a worker finds the shard's dead-letter streams to measure the queue without a scan.
   */
  deadLetterAccounts(shard: number): string {
    return `${this.shardTag(shard)}:dlq-accounts`;
  }

  /**
   * Whole events of this shard's dead letters that keep only a prefix in Redis (a stream, written by the commit
   * that sets the letter aside: field d the whole letter, p its entry in the account's dead-letter stream),
   * until the dead-letter archiver has copied them to PostgreSQL.
   */
  deadLetterWholeEvents(shard: number): string {
    return `${this.shardTag(shard)}:dlq-whole`;
  }

  /**
   * Dead letters of this shard copied to PostgreSQL and still in Redis (a stream: field a the account, e the
   * last entry copied, n how many), deleted from Redis a grace period after their copy.
   */
  deadLettersCopied(shard: number): string {
    return `${this.shardTag(shard)}:dlq-copied`;
  }

  /** The account's charges on this shard (a stream, one entry per confirmed Variant B outcome). */
  charges(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:charges:${accountId}`;
  }

  /**
   * Charges of the shard waiting to be copied to the PostgreSQL archive (a stream of `QueuedCharge` JSON),
   * appended by the commit that makes each charge; only written while an archive is configured.
   */
  chargesToArchive(shard: number): string {
    return `${this.shardTag(shard)}:charges-to-archive`;
  }

  /**
   * Charges of the shard committed to the archive (a stream, one entry per charge: its account and its
   * entry id in the account's charge stream), whose Redis entries are deleted once the entry is older than
   * the hot retention.
   */
  chargesArchived(shard: number): string {
    return `${this.shardTag(shard)}:charges-archived`;
  }

  /** Billable events applied per customer of the account on this shard (hash customer -> count). */
  usage(shard: number, accountId: string): string {
    return `${this.shardTag(shard)}:usage:${accountId}`;
  }

  /**
   * This shard's partial score model of one cohort (a task's or an agent's outcomes in one account): a hash
   * of counts and sums that the shard's commit increments; a cohort's model is the sum over the shards.
   */
  scoreModel(shard: number, accountId: string, kind: "task" | "agent", key: string): string {
    return `${this.shardTag(shard)}:model:${accountId}:${kind}:${key}`;
  }

  /**
   * The account's scored outcomes on this shard, by one score (sorted set, lexical members, see
   * scoreMember); sorted listings merge the shards.
   */
  scoreIndex(shard: number, accountId: string, score: "trajectory" | "anomaly" | "novelty"): string {
    return `${this.shardTag(shard)}:by-${score}:${accountId}`;
  }

  /** Events of the account received in one hour (epoch hours), counted on this shard: hash minute -> count. */
  ingestCounts(shard: number, accountId: string, hour: number): string {
    return `${this.shardTag(shard)}:ingest:${accountId}:${hour}`;
  }

  /**
   * Insight rollup of one account and UTC day (epoch ms of its midnight) on this shard: a hash of one field
   * per group, each the group's day as msgpack, written by the commits that make what it counts
   * (docs/insights.md). Named apart from the hourly hashes of development builds before it, which no
   * release wrote and nothing reads.
   */
  insightRollupDay(shard: number, accountId: string, day: number): string {
    return `${this.shardTag(shard)}:rollup-day:${accountId}:${day}`;
  }

  /** The shard's insight rollups in Redis: a sorted set of "<day>\x1f<account>" scored by the day. */
  insightRollupDays(shard: number): string {
    return `${this.shardTag(shard)}:rollup-days`;
  }

  /**
   * Rollups taken out of the live set to move to the archive: a sorted set of "<move id>\x1f<day>\x1f<account>"
   * scored -1 until the archive committed the move, then by when it did (ms).
   */
  insightRollupMoves(shard: number): string {
    return `${this.shardTag(shard)}:rollup-day-moves`;
  }

  /** One rollup being moved to the archive, under the id of its move. */
  insightRollupMoving(shard: number, moveId: string): string {
    return `${this.shardTag(shard)}:rollup-day-moving:${moveId}`;
  }

  /**
   * The shard's webhook outbox (a stream): one entry per verdict, dead letter or charge, written by the
   * commit that made it; the shard owner's dispatcher fans entries out to endpoints and deletes them.
   */
  webhookOutbox(shard: number): string {
    return `${this.shardTag(shard)}:wh:outbox`;
  }

  /** Sequence of the shard's webhook messages (a counter): the queue order, which is commit order. */
  webhookSequence(shard: number): string {
    return `${this.shardTag(shard)}:wh:seq`;
  }

  /** Endpoints with undelivered messages on this shard (a set of "<account>\n<endpoint id>"). */
  webhookActive(shard: number): string {
    return `${this.shardTag(shard)}:wh:active`;
  }

  /** One endpoint's undelivered messages from this shard (sorted set message id by sequence). */
  webhookQueue(shard: number, accountId: string, endpointId: string): string {
    return `${this.shardTag(shard)}:wh:queue:${accountId}:${endpointId}`;
  }

  /** One endpoint's messages from this shard, for listing (sorted set message id by creation time). */
  webhookMessages(shard: number, accountId: string, endpointId: string): string {
    return `${this.shardTag(shard)}:wh:msgs:${accountId}:${endpointId}`;
  }

  /** One message to one endpoint (a hash: body, status, attempts, next attempt time); expires. */
  webhookMessage(shard: number, accountId: string, endpointId: string, messageId: string): string {
    return `${this.shardTag(shard)}:wh:msg:${accountId}:${endpointId}:${messageId}`;
  }

  /** The delivery attempts of one message to one endpoint (a list of JSON attempts); expires with it. */
  webhookAttempts(shard: number, accountId: string, endpointId: string, messageId: string): string {
    return `${this.shardTag(shard)}:wh:att:${accountId}:${endpointId}:${messageId}`;
  }

  /**
   * One message's body, stored once for every endpoint it goes to (a hash: the body and how many endpoints'
   * messages refer to it); outlives each of them.
   */
  webhookBody(shard: number, messageId: string): string {
    return `${this.shardTag(shard)}:wh:body:${messageId}`;
  }

  /** One endpoint's delivered and failed messages from this shard (sorted set message id by creation time). */
  webhookDone(shard: number, accountId: string, endpointId: string): string {
    return `${this.shardTag(shard)}:wh:done:${accountId}:${endpointId}`;
  }

  /**
   * Accounts with at least one webhook endpoint, copied into every shard's slot so the commit can tell
   * whether a notification has anyone to go to (a set; its member "*" says it is complete).
   */
  webhookAccounts(shard: number): string {
    return `${this.shardTag(shard)}:wh:accounts`;
  }

  // ---- per account ----

  /** Since when each of the account's webhook endpoints has failed every attempt (hash endpoint -> ms). */
  webhookFailingSince(accountId: string): string {
    return `${this.accountTag(accountId)}:wh:failing`;
  }

  /** The account's events-per-second token bucket (a hash: tokens left, time of the last refill), shared by every ingress. */
  eventBucket(accountId: string): string {
    return `${this.accountTag(accountId)}:event-bucket`;
  }

  /** Held while one of the account's webhook endpoints is created, changed or deleted (webhook-accounts.ts). */
  webhookEndpointsLock(accountId: string): string {
    return `${this.accountTag(accountId)}:wh:lock`;
  }

  /** The account's OTLP mapping override (src/otlp/mapping-config.ts), msgpack; absent means the defaults. */
  otlpMapping(accountId: string): string {
    return `${this.accountTag(accountId)}:otlp:mapping`;
  }

  /**
   * The keys each trace's spans inherit (outcome, task, agent, customer), once a span of it named its outcome,
   * recorded in one period: a hash, trace id -> packed keys (resolve-traces.lua).
   */
  otlpTraceKeys(accountId: string, period: number): string {
    return `${this.accountTag(accountId)}:otlp:trace-keys:${period}`;
  }

  /** Spans of a trace whose outcome is not known yet, held until a span of the trace names it (a list). */
  otlpHeldSpans(accountId: string, traceId: string): string {
    return `${this.accountTag(accountId)}:otlp:held:${traceId}`;
  }

  /** The account's traces with held spans: a sorted set of trace ids scored by when their hold ends (ms). */
  otlpHeldTraces(accountId: string): string {
    return `${this.accountTag(accountId)}:otlp:held-traces`;
  }

  /** How many spans the account holds, across its traces: what bounds the hold. */
  otlpHeldCount(accountId: string): string {
    return `${this.accountTag(accountId)}:otlp:held-count`;
  }

  /** Accounts that may hold spans, for the sweep that ends expired holds: account -> change counter. */
  otlpHoldingAccounts(): string {
    return `${this.prefix}{otlp-hold}:accounts`;
  }

  account(accountId: string): string {
    return `${this.accountTag(accountId)}:account`;
  }

  /** One configuration record of the account (a task, agent, customer or rate card), as JSON. */
  record(accountId: string, kind: RecordKind, key: string): string {
    return `${this.accountTag(accountId)}:${kind}:${key}`;
  }

  /** The account's live records of one kind: a sorted set of keys (all score 0) listed in key order. */
  records(accountId: string, kind: RecordKind): string {
    return `${this.accountTag(accountId)}:${kind}s`;
  }

  // ---- dashboard ----

  /** A dashboard user, by lower-cased email (JSON: account, scrypt parameters, salt, hash). */
  dashboardUser(email: string): string {
    return `${this.prefix}user:${email}`;
  }

  /** A dashboard session, by the SHA-256 of its cookie value (a hash; expires when idle). */
  dashboardSession(idHash: string): string {
    return `${this.prefix}session:${idHash}`;
  }

  /**
   * Sign-in attempts of one email (by its SHA-256: a hash with a TTL) or client network, or sign-ups of one
   * client network, in the current window (a counter with a TTL).
   */
  signInAttempts(scope: "email" | "address" | "signup", subject: string): string {
    return `${this.prefix}signin:${scope}:${subject}`;
  }

  // ---- global ----

  /** Hash account id -> current token generation. Tagged like the rotation channel (same slot). */
  tokenGenerations(): string {
    return `${this.prefix}{tokens}:generations`;
  }

  /**
   * Shard pub/sub channel (SPUBLISH/SSUBSCRIBE) announcing a rotated token: message "<account>:<generation>".
   * It shares the generations hash's slot, so the rotation script can publish it, and subscribers listen on
   * the very node that runs the rotation: no cluster-bus hop between a rotation and its announcement.
   */
  tokenRotatedChannel(): string {
    return `${this.prefix}{tokens}:rotated`;
  }

  /** Nodes that applied one rotation (a list of node ids), so `rotate` returns only once all have. */
  tokenRotationAcks(accountId: string, generation: number): string {
    return `${this.prefix}{tokens}:acks:${accountId}:${generation}`;
  }

  /** The deployment's shard count, recorded by the first process to start (shard-count-guard.ts). */
  shardCount(): string {
    return `${this.prefix}shards`;
  }

  /**
   * The layout of the shards' archived-outcome filters ("<version> <bits> <hashes>") once they hold every
   * outcome the archive does; absent until then (a first start, or data from before the filters).
   */
  archivedFilterReady(): string {
    return `${this.prefix}archived-filter-ready`;
  }

  /** Held by the worker rebuilding the archived-outcome filters from the archive (one at a time). */
  archivedFilterRebuild(): string {
    return `${this.prefix}archived-filter-rebuild`;
  }

  /** Sorted set of live workers scored by heartbeat expiry. */
  workers(): string {
    return `${this.prefix}workers`;
  }
}
