// A small browser stand-in for console tests: a cookie jar, redirects not followed, and the CSRF token
// of the last page read, so a test can sign in, read pages and post forms as a browser would (or not).

export interface ConsoleAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export class ConsoleClient {
  readonly jar = new Map<string, string>();
  csrf: string | undefined;

  constructor(readonly base: string) {}

  private remember(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";", 1);
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  private cookieHeader(): Record<string, string> {
    return this.jar.size === 0
      ? {}
      : { cookie: [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ") };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    const res = await fetch(this.base + path, {
      redirect: "manual",
      headers: { ...this.cookieHeader(), ...headers },
      signal: AbortSignal.timeout(20_000),
    });
    this.remember(res.headers);
    const text = await res.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text);
    if (csrf !== null) this.csrf = csrf[1];
    return { status: res.status, headers: res.headers, text };
  }

  /** POSTs a form; `_csrf` is the last page's token unless `fields` sets one. */
  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<ConsoleAnswer> {
    const body = new URLSearchParams({ ...(this.csrf === undefined ? {} : { _csrf: this.csrf }), ...fields });
    const res = await fetch(this.base + path, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...this.cookieHeader(), ...headers },
      body: body.toString(),
      signal: AbortSignal.timeout(20_000),
    });
    this.remember(res.headers);
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  }

  /** Reads the sign-in page and signs in; the answer to the POST. */
  async signIn(username: string, password: string, next?: string): Promise<ConsoleAnswer> {
    await this.get(`/console/sign-in${next === undefined ? "" : `?${new URLSearchParams({ next })}`}`);
    return this.post("/console/sign-in", { username, password, ...(next === undefined ? {} : { next }) });
  }
}
