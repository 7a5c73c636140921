// What a name in a condition may look like (section 8): actions, property paths, reserved words.
import { DEFAULT_PATH } from "./ast.js";
import { MAX_ACTION_LENGTH } from "./limits.js";

export const ACTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
export const PATH_SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Uppercase words that can never be a name. `COUNT G F IDLE` are operators only before `(`. */
export const RESERVED = new Set(["AND", "OR", "NOT", "MATCHES"]);

export function isActionChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x5f || // _
    code === 0x2e || // .
    code === 0x2d // -
  );
}

export function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
}

/** Why `name` cannot be an action, or null when it can. */
export function actionNameProblem(name: string): string | null {
  if (name === "") return "empty action name";
  if (!ACTION_NAME.test(name)) return `invalid action name ${JSON.stringify(name)}`;
  if (RESERVED.has(name)) return `'${name}' is a reserved word, not an action name`;
  if (name.length > MAX_ACTION_LENGTH) return `action name longer than ${MAX_ACTION_LENGTH} characters`;
  return null;
}

/** Why `path` cannot be a property path, or null when it can. */
export function pathProblem(path: string): string | null {
  if (path === "") return "empty property path";
  for (const segment of path.split(".")) {
    if (!PATH_SEGMENT.test(segment)) return `invalid property path ${JSON.stringify(path)}`;
  }
  return null;
}

/** Splits `action:path` (JSON form's `fact`); `action` alone reads `value`. */
export function splitFact(fact: string): { action: string; path: string } {
  const colon = fact.indexOf(":");
  if (colon < 0) return { action: fact, path: DEFAULT_PATH };
  return { action: fact.slice(0, colon), path: fact.slice(colon + 1) };
}
