// The second example service (examples/book-catalog): its generated client against its implementation on the
// generated server, over real HTTP on 127.0.0.1, on every binding. It keeps the generator honest for a service
// unlike ExternalAPIService: a guid credential, enums, nullable values, nested records, arrays as parameters
// and results, void and one-way operations.

import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BookCatalogClient,
  createClient,
  ServiceFaultError,
} from "../../examples/book-catalog/generated/client.js";
import { createServer } from "../../examples/book-catalog/generated/server.js";
import type { Book } from "../../examples/book-catalog/generated/types.js";
import { createCatalog } from "../../examples/book-catalog/src/catalog.js";

const API_KEY = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const BINDINGS = ["soap11", "soap12", "httpGet", "httpPost"] as const;
/** FindBooks, Lend and Return take a nullable or guid parameter: as in ASMX, they are SOAP only. */
const SOAP = ["soap11", "soap12"] as const;

const catalog = createCatalog({ apiKeys: [API_KEY] });
const server = createServer(catalog);
let baseUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function client(binding: (typeof BINDINGS)[number], apiKey = API_KEY): BookCatalogClient {
  return createClient({ baseUrl, binding, apiKey });
}

/** A Lend result, which the type allows to be null (a record result): never null here. */
async function lent<T>(result: Promise<T | null>): Promise<T> {
  const value = await result;
  if (value === null) throw new Error("Lend answered a null loan");
  return value;
}

function book(isbn: string, title: string, extra: Partial<Book> = {}): Book {
  return {
    Isbn: isbn,
    Title: title,
    Genre: "Fiction",
    Authors: [
      { Name: "Ann Author", Born: 1950 },
      { Name: "Anonymous", Born: null },
    ],
    Price: "12.50",
    Rating: 4.5,
    Added: "2026-11-23T10:00:00Z",
    Copies: 1,
    Cover: new Uint8Array([0, 1, 2, 253, 254, 255]),
    ...extra,
  };
}

describe("BookCatalog example: records as parameter and result (SOAP)", () => {
  it.each(["soap11", "soap12"] as const)(
    "%s: AddBook stores a nested record and GetBook reads it back unchanged",
    async (binding) => {
      const c = client(binding);
      const isbn = binding === "soap11" ? "9780000000011" : "9780000000012";
      const sent = book(isbn, `Nested ${binding}`);
      const stored = await c.AddBook({ book: sent });
      expect(stored).toEqual(sent);
      expect(await c.GetBook({ isbn })).toEqual(sent);
    },
  );

  it("a book the catalogue does not have is null on every binding", async () => {
    for (const binding of BINDINGS)
      expect(await client(binding).GetBook({ isbn: "9789999999999" })).toBeNull();
  });
});

