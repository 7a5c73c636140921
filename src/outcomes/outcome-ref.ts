// An outcome's reference inside its shard: "<account>\n<key>" (account ids never hold a newline, keys may
// hold anything), used as due-index member and cache key.

export function outcomeRef(accountId: string, outcomeKey: string): string {
  return `${accountId}\n${outcomeKey}`;
}

export function parseOutcomeRef(ref: string): { accountId: string; outcomeKey: string } {
  const split = ref.indexOf("\n");
  return { accountId: ref.slice(0, split), outcomeKey: ref.slice(split + 1) };
}
