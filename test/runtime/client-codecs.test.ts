// The client reads and writes scalars through tables of its own (runtime/codec/values.ts), filled by the generated
// model with the readers of its results' types and the writers of its parameters' (registerClientCodecs),
// so a client bundle carries no other codec. Until a type is registered the client refuses it with a
// TypeError that says what to register; parseValue and formatValue (the server's) hold every core codec.
// (A module of its own: the registration is module state.)

import { describe, expect, it } from "vitest";
import {
  clientFormat,
  clientFormatDateTime,
  clientParse,
  clientParseDateTime,
  formatDateTime,
  formatValue,
  parseDateTime,
  parseInt64,
  parseValue,
  registerAllClientCodecs,
  registerClientCodecs,
} from "../../runtime/codec/values.js";

describe("the client's codecs", () => {
  it("refuse a type nobody registered, naming what to register; the server's tables have it", () => {
    expect(() => clientParse("long", "1")).toThrow(
      "no client codec for long (registerClientCodecs; registerAllClientCodecs for a run-time model)",
    );
    expect(() => clientFormat("long", 1n)).toThrow(TypeError);
    expect(parseValue("long", "1")).toBe(1n);
    expect(formatValue("long", 1n)).toBe("1");
  });

  it("read what was registered, one direction at a time", () => {
    registerClientCodecs({ long: parseInt64 }, {});
    expect(clientParse("long", " 42 ")).toBe(42n);
    expect(() => clientFormat("long", 1n)).toThrow(/no client codec for long/);
    expect(() => clientParse("long", "x")).toThrow("is not a whole number");
  });

  it("registerAllClientCodecs adds every core codec", () => {
    registerAllClientCodecs();
    expect(clientFormat("double", 1e21)).toBe("1E+21");
    expect(clientParse("boolean", "1")).toBe(true);
  });

  it("clientParseDateTime and clientFormatDateTime give parseDateTime's and formatDateTime's verdicts and messages", () => {
    const verdict = (run: () => unknown): unknown => {
      try {
        return run();
      } catch (error) {
        return (error as Error).message;
      }
    };
    const texts = [
      "2024-05-06T07:08:09",
      " 2024-05-06T07:08:09Z ",
      "2024-05-06T07:08:09+14:00",
      "2024-05-06T07:08:09+14:01",
      "2024-05-06T07:08:09.123-05:30",
      "2024-02-29T00:00:00",
      "2023-02-29T00:00:00",
      "2024-05-06T24:00:00",
      "0000-01-01T00:00:00",
      "0001-01-01T00:00:00",
      "10000-01-01T00:00:00",
      "-0001-01-01T00:00:00",
      "2024-05-06",
      "2024-05-06T07:08:09ZZ",
      "",
    ];
    for (const text of texts) {
      expect(verdict(() => clientParseDateTime(text))).toEqual(verdict(() => parseDateTime(text)));
      expect(verdict(() => clientFormatDateTime(text))).toEqual(verdict(() => formatDateTime(text)));
    }
    for (const value of [
      new Date(Date.UTC(2024, 4, 6, 7, 8, 9)),
      new Date(Number.NaN),
      new Date(Date.UTC(10000, 0, 1)),
      1,
      null,
    ]) {
      expect(verdict(() => clientFormatDateTime(value))).toEqual(verdict(() => formatDateTime(value)));
    }
  });
});
