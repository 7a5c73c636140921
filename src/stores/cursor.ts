// Cursors are opaque to clients: base64url of a store's position (an index member or merged stream ids).

export function encodeCursor(position: string): string {
  return Buffer.from(position).toString("base64url");
}

export function decodeCursor(cursor: string): string {
  return Buffer.from(cursor, "base64url").toString();
}
