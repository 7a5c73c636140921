// The actor area's Lua scripts (lua/) and what each replies, with the reply codes named as the scripts'
// headers name them; callers compare against these names, never against bare numbers.
import type { ScriptName } from "../redis/scripts.js";

/** A fenced script's reply when the caller's lease no longer holds the shard (commit, claim-orphans, archive-delete). */
export const LEASE_LOST = -1;

/** commit.lua's replies. */
export const COMMIT_REPLY = {
  COMMITTED: 1,
  FOREIGN_PENDING: 0,
  LEASE_LOST,
  /** REFUSED_OP - i: operation i (from 0) found its precondition failed (a create's key taken, no open-quota room). */
  REFUSED_OP: -2,
} as const;

/** lease-renew.lua's and lease-release.lua's replies. */
export const LEASE_REPLY = { HELD: 1, NOT_HELD: 0 } as const;

type LeaseReply = (typeof LEASE_REPLY)[keyof typeof LEASE_REPLY];

export interface ActorScriptReplies {
  /** A COMMIT_REPLY code, or REFUSED_OP - i. */
  commit: number;
  /** The new lease value "<worker>:<token>", or null when another worker holds the lease. */
  "lease-acquire": string | null;
  "lease-renew": LeaseReply;
  "lease-release": LeaseReply;
  /** Outcomes deleted, or LEASE_LOST. */
  "archive-delete": number;
  /** Entries claimed from other consumers, or LEASE_LOST. */
  "claim-orphans": number;
}

export type ActorScript = ScriptName<ActorScriptReplies>;

export const ACTOR_SCRIPTS: readonly ActorScript[] = [
  "commit",
  "lease-acquire",
  "lease-renew",
  "lease-release",
  "archive-delete",
  "claim-orphans",
];
