// The client reads and writes scalars through tables of its own (runtime/values.ts), filled by the generated
// model with the readers of its results' types and the writers of its parameters' (registerClientCodecs),
// so a client bundle carries no other codec. Until a type is registered the client refuses it with a
// TypeError that says what to register; parseValue and formatValue (the server's) hold every core codec.
// (A module of its own: the registration is module state.)

import { describe, expect, it } from "vitest";
import {
  clientFormat,
  clientParse,
  formatValue,
  parseInt64,
  parseValue,
  registerAllClientCodecs,
  registerClientCodecs,
} from "../../runtime/values.js";

describe("the client's codecs", () => {
  it("refuse a type nobody registered, naming what to register; the server's tables have it", () => {
    expect(() => clientParse("long", "1")).toThrow(/no client codec for long: registerClientCodecs .* or registerAllClientCodecs/);
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
});
