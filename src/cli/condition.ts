// `verdict condition`: check and try success conditions offline, like `promtool check rules` or `opa eval`.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  ConditionParseError,
  compileCondition,
  formatCondition,
  parseCondition,
  replay,
  toConditionJson,
  type Condition,
  type ConditionEvent,
} from "../condition/index.js";

/** Where the command writes; tests pass their own. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const USAGE = `usage:
  verdict condition fmt [--json] [--variant A|B] 'TEXT or JSON'
      print the canonical text (or with --json the JSON tree form); exit 1 on a parse error
  verdict condition eval --condition 'TEXT or JSON' [--events FILE|-] [--now ISO] [--created-at ISO] [--variant A|B]
      replay events (one JSON object a line: {"action", "properties", "at"}) and print what the service
      would have decided by --now (default: the current time)
`;

/** Bad arguments: exit 2 with the usage. */
class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Bad content in the events file: exit 1 with the message. */
class InputError extends Error {
  override readonly name = "InputError";
}

/** A condition, or the parse error printed with a caret under the column when the input was text. */
function parseOrReport(input: string, valueOnly: boolean, io: Io): Condition | null {
  try {
    return parseCondition(input, { valueOnly });
  } catch (error) {
    if (!(error instanceof ConditionParseError)) throw error;
    let message = `condition: ${error.message}\n`;
    if (error.column !== undefined && !input.includes("\n")) {
      message += `  ${input}\n  ${" ".repeat(error.column - 1)}^\n`;
    }
    io.err(message);
    return null;
  }
}

function variantOf(value: string | undefined): "A" | "B" {
  if (value === undefined || value === "A" || value === "B") return value ?? "A";
  throw new UsageError(`--variant must be A or B, not ${JSON.stringify(value)}`);
}

/** Epoch ms of an ISO 8601 time (or of epoch ms given as a number), or NaN. */
function instant(value: string | number): number {
  return typeof value === "number" ? value : Date.parse(value);
}

function optionInstant(value: string, option: string): number {
  const ms = instant(value);
  if (!Number.isFinite(ms)) throw new UsageError(`${option}: not an ISO 8601 time: ${JSON.stringify(value)}`);
  return ms;
}

function fmt(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean" }, variant: { type: "string" } },
  });
  if (positionals.length !== 1 || positionals[0] === undefined) throw new UsageError("fmt takes one condition");
  const condition = parseOrReport(positionals[0], variantOf(values.variant) === "B", io);
  if (condition === null) return 1;
  io.out(`${values.json === true ? JSON.stringify(toConditionJson(condition)) : formatCondition(condition)}\n`);
  return 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads the events file: one JSON event a line, blank lines skipped; errors name the line. */
function parseEvents(text: string, variant: "A" | "B"): ConditionEvent[] {
  const events: ConditionEvent[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `events line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isRecord(raw)) throw new InputError(`${where}: expected a JSON object`);
    const { action, properties } = raw;
    if (typeof action !== "string" || action === "")
      throw new InputError(`${where}: "action" must be a non-empty string`);
    if (properties !== undefined && properties !== null && !isRecord(properties)) {
      throw new InputError(`${where}: "properties" must be an object`);
    }
    const at = typeof raw.at === "string" || typeof raw.at === "number" ? instant(raw.at) : NaN;
    if (!Number.isFinite(at)) throw new InputError(`${where}: "at" must be an ISO 8601 time`);
    const props = isRecord(properties) ? properties : undefined;
    events.push({
      action,
      // Variant B's evaluator sees only `value`, as the service passes it.
      properties:
        variant === "B"
          ? props !== undefined && Object.hasOwn(props, "value")
            ? { value: props.value }
            : undefined
          : props,
      at,
    });
  });
  return events;
}

async function readEvents(file: string | undefined): Promise<string> {
  if (file === undefined) return "";
  if (file !== "-") return readFile(file, "utf8");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function evalCommand(args: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      condition: { type: "string" },
      events: { type: "string" },
      now: { type: "string" },
      "created-at": { type: "string" },
      variant: { type: "string" },
    },
  });
  if (values.condition === undefined) throw new UsageError("eval needs --condition");
  const variant = variantOf(values.variant);
  const condition = parseOrReport(values.condition, variant === "B", io);
  if (condition === null) return 1;
  let text: string;
  try {
    text = await readEvents(values.events);
  } catch (error) {
    io.err(`events: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let all: ConditionEvent[];
  try {
    all = parseEvents(text, variant);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.err(`${error.message}\n`);
    return 1;
  }
  const now = values.now === undefined ? Date.now() : optionInstant(values.now, "--now");
  // The service has seen only the events received by `now`.
  const events = all.filter((event) => event.at <= now);
  if (events.length < all.length) io.err(`ignoring ${all.length - events.length} event(s) after --now\n`);
  const createdAt =
    values["created-at"] === undefined ? (events[0]?.at ?? now) : optionInstant(values["created-at"], "--created-at");

  const compiled = compileCondition(condition);
  const { verdict, evaluation: view, settlement } = replay(compiled, events, { createdAt, now });
  io.out(
    `${JSON.stringify({
      condition: compiled.text,
      annotated: view.annotated,
      value: view.value,
      verdict: verdict?.kind ?? "none",
      settlement: settlement.kind,
      progress: view.progress,
      next_wake_at: view.nextWakeAt === null ? null : new Date(view.nextWakeAt).toISOString(),
    })}\n`,
  );
  return 0;
}

export async function run(args: string[], io: Io = processIo): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === "fmt") return fmt(rest, io);
    if (sub === "eval") return await evalCommand(rest, io);
    io.err(USAGE);
    return sub === undefined || sub === "help" || sub === "--help" ? 0 : 2;
  } catch (error) {
    // parseArgs throws TypeError-like errors with a code for unknown or malformed options.
    if (
      error instanceof UsageError ||
      (error instanceof Error && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
    ) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
