// The caller's address behind trusted proxies (service/http/client-address.ts): TRUSTED_PROXIES as config.ts
// reads it (refusals name the variable and the entry), X-Forwarded-For read right to left past trusted hops
// only, never from a peer that is not trusted, bounded on hostile headers; and nothing in service/ but that
// module reads the socket's peer address.

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ServiceConfigError, readConfig } from "../../service/config.js";
import {
  MAX_ENTRY_CHARS,
  MAX_FORWARDED_HOPS,
  TrustedProxies,
  clientAddress,
} from "../../service/http/client-address.js";

const proxies = (text: string) => new TrustedProxies(readConfig({ TRUSTED_PROXIES: text }).trustedProxies);

describe("TRUSTED_PROXIES", () => {
  it("is empty by default: the peer is the caller whatever the header says", () => {
    const none = new TrustedProxies(readConfig({}).trustedProxies);
    expect(none.clientOf("10.0.0.1", "198.51.100.7")).toBe("10.0.0.1");
    expect(none.clientOf("127.0.0.1", "198.51.100.7")).toBe("127.0.0.1");
  });

  it("reads addresses and CIDR ranges of both families", () => {
    expect(readConfig({ TRUSTED_PROXIES: " 10.0.0.0/8, 127.0.0.1 ,fd00::/8,::1," }).trustedProxies).toEqual([
      { address: "10.0.0.0", prefix: 8, family: "ipv4" },
      { address: "127.0.0.1", prefix: 32, family: "ipv4" },
      { address: "fd00::", prefix: 8, family: "ipv6" },
      { address: "::1", prefix: 128, family: "ipv6" },
    ]);
  });

  it.each([
    ["proxy.internal", /"proxy\.internal" is not an IP address/],
    ["10.0.0.0/33", /"10\.0\.0\.0\/33": the prefix length must be 0 to 32/],
    ["fd00::/129", /the prefix length must be 0 to 128/],
    ["10.0.0.0/", /the prefix length/],
    ["10.0.0.0/-1", /the prefix length/],
    ["10.0.0.0/8/8", /the prefix length/],
    ["10.0.0.256", /is not an IP address/],
    ["fe80::1%eth0", /is not an IP address/],
    ["*", /is not an IP address/],
    [Array.from({ length: 65 }, (_, i) => `10.0.0.${i}`).join(","), /at most 64 ranges/],
  ])("refuses %s, naming the variable", (value, message) => {
    expect(() => readConfig({ TRUSTED_PROXIES: value })).toThrow(ServiceConfigError);
    expect(() => readConfig({ TRUSTED_PROXIES: value })).toThrow(/^TRUSTED_PROXIES/);
    expect(() => readConfig({ TRUSTED_PROXIES: value })).toThrow(message);
  });
});

