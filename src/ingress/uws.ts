// Loads uWebSockets.js and fails loudly when it fell back to its slow JavaScript shim instead of the native binary.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import uWS from "uWebSockets.js";

export { uWS };
export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from "uWebSockets.js";

export class NativeUwsMissingError extends Error {
  override readonly name = "NativeUwsMissingError";
}

/**
 * The package silently swaps in a pure-JS implementation when its binary does not load (wrong Node ABI or
 * glibc), which serves requests an order of magnitude slower. Refuse that: require the exact binary the
 * package would pick and check the default import is that same native module.
 */
export function assertNativeUws(): void {
  const require = createRequire(import.meta.url);
  const entry = require.resolve("uWebSockets.js");
  const binary = join(
    dirname(entry),
    "..",
    "binaries",
    `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`,
  );
  let native: unknown;
  try {
    native = require(binary);
  } catch (error) {
    throw new NativeUwsMissingError(
      `uWebSockets.js has no working native binary for this platform (${binary}); it would fall back to a slow ` +
        `JavaScript shim. Use Node.js 20 on Linux/macOS x64/arm64 with glibc >= 2.36 (see README).`,
      { cause: error },
    );
  }
  if (native !== uWS) {
    throw new NativeUwsMissingError(
      `uWebSockets.js loaded its JavaScript fallback instead of ${binary} (is UWS_USE_FALLBACK set?)`,
    );
  }
}
