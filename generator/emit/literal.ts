// Prints plain data as a TypeScript expression, with Code nodes for references to other declarations. The
// output is one line; prettier lays it out.

export class Code {
  constructor(readonly text: string) {}
}

/** A reference or other expression written as is. */
export function code(text: string): Code {
  return new Code(text);
}

/** `...name` inside an array. */
export function spread(expression: string): Code {
  return new Code(`...${expression}`);
}

export function literal(value: unknown): string {
  if (value instanceof Code) return value.text;
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "number":
      if (!Number.isFinite(value)) throw new Error(`literal: cannot print ${value}`);
      return String(value);
    case "object": {
      if (value === null) return "null";
      const entries = Object.entries(value).filter(([, v]) => v !== undefined);
      return `{ ${entries.map(([k, v]) => `${objectKey(k)}: ${literal(v)}`).join(", ")} }`;
    }
    default:
      throw new Error(`literal: cannot print a ${typeof value}`);
  }
}

/** A property name as an interface member or an object literal key (for the latter, see objectKey). */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * A key of an object literal. `__proto__` (bare or quoted) in a literal would set the object's prototype, not
 * make a key (a parameter's doc under that name would vanish), so it is written as a computed key.
 */
function objectKey(name: string): string {
  return name === "__proto__" ? '["__proto__"]' : propertyKey(name);
}
