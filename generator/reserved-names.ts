// Names the generated TypeScript cannot give to a spec element as is. One place, so that validate (which refuses
// what cannot be renamed) and the emitters (which rename what can) agree. See README "Names in the spec".
//
// Rules:
// - A record or enum is declared in generated/types.ts under its own name unless that name is reserved here
//   (a JavaScript reserved word, a TypeScript type keyword, a global of JavaScript, the web platform, Node or
//   the TypeScript libraries); then an underscore is appended
//   (`Date` → `Date_`, `Error` → `Error_`). Its XML name on the wire stays as written.
// - A service name, an operation name and a parameter name are never renamed; validate refuses the few that
//   would break the output (see validate-names.ts), and validate-semantics refuses records named like the
//   generator's own types (OperationTypes, DataSetResult).

/** JavaScript reserved words and TypeScript keywords that cannot name an interface or a type alias. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
  "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null",
  "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with",
  "implements", "interface", "let", "package", "private", "protected", "public", "static", "yield", "await",
  "any", "unknown", "never", "object", "string", "number", "boolean", "symbol", "bigint", "undefined", "type",
  "keyof", "infer", "readonly", "declare", "module", "namespace", "global", "asserts", "is", "as", "satisfies",
  "abstract", "async", "accessor", "out", "intrinsic", "arguments", "eval",
]);

/**
 * Globals a generated module could mean by the name: JavaScript's, the web platform's and Node's values and
 * types, and the TypeScript libraries' type-only names. A module-level declaration of one of them would
 * shadow it in that module (and in every module importing it).
 */
export const GLOBAL_NAMES: ReadonlySet<string> = new Set([
  // ECMAScript
  "Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "Promise", "RegExp",
  "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
  "JSON", "Math", "Intl", "Reflect", "Proxy", "Atomics", "Map", "Set", "WeakMap", "WeakSet", "WeakRef",
  "FinalizationRegistry", "ArrayBuffer", "SharedArrayBuffer", "DataView", "Int8Array", "Uint8Array",
  "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array",
  "BigInt64Array", "BigUint64Array", "Iterator", "AsyncIterator", "Generator", "AsyncGenerator", "GeneratorFunction",
  "Infinity", "NaN", "globalThis", "parseInt", "parseFloat", "isNaN", "isFinite", "decodeURI", "decodeURIComponent",
  "encodeURI", "encodeURIComponent", "escape", "unescape", "WebAssembly", "DisposableStack", "AsyncDisposableStack",
  "SuppressedError",
  // Web platform and Node globals
  "console", "fetch", "Request", "Response", "Headers", "FormData", "Blob", "File", "URL", "URLSearchParams",
  "TextEncoder", "TextDecoder", "AbortController", "AbortSignal", "Event", "EventTarget", "CustomEvent",
  "DOMException", "DOMParser", "XMLSerializer", "Document", "Element", "Node", "Text", "Attr", "Window", "Location",
  "Navigator", "Storage", "Worker", "MessageChannel", "MessagePort", "MessageEvent", "BroadcastChannel",
  "ReadableStream", "WritableStream", "TransformStream", "CompressionStream", "DecompressionStream", "Crypto",
  "CryptoKey", "SubtleCrypto", "Performance", "WebSocket", "XMLHttpRequest", "Image", "Option", "Audio",
  "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate", "queueMicrotask",
  "structuredClone", "atob", "btoa", "performance", "crypto", "navigator", "document", "window", "self", "location",
  "history", "localStorage", "sessionStorage", "Buffer", "process", "global", "require", "module", "exports",
  "__dirname", "__filename", "NodeJS",
  // TypeScript library types
  "Partial", "Required", "Readonly", "Record", "Pick", "Omit", "Exclude", "Extract", "NonNullable", "Parameters",
  "ConstructorParameters", "ReturnType", "InstanceType", "ThisParameterType", "OmitThisParameter", "ThisType",
  "Uppercase", "Lowercase", "Capitalize", "Uncapitalize", "Awaited", "NoInfer", "PropertyKey",
  "PropertyDescriptor", "PropertyDescriptorMap", "TypedPropertyDescriptor", "PromiseLike", "PromiseConstructor",
  "ArrayLike", "ReadonlyArray", "ReadonlyMap", "ReadonlySet", "Iterable", "IterableIterator", "IteratorResult",
  "AsyncIterable", "AsyncIterableIterator", "TemplateStringsArray", "IArguments", "CallableFunction",
  "NewableFunction", "ArrayBufferLike", "ArrayBufferView", "ClassDecorator", "MethodDecorator", "PropertyDecorator",
  "ParameterDecorator", "Disposable", "AsyncDisposable", "WeakKey", "ErrorOptions",
]);

/** Whether a record or enum must be renamed in TypeScript. */
export function isReservedTypeName(name: string): boolean {
  return RESERVED_WORDS.has(name) || GLOBAL_NAMES.has(name);
}

/**
 * The TypeScript name of a record or enum: its own, or with an underscore appended when that is reserved
 * (`Date` → `Date_`). Its XML name is unchanged.
 */
export function typeScriptTypeName(name: string): string {
  return isReservedTypeName(name) ? `${name}_` : name;
}

/** Names an object inherits from Object.prototype: a plain object's property of one of them is not its own. */
export const OBJECT_PROTOTYPE_NAMES: ReadonlySet<string> = new Set([
  "__proto__", "constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
  "propertyIsEnumerable", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
]);

/**
 * XML's NCName (Namespaces in XML 1.0: a Name without colons, XML 1.0 fifth edition character classes):
 * what an element name of the wire must be.
 */
const NAME_START =
  "A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D" +
  "\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const NCNAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`, "u");

export function isNCName(name: string): boolean {
  return NCNAME.test(name);
}

/** A JavaScript identifier (ASCII letters, digits, `_` and `$`, not starting with a digit). */
export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
}
