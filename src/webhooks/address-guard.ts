// SSRF guard for webhook URLs: http(s) only, and (unless private addresses are allowed) no host that
// resolves to a loopback, private, link-local, multicast or otherwise special address, IPv4 or IPv6,
// IPv4-mapped and NAT64/6to4-embedded IPv4 included. Delivery connects to the very address checked here,
// so DNS cannot change between the check and the connection.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export interface CheckedTarget {
  url: URL;
  /** The address to connect to. */
  address: string;
  family: 4 | 6;
}

export class UnsafeUrlError extends Error {
  override readonly name = "UnsafeUrlError";
}

/** IPv4 ranges refused: [first address, prefix length]. */
const BLOCKED_V4: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

function v4ToInt(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function blockedV4(value: number): boolean {
  return BLOCKED_V4.some(([base, prefix]) => {
    const size = 2 ** (32 - prefix);
    return Math.floor(value / size) === Math.floor(v4ToInt(base) / size);
  });
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase().split("%")[0] ?? "";
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = v4ToInt(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

function blockedV6(address: string): boolean {
  const g = v6Groups(address);
  const embeddedV4 = (hi: number, lo: number): number => hi * 65536 + lo;
  const zeroUpTo = (n: number): boolean => g.slice(0, n).every((group) => group === 0);
  if (zeroUpTo(8)) return true; // ::
  if (zeroUpTo(7) && g[7] === 1) return true; // ::1
  if (zeroUpTo(5) && g[5] === 0xffff) return blockedV4(embeddedV4(g[6]!, g[7]!)); // ::ffff:a.b.c.d
  if (zeroUpTo(6)) return true; // ::a.b.c.d (IPv4-compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
    return blockedV4(embeddedV4(g[6]!, g[7]!)); // NAT64
  if (g[0] === 0x2002) return blockedV4(embeddedV4(g[1]!, g[2]!)); // 6to4
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** True when an IP address is one webhooks must not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4(v4ToInt(address));
  if (family === 6) return blockedV6(address);
  return true;
}

/** The URL's problem as a sentence, or undefined when it is an absolute http(s) URL (no DNS here). */
export function urlShapeProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  if (url.hostname === "") return "must name a host";
  return undefined;
}

/**
 * Resolves the URL's host and checks every address it resolves to; returns the address to connect to.
 * Throws UnsafeUrlError when the URL is refused, and DNS errors as they come.
 */
export async function checkTarget(text: string, allowPrivate: boolean): Promise<CheckedTarget> {
  const problem = urlShapeProblem(text);
  if (problem !== undefined) throw new UnsafeUrlError(`url ${problem}`);
  const url = new URL(text);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  const addresses =
    literal !== 0 ? [{ address: host, family: literal }] : await lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new UnsafeUrlError(`host ${host} does not resolve`);
  if (!allowPrivate) {
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused)
      throw new UnsafeUrlError(
        `host ${host} resolves to ${refused.address}, a loopback, private, link-local or multicast address`,
      );
  }
  const chosen = addresses[0]!;
  return { url, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
