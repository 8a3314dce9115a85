// The BookCatalog service on its generated skeleton: an in-memory catalogue of books and loans. It is the
// repository's second example service (issue 11): small, but every operation does real work, and the
// tests in test/examples/book-catalog.test.ts drive it through the generated client on every binding.

import { randomUUID } from "node:crypto";
import { type BookCatalog, type CallContext, clientError, ServiceError } from "../generated/server.js";
import type { Book, Genre, Loan, LoanState } from "../generated/types.js";

/** Every shelf, in the enum's order (the spec's `Genre` values). */
const GENRES: readonly Genre[] = ["Fiction", "Poetry", "History", "Science", "Children"];

export interface CatalogOptions {
  /** The API keys a caller may use (guids, any case). */
  readonly apiKeys: readonly string[];
  /** Called with each RecordVisit, after the caller has had its answer. */
  readonly onVisit?: (reader: string) => void;
}

interface StoredLoan {
  readonly loan: Loan;
  state: LoanState;
}

/** The handlers of BookCatalog over one in-memory store. */
export function createCatalog(options: CatalogOptions): BookCatalog & { readonly visits: readonly string[] } {
  const keys = new Set(options.apiKeys.map((key) => key.toLowerCase()));
  const books = new Map<string, Book>();
  const loans = new Map<string, StoredLoan>();
  const visits: string[] = [];

  function authorize(context: CallContext): void {
    if (!keys.has(context.credentials.apiKey.toLowerCase())) {
      throw clientError("InvalidApiKey", "The API key is not known.", { parameter: "apiKey" });
    }
  }

  function lentCopies(isbn: string): number {
    let count = 0;
    for (const stored of loans.values()) if (stored.loan.Isbn === isbn && stored.state === "OnLoan") count++;
    return count;
  }

  function bookOf(isbn: string): Book {
    const book = books.get(isbn);
    if (!book) throw clientError("UnknownBook", `No book has the ISBN ${isbn}.`, { parameter: "isbn" });
    return book;
  }

  return {
    visits,

    AddBook({ book }, context) {
      authorize(context);
      if (!book) throw clientError("RequiredParameter", "Parameter book is required.", { parameter: "book" });
      const isbn = book.Isbn ?? "";
      if (!/^97[89][0-9]{10}$/.test(isbn)) {
        throw clientError("InvalidFormat", "book.Isbn must be an ISBN-13 without hyphens.", {
          parameter: "book",
        });
      }
      if (!book.Title)
        throw clientError("RequiredParameter", "book.Title must not be empty.", { parameter: "book" });
      if (book.Copies < 1)
        throw clientError("OutOfRange", "book.Copies must be 1 or more.", { parameter: "book" });
      const stored: Book = { ...book, Authors: book.Authors ?? [] };
      books.set(isbn, stored);
      return stored;
    },

    GetBook({ isbn }, context) {
      authorize(context);
      return books.get(isbn) ?? null;
    },

    FindBooks({ text, genre, limit }, context) {
      authorize(context);
      const needle = (text ?? "").toLowerCase();
      return [...books.values()]
        .filter(
          (book) =>
            (genre == null || book.Genre === genre) && (book.Title ?? "").toLowerCase().includes(needle),
        )
        .sort((a, b) => ((a.Title ?? "") < (b.Title ?? "") ? -1 : (a.Title ?? "") > (b.Title ?? "") ? 1 : 0))
        .slice(0, limit);
    },

    CountByGenre({ genres }, context) {
      authorize(context);
      return (genres ?? []).map((genre) => {
        let count = 0;
        for (const book of books.values()) if (book.Genre === genre) count++;
        return count;
      });
    },

    Genres(_params, context) {
      authorize(context);
      const present = new Set([...books.values()].map((book) => book.Genre));
      return GENRES.filter((genre) => present.has(genre));
    },

    Titles({ isbns }, context) {
      authorize(context);
      const titles: string[] = [];
      for (const isbn of isbns ?? []) {
        if (isbn === null) continue; // a nil item of the ArrayOfString
        const title = books.get(isbn)?.Title;
        if (title !== undefined) titles.push(title);
      }
      return titles;
    },

    Lend({ isbn, reader, due }, context) {
      authorize(context);
      const book = bookOf(isbn);
      if (lentCopies(isbn) >= book.Copies) {
        throw new ServiceError("NoCopyAvailable", `Every copy of ${isbn} is on loan.`, { side: "server" });
      }
      const loan: Loan = { Id: randomUUID(), Isbn: isbn, Reader: reader, State: "OnLoan", Due: due ?? null };
      loans.set(loan.Id, { loan, state: "OnLoan" });
      return loan;
    },

    Return({ loanId }, context) {
      authorize(context);
      const stored = loans.get(loanId.toLowerCase());
      if (!stored) throw clientError("UnknownLoan", `No loan has the id ${loanId}.`, { parameter: "loanId" });
      stored.state = "Available";
      return stored.state;
    },

    IsOnLoan({ isbn }, context) {
      authorize(context);
      return lentCopies(isbn) >= bookOf(isbn).Copies;
    },

    ClearLoans(_params, context) {
      authorize(context);
      loans.clear();
    },

    RecordVisit({ reader }, context) {
      authorize(context);
      visits.push(reader ?? "");
      options.onVisit?.(reader ?? "");
    },
  };
}
