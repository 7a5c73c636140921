// `verdict token show ID` and `verdict token rotate ID`: print {"account_id", "token"}; rotate revokes the old one.
import { AccountNotFoundError } from "../accounts/accounts.js";
import { withAccounts } from "./account.js";

export async function run(args: string[]): Promise<number> {
  const [sub, accountId, ...extra] = args;
  if ((sub !== "show" && sub !== "rotate") || !accountId || extra.length > 0) {
    process.stderr.write("usage: verdict token show ACCOUNT_ID | verdict token rotate ACCOUNT_ID\n");
    return 2;
  }
  try {
    const token = await withAccounts((accounts) =>
      sub === "show" ? accounts.show(accountId) : accounts.rotate(accountId),
    );
    process.stdout.write(`${JSON.stringify(token)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AccountNotFoundError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
