// The metric names a PromQL expression reads, for the tests that hold dashboards and alert rules to the
// metrics the service really exports.

const PROMQL_KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "offset",
  "inf",
  "nan",
  "atan2",
]);

/** The metric names a PromQL expression selects (function and aggregation names, labels and literals dropped). */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\$\{?\w+\}?/g, " ") // Grafana variables
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ") // string literals
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ") // label lists
    .replace(/\boffset\s+\S+/g, " ")
    .replace(/(?<![\w:.])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, " "); // numbers
  const names: string[] = [];
  for (const [, name, call] of bare.matchAll(/([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    if (call === undefined && !PROMQL_KEYWORDS.has(name!.toLowerCase())) names.push(name!);
  }
  return names;
}
