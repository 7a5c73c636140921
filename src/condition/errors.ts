// The one error the condition parser throws: what was expected and where, ready for VALIDATION_ERROR details.

export class ConditionParseError extends Error {
  override readonly name = "ConditionParseError";
  /** 1-based column in the text form (UTF-16 code units), when the input was text. */
  readonly column?: number;
  /** Pointer into the JSON form relative to its root (`all[2].operator`), when the input was JSON. */
  readonly path?: string;

  constructor(message: string, where?: { column?: number; path?: string; cause?: unknown }) {
    super(message, where?.cause === undefined ? undefined : { cause: where.cause });
    if (where?.column !== undefined) this.column = where.column;
    if (where?.path !== undefined) this.path = where.path;
  }
}
