// Who may read /metrics (finding: it was open on the public port): with METRICS_TOKEN only a caller with
// the bearer token, on the public port; with METRICS_PORT a separate listener (loopback by default) that
// serves /metrics and /healthz and nothing else, in any role; a token too short to be a secret is refused
// at start without being echoed. The app is started for real on both engines.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../service/app.js";
import { readConfig, ServiceConfigError } from "../../service/config.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { type TestService, startService } from "./support/service.js";

const TOKEN = "c0ffee".repeat(6); // 36 characters

describeEngines("metrics access", (engine) => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startService(engine, "metrics", { METRICS_TOKEN: TOKEN, METRICS_PORT: "0" });
    const id = await svc.createAccount("metered", "metered-pass-1");
    await svc.createList(id, "L");
    await svc.client("metered", "metered-pass-1").GetTriggerIdForAccount({});
  }, 60_000);
  afterAll(async () => svc?.close());

  const scrape = (url: string, authorization?: string) =>
    fetch(url, authorization === undefined ? {} : { headers: { authorization } });

  it("the public port answers 401 without the right bearer token, and the metrics with it", async () => {
    for (const authorization of [
      undefined,
      "",
      "Bearer",
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}`,
      `Bearer ${TOKEN} extra`,
    ]) {
      const refused = await scrape(`${svc.url}/metrics`, authorization);
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await refused.text()).not.toContain("eas_");
    }
    const metrics = await scrape(`${svc.url}/metrics`, `Bearer ${TOKEN}`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(
      /eas_requests_total\{operation="GetTriggerIdForAccount",binding="soap11",outcome="OK"\} \d+/,
    );
    expect(text).toContain("eas_request_duration_seconds_bucket");
    expect(text).toContain("# TYPE eas_queue_depth gauge");
    expect((await scrape(`${svc.url}/metrics`, `bearer  ${TOKEN}`)).status).toBe(200); // the scheme is case-insensitive
  });

  it("the METRICS_PORT listener is on loopback and serves /metrics and /healthz only", async () => {
    expect(svc.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metrics = await scrape(`${svc.metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("eas_requests_total");
    const health = await scrape(`${svc.metricsUrl}/healthz`);
    expect(await health.text()).toBe('{"status":"ok"}\n');
    for (const path of ["/", "/ExternalAPIService.asmx", "/confirm/x", "/t/o/x", "/metrics/x"])
      expect((await scrape(`${svc.metricsUrl}${path}`)).status, path).toBe(404);
    const post = await fetch(`${svc.metricsUrl}/metrics`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
  });

  it("a worker-role process serves its metrics on METRICS_PORT (it has no public port)", async () => {
    const app = await createApp(
      readConfig(
        {
          DATABASE_URL: await freshDatabaseUrl(engine, "metrics-worker"),
          METRICS_PORT: "0",
          SQLITE_SYNC: "NORMAL",
          LOG_LEVEL: "silent",
        },
        "worker",
      ),
    );
    try {
      const { url, metricsUrl } = await app.start();
      expect(url).toBeUndefined();
      const metrics = await fetch(`${metricsUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("# TYPE eas_queue_depth gauge");
    } finally {
      await app.close();
    }
  });
});

describe("metrics configuration", () => {
  it("refuses a METRICS_TOKEN too short to be a secret without echoing it, and a bad METRICS_PORT", () => {
    for (const token of ["hunter2secret", "a".repeat(31), `${"b".repeat(40)} c`]) {
      expect(() => readConfig({ METRICS_TOKEN: token })).toThrow(ServiceConfigError);
      try {
        readConfig({ METRICS_TOKEN: token });
      } catch (error) {
        expect((error as Error).message).toContain("METRICS_TOKEN");
        expect((error as Error).message).not.toContain(token);
      }
    }
    expect(() => readConfig({ METRICS_PORT: "http" })).toThrow("METRICS_PORT");
  });

  it("keeps the token's hash, never the token", () => {
    const config = readConfig({ METRICS_TOKEN: TOKEN });
    expect(JSON.stringify(config)).not.toContain(TOKEN);
    expect(config.metricsTokenHash).toHaveLength(32);
    expect(readConfig({}).metricsTokenHash).toBeUndefined();
    expect(readConfig({}).metricsPort).toBeUndefined();
  });
});