describe("BookCatalog example: enums, arrays and nullable values on all four bindings", () => {
  beforeAll(async () => {
    const c = client("soap11");
    await c.ClearLoans({});
    await c.AddBook({
      book: book("9780000000101", "Poems of the Sea", { Genre: "Poetry", Copies: 2, Rating: null }),
    });
    await c.AddBook({ book: book("9780000000102", "A History of Salt", { Genre: "History" }) });
    await c.AddBook({ book: book("9780000000103", "Sea Stories", { Genre: "Fiction" }) });
  });

  it.each(SOAP)(
    "%s: FindBooks filters by text and by a nullable enum, ordered by title, bounded by limit",
    async (binding) => {
      const c = client(binding);
      const sea = await c.FindBooks({ text: "sea", genre: null, limit: 10 });
      expect(sea.map((b) => b?.Title)).toEqual(["Poems of the Sea", "Sea Stories"]);
      expect(sea[0]?.Rating).toBeNull();
      const poetry = await c.FindBooks({ text: "", genre: "Poetry", limit: 10 });
      expect(poetry.map((b) => b?.Isbn)).toEqual(["9780000000101"]);
      expect((await c.FindBooks({ text: "", genre: null, limit: 1 })).length).toBe(1);
    },
  );

  it.each(BINDINGS)(
    "%s: CountByGenre takes an array of enums and answers an array of ints in the same order",
    async (binding) => {
      expect(await client(binding).CountByGenre({ genres: ["History", "Science", "Poetry"] })).toEqual([
        1, 0, 1,
      ]);
    },
  );

  it.each(BINDINGS)(
    "%s: Titles takes an array of strings; Genres answers an array of enums",
    async (binding) => {
      const c = client(binding);
      expect(await c.Titles({ isbns: ["9780000000102", "9789999999999", "9780000000101"] })).toEqual([
        "A History of Salt",
        "Poems of the Sea",
      ]);
      const genres = await c.Genres({});
      expect(genres).toEqual(expect.arrayContaining(["Fiction", "Poetry", "History"]));
      expect(genres).not.toContain("Science");
    },
  );

  it.each(SOAP)(
    "%s: Lend, IsOnLoan and Return work with guid, nullable dateTime, boolean and enum results",
    async (binding) => {
      const c = client(binding);
      await c.ClearLoans({});
      const first = await lent(c.Lend({ isbn: "9780000000101", reader: "Rita", due: "2026-12-24T00:00:00" }));
      expect(first.Id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(first.Due).toBe("2026-12-24T00:00:00");
      expect(await c.IsOnLoan({ isbn: "9780000000101" })).toBe(false);
      const second = await lent(c.Lend({ isbn: "9780000000101", reader: "Sam", due: null }));
      expect(second.Due).toBeNull();
      expect(await c.IsOnLoan({ isbn: "9780000000101" })).toBe(true);
      expect(await c.Return({ loanId: second.Id.toUpperCase() })).toBe("Available");
      expect(await c.IsOnLoan({ isbn: "9780000000101" })).toBe(false);
    },
  );
});

describe("BookCatalog example: refusals", () => {
  it.each(BINDINGS)(
    "%s: an unknown API key is refused with the handler's code, naming the credential",
    async (binding) => {
      const error = await client(binding, "00000000-0000-0000-0000-000000000000")
        .Genres({})
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceFaultError);
      expect(error).toMatchObject({ errorCode: "InvalidApiKey", side: "client" });
    },
  );

  it.each(BINDINGS)("%s: a pattern rule refuses a bad ISBN before the handler runs", async (binding) => {
    const error = await client(binding)
      .GetBook({ isbn: "12345" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ errorCode: "InvalidFormat", parameter: "isbn" });
  });

  it.each(SOAP)("%s: a range rule refuses limit 0", async (binding) => {
    const error = await client(binding)
      .FindBooks({ text: "", genre: null, limit: 0 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ errorCode: "OutOfRange", parameter: "limit" });
  });

  it("lending the last copy twice is refused by the service (a server-side fault)", async () => {
    const c = client("soap12");
    await c.AddBook({ book: book("9780000000201", "Only Copy") });
    await c.Lend({ isbn: "9780000000201", reader: "A", due: null });
    const error = await c.Lend({ isbn: "9780000000201", reader: "B", due: null }).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorCode: "NoCopyAvailable", side: "server" });
  });

  it("a record parameter is not offered on the HTTP bindings: the server refuses HTTP GET AddBook", async () => {
    const response = await fetch(`${baseUrl}/BookCatalog.asmx/AddBook?apiKey=${API_KEY}&book=x`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(
      "System.InvalidOperationException: AddBook Web Service method name is not valid.",
    );
  });

  it("guid and nullable parameters are not offered on HTTP either, as in ASMX: Return, Lend and FindBooks are SOAP only", async () => {
    const loanId = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
    for (const [op, query] of [
      ["Return", `loanId=${loanId}`],
      ["Lend", "isbn=9780000000101&reader=R&due="],
      ["FindBooks", "text=&genre=&limit=1"],
    ]) {
      for (const init of [
        undefined,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `apiKey=${API_KEY}&${query}`,
        },
      ]) {
        const url = `${baseUrl}/BookCatalog.asmx/${op}${init === undefined ? `?apiKey=${API_KEY}&${query}` : ""}`;
        const response = await fetch(url, init);
        expect(response.status, `${init ? "POST" : "GET"} ${op}`).toBe(500);
        expect(await response.text()).toBe(
          `System.InvalidOperationException: ${op} Web Service method name is not valid.`,
        );
      }
    }
    for (const binding of ["httpGet", "httpPost"] as const) {
      await expect(client(binding).Return({ loanId })).rejects.toThrow(TypeError);
    }
    const wsdl = await (await fetch(`${baseUrl}/BookCatalog.asmx?WSDL`)).text();
    const httpGet = wsdl.slice(
      wsdl.indexOf('<wsdl:portType name="BookCatalogHttpGet">'),
      wsdl.indexOf('<wsdl:portType name="BookCatalogHttpPost">'),
    );
    expect(httpGet).toContain('<wsdl:operation name="GetBook">');
    for (const op of ["AddBook", "FindBooks", "Lend", "Return"])
      expect(httpGet).not.toContain(`<wsdl:operation name="${op}">`);
  });

  it.each(BINDINGS)(
    "%s: the API key's pattern rule refuses a key that is not guid-shaped; the key matches in either case",
    async (binding) => {
      const error = await client(binding, "not-a-key")
        .Genres({})
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ errorCode: "InvalidFormat", parameter: "apiKey" });
      expect(await client(binding, API_KEY.toUpperCase()).Genres({})).toEqual(expect.any(Array));
    },
  );
});

describe("BookCatalog example: void and one-way operations", () => {
  it.each(BINDINGS)("%s: ClearLoans (void) resolves to undefined and clears", async (binding) => {
    const c = client(binding);
    await c.AddBook({ book: book("9780000000301", "Void Test") }).catch(() => undefined);
    await client("soap11")
      .Lend({ isbn: "9780000000301", reader: "V", due: null })
      .catch(() => undefined);
    expect(await c.ClearLoans({})).toBeUndefined();
    expect(await c.IsOnLoan({ isbn: "9780000000301" })).toBe(false);
  });

  it.each(BINDINGS)("%s: RecordVisit (one-way) reaches the implementation", async (binding) => {
    const reader = `visitor-${binding}`;
    await client(binding).RecordVisit({ reader });
    for (let i = 0; i < 200 && !catalog.visits.includes(reader); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(catalog.visits).toContain(reader);
  });

  it("the one-way operation has no output message in the published WSDL", async () => {
    const wsdl = await (await fetch(`${baseUrl}/BookCatalog.asmx?WSDL`)).text();
    expect(wsdl).toContain('<wsdl:operation name="RecordVisit">');
    expect(wsdl).not.toContain('name="RecordVisitSoapOut"');
    expect(wsdl).toContain('name="ClearLoansSoapOut"');
  });
});
