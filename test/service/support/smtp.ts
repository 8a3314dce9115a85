// A real SMTP server on 127.0.0.1 (smtp-server) for delivery tests: AUTH required, every accepted
// message's bytes kept, answers to DATA planned per message, logins refused on demand, STARTTLS offered
// (with smtp-server's own test certificate) or not, and optionally a TCP relay in front that records every
// byte the client sent, so a test can show what went over the wire in clear.

import net from "node:net";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

export const SMTP_USER = "mailer";
export const SMTP_PASSWORD = "Sm7p-pa55/word!"; // URL-encoded in the URL: the decoded form is what could leak

export interface Arrival {
  readonly raw: string;
  readonly from: string | false;
  readonly to: string[];
}

export interface TestSmtp {
  /** The port to connect to (the relay's when `record` is set). */
  readonly port: number;
  readonly arrivals: Arrival[];
  /** Answers for the next messages' DATA, in order: a reply code to refuse with, or "ok". */
  readonly plan: (number | "ok")[];
  /** Reply codes for the DATA of messages to these recipients (first before `plan`; parallel sends have no order). */
  readonly refuseTo: Map<string, number>;
  /** Messages whose DATA was refused (by `plan` or `refuseAllWith`). */
  readonly refused: () => number;
  /** Every AUTH the server received, with whether the connection was under TLS by then. */
  readonly logins: { readonly username: string; readonly secure: boolean }[];
  /** What the client sent, as text (with `record`). */
  sent(): string;
  /** While set, every DATA is answered with this code (a greylisting server answers 451). */
  refuseAllWith: number | undefined;
  /** While true, every login is refused with 535. */
  refuseLogins: boolean;
  /** Connections: open now, the most open at once, and how many were ever opened. */
  readonly connections: { open: number; peak: number; total: number };
  /** Per recipient domain, the most messages whose DATA was being answered at once (see `holdMs`). */
  readonly peakByDomain: Map<string, number>;
  /** The most messages whose DATA was being answered at once, of any domain. */
  peakInFlight(): number;
  close(): Promise<void>;
}

export interface SmtpServerOptions {
  /** The 535 answer repeats the password the client sent. */
  readonly echoPasswordOnAuth?: boolean;
  /** Offer STARTTLS (smtp-server's own certificate); default false: plain text only. */
  readonly starttls?: boolean;
  /** Put a relay in front that records the client's bytes. */
  readonly record?: boolean;
  /** Wait this long before answering each DATA (so concurrent deliveries overlap and can be counted). */
  readonly holdMs?: number;
}

/** An SMTP URL with the test user and password for `port`. */
export function smtpUrl(port: number): string {
  return `smtp://${SMTP_USER}:${encodeURIComponent(SMTP_PASSWORD)}@127.0.0.1:${port}`;
}

export async function startSmtp(options: SmtpServerOptions = {}): Promise<TestSmtp> {
  const arrivals: Arrival[] = [];
  const plan: (number | "ok")[] = [];
  const refuseTo = new Map<string, number>();
  const logins: { username: string; secure: boolean }[] = [];
  const state = { refuseAllWith: undefined as number | undefined, refuseLogins: false, refused: 0 };
  const connections = { open: 0, peak: 0, total: 0 };
  const inFlight = new Map<string, number>();
  const peakByDomain = new Map<string, number>();
  let flying = 0;
  let peakFlying = 0;
  const domains = (session: SMTPServerSession) => [
    ...new Set(session.envelope.rcptTo.map((r) => r.address.slice(r.address.lastIndexOf("@") + 1))),
  ];
  const server = new SMTPServer({
    secure: false,
    ...(options.starttls ? {} : { disabledCommands: ["STARTTLS"] }),
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onConnect(_session, callback) {
      connections.open++;
      connections.total++;
      connections.peak = Math.max(connections.peak, connections.open);
      callback();
    },
    onClose() {
      connections.open--;
    },
    onAuth(auth, session, callback) {
      logins.push({ username: auth.username ?? "", secure: session.secure });
      if (options.echoPasswordOnAuth)
        return callback(new Error(`no entry for ${auth.username} with password ${auth.password}`));
      if (!state.refuseLogins && auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        return callback(null, { user: SMTP_USER });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      flying++;
      peakFlying = Math.max(peakFlying, flying);
      for (const domain of domains(session)) {
        const now = (inFlight.get(domain) ?? 0) + 1;
        inFlight.set(domain, now);
        peakByDomain.set(domain, Math.max(peakByDomain.get(domain) ?? 0, now));
      }
      const finish = () => {
        flying--;
        for (const domain of domains(session)) inFlight.set(domain, (inFlight.get(domain) ?? 1) - 1);
      };
      stream.on("end", async () => {
        if (options.holdMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.holdMs));
        finish();
        const byRecipient = session.envelope.rcptTo
          .map((r) => refuseTo.get(r.address))
          .find((c) => c !== undefined);
        const answer = state.refuseAllWith ?? byRecipient ?? plan.shift() ?? "ok";
        if (answer !== "ok") state.refused++;
        if (answer !== "ok")
          return callback(Object.assign(new Error(`refused by plan (${answer})`), { responseCode: answer }));
        arrivals.push({
          raw: Buffer.concat(chunks).toString("utf8"),
          from: session.envelope.mailFrom === false ? false : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // A client killed mid-session (the kill -9 tests) resets its connection: the server reports it as an
  // error of its own, which is no failure of the test.
  server.on("error", () => {});
  const serverPort = (server.server.address() as net.AddressInfo).port;
  const recorded: Buffer[] = [];
  let relay: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  if (options.record) {
    relay = net.createServer((client) => {
      const upstream = net.connect(serverPort, "127.0.0.1");
      sockets.add(client).add(upstream);
      client.on("data", (chunk: Buffer) => recorded.push(chunk));
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
    });
    await new Promise<void>((resolve) => relay!.listen(0, "127.0.0.1", () => resolve()));
  }
  const port = relay === undefined ? serverPort : (relay.address() as net.AddressInfo).port;
  return {
    port,
    arrivals,
    plan,
    refuseTo,
    logins,
    refused: () => state.refused,
    connections,
    peakByDomain,
    peakInFlight: () => peakFlying,
    sent: () => Buffer.concat(recorded).toString("latin1"),
    get refuseAllWith() {
      return state.refuseAllWith;
    },
    set refuseAllWith(code) {
      state.refuseAllWith = code;
    },
    get refuseLogins() {
      return state.refuseLogins;
    },
    set refuseLogins(refuse) {
      state.refuseLogins = refuse;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      if (relay !== undefined) await new Promise<void>((resolve) => relay!.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
