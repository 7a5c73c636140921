// Cursors are opaque to clients: base64url of a store's position (an index member or merged stream ids).

export function encodeCursor(position: string): string {
  return Buffer.from(position).toString("base64url");
}

/**
 * The position in a cursor, or undefined when the text is not one `encodeCursor` could have made: Buffer
 * decoding skips characters outside the alphabet and stops at padding, so only a cursor that encodes
 * back to itself, of well-formed UTF-8, is taken.
 */
export function decodeCursor(cursor: string): string | undefined {
  const bytes = Buffer.from(cursor, "base64url");
  const position = bytes.toString();
  return bytes.toString("base64url") === cursor && Buffer.from(position).equals(bytes) ? position : undefined;
}
