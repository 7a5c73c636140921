// The condition field's check as the person types: the condition module itself, answered as JSON, with no
// round trip through the queue.
import { ConditionParseError, formatCondition, parseCondition } from "../../condition/index.js";
import type { DashboardRoute } from "../context.js";
import { json } from "../web.js";

export interface ConditionCheck {
  ok: boolean;
  canonical?: string;
  error?: string;
  column?: number;
}

export function checkCondition(text: string, valueOnly: boolean): ConditionCheck {
  if (text.trim() === "") return { ok: false, error: "Enter a condition, such as COUNT(reply)>=2 AND NOT escalated." };
  try {
    return { ok: true, canonical: formatCondition(parseCondition(text, { valueOnly })) };
  } catch (error) {
    if (!(error instanceof ConditionParseError)) throw error;
    const message = error.message.charAt(0).toUpperCase() + error.message.slice(1);
    return { ok: false, error: `${message}.`, ...(error.column === undefined ? {} : { column: error.column }) };
  }
}

export const conditionCheckRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/condition-check",
    handle: (ctx) =>
      json(200, checkCondition(ctx.req.query.get("condition") ?? "", ctx.req.query.get("value_only") === "1")),
  },
];
