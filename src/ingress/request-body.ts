// What the edge makes of a request's body: the refusal of one past its route's cap, and its JSON.
import { ApiError } from "../errors/api-error.js";

export class BodyTooLarge extends ApiError {
  constructor(limit: number) {
    super("PAYLOAD_TOO_LARGE", `request body is larger than ${limit} bytes`);
  }
}

/** The body's JSON; malformed JSON is the client's VALIDATION_ERROR. */
export function parseJson(bytes: Buffer | undefined): unknown {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch (error) {
    throw new ApiError("VALIDATION_ERROR", "request body is not valid JSON", [{ path: "$", message: (error as Error).message }], { cause: error });
  }
}