describe("the caller's address behind trusted proxies", () => {
  const lb = proxies("10.0.0.0/8, fd00::/8");

  it("is the peer when the peer is not trusted, whatever the header says", () => {
    expect(lb.clientOf("203.0.113.9", "198.51.100.7")).toBe("203.0.113.9");
    expect(lb.clientOf("203.0.113.9", "10.0.0.5")).toBe("203.0.113.9");
    expect(lb.clientOf("", "198.51.100.7")).toBe("");
  });

  it("is the peer when a trusted peer sends no header", () => {
    expect(lb.clientOf("10.1.2.3", undefined)).toBe("10.1.2.3");
  });

  it("is the rightmost address that is not a trusted proxy; forged hops to its left are never read", () => {
    expect(lb.clientOf("10.1.2.3", "198.51.100.7")).toBe("198.51.100.7");
    expect(lb.clientOf("10.1.2.3", "6.6.6.6, 198.51.100.7")).toBe("198.51.100.7");
    expect(lb.clientOf("10.1.2.3", "6.6.6.6,198.51.100.7, 10.9.9.9")).toBe("198.51.100.7");
    expect(lb.clientOf("10.1.2.3", "not an address, 198.51.100.7")).toBe("198.51.100.7");
    // A forged "trusted" hop left of the caller changes nothing either.
    expect(lb.clientOf("10.1.2.3", "10.0.0.1, 198.51.100.7")).toBe("198.51.100.7");
  });

  it("is the leftmost entry when every hop is trusted", () => {
    expect(lb.clientOf("10.1.2.3", "10.0.0.7, 10.0.0.8")).toBe("10.0.0.7");
  });

  it("reads IPv6, IPv4-mapped peers, bracketed addresses and ports", () => {
    expect(lb.clientOf("::ffff:10.1.2.3", "198.51.100.7")).toBe("198.51.100.7");
    expect(lb.clientOf("fd00::1", "2001:db8::7")).toBe("2001:db8::7");
    expect(lb.clientOf("fd00::1", "[2001:db8::7]:4711")).toBe("2001:db8::7");
    expect(lb.clientOf("fd00::1", "[2001:db8::7]")).toBe("2001:db8::7");
    expect(lb.clientOf("10.1.2.3", "198.51.100.7:4711")).toBe("198.51.100.7");
    expect(lb.clientOf("10.1.2.3", ["6.6.6.6", "198.51.100.7"])).toBe("198.51.100.7");
  });

  it("stops at the last trusted hop on an entry that is empty, not an address, or over-long", () => {
    for (const header of [
      "",
      " ",
      "198.51.100.7,",
      "unknown",
      "198.51.100.7, _hidden",
      "198.51.100.300",
      "[2001:db8::7",
      "[2001:db8::7]x",
      "198.51.100.7:99999999",
      "fe80::1%eth0",
      `${"1".repeat(MAX_ENTRY_CHARS)}`,
    ])
      expect(lb.clientOf("10.1.2.3", header), JSON.stringify(header)).toBe("10.1.2.3");
    expect(lb.clientOf("10.1.2.3", "198.51.100.7, garbage, 10.0.0.4")).toBe("10.0.0.4");
  });

  it("reads at most MAX_FORWARDED_HOPS entries, from the right, whatever the header's size", () => {
    const trustedHops = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    // 15 trusted hops and the caller: read.
    const fits = ["198.51.100.7", ...trustedHops(MAX_FORWARDED_HOPS - 1)].join(", ");
    expect(lb.clientOf("10.1.2.3", fits)).toBe("198.51.100.7");
    // 16 trusted hops: the walk ends at the 16th from the right (10.0.0.0); the caller left of it is not read.
    const deep = ["198.51.100.7", ...trustedHops(MAX_FORWARDED_HOPS)].join(", ");
    expect(lb.clientOf("10.1.2.3", deep)).toBe("10.0.0.0");
    // A 1 MiB header of 100,000 forged hops right of nothing trusted: the rightmost is the caller.
    const huge = `${"6.6.6.6, ".repeat(100_000)}198.51.100.7`;
    expect(lb.clientOf("10.1.2.3", huge)).toBe("198.51.100.7");
    // One entry of 1 MiB without a comma: given up after MAX_ENTRY_CHARS characters.
    expect(lb.clientOf("10.1.2.3", "9".repeat(1 << 20))).toBe("10.1.2.3");
  });

  it("clientAddress falls back to the socket's peer for a request the app did not see", () => {
    const req = { socket: { remoteAddress: "192.0.2.1" } } as unknown as Parameters<typeof clientAddress>[0];
    expect(clientAddress(req)).toBe("192.0.2.1");
  });
});

describe("service/ reads the peer's address in one place", () => {
  it("no module but http/client-address.ts reads socket.remoteAddress", () => {
    const root = new URL("../../service/", import.meta.url).pathname;
    const readers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "node_modules") walk(file);
        } else if (
          /\.(ts|mts|mjs)$/.test(entry.name) &&
          /socket\??\.remoteAddress/.test(fs.readFileSync(file, "utf8"))
        )
          readers.push(path.relative(root, file));
      }
    };
    walk(root);
    // app.ts resolves each request's caller from it; everything else asks clientAddress(req).
    expect(readers.sort()).toEqual(["app.ts", "http/client-address.ts"]);
  });
});
