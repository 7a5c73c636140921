// A read that needs the archive while PostgreSQL does not answer fails as the API's other backend trouble
// does: 503 SERVICE_UNAVAILABLE with a Retry-After, never a 500 or a partial answer.
import { ApiError } from "../errors/api-error.js";

export async function fromArchive<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ApiError(
      "SERVICE_UNAVAILABLE",
      "the archive (PostgreSQL) does not answer; try again shortly",
      undefined,
      { cause: error, retryAfterSeconds: 1 },
    );
  }
}
