#!/usr/bin/env node
// The `verdict` command line: one subcommand per file, loaded only when used so `verdict condition`
// starts without loading the server.

type Command = () => Promise<{ run(args: string[]): Promise<number> }>;

const COMMANDS: Record<string, { summary: string; load: Command }> = {
  serve: { summary: "run the service [--role all|ingress|worker]", load: () => import("./serve.js") },
  account: { summary: "account create NAME: new account, prints its token", load: () => import("./account.js") },
  token: {
    summary: "token show|rotate ACCOUNT_ID: print or replace an account's token",
    load: () => import("./token.js"),
  },
  user: { summary: "user add ACCOUNT_ID EMAIL: a dashboard user (password on stdin)", load: () => import("./user.js") },
  condition: { summary: "check and try success conditions offline", load: () => import("./condition.js") },
  migrate: {
    summary: "apply the archive's PostgreSQL migrations (VERDICT_ARCHIVE_URL)",
    load: () => import("./migrate.js"),
  },
  archive: {
    summary: "archive run: move every settled outcome due now (turning the archive on)",
    load: () => import("./archive.js"),
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => `  verdict ${name.padEnd(10)} ${summary}`);
  return `usage: verdict <command> [args]\n\n${lines.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    process.stderr.write(usage());
    return name === undefined || name === "help" || name === "--help" ? 0 : 2;
  }
  const module = await command.load();
  return module.run(args);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
