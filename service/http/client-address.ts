// The caller's address of a request: the connection's peer, or, when the peer is one of the operator's own
// proxies (TRUSTED_PROXIES, a list of addresses and CIDR ranges), the address those proxies forwarded in
// X-Forwarded-For. The header is read from its right end (the hop the trusted peer appended) leftward past
// trusted hops only, as express's `trust proxy` (proxy-addr) does: the first address that is not a trusted
// proxy is the caller. Everything left of it was written by whoever sent the request and is never read, so a
// caller cannot pick its own address by sending the header. A peer that is not trusted is the caller
// whatever the header says; without TRUSTED_PROXIES the header is not read at all.
//
// Bounded: at most MAX_FORWARDED_HOPS entries are read, each at most MAX_ENTRY_CHARS long, scanning from the
// end (never the whole header); an entry that is empty, over-long or not an IP address ends the walk at the
// last trusted hop (the request counts as that proxy's, as it did before this was read).
//
// The app (app.ts) resolves the address once a request, hands it to the generated handler (its call context's
// remoteAddress: sign-in throttle and cache, consent records) and sets it on the request for its own routes
// (the console's sign-in, the pages' consent records, the webhooks' rate limits), which read it with
// clientAddress(req). Nothing else in service/ reads `socket.remoteAddress` (test/service/client-address.test.ts).

import type http from "node:http";
import { BlockList, isIP } from "node:net";
import type { ProxyRange } from "../config.js";

/** X-Forwarded-For entries read at most, from the right. */
export const MAX_FORWARDED_HOPS = 16;
/** Longest entry read (an IPv6 address with an IPv4 tail and a port in brackets is under 64). */
export const MAX_ENTRY_CHARS = 64;

/** The operator's proxies (IPv4 ranges also match IPv4-mapped IPv6 peers, as BlockList checks them). */
export class TrustedProxies {
  private readonly list = new BlockList();
  private readonly empty: boolean;

  /** The ranges as config.ts read and checked them (TRUSTED_PROXIES). */
  constructor(ranges: readonly ProxyRange[]) {
    for (const range of ranges) this.list.addSubnet(range.address, range.prefix, range.family);
    this.empty = ranges.length === 0;
  }

  /** Whether an address (as a socket or the header gives it) is one of the proxies. */
  trusts(address: string): boolean {
    if (this.empty) return false;
    const family = isIP(address);
    if (family === 0) return false;
    try {
      return this.list.check(address, family === 4 ? "ipv4" : "ipv6");
    } catch {
      return false; // an address BlockList cannot read (a zone index) is nobody's proxy
    }
  }

  /**
   * The caller's address: `peer` unless it is a trusted proxy; then the rightmost X-Forwarded-For entry that
   * is not one (or the leftmost entry when every one is, or the last trusted hop when an entry is unreadable
   * or the walk reaches MAX_FORWARDED_HOPS). `header` is X-Forwarded-For as node gives it (one string, its
   * repeated lines joined with ", "; the type also allows the lines as a list).
   */
  clientOf(peer: string, header: string | readonly string[] | undefined): string {
    if (header === undefined || !this.trusts(peer)) return peer;
    const forwardedFor = typeof header === "string" ? header : header.join(",");
    let current = peer;
    let end = forwardedFor.length;
    for (let hop = 0; hop < MAX_FORWARDED_HOPS && end >= 0; hop++) {
      let i = end - 1;
      while (i >= 0 && forwardedFor.charCodeAt(i) !== 44 /* , */) {
        if (end - i > MAX_ENTRY_CHARS) return current;
        i--;
      }
      const entry = forwardedAddress(forwardedFor.slice(i + 1, end));
      if (entry === undefined) return current;
      if (!this.trusts(entry)) return entry;
      current = entry;
      end = i;
    }
    return current;
  }
}

/** An X-Forwarded-For entry's address: `a.b.c.d`, `a.b.c.d:port`, an IPv6 address or `[v6]` / `[v6]:port`. */
function forwardedAddress(raw: string): string | undefined {
  let entry = raw.trim();
  if (entry.startsWith("[")) {
    const close = entry.indexOf("]");
    const rest = entry.slice(close + 1);
    if (close < 0 || (rest !== "" && !/^:\d{1,5}$/.test(rest))) return undefined;
    entry = entry.slice(1, close);
    return isIP(entry) === 6 && !entry.includes("%") ? entry : undefined;
  }
  const port = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(entry);
  if (port !== null) entry = port[1]!;
  return isIP(entry) !== 0 && !entry.includes("%") ? entry : undefined;
}

const CLIENT = Symbol("client address");

/** Records a request's caller address (app.ts, once a request, before any route runs). */
export function setClientAddress(req: http.IncomingMessage, address: string): void {
  (req as { [CLIENT]?: string })[CLIENT] = address;
}

/** A request's caller address: the one app.ts resolved, else the connection's peer ("" when closed). */
export function clientAddress(req: http.IncomingMessage): string {
  return (req as { [CLIENT]?: string })[CLIENT] ?? req.socket.remoteAddress ?? "";
}
