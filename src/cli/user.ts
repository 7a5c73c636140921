// `verdict user add ACCOUNT_ID EMAIL`: a dashboard user for an existing account (the way in when sign-up is
// closed). The password is read from standard input, so it stays out of the shell history and `ps`.
import type { Readable } from "node:stream";
import { MIN_PASSWORD_LENGTH } from "../accounts/password.js";
import { UserInputError, Users } from "../accounts/users.js";
import { withAccounts } from "./account.js";

async function readPassword(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  // The first line: `echo "$PASSWORD" | verdict user add ...` adds a newline that is not part of it.
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
}

export async function run(args: string[], input: Readable = process.stdin): Promise<number> {
  const [sub, accountId, email, ...extra] = args;
  if (sub !== "add" || !accountId || !email || extra.length > 0) {
    process.stderr.write(
      `usage: verdict user add ACCOUNT_ID EMAIL   (password, at least ${MIN_PASSWORD_LENGTH} characters, on stdin)\n`,
    );
    return 2;
  }
  if ("isTTY" in input && input.isTTY) process.stderr.write("Password (then Enter, Ctrl+D): ");
  const password = await readPassword(input);
  return withAccounts(async (accounts, redis, keys) => {
    if ((await accounts.name(accountId)) === undefined) {
      process.stderr.write(`no account ${accountId}\n`);
      return 1;
    }
    try {
      const user = await new Users(redis, keys).add(accountId, email, password);
      process.stdout.write(`${JSON.stringify({ account_id: user.account_id, email: user.email })}\n`);
      return 0;
    } catch (error) {
      if (error instanceof UserInputError) {
        process.stderr.write(`${error.field}: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
  });
}
