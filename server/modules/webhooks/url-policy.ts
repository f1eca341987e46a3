// Where till may send webhooks. In production: HTTPS only, and never to loopback, private,
// link-local, carrier-grade NAT, multicast, reserved or cloud-metadata addresses. The rule is
// checked when an endpoint is saved and again at every connection, on the addresses the name
// resolves to then, and the socket connects to the very address that was checked, so a DNS answer
// that changes between check and connect (rebinding) cannot reach an internal host. In sandbox
// (`till dev`, tests) anything http(s) goes, so a seller can point at http://localhost.
import dns from "node:dns";
import net from "node:net";
import type { LookupFunction } from "node:net";

export type Mode = "sandbox" | "production";

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
  ["2001::", 23],
] as const) {
  blocked.addSubnet(prefix, bits, "ipv6");
}

const BLOCKED_NAMES = /(^|\.)(localhost|internal|local)$|^metadata(\.google\.internal)?$/i;

/** Whether a literal IP address is one a production server must never call. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses reach the embedded IPv4 host.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (embedded) return blocked.check(embedded, "ipv4");
  const mappedHex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const n = (parseInt(mappedHex[1]!, 16) << 16) | parseInt(mappedHex[2]!, 16);
    return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join("."), "ipv4");
  }
  return blocked.check(lower, "ipv6");
}

function hostOf(url: URL): string {
  // "localhost." is the same host as "localhost" (a fully qualified name): compare without the dot.
  return url.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "");
}

/** The reason a URL may not be an endpoint, or null. Static checks only; see checkResolvedUrl. */
export function urlProblem(raw: string, mode: Mode): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Invalid URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return "The URL must use http or https.";
  if (url.username || url.password) return "The URL must not contain credentials.";
  if (mode === "sandbox") return null;
  if (url.protocol !== "https:") return "Webhook URLs must use HTTPS.";
  const host = hostOf(url);
  if (net.isIP(host))
    return isBlockedAddress(host) ? "The URL points to a private or reserved address." : null;
  if (BLOCKED_NAMES.test(host) || !host.includes("."))
    return "The URL points to a private or reserved host.";
  return null;
}

export interface Resolver {
  lookup(hostname: string): Promise<{ address: string; family: number }[]>;
}

/** The system resolver, or DNS servers of our own choosing (WEBHOOK_DNS_SERVERS). */
export function createResolver(servers: readonly string[]): Resolver {
  if (servers.length === 0) {
    return { lookup: (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true }) };
  }
  const resolver = new dns.promises.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  return {
    async lookup(hostname) {
      const [v4, v6] = await Promise.allSettled([
        resolver.resolve4(hostname),
        resolver.resolve6(hostname),
      ]);
      const out = [
        ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (out.length === 0)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return out;
    },
  };
}

export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
  readonly code = "EBLOCKEDADDRESS";
}

/**
 * Resolves a host and refuses it when any of its addresses is blocked: a name that answers with
 * one public and one private address is treated as private, because either may be used.
 */
export async function resolvePublic(
  resolver: Resolver,
  hostname: string,
): Promise<{ address: string; family: number }> {
  if (net.isIP(hostname)) {
    if (isBlockedAddress(hostname))
      throw new BlockedAddressError(`${hostname} is a private or reserved address`);
    return { address: hostname, family: net.isIP(hostname) };
  }
  const addresses = await resolver.lookup(hostname);
  const bad = addresses.find((a) => isBlockedAddress(a.address));
  if (bad)
    throw new BlockedAddressError(
      `${hostname} resolves to ${bad.address}, a private or reserved address`,
    );
  if (addresses.length === 0) throw new BlockedAddressError(`${hostname} does not resolve`);
  return addresses[0]!;
}

/** A `lookup` for net/tls.connect that only ever hands back a checked, public address. */
export function checkedLookup(resolver: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublic(resolver, hostname).then(
      ({ address, family }) => {
        if (options.all)
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
            null,
            [{ address, family }],
          );
        else callback(null, address, family);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}

/** Creation-time check with DNS: a name that resolves now must resolve to public addresses only. */
export async function resolvedUrlProblem(
  raw: string,
  mode: Mode,
  resolver: Resolver,
): Promise<string | null> {
  const problem = urlProblem(raw, mode);
  if (problem || mode === "sandbox") return problem;
  const host = hostOf(new URL(raw));
  try {
    await resolvePublic(resolver, host);
    return null;
  } catch (err) {
    if (err instanceof BlockedAddressError)
      return "The URL points to a private or reserved address.";
    // A name that does not resolve yet is allowed; it is checked again at every delivery.
    return null;
  }
}
