// compose.yaml (the sample deployment of docs/scale-out.md) cannot be brought up here (no container
// engine on this machine), so it is checked for what would break it: its structure (PostgreSQL, two API
// instances behind a load balancer, one worker, an SMTP sink; every dependency and health check in
// place), and that every command and variable it gives the service is one the service takes: each role is
// one `npm start -- --help` names, each variable is in service/config.ts's OPTIONS, and each instance's
// environment passes readConfig as its role reads it. No password is written in the file.

import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { BlockList } from "node:net";
import { parse } from "yaml";
import { OPTIONS, type Role, helpText, readConfig } from "../../service/config.js";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  configs?: { source: string; target: string }[];
  ports?: string[];
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }>;
  stop_grace_period?: string;
}

interface Compose {
  services: Record<string, Service>;
  configs?: Record<string, { content: string }>;
  volumes?: Record<string, unknown>;
  networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
}

const text = fs.readFileSync(`${ROOT}compose.yaml`, "utf8");
const compose = parse(text, { merge: true }) as Compose;
const services = compose.services;

/** Variables the file gives the processes that are not the service's own options (with why). */
const NOT_SERVICE_OPTIONS = new Set([
  "TZ", // the process's zone: the service stores epoch milliseconds and works in each account's zone
]);

/** What compose's interpolation would make of `${POSTGRES_PASSWORD:?...}` with the variable set. */
function interpolated(value: string): string {
  return value.replace(/\$\{POSTGRES_PASSWORD:\?[^}]*\}/g, "a-test-password");
}

/** The role of a service-running container (`node service/start.mjs --role <role>`), else undefined. */
function roleOf(service: Service): Role | undefined {
  const command = service.command ?? [];
  if (command[0] !== "node" || command[1] !== "service/start.mjs") return undefined;
  expect(command.slice(2, 3)).toEqual(["--role"]);
  expect(command.length).toBe(4);
  return command[3] as Role;
}

const instances = Object.entries(services).filter(([, service]) => roleOf(service) !== undefined);

describe("compose.yaml", () => {
  it("has PostgreSQL, two API instances behind a load balancer, one worker and an SMTP sink", () => {
    expect(services.postgres?.image).toMatch(/^postgres:\d+$/);
    const roles = instances.map(([name, service]) => [name, roleOf(service)]);
    expect(roles).toEqual([
      ["api1", "api"],
      ["api2", "api"],
      ["worker", "worker"],
    ]);
    expect(services.smtp?.image).toMatch(/mailpit/);
    expect(services.lb?.image).toMatch(/^caddy:/);
    const caddyfile = compose.configs?.[services.lb!.configs![0]!.source]?.content ?? "";
    expect(caddyfile).toMatch(/reverse_proxy api1:8080 api2:8080 \{/);
    expect(caddyfile).toMatch(/health_uri \/healthz/);
  });

  it("every role it starts is one `npm start -- --help` names", () => {
    const help = helpText();
    for (const [, service] of instances) expect(help).toContain(`--role ${roleOf(service)}`);
  });

  it("every variable it gives an instance is an option of the service, and each instance's environment reads", () => {
    const names = new Set(OPTIONS.map((option) => option.name));
    for (const [name, service] of instances) {
      const env = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolated(String(value))]),
      );
      for (const key of Object.keys(env))
        expect(names.has(key) || NOT_SERVICE_OPTIONS.has(key), `${name}: ${key} is not an option`).toBe(true);
      const config = readConfig(env, roleOf(service));
      expect(config.databaseUrl, name).toMatch(/^postgres:\/\/eas:a-test-password@postgres:5432\/eas$/);
      expect(config.smtpUrl, name).toBe("smtp://smtp:1025");
      expect(config.mailFromSet, name).toBe(true);
    }
  });

  it("each instance's health check asks /healthz on the port it serves, and waits for what it needs", () => {
    for (const [name, service] of instances) {
      const env = service.environment ?? {};
      const port = roleOf(service) === "worker" ? env.METRICS_PORT : env.PORT;
      expect(port, `${name}: a port serving /healthz`).toMatch(/^\d+$/);
      expect(service.healthcheck?.test.join(" "), name).toContain(`http://127.0.0.1:${port}/healthz`);
      if (roleOf(service) === "api") expect(env.HOST, name).toBe("0.0.0.0");
      for (const needed of Object.keys(service.depends_on ?? {}))
        expect(services[needed], `${name} depends on ${needed}`).toBeDefined();
    }
    // Migrations run once: the first API instance starts alone, the others after it is healthy.
    expect(services.api1?.depends_on?.postgres?.condition).toBe("service_healthy");
    expect(services.api2?.depends_on?.api1?.condition).toBe("service_healthy");
    expect(services.worker?.depends_on?.api1?.condition).toBe("service_healthy");
    expect(services.postgres?.healthcheck?.test).toContain("pg_isready");
  });

  it("the API instances trust the balancer's fixed address for X-Forwarded-For, and nothing else", () => {
    const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet ?? "";
    const [network, bits] = subnet.split("/");
    const lbAddress = services.lb?.networks?.default?.ipv4_address ?? "";
    const range = new BlockList();
    range.addSubnet(network!, Number(bits), "ipv4");
    expect(range.check(lbAddress, "ipv4"), `${lbAddress} in ${subnet}`).toBe(true);
    for (const [name, service] of instances) {
      const trusted = service.environment?.TRUSTED_PROXIES;
      if (roleOf(service) !== "api") {
        expect(trusted, `${name} serves no API`).toBeUndefined();
        continue;
      }
      expect(trusted, name).toBe(lbAddress);
      expect(readConfig({ TRUSTED_PROXIES: trusted }).trustedProxies, name).toEqual([
        { address: lbAddress, prefix: 32, family: "ipv4" },
      ]);
    }
  });

  it("gives each instance longer to stop than the service's own drain (SHUTDOWN_TIMEOUT_MS)", () => {
    const seconds = (text: string | undefined) => Number(/^(\d+)s$/.exec(text ?? "")?.[1] ?? Number.NaN);
    for (const [name, service] of instances) {
      const drainMs = Number(service.environment?.SHUTDOWN_TIMEOUT_MS);
      expect(drainMs, name).toBeGreaterThan(0);
      expect(seconds(service.stop_grace_period) * 1000, name).toBeGreaterThan(drainMs);
    }
  });

  it("writes no password: PostgreSQL's comes from the environment", () => {
    // Compose's `${VAR:?message}`: the variable, or an error naming it when unset.
    expect(services.postgres?.environment?.POSTGRES_PASSWORD).toMatch(
      /^\$\{POSTGRES_PASSWORD:\?set POSTGRES_PASSWORD\}$/,
    );
    for (const [name, service] of instances)
      expect(service.environment?.DATABASE_URL, name).toContain("${POSTGRES_PASSWORD:?");
    expect(text).not.toMatch(/password[=:]\s*["']?[A-Za-z0-9]{6,}/i);
  });
});
