// A commit's snapshots (set and create), sent as script arguments of their own after commit.lua's five fixed
// ones rather than inside its operations: Redis hashes every string it makes a Lua value byte by byte, so a
// snapshot inside the operations was hashed twice (as part of ARGV[3], then unpacked) and copied once more
// into them. The sets of a run go as one "mset" operation: their keys, and the index of the first snapshot.

/** ARGV index of the first snapshot. */
const FIRST_SNAPSHOT_ARG = 6;

export class SnapshotArgs {
  /** In ARGV order. */
  readonly all: Buffer[] = [];
  /** Each snapshot's ARGV index, so a notification names the snapshot already sent. */
  private readonly argOf = new Map<Buffer, number>();
  /** KEYS indexes of the sets not yet in an mset operation; their snapshots are the last of `all`. */
  private pendingKeys: number[] = [];
  /** Sets staged in all. */
  sets = 0;

  /** Adds a snapshot; its ARGV index. */
  add(bytes: Buffer): number {
    this.all.push(bytes);
    const arg = FIRST_SNAPSHOT_ARG + this.all.length - 1;
    this.argOf.set(bytes, arg);
    return arg;
  }

  /** A set: the snapshot for KEYS[key], written by the next mset operation. */
  set(key: number, bytes: Buffer): void {
    this.add(bytes);
    this.pendingKeys.push(key);
    this.sets++;
  }

  arg(bytes: Buffer): number | undefined {
    return this.argOf.get(bytes);
  }

  get pending(): boolean {
    return this.pendingKeys.length > 0;
  }

  /** The pending sets as an mset operation's fields (the first snapshot's ARGV index, the keys); none pending after. */
  takePending(): { first: number; keys: number[] } {
    const keys = this.pendingKeys;
    this.pendingKeys = [];
    return { first: FIRST_SNAPSHOT_ARG + this.all.length - keys.length, keys };
  }
}
