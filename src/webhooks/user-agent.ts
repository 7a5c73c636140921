// The `user-agent` of webhook deliveries: Verdict and its version, read once from package.json (the file
// sits two folders up from src/webhooks and three from dist/src/webhooks).
import { readFileSync } from "node:fs";

function version(): string {
  for (const relative of ["../../package.json", "../../../package.json"]) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "verdict" && typeof parsed.version === "string") return parsed.version;
    } catch {
      // Not at this level: try the next.
    }
  }
  return "unknown";
}

export const WEBHOOK_USER_AGENT = `Verdict-Webhooks/${version()}`;
