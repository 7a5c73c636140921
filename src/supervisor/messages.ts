// What the supervisor and its children say over the IPC channel node:cluster gives them: the supervisor
// asks, a child answers with the same id. Anything else on the channel is not ours and is ignored.
import type { MetricObjectWithValues, MetricValue } from "prom-client";

export type ChildMetrics = MetricObjectWithValues<MetricValue<string>>[];

export type SupervisorRequest = { verdict: "readiness"; id: number } | { verdict: "metrics"; id: number };

export type ChildReply =
  { verdict: "readiness"; id: number; failing: string[] } | { verdict: "metrics"; id: number; metrics: ChildMetrics };

function tagged(message: unknown): message is { verdict: unknown; id: unknown } {
  return (
    typeof message === "object" &&
    message !== null &&
    "verdict" in message &&
    "id" in message &&
    typeof message.id === "number"
  );
}

export function isSupervisorRequest(message: unknown): message is SupervisorRequest {
  return tagged(message) && (message.verdict === "readiness" || message.verdict === "metrics");
}

export function isChildReply(message: unknown): message is ChildReply {
  return isSupervisorRequest(message) && ("failing" in message || "metrics" in message);
}
